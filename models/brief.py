"""The nightly research brief: one row per UTC day, and the evidence-gate state each brief
compares against to report what crossed the gate (services/brief.py)."""
import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField


class Brief(BaseModel):
    """One generated brief. `day` is unique: two clocks, a retry and the CLI all settle on
    one brief per UTC day. The window covers whole UTC days, [window_start, window_end)."""

    id = pw.BigAutoField()
    day = pw.DateField(unique=True)
    generated_at = pw.DateTimeField(default=utcnow)
    window_start = pw.DateField()
    window_end = pw.DateField()
    items = JSONField(default=list)

    class Meta:
        table_name = "research_brief"


class BriefGateState(BaseModel):
    """Whether a product cleared the evidence gate when a brief last looked, one row per
    product. The gate figures themselves are the catalog loader's (product_gate, rebuilt on
    every load); this is the brief's memory of the verdict, so it can say what changed.

    `prior` is the verdict as of the last published brief, kept while the change is not yet
    published (changed_on later than that brief's day): a run that stopped half-way, or a
    forced rerun, still reports every crossing since the previous brief."""

    product = pw.ForeignKeyField(Product, primary_key=True, on_delete="CASCADE", column_name="product_id",
                                 backref="+")
    clears = pw.BooleanField()
    prior = pw.BooleanField()
    changed_on = pw.DateField(index=True)

    class Meta:
        table_name = "brief_gate_state"
