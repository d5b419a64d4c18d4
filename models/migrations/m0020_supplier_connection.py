"""The founder's connected supplier: one row per owner ("session:<id>" or "account:<id>")."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class SupplierConnection(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        supplier = pw.CharField(max_length=200)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        connected_at = pw.DateTimeField()

        class Meta:
            table_name = "supplier_connection"

    db.create_tables([SupplierConnection])
