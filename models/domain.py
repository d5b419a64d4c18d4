"""Domains bought for a store: one row per order, pending until its payment settles.

A founder's order for a domain starts `pending`; the payment code moves it to `connected`
when the provider confirms the payment (in the transaction that marks the payment paid),
or to `failed` when the payment fails or expires, or when the domain was connected to
another store first. A domain is connected to at most one store: a partial unique index
on the connected rows decides, however many payments confirm at once.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class DomainOrder(BaseModel):
    PENDING, CONNECTED, FAILED = "pending", "connected", "failed"
    STATES = (PENDING, CONNECTED, FAILED)

    id = pw.CharField(max_length=32, primary_key=True)  # 128 random bits, hex
    # The founder, as on their claim: the session that ordered, the account once bound.
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    # The store's product (a store is keyed by its product).
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+", index=True)
    domain = pw.CharField(max_length=253)  # lower-case ASCII (punycode), no trailing dot
    price_minor = pw.IntegerField()
    currency = pw.CharField(max_length=3)
    state = pw.CharField(max_length=12, default=PENDING)
    payment_id = pw.CharField(max_length=64, null=True, unique=True)  # set by the payment code
    created_at = pw.DateTimeField(default=utcnow)
    connected_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "domain_order"


# One store per domain: at most one connected row for a name (migration m0021).
DomainOrder.add_index(DomainOrder.index(DomainOrder.domain, unique=True, name="domain_one_connected")
                      .where(DomainOrder.state == DomainOrder.CONNECTED))
