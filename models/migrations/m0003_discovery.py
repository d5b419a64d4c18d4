"""Discovery: the per-product gate figures, holds, claims, claim allowances, seen and passed
products, share actions and watches. Products already in the catalog get their gate
figures here (with the default of two evidence rows), so an upgraded catalog is served
at once."""
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
        price = pw.DecimalField(max_digits=12, decimal_places=2)
        cost = pw.DecimalField(max_digits=12, decimal_places=2)
        rank = pw.FloatField()

    class Evidence(Base):
        id = pw.BigAutoField()
        product = pw.ForeignKeyField(Product, column_name="product_id")
        date = pw.DateField()

    class ProductGate(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        rank = pw.FloatField()
        margin_pct = pw.DecimalField(max_digits=16, decimal_places=2)
        evidence_count = pw.IntegerField()
        evidence_latest = pw.DateField(null=True)
        gate_date = pw.DateField(null=True)

        class Meta:
            table_name = "product_gate"

    ProductGate.add_index(ProductGate.index(ProductGate.rank.desc(), ProductGate.product, name="product_gate_feed_order"))

    class Hold(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        session = pw.ForeignKeyField(Session, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        expires_at = pw.DateTimeField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "product_hold"

    class Claim(Base):
        id = pw.BigAutoField()
        product = pw.ForeignKeyField(Product, unique=True, on_delete="CASCADE", column_name="product_id")
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "product_claim"

    class ClaimAllowance(Base):
        owner = pw.CharField(max_length=40, primary_key=True)
        lifts = pw.IntegerField()
        shares = pw.IntegerField()
        claims_made = pw.IntegerField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "claim_allowance"

    class Seen(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, on_delete="CASCADE")
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE")
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "product_seen"
            indexes = ((("session", "product"), True), (("account", "product"), False))

    class Passed(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, on_delete="CASCADE")
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE")
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "product_pass"
            indexes = ((("session", "product"), True), (("account", "product"), False))

    class ShareAction(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        lifted = pw.BooleanField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "share_action"

    class Watch(Base):
        id = pw.BigAutoField()
        session = pw.ForeignKeyField(Session, on_delete="CASCADE")
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id")
        email = pw.CharField(max_length=320)
        created_at = pw.DateTimeField()
        closed_at = pw.DateTimeField(null=True)
        closed_because = pw.CharField(max_length=40, null=True)
        notified_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "product_watch"
            indexes = ((("session", "product"), True), (("product", "closed_at"), False))

    db.create_tables([ProductGate, Hold, Claim, ClaimAllowance, Seen, Passed, ShareAction, Watch])

    # Gate figures for the products already loaded (the default: the 2nd most recent row).
    ev = Evidence.alias("ev")
    count = ev.select(pw.fn.COUNT(ev.id)).where(ev.product == Product.product_id)
    latest = ev.select(pw.fn.MAX(ev.date)).where(ev.product == Product.product_id)
    nth = ev.select(ev.date).where(ev.product == Product.product_id).order_by(ev.date.desc()).limit(1).offset(1)
    margin = pw.fn.ROUND((Product.price - Product.cost) * 100.0 / Product.price, 2)
    ProductGate.insert_from(
        Product.select(Product.product_id, Product.rank, margin, count, latest, nth),
        [ProductGate.product, ProductGate.rank, ProductGate.margin_pct, ProductGate.evidence_count,
         ProductGate.evidence_latest, ProductGate.gate_date],
    ).execute()
