"""Discovery: what the evidence gate needs per product, holds, claims, the claim allowance,
what each session was shown and passed on, share actions and watches.

The rows a founder makes carry the session that made them and, once the session is bound,
its account (adoption fills `account_id` in); a bound session sees its account's rows, an
anonymous one its own rows that no account has adopted.

Exclusivity lives in the schema: a hold is keyed by its product (one row per product,
taken over only by a conditional upsert once it has expired), and a claim's product is
unique.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class ProductGate(BaseModel):
    """What the evidence gate and the feed order need per product, computed when the product
    is loaded (services/evidence_gate.refresh), so a request never aggregates evidence."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    rank = pw.FloatField()  # a copy of product.rank, so one index serves the feed's filter and order
    margin_pct = pw.DecimalField(max_digits=16, decimal_places=2)
    evidence_count = pw.IntegerField()
    evidence_latest = pw.DateField(null=True)
    # The date of the N-th most recent evidence row (N = EVIDENCE_MIN_ROWS when computed);
    # null when the product has fewer rows. "At least N rows within D days" is then
    # gate_date >= today - D.
    gate_date = pw.DateField(null=True)
    # A token each refresh writes anew (uuid4 hex): the product's evidence as of that refresh.
    # Find and feed keep a card's trends under it (services/discovery/card_cache.py).
    evidence_version = pw.CharField(max_length=32, null=True)

    class Meta:
        table_name = "product_gate"


# The feed walks this index in order (rank high first, then product_id) and stops after a
# dozen rows that pass its filters, whatever the size of the catalog.
ProductGate.add_index(ProductGate.index(ProductGate.rank.desc(), ProductGate.product, name="product_gate_feed_order"))


class Hold(BaseModel):
    """A product held by a session for HOLD_MINUTES. One row per product: a live row
    (expires_at in the future) excludes everyone else; an expired row is free to take."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    session = pw.ForeignKeyField(Session, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    expires_at = pw.DateTimeField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "product_hold"


class Claim(BaseModel):
    """A claimed product: exclusive to its founder, for good."""

    id = pw.BigAutoField()
    product = pw.ForeignKeyField(Product, unique=True, on_delete="CASCADE", column_name="product_id", backref="+")
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "product_claim"


class ClaimAllowance(BaseModel):
    """A founder's claim allowance and claims made, one row per owner ("session:<id>" or
    "account:<id>"). A claim spends it with one conditional UPDATE in the claim's
    transaction, so concurrent claims cannot overrun it."""

    owner = pw.CharField(max_length=40, primary_key=True)
    lifts = pw.IntegerField(default=0)  # allowance = base + lifts (capped when a share lifts it)
    shares = pw.IntegerField(default=0)
    claims_made = pw.IntegerField(default=0)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "claim_allowance"


class _FounderProductMark(BaseModel):
    """Something a founder did to a product once (one row per session and product)."""

    id = pw.BigAutoField()
    session = pw.ForeignKeyField(Session, on_delete="CASCADE", backref="+")
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+")
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    created_at = pw.DateTimeField(default=utcnow)


class Seen(_FounderProductMark):
    """A card rendered to a session (only seen products can be selected or claimed)."""

    class Meta:
        table_name = "product_seen"
        indexes = ((("session", "product"), True), (("account", "product"), False))


class Passed(_FounderProductMark):
    """A product a session passed on: final for that founder."""

    class Meta:
        table_name = "product_pass"
        indexes = ((("session", "product"), True), (("account", "product"), False))


class ShareAction(BaseModel):
    """One use of the share control; `lifted` says whether it raised the allowance."""

    id = pw.BigAutoField()
    session = pw.ForeignKeyField(Session, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    lifted = pw.BooleanField(default=False)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "share_action"


class Watch(BaseModel):
    """A founder waiting for a product held or claimed by someone else. Closed (once) when
    the product is observed available again; the notice is mailed by a job."""

    id = pw.BigAutoField()
    session = pw.ForeignKeyField(Session, on_delete="CASCADE", backref="+")
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+")
    email = pw.CharField(max_length=320)
    created_at = pw.DateTimeField(default=utcnow)
    closed_at = pw.DateTimeField(null=True)
    closed_because = pw.CharField(max_length=40, null=True)
    notified_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "product_watch"
        indexes = ((("session", "product"), True), (("product", "closed_at"), False))
