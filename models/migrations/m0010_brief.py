"""The nightly research brief: one brief per UTC day, and the gate verdict per product that
the brief compares against (models/brief.py)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class Brief(Base):
        id = pw.BigAutoField()
        day = pw.DateField(unique=True)
        generated_at = pw.DateTimeField()
        window_start = pw.DateField()
        window_end = pw.DateField()
        items = pw.TextField()

        class Meta:
            table_name = "research_brief"

    class BriefGateState(Base):
        product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id")
        clears = pw.BooleanField()
        prior = pw.BooleanField()
        changed_on = pw.DateField(index=True)

        class Meta:
            table_name = "brief_gate_state"

    db.create_tables([Brief, BriefGateState])
