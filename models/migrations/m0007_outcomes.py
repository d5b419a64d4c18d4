"""Outcomes: what a founder declared a claimed product cost and earned, one row per claim."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Claim(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "product_claim"

    class Outcome(Base):
        id = pw.BigAutoField()
        claim = pw.ForeignKeyField(Claim, unique=True, on_delete="CASCADE", backref="+")
        spend = pw.DecimalField(max_digits=14, decimal_places=2, null=True)
        revenue = pw.DecimalField(max_digits=14, decimal_places=2, null=True)
        note = pw.TextField(null=True)
        declared_at = pw.DateTimeField()

        class Meta:
            table_name = "claim_outcome"

    db.create_tables([Outcome])
