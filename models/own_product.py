"""A founder's own product details: the values they publish for their claimed product in
place of the catalog's (name, description, price, images), and the images they uploaded.

Both belong to the claimed product, and a claim is the founder's alone for good, so the
product id is the owner. Images are kept in the database (not on a web host's disk): every
web process on every host serves them from the one shared database.
"""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField


class FounderProduct(BaseModel):
    """The founder's values for a claimed product; a field left None keeps the catalog's."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    name = pw.CharField(max_length=120, null=True)
    description = pw.TextField(null=True)
    price = pw.DecimalField(max_digits=12, decimal_places=2, null=True, auto_round=False)
    images = JSONField(null=True)  # the image URLs in order ([] = no image at all)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "founder_product"


class FounderImage(BaseModel):
    """An uploaded image after its check: re-encoded pixels only (no metadata), served at
    /media/<id>.<extension>. Written once, never changed; deleted by the hourly prune once
    neither the product nor any version of its store names it (services/own_product.py)."""

    id = pw.CharField(max_length=32, primary_key=True)  # 128 random bits, hex
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+", index=True)
    content_type = pw.CharField(max_length=20)
    extension = pw.CharField(max_length=8)
    width = pw.IntegerField()
    height = pw.IntegerField()
    size = pw.IntegerField()
    sha256 = pw.CharField(max_length=64)
    data = pw.BlobField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "founder_image"
