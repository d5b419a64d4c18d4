"""Accounts remember when their plan last changed, so an older billing event arriving late
cannot roll a newer plan back."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("account", "plan_changed_at", pw.DateTimeField(null=True)))
