"""Fix mails only an address that asked for it (issue 44): fix_run.mail (whether the run's
address may be mailed), fix_mail_link (one-time links an address confirms, by the SHA-256 of
their token) and fix_mail_day (the Fix mails each address was sent each day). Runs there
before have no mail state, so nothing more is mailed for them: nobody confirmed their
address."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class FixRun(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "fix_run"

    class FixMailLink(Base):
        id = pw.BigAutoField()
        token_hash = pw.CharField(max_length=64, unique=True)
        run = pw.ForeignKeyField(FixRun, on_delete="CASCADE", index=True)
        created_at = pw.DateTimeField()
        expires_at = pw.DateTimeField()
        spent_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "fix_mail_link"

    class FixMailDay(Base):
        email = pw.CharField(max_length=254)
        day = pw.DateField()
        kind = pw.CharField(max_length=12)
        sent = pw.IntegerField(default=0)

        class Meta:
            table_name = "fix_mail_day"
            primary_key = pw.CompositeKey("email", "day", "kind")

    db.create_tables([FixMailLink, FixMailDay])
    migrate(SchemaMigrator.from_database(db).add_column("fix_run", "mail", pw.CharField(max_length=16, null=True)))
