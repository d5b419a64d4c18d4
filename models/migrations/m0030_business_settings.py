"""Business settings, the payout destination and the task list (issue 25)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class BusinessSettings(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        business_name = pw.CharField(max_length=80, null=True)
        support_email_local = pw.CharField(max_length=64, null=True)
        default_canned_subject = pw.CharField(max_length=150, null=True)
        default_canned_body = pw.TextField(null=True)
        ai_email_mode = pw.CharField(max_length=8, default="off")
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "business_settings"

    class PayoutDestination(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        method = pw.CharField(max_length=8)
        holder = pw.CharField(max_length=120)
        account_masked = pw.CharField(max_length=80)
        last4 = pw.CharField(max_length=4)
        fingerprint = pw.CharField(max_length=64)
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "payout_destination"

    class Todo(Base):
        id = pw.BigAutoField()
        owner = pw.CharField(max_length=40)
        session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        text = pw.CharField(max_length=300)
        source = pw.CharField(max_length=8, default="founder")
        fact_id = pw.CharField(max_length=40, null=True)
        done = pw.BooleanField(default=False)
        deleted = pw.BooleanField(default=False)
        created_at = pw.DateTimeField()
        completed_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "todo"
            indexes = ((("owner", "fact_id"), True), (("owner", "deleted", "done"), False))

    db.create_tables([BusinessSettings, PayoutDestination, Todo])
