"""Money the service asked a payment provider to collect, and what it was for.

A Payment is one checkout at the provider: what it is for (`purpose` and `subject`), the
amount, and what the provider last said. It turns `paid` once, by a conditional UPDATE in
the transaction that also does what the payment was for (credit revenue, connect a
domain, mark a sample ordered, set a plan), so a confirmation replayed any number of
times does that once.

A paid payment whose purpose could not be fulfilled (a domain another store connected
first) owes a refund: `refund_state` follows it from `due` through `refunding` (one caller
is asking the provider) to what the provider answered, `pending` or `refunded`; a refund
the provider refused, failed or canceled is `due` again (the next attempt, after a pause)
until the attempts run out, then `failed` for a person to look at. NULL: no refund owed.
`error` is only about the payment (why it could not start, what the last check met).

Customer orders and the revenue they bring live here too: an order is opened against a
published store before the customer leaves for the provider, and a paid order writes one
RevenueCredit (unique per payment) and adds to its store's RevenueTotal in the same
transaction. GET /api/revenue reads the totals, so its cost does not grow with orders.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class Payment(BaseModel):
    OPEN, PAID, FAILED, EXPIRED = "open", "paid", "failed", "expired"
    STATES = (OPEN, PAID, FAILED, EXPIRED)
    # What a payment buys.
    ORDER, SAMPLE, DOMAIN, UPGRADE, AD_TOPUP = "order", "sample", "domain", "upgrade", "ad_topup"
    PURPOSES = (ORDER, SAMPLE, DOMAIN, UPGRADE, AD_TOPUP)
    # A refund owed (refund_state; NULL when none is).
    REFUND_DUE, REFUNDING, REFUND_PENDING, REFUNDED, REFUND_FAILED = "due", "refunding", "pending", "refunded", "failed"
    REFUND_STATES = (REFUND_DUE, REFUNDING, REFUND_PENDING, REFUNDED, REFUND_FAILED)

    id = pw.CharField(max_length=32, primary_key=True)
    purpose = pw.CharField(max_length=16)  # one of PURPOSES ("ad_topup", the longest, is 8)
    subject = pw.CharField(max_length=64)  # the order, sample, domain order, tier or ad top-up it pays for
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
    refund_state = pw.CharField(max_length=12, null=True)
    # The attempt under way (1, 2...): it names the idempotency key, so asking again within
    # one attempt replays the provider's first answer; a refused, failed or canceled
    # refund moves to the next attempt.
    refund_attempt = pw.IntegerField(default=0)
    refund_ref = pw.CharField(max_length=255, null=True)  # the provider's refund id, once it answered one
    refund_error = pw.CharField(max_length=255, null=True)  # the provider's last "no", and why
    refund_requested_at = pw.DateTimeField(null=True)  # when the refund became due
    # When refund_state last changed or the provider last answered for it: a `refunding`
    # row left unchanged for minutes is a caller that died, re-asked by the clock.
    refund_updated_at = pw.DateTimeField(null=True)
    refund_retry_at = pw.DateTimeField(null=True)  # a `due` refund waits for this before the next attempt

    class Meta:
        table_name = "payment"
        indexes = ((("purpose", "subject"), False),)


# The clock's refund re-check walks only the payments that owe one (migration m0023).
Payment.add_index(Payment.index(Payment.refund_state, Payment.refund_updated_at, name="payment_refund_open")
                  .where(Payment.refund_state.is_null(False)))


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
    # The utm_campaign of the link the customer arrived by (an ad campaign's key), if any.
    campaign = pw.CharField(max_length=64, null=True, index=True)
    created_at = pw.DateTimeField(default=utcnow)
    paid_at = pw.DateTimeField(null=True)
    # Where to ship it: the address the provider's page collected, stored when the payment
    # is confirmed (NULL: none was collected; orders from before m0025).
    ship_name = pw.CharField(max_length=200, null=True)
    ship_line1 = pw.CharField(max_length=200, null=True)
    ship_line2 = pw.CharField(max_length=200, null=True)
    ship_city = pw.CharField(max_length=100, null=True)
    ship_region = pw.CharField(max_length=100, null=True)
    ship_postal_code = pw.CharField(max_length=20, null=True)
    ship_country = pw.CharField(max_length=2, null=True)
    # The mail after a sale (services/commerce/order_mail.py): when the customer's receipt
    # and the founder's notice went out; `receipt_error` when the mail server refused the
    # customer's address for good.
    receipt_sent_at = pw.DateTimeField(null=True)
    receipt_error = pw.CharField(max_length=40, null=True)
    notice_sent_at = pw.DateTimeField(null=True)

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
    refunded_minor = pw.BigIntegerField(default=0)  # by refunds pending or succeeded
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField()
    settled_at = pw.DateTimeField(null=True)
    # The countries its page offers for a shipping address (NULL: it collects none), and
    # the address the customer gave when paying ({name, line1, line2, city, region,
    # postal_code, country}).
    shipping_countries = JSONField(null=True)
    shipping = JSONField(null=True)
    # The shop closed it before it was paid (its product was paused or retired): expired, and
    # its page says the shop closed it (`sandbox_bank.close`).
    closed_by_shop = pw.BooleanField(default=False)

    class Meta:
        table_name = "sandbox_checkout"


class SandboxRefund(BaseModel):
    """A refund the sandbox provider made (integrations/payments/sandbox_bank.py): one per
    idempotency key, so a refund asked again under its key answers this one. Nothing but
    the sandbox reads or writes it."""

    # The seam's refund states (integrations/payments REFUND_*).
    PENDING, SUCCEEDED, FAILED, CANCELED = "pending", "succeeded", "failed", "canceled"

    id = pw.CharField(max_length=40, primary_key=True)  # "re_sbx_..."
    key = pw.CharField(max_length=255, unique=True)
    checkout = pw.CharField(max_length=40, index=True)
    payment_ref = pw.CharField(max_length=40)
    amount_minor = pw.BigIntegerField()
    state = pw.CharField(max_length=12)
    failure_reason = pw.CharField(max_length=60, null=True)
    created_at = pw.DateTimeField(default=utcnow)
    settled_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "sandbox_refund"


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
    sku = pw.CharField(max_length=120, null=True)  # with supplier, the offer line bought from
    name = pw.CharField(max_length=300, null=True)  # what the line offers (null before m0024)
    offers_product_id = pw.CharField(max_length=120, null=True)  # the feed's product id of the line
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
