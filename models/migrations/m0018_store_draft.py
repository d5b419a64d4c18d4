"""Store versions form a history the editor walks: each version names the one it was made
from (`parent`), and the store its draft (the version the editor shows and publishes)."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("store", "draft_version", pw.IntegerField(null=True)),
            migrator.add_column("store_version", "parent", pw.IntegerField(null=True)))
