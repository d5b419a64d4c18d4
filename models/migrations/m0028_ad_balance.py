"""The growth area's money side (issue 24, part B): the campaign book, ad top-ups and the
ad ledger the balance is read from."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class CampaignBook(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        campaigns = pw.TextField()
        next_id = pw.IntegerField()
        settings = pw.TextField()
        version = pw.IntegerField()
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "campaign_book"

    class AdTopup(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        payment = pw.CharField(max_length=32, unique=True)
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        state = pw.CharField(max_length=12)
        created_at = pw.DateTimeField()
        paid_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "ad_topup"

    class AdLedgerEntry(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        kind = pw.CharField(max_length=16)
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        topup = pw.CharField(max_length=32, null=True, unique=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "ad_ledger"

    db.create_tables([CampaignBook, AdTopup, AdLedgerEntry])
