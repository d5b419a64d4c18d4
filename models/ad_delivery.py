"""Ads that run (issue 49): each campaign of a founder's book launched on the ad platform,
what it delivered day by day, and the sandbox platform's own record of what it was asked.

- AdCampaignRun: one per campaign ever launched, keyed by the campaign's `key` (a random id
  the book gives a campaign when it first goes active, which survives the renumbering a
  sign-in merge makes), with the platform's id of it, whether it runs there, why we paused it,
  and the last day whose delivery was reported.
- AdDeliveryDay: what the platform reported for one campaign and one UTC day; unique per run
  and day, and its `key` is the debit's idempotency key in the ad ledger (ad_ledger.delivery),
  so a report delivered twice, or by five workers at once, debits once.
- AdSandboxCampaign: what the sandbox platform (integrations/ads/sandbox.py) was asked to
  run, and when it ran, from which it delivers deterministically.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class AdCampaignRun(BaseModel):
    RUNNING, PAUSED = "running", "paused"
    # Why the service paused it (the founder's own pause leaves `paused_because` null).
    BALANCE, BARS, REFUSED = "balance", "bars", "refused"

    id = pw.BigAutoField()
    key = pw.CharField(max_length=32, unique=True)  # the book campaign's key
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    platform = pw.CharField(max_length=10)  # the AD_PLATFORM it was launched on
    book_platform = pw.CharField(max_length=10)  # meta or google: the creative and bars it runs with
    platform_ref = pw.CharField(max_length=64, null=True)  # null until the platform answered the launch
    state = pw.CharField(max_length=8, default=RUNNING)
    paused_because = pw.CharField(max_length=8, null=True)
    daily_budget_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    ctr_min_pct = pw.FloatField()
    cpc_max_minor = pw.BigIntegerField()
    flagged = pw.BooleanField(default=False)  # below its bars after MIN_IMPRESSIONS
    launched_at = pw.DateTimeField(default=utcnow)
    paused_at = pw.DateTimeField(null=True)
    reported_through = pw.DateField(null=True)  # the last day whose delivery is recorded
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad_campaign_run"


class AdDeliveryDay(BaseModel):
    id = pw.BigAutoField()
    run = pw.ForeignKeyField(AdCampaignRun, on_delete="CASCADE", backref="+")
    day = pw.DateField()
    impressions = pw.BigIntegerField()
    clicks = pw.BigIntegerField()
    spend_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    key = pw.CharField(max_length=120, unique=True)  # platform:platform_ref:day, the debit's key
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad_delivery_day"
        indexes = ((("run", "day"), True),)


class AdSandboxCampaign(BaseModel):
    id = pw.CharField(max_length=32, primary_key=True)  # the sandbox's campaign id (platform_ref)
    reference = pw.CharField(max_length=64, unique=True)  # ours, as launched: a second launch finds it
    launch = JSONField()  # what it was asked to run: budget, currency, bars, objective
    running = JSONField(default=list)  # [[from ISO, to ISO or null], ...]: when it ran
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad_sandbox_campaign"
