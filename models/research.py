"""What the service learns about a founder's product after the claim (spec 2.13)."""
import peewee as pw

from models.clock import utcnow
from models.db import BaseModel
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
