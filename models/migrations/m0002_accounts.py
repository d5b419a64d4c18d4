"""Accounts, sign-in tokens, milestones, referrals, the credit meter and billing events;
sessions gain the account they are bound to and the referral code they arrived with."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()
        email = pw.CharField(max_length=320, unique=True)
        verified = pw.BooleanField()
        verified_at = pw.DateTimeField(null=True)
        tier = pw.CharField(max_length=16)
        term_ends_at = pw.DateTimeField(null=True)
        source = pw.CharField(max_length=120)
        created_at = pw.DateTimeField()

    class SignInToken(Base):
        id = pw.BigAutoField()
        token_hash = pw.CharField(max_length=64, unique=True)
        account = pw.ForeignKeyField(Account, on_delete="CASCADE")
        requested_by = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL")
        surface = pw.CharField(max_length=16)
        return_to = pw.CharField(max_length=500, null=True)
        created_at = pw.DateTimeField()
        expires_at = pw.DateTimeField()
        mailed_at = pw.DateTimeField(null=True)
        spent_at = pw.DateTimeField(null=True)
        spent_by = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL")

        class Meta:
            indexes = ((("account", "created_at"), False),)

    class Milestone(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE")
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE")
        name = pw.CharField(max_length=60)
        created_at = pw.DateTimeField()

        class Meta:
            indexes = ((("session", "name"), True), (("account", "name"), True))

    class ReferralCode(Base):
        code = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, unique=True, on_delete="SET NULL")
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE")
        created_at = pw.DateTimeField()

    class Referral(Base):
        id = pw.BigAutoField()
        code = pw.ForeignKeyField(ReferralCode, on_delete="CASCADE")
        friend = pw.ForeignKeyField(Account, unique=True, on_delete="CASCADE")
        joined_at = pw.DateTimeField()
        qualified_at = pw.DateTimeField(null=True)

    class MeterUsage(Base):
        account = pw.ForeignKeyField(Account, on_delete="CASCADE")
        bucket = pw.CharField(max_length=32)
        window_5h = pw.BigIntegerField()
        used_5h = pw.IntegerField()
        window_week = pw.BigIntegerField()
        used_week = pw.IntegerField()

        class Meta:
            primary_key = pw.CompositeKey("account", "bucket")

    class BillingEvent(Base):
        event_id = pw.CharField(max_length=200, primary_key=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="SET NULL")
        tier = pw.CharField(max_length=16)
        received_at = pw.DateTimeField()

    db.create_tables([Account, SignInToken, Milestone, ReferralCode, Referral, MeterUsage, BillingEvent])
    migrator = SchemaMigrator.from_database(db)
    migrate(
        migrator.add_column("session", "account_id", pw.ForeignKeyField(Account, null=True, on_delete="SET NULL", field=Account.id)),
        migrator.add_column("session", "bound_at", pw.DateTimeField(null=True)),
        migrator.add_column("session", "arrived_with_code", pw.CharField(max_length=32, null=True)),
    )
