"""Evidence-backed changes applied to a store (POST /api/intent/apply)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Store(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

        class Meta:
            table_name = "store"

    class StoreIntent(Base):
        id = pw.BigAutoField()
        store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id")
        surface = pw.CharField(max_length=20)
        requested = pw.TextField()
        change = pw.TextField()
        lead = pw.CharField(max_length=20)
        previous_lead = pw.CharField(max_length=20)
        reversible = pw.BooleanField()
        base_version = pw.IntegerField()
        version = pw.IntegerField(null=True)
        status = pw.CharField(max_length=12)
        created_at = pw.DateTimeField()
        reverted_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "store_intent"
            indexes = ((("store", "id"), False),)

    db.create_tables([StoreIntent])
