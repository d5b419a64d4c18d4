"""Catalog products and their dated evidence rows."""
import peewee as pw

from models.clock import utcnow
from models.db import BaseModel, JSONField


class Product(BaseModel):
    product_id = pw.CharField(max_length=120, primary_key=True)
    name = pw.CharField(max_length=200)
    description = pw.TextField()
    category = pw.CharField(max_length=80, index=True)
    price = pw.DecimalField(max_digits=12, decimal_places=2)
    cost = pw.DecimalField(max_digits=12, decimal_places=2)
    currency = pw.CharField(max_length=3)
    images = JSONField(default=list)
    rank = pw.FloatField(default=0, index=True)
    # Fields of the catalog line that the service does not model are kept here.
    extra = JSONField(default=dict)
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)


class Evidence(BaseModel):
    id = pw.BigAutoField()
    product = pw.ForeignKeyField(Product, backref="evidence", on_delete="CASCADE", column_name="product_id")
    date = pw.DateField()
    source = pw.CharField(max_length=80)
    metric = pw.CharField(max_length=80)
    value = pw.FloatField()
    note = pw.TextField(default="")

    class Meta:
        indexes = ((("product", "date"), False),)
