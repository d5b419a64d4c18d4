"""A founder's business records: the business settings, the payout destination and the
task list (spec 2.11, 2.17; decisions.md "Desk, tasks and settings").

Settings and payout are one row per founder, keyed by owner ("session:<id>" or
"account:<id>", services/ownership.py), so saving again updates the row and two saves at
once still leave one. The payout destination never holds the whole account: only its
masked form, its last four characters and a keyed fingerprint (to tell a new account from
the same one saved again).
"""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class BusinessSettings(BaseModel):
    OFF, DRAFT, AUTO = "off", "draft", "auto"
    AI_EMAIL_MODES = (OFF, DRAFT, AUTO)

    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    business_name = pw.CharField(max_length=80, null=True)
    support_email_local = pw.CharField(max_length=64, null=True)
    default_canned_subject = pw.CharField(max_length=150, null=True)
    default_canned_body = pw.TextField(null=True)
    ai_email_mode = pw.CharField(max_length=8, default=OFF)
    # The percent of the founder's `support` allowance their store's visitors' questions may use.
    public_support_share = pw.IntegerField(default=50)
    # The founder's statements of their policy (services/founder_statements.py): theirs to
    # state, so the store, the desk and the assistant say them as the business's policy.
    return_days = pw.IntegerField(null=True)
    free_returns = pw.BooleanField(default=False)
    shipping_days_min = pw.IntegerField(null=True)
    shipping_days_max = pw.IntegerField(null=True)
    guarantee = pw.CharField(max_length=200, null=True)
    ships_to = pw.CharField(max_length=200, null=True)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "business_settings"


class PayoutDestination(BaseModel):
    BANK, PAYPAL = "bank", "paypal"
    METHODS = (BANK, PAYPAL)

    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    method = pw.CharField(max_length=8)
    holder = pw.CharField(max_length=120)
    account_masked = pw.CharField(max_length=80)  # "•••• 1234" or "j•••@•••.com"
    last4 = pw.CharField(max_length=4)
    fingerprint = pw.CharField(max_length=64)  # HMAC-SHA256 of the normalised account, keyed by SECRET_KEY
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "payout_destination"


class Todo(BaseModel):
    """One task: the founder's own, or a launch step the service added (`fact_id` names the
    launch fact; one row per owner and fact, kept when deleted so it is not added again)."""

    FOUNDER, LAUNCH = "founder", "launch"
    ADS = "ads"  # the service telling the founder it paused their ads (services/growth/delivery.py)

    id = pw.BigAutoField()
    owner = pw.CharField(max_length=40)
    session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    text = pw.CharField(max_length=300)
    source = pw.CharField(max_length=8, default=FOUNDER)
    fact_id = pw.CharField(max_length=40, null=True)
    done = pw.BooleanField(default=False)
    deleted = pw.BooleanField(default=False)
    created_at = pw.DateTimeField(default=utcnow)
    completed_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "todo"
        indexes = ((("owner", "fact_id"), True), (("owner", "deleted", "done"), False))
