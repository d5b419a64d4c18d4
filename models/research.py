"""What the service learns about a founder's product: its research (offer and analysis) and,
after the claim, its declared outcome (spec 2.13)."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.discovery import Claim


class Outcome(BaseModel):
    """What a founder declared a claimed product cost and earned: one row per claim,
    replaced field by field by later declarations."""

    id = pw.BigAutoField()
    claim = pw.ForeignKeyField(Claim, unique=True, on_delete="CASCADE", backref="+")
    spend = pw.DecimalField(max_digits=14, decimal_places=2, null=True)
    revenue = pw.DecimalField(max_digits=14, decimal_places=2, null=True)
    note = pw.TextField(null=True)
    declared_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "claim_outcome"


class Research(BaseModel):
    """What the research job learned about a catalog product: its offer and its analysis,
    with the inputs they were computed from (one row per product, replaced by a re-run)."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", backref="+",
                                 column_name="product_id")
    offer = JSONField()
    analysis = JSONField()
    # A digest of everything the figures were computed from (the catalog record, its
    # evidence rows, the offer settings and the day's freshness window): a research whose
    # fingerprint no longer matches is re-run in the background.
    fingerprint = pw.CharField(max_length=64)
    researched_at = pw.DateTimeField(default=utcnow)
