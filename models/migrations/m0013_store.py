"""Storefronts: the store of a claimed product and its numbered versions."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Store(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        slug = pw.CharField(max_length=80, unique=True)
        version = pw.IntegerField(default=0)
        published_version = pw.IntegerField(null=True)
        published_at = pw.DateTimeField(null=True)
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "store"

    class StoreVersion(Base):
        store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id")
        number = pw.IntegerField()
        document = pw.TextField()
        patch = pw.TextField()
        summary = pw.TextField()
        dropped = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "store_version"
            primary_key = pw.CompositeKey("store", "number")

    db.create_tables([Store, StoreVersion])
