"""The founder's connected supplier (GET, POST /api/supplier-connection): one row per
founder, keyed by its owner ("session:<id>" or "account:<id>", services/ownership.py), so
connecting again replaces the row and two connects at once still leave one. The row names
the offer line connected (supplier and SKU, with what the line offers), not just the
supplier: a supplier offers many products."""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class SupplierConnection(BaseModel):
    """The offer line a founder sources from, and the product they had claimed when connecting."""

    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    supplier = pw.CharField(max_length=200)  # the feed's spelling
    # The offer line (null only on rows connected before m0024, which named a supplier alone).
    sku = pw.CharField(max_length=120, null=True)
    name = pw.CharField(max_length=300, null=True)  # what the line offers, as the feed names it
    offers_product_id = pw.CharField(max_length=120, null=True)  # the feed's product id of the line
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    connected_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "supplier_connection"
