"""Generated pages, and the guest id a product-surface sign-in link carries (issue 27)."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Page(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        guest_id = pw.CharField(max_length=32, null=True, index=True)
        kind = pw.CharField(max_length=12)
        intent = pw.TextField()
        product_id = pw.CharField(max_length=120)
        title = pw.CharField(max_length=200)
        document = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "page"

    db.create_tables([Page])
    migrate(SchemaMigrator.from_database(db).add_column("sign_in_token", "guest_id",
                                                        pw.CharField(max_length=32, null=True)))
