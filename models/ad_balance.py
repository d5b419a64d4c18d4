"""The founder's ad balance (GET, POST /api/adbalance): top-ups paid through the payment
provider, and the ledger the balance is read from.

An AdTopup is opened (with its Payment, purpose `ad_topup`) before the founder leaves for
the provider's page; it turns `paid` in the transaction that marks its payment paid, and
that transaction writes its one ledger entry (`topup` is unique there, so a top-up can
never be credited twice). The balance is the sum of the owner's ledger entries, so a
session's entries joining its account on sign-in need no second number kept in step.
"""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel
from models.payment import Payment
from models.session import Session


class AdTopup(BaseModel):
    OPEN, PAID, FAILED, EXPIRED = Payment.OPEN, Payment.PAID, Payment.FAILED, Payment.EXPIRED

    id = pw.CharField(max_length=32, primary_key=True)  # the topup_id the founder is shown
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    payment = pw.CharField(max_length=32, unique=True)
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    state = pw.CharField(max_length=12, default=OPEN)
    created_at = pw.DateTimeField(default=utcnow)
    paid_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "ad_topup"


class AdLedgerEntry(BaseModel):
    """One movement of an ad balance: a top-up's credit, or a day's spend of a campaign
    (negative; `delivery` is that day's report key, unique, so a report debits once)."""

    TOPUP, SPEND = "topup", "spend"
    KINDS = (TOPUP, SPEND)

    id = pw.BigAutoField()
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    kind = pw.CharField(max_length=16)
    amount_minor = pw.BigIntegerField()  # positive: money in; negative: spent
    currency = pw.CharField(max_length=3)
    topup = pw.CharField(max_length=32, null=True, unique=True)  # a top-up is credited once
    delivery = pw.CharField(max_length=120, null=True, unique=True)  # a day's spend is debited once
    campaign = pw.CharField(max_length=32, null=True)  # the spending campaign's key
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad_ledger"
