"""The 3D preview of a catalog product: one row per product, holding its glTF asset."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel


class Model3D(BaseModel):
    """A product's 3D preview (a card textured with its photo). `building` until the
    model3d job stores the asset; `source` is the photo it was built from, so a changed
    photo is noticed and the card rebuilt."""

    BUILDING = "building"
    READY = "ready"

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    status = pw.CharField(max_length=16, default=BUILDING)
    source = pw.TextField(default="")  # the product's first image when the build was asked for ("" for none)
    texture = pw.CharField(max_length=16, null=True)  # photo | name_card, once built
    description = pw.TextField(null=True)  # what the asset honestly is, once built
    gltf = pw.TextField(null=True)  # the glTF 2.0 JSON, buffer and image embedded as data: URIs
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "model3d"
