"""The founder's connected supplier (GET, POST /api/supplier-connection): one row per
founder, keyed by its owner ("session:<id>" or "account:<id>", services/ownership.py), so
connecting again replaces the row and two connects at once still leave one."""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel
from models.session import Session


class SupplierConnection(BaseModel):
    """The supplier a founder sources from, and the product they had claimed when connecting."""

    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    supplier = pw.CharField(max_length=200)  # the feed's spelling
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    connected_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "supplier_connection"
