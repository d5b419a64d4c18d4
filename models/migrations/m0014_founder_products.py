"""A founder's own product details and their uploaded images (models/own_product.py)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class FounderProduct(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        name = pw.CharField(max_length=120, null=True)
        description = pw.TextField(null=True)
        price = pw.DecimalField(max_digits=12, decimal_places=2, null=True)
        images = pw.TextField(null=True)
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "founder_product"

    class FounderImage(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", index=True)
        content_type = pw.CharField(max_length=20)
        extension = pw.CharField(max_length=8)
        width = pw.IntegerField()
        height = pw.IntegerField()
        size = pw.IntegerField()
        sha256 = pw.CharField(max_length=64)
        data = pw.BlobField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "founder_image"

    db.create_tables([FounderProduct, FounderImage])
