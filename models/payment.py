"""Money the service asked a payment provider to collect, and what it was for.

A Payment is one checkout at the provider: what it is for (`purpose` and `subject`), the
amount, and what the provider last said. It turns `paid` once, by a conditional UPDATE in
the transaction that also does what the payment was for (credit revenue, connect a
domain, mark a sample ordered, set a plan), so a confirmation replayed any number of
times does that once.

Customer orders and the revenue they bring live here too: an order is opened against a
published store before the customer leaves for the provider, and a paid order writes one
RevenueCredit (unique per payment) and adds to its store's RevenueTotal in the same
transaction. GET /api/revenue reads the totals, so its cost does not grow with orders.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class Payment(BaseModel):
    OPEN, PAID, FAILED, EXPIRED = "open", "paid", "failed", "expired"
    STATES = (OPEN, PAID, FAILED, EXPIRED)
    # What a payment buys.
    ORDER, SAMPLE, DOMAIN, UPGRADE = "order", "sample", "domain", "upgrade"
    PURPOSES = (ORDER, SAMPLE, DOMAIN, UPGRADE)

    id = pw.CharField(max_length=32, primary_key=True)
    purpose = pw.CharField(max_length=16)
    subject = pw.CharField(max_length=64)  # the order, sample, domain order or tier it pays for
    # Who started it (a customer's session for an order; the founder otherwise).
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="SET NULL", backref="+", index=True)
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    provider = pw.CharField(max_length=16)
    provider_ref = pw.CharField(max_length=255, null=True, unique=True)  # the provider's checkout id
    checkout_url = pw.TextField(null=True)
    state = pw.CharField(max_length=12, default=OPEN)
    payment_ref = pw.CharField(max_length=255, null=True, unique=True)  # the provider's captured payment
    error = pw.CharField(max_length=60, null=True)  # why it could not start, or what the last check met
    created_at = pw.DateTimeField(default=utcnow)
    checked_at = pw.DateTimeField(null=True)
    paid_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "payment"
        indexes = ((("purpose", "subject"), False),)


class CustomerOrder(BaseModel):
    """A customer's order in a founder's published store."""

    OPEN, PAID, FAILED, EXPIRED = Payment.OPEN, Payment.PAID, Payment.FAILED, Payment.EXPIRED

    id = pw.CharField(max_length=32, primary_key=True)
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+")  # the customer's
    email = pw.CharField(max_length=320)
    quantity = pw.IntegerField()
    unit_price_minor = pw.BigIntegerField()
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    store_version = pw.IntegerField()  # the published version the customer bought from
    payment = pw.CharField(max_length=32, null=True, unique=True)
    state = pw.CharField(max_length=12, default=OPEN)
    created_at = pw.DateTimeField(default=utcnow)
    paid_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "customer_order"
        # A founder's orders, newest first (GET /api/tracking).
        indexes = ((("product", "created_at"), False),)


class RevenueCredit(BaseModel):
    """One credit per paid payment: the ledger behind the totals."""

    payment = pw.CharField(max_length=32, primary_key=True)
    order = pw.CharField(max_length=32, unique=True)
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    credited_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "revenue_credit"


class RevenueTotal(BaseModel):
    """Confirmed revenue of one store in one currency, kept with each credit."""

    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    currency = pw.CharField(max_length=3)
    confirmed_minor = pw.BigIntegerField(default=0)
    orders = pw.IntegerField(default=0)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "revenue_total"
        primary_key = pw.CompositeKey("product", "currency")


class SandboxCheckout(BaseModel):
    """The sandbox provider's own record of a checkout (integrations/payments/sandbox_bank.py).
    Nothing but the sandbox reads or writes it: the service knows only what the provider's
    answers say."""

    OPEN, PAID, FAILED, EXPIRED = Payment.OPEN, Payment.PAID, Payment.FAILED, Payment.EXPIRED

    id = pw.CharField(max_length=40, primary_key=True)  # "cs_sbx_..."
    reference = pw.CharField(max_length=64)
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    description = pw.CharField(max_length=300)
    customer_email = pw.CharField(max_length=320, null=True)
    success_url = pw.TextField()
    cancel_url = pw.TextField()
    logo_url = pw.TextField(null=True)
    state = pw.CharField(max_length=12, default=OPEN)
    payment_ref = pw.CharField(max_length=40, null=True)  # "pi_sbx_..." once paid
    refunded_minor = pw.BigIntegerField(default=0)
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField()
    settled_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "sandbox_checkout"


class SandboxNotification(BaseModel):
    """A notification the sandbox provider owes the service: the signed body it sends to the
    service's notification route, and whether that was delivered."""

    id = pw.CharField(max_length=40, primary_key=True)  # the event id, "evt_sbx_..."
    checkout = pw.CharField(max_length=40, index=True)
    type = pw.CharField(max_length=40)
    payload = pw.TextField()  # the exact bytes signed and sent
    delivered_at = pw.DateTimeField(null=True)
    attempts = pw.IntegerField(default=0)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "sandbox_notification"


class SampleOrder(BaseModel):
    """A physical sample a founder buys from a supplier (POST /api/samples/checkout)."""

    OPEN, PAID, FAILED, EXPIRED = Payment.OPEN, Payment.PAID, Payment.FAILED, Payment.EXPIRED

    id = pw.CharField(max_length=32, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    supplier = pw.CharField(max_length=200)
    sku = pw.CharField(max_length=120, null=True)
    quantity = pw.IntegerField()
    unit_cost_minor = pw.BigIntegerField()
    amount_minor = pw.BigIntegerField()
    currency = pw.CharField(max_length=3)
    payment = pw.CharField(max_length=32, null=True, unique=True)
    state = pw.CharField(max_length=12, default=OPEN)
    created_at = pw.DateTimeField(default=utcnow)
    paid_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "sample_order"
