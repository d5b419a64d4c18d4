"""Domain orders: a founder's order for a domain for their store, pending until its payment
settles, and a partial unique index that lets a domain be connected to one store only."""
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

    class DomainOrder(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", index=True)
        domain = pw.CharField(max_length=253)
        price_minor = pw.IntegerField()
        currency = pw.CharField(max_length=3)
        state = pw.CharField(max_length=12)
        payment_id = pw.CharField(max_length=64, null=True, unique=True)
        created_at = pw.DateTimeField()
        connected_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "domain_order"

    DomainOrder.add_index(DomainOrder.index(DomainOrder.domain, unique=True, name="domain_one_connected")
                          .where(DomainOrder.state == "connected"))
    db.create_tables([DomainOrder])
