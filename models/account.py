"""Accounts and everything that hangs off them: sign-in tokens, milestones, referral
codes and referrals, the credit meter's counters, and billing events."""
import peewee as pw

from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class Account(BaseModel):
    FREE, PRO, MAX5, MAX20 = "free", "pro", "max5", "max20"
    TIERS = (FREE, PRO, MAX5, MAX20)

    id = pw.BigAutoField()
    email = pw.CharField(max_length=320, unique=True)  # stored lower-cased: one account per address
    verified = pw.BooleanField(default=False)  # set once, on first redemption; never re-derived
    verified_at = pw.DateTimeField(null=True)
    tier = pw.CharField(max_length=16, default=FREE)
    term_ends_at = pw.DateTimeField(null=True)  # a paid tier past this reads as free
    plan_changed_at = pw.DateTimeField(null=True)  # when the provider made the plan change in force
    source = pw.CharField(max_length=120, default="web")
    created_at = pw.DateTimeField(default=utcnow)


class SignInToken(BaseModel):
    ENGINE = "engine"  # redeemed at GET /login
    PRODUCT = "product"  # redeemed at GET /api/auth/callback

    id = pw.BigAutoField()
    token_hash = pw.CharField(max_length=64, unique=True)  # sha256 of the token; the token is never stored
    account = pw.ForeignKeyField(Account, on_delete="CASCADE")
    requested_by = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+")
    surface = pw.CharField(max_length=16, default=ENGINE)
    return_to = pw.CharField(max_length=500, null=True)
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField()
    mailed_at = pw.DateTimeField(null=True)
    spent_at = pw.DateTimeField(null=True)
    spent_by = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+")
    guest_id = pw.CharField(max_length=32, null=True)  # a guest's generated pages, upgraded on redemption (m0035)

    class Meta:
        indexes = ((("account", "created_at"), False),)


class SignInConfirmation(BaseModel):
    """A sign-in link opened in a browser other than the one that asked for it, while that
    browser had work of its own or another account: nothing is switched until the founder
    confirms on the app's screen (one use, a few minutes). Only the code's hash is stored."""

    id = pw.BigAutoField()
    code_hash = pw.CharField(max_length=64, unique=True)
    token = pw.ForeignKeyField(SignInToken, on_delete="CASCADE", backref="+")
    session = pw.ForeignKeyField(Session, on_delete="CASCADE", backref="+")  # the browser it was opened in
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField()
    spent_at = pw.DateTimeField(null=True)


class Milestone(BaseModel):
    """A step of the journey reached once (find_served, shown_field, account_saved, ...),
    by a session or by an account."""

    id = pw.BigAutoField()
    session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", backref="+")
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+")
    name = pw.CharField(max_length=60)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("session", "name"), True), (("account", "name"), True))


class ReferralCode(BaseModel):
    """The code in a founder's coded link: made for the session that shares, and moved to
    its account when the session is bound; settled for every account on first sign-in."""

    code = pw.CharField(max_length=32, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, unique=True, on_delete="SET NULL", backref="+")
    account = pw.ForeignKeyField(Account, null=True, index=True, on_delete="CASCADE", backref="+")
    created_at = pw.DateTimeField(default=utcnow)


class Referral(BaseModel):
    """A friend who signed up through a code; it qualifies once the friend reaches the dashboard."""

    id = pw.BigAutoField()
    code = pw.ForeignKeyField(ReferralCode, on_delete="CASCADE", backref="referrals")
    friend = pw.ForeignKeyField(Account, unique=True, on_delete="CASCADE", backref="+")
    joined_at = pw.DateTimeField(default=utcnow)
    qualified_at = pw.DateTimeField(null=True)


class MeterUsage(BaseModel):
    """Credits used by an account in one bucket, in its current 5-hour and weekly windows.
    Both windows live on one row so one conditional UPDATE checks and spends both."""

    account = pw.ForeignKeyField(Account, on_delete="CASCADE", backref="+")
    bucket = pw.CharField(max_length=32)
    window_5h = pw.BigIntegerField(default=0)  # epoch seconds // 18000
    used_5h = pw.IntegerField(default=0)
    window_week = pw.BigIntegerField(default=0)  # epoch seconds // 604800
    used_week = pw.IntegerField(default=0)

    class Meta:
        primary_key = pw.CompositeKey("account", "bucket")


class BillingEvent(BaseModel):
    """A billing provider event applied once (its id makes replays harmless)."""

    event_id = pw.CharField(max_length=200, primary_key=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="SET NULL", backref="+")
    tier = pw.CharField(max_length=16)
    received_at = pw.DateTimeField(default=utcnow)
