"""The launch state of a claimed product: one row per product."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class ProductLaunch(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        state = pw.CharField(max_length=16)
        previous = pw.CharField(max_length=16, null=True)
        changed_at = pw.DateTimeField()

        class Meta:
            table_name = "product_launch"

    db.create_tables([ProductLaunch])
