"""Ad artifacts (spec 2.9; decisions.md, Growth): one ad per product and founder, written for
each platform by the `ad_build` job, the founder's own changes kept beside the written copy,
and the rendered images served at /media/ad/<id>.png."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField


class Ad(BaseModel):
    """A product's ad. `written` is the copy the AI wrote ({platform: {field: text}});
    `overrides` the founder's own values ({platform: {field: text}}), which win over it and
    which a reset clears. `owner` is the store owner's key (services.ownership.Owner.key)
    when it was built: a product's next founder never reads the last one's ad."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id", backref="+")
    owner = pw.CharField(max_length=40, index=True)
    store_version = pw.IntegerField()  # the store version the copy was written from
    version = pw.IntegerField(default=1)  # moves with every change of the copy or its images
    written = JSONField()
    overrides = JSONField(default=dict)
    images = JSONField(default=dict)  # {platform: [{id, width, height}]}
    dropped = JSONField(default=list)  # sentences the AI wrote that the product record could not back
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad"


class AdImage(BaseModel):
    """One rendered ad image (PNG). Written once, never changed: a new headline or photo
    makes new images under new ids, so the served bytes behind an id never change."""

    id = pw.CharField(max_length=32, primary_key=True)  # 128 random bits, hex
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+", index=True)
    platform = pw.CharField(max_length=10)
    width = pw.IntegerField()
    height = pw.IntegerField()
    data = pw.BlobField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ad_image"
