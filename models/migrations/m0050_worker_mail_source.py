"""worker_beat.mail_source: the inbound mail each worker process reads ("imap", or a folder
and whether it is declared shared), so /api/health can tell that workers on several hosts
read folders of their own (services/health.py). Rows there before read as unknown until
their worker's next beat."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("worker_beat", "mail_source", pw.TextField(null=True)))
