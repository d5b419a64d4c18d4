"""Payments, customer orders, revenue, sample orders and the sandbox provider's own tables."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Payment(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        purpose = pw.CharField(max_length=16)
        subject = pw.CharField(max_length=64)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="SET NULL", index=True)
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        provider = pw.CharField(max_length=16)
        provider_ref = pw.CharField(max_length=255, null=True, unique=True)
        checkout_url = pw.TextField(null=True)
        state = pw.CharField(max_length=12)
        payment_ref = pw.CharField(max_length=255, null=True, unique=True)
        error = pw.CharField(max_length=60, null=True)
        created_at = pw.DateTimeField()
        checked_at = pw.DateTimeField(null=True)
        paid_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "payment"
            indexes = ((("purpose", "subject"), False),)

    class CustomerOrder(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL")
        email = pw.CharField(max_length=320)
        quantity = pw.IntegerField()
        unit_price_minor = pw.BigIntegerField()
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        store_version = pw.IntegerField()
        payment = pw.CharField(max_length=32, null=True, unique=True)
        state = pw.CharField(max_length=12)
        created_at = pw.DateTimeField()
        paid_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "customer_order"
            indexes = ((("product", "created_at"), False),)

    class RevenueCredit(Base):
        payment = pw.CharField(max_length=32, primary_key=True)
        order = pw.CharField(max_length=32, unique=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        credited_at = pw.DateTimeField()

        class Meta:
            table_name = "revenue_credit"

    class RevenueTotal(Base):
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        currency = pw.CharField(max_length=3)
        confirmed_minor = pw.BigIntegerField()
        orders = pw.IntegerField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "revenue_total"
            primary_key = pw.CompositeKey("product", "currency")

    class SandboxCheckout(Base):
        id = pw.CharField(max_length=40, primary_key=True)
        reference = pw.CharField(max_length=64)
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        description = pw.CharField(max_length=300)
        customer_email = pw.CharField(max_length=320, null=True)
        success_url = pw.TextField()
        cancel_url = pw.TextField()
        logo_url = pw.TextField(null=True)
        state = pw.CharField(max_length=12)
        payment_ref = pw.CharField(max_length=40, null=True)
        refunded_minor = pw.BigIntegerField()
        created_at = pw.DateTimeField()
        expires_at = pw.DateTimeField()
        settled_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "sandbox_checkout"

    class SandboxNotification(Base):
        id = pw.CharField(max_length=40, primary_key=True)
        checkout = pw.CharField(max_length=40, index=True)
        type = pw.CharField(max_length=40)
        payload = pw.TextField()
        delivered_at = pw.DateTimeField(null=True)
        attempts = pw.IntegerField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "sandbox_notification"

    class SampleOrder(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        supplier = pw.CharField(max_length=200)
        sku = pw.CharField(max_length=120, null=True)
        quantity = pw.IntegerField()
        unit_cost_minor = pw.BigIntegerField()
        amount_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        payment = pw.CharField(max_length=32, null=True, unique=True)
        state = pw.CharField(max_length=12)
        created_at = pw.DateTimeField()
        paid_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "sample_order"

    db.create_tables([Payment, CustomerOrder, RevenueCredit, RevenueTotal, SandboxCheckout, SandboxNotification,
                      SampleOrder])
