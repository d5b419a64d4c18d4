"""Research: each product's offer and analysis, with the fingerprint of their inputs."""
import peewee as pw

from models.db import JSONField
from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

        class Meta:
            table_name = "product"

    class Research(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", backref="+",
                                     column_name="product_id")
        offer = JSONField()
        analysis = JSONField()
        fingerprint = pw.CharField(max_length=64)
        researched_at = pw.DateTimeField()

        class Meta:
            table_name = "research"

    db.create_tables([Research])
