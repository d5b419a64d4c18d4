"""Ad artifacts (issue 24): one ad per product and founder, and its rendered images."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Ad(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        owner = pw.CharField(max_length=40, index=True)
        store_version = pw.IntegerField()
        version = pw.IntegerField(default=1)
        written = pw.TextField()
        overrides = pw.TextField()
        images = pw.TextField()
        dropped = pw.TextField()
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "ad"

    class AdImage(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", index=True)
        platform = pw.CharField(max_length=10)
        width = pw.IntegerField()
        height = pw.IntegerField()
        data = pw.BlobField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "ad_image"

    db.create_tables([Ad, AdImage])
