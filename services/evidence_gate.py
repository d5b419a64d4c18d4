"""The evidence gate: which catalog products may be served.

A product clears the gate on a given day when

- it has at least EVIDENCE_MIN_ROWS (default 2) dated evidence rows no older than
  EVIDENCE_MAX_AGE_DAYS (default 540) days, and
- its gross margin, (price - cost) / price, is at least MIN_MARGIN_PCT (default 20) %.

Why these defaults: one evidence row is an anecdote, two dated rows show a signal that
persisted; 540 days lets a product researched this season stay servable for well over a
year, while products whose evidence predates that are dropped; and under a 20 % margin
there is nothing left after payment fees, shipping and returns. On the demo catalog
(evidence dated up to 2026-11-20) this serves 54 of the 72 products until 2028 and drops
the 8 with thin or negative margins, the 6 with only old evidence and the 4 with a single
row.

Per-request cost: a request never aggregates evidence. When a product is loaded,
`refresh` stores in product_gate its margin, its evidence count and latest date, and the
date of its N-th most recent row; "N rows within D days" is then `gate_date >= today - D`,
one indexed comparison per row. The loader must call `refresh(product_ids)` inside its
transaction after it has written the products' evidence (see `refresh`); changing
EVIDENCE_MIN_ROWS later needs `refresh()` over the whole catalog
(`python scripts/discover.py --refresh-gate`).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import peewee as pw

from config import get_settings
from models.catalog import Evidence, Product
from models.clock import utcnow
from models.db import transaction
from models.discovery import ProductGate

BATCH = 500


@dataclass(frozen=True)
class Gate:
    """The thresholds of the gate (from the settings)."""

    min_rows: int
    max_age_days: int
    min_margin_pct: int

    def cutoff(self, today: date) -> date:
        """The oldest evidence date that still counts on `today`."""
        return today - timedelta(days=self.max_age_days)


@dataclass(frozen=True)
class Assessment:
    clears: bool
    margin_pct: Decimal
    recent_rows: int  # evidence rows within the window
    evidence_count: int
    evidence_latest: date | None
    why_not: str | None  # "thin_margin", "too_few_rows", "old_evidence" or None


def current_gate(settings=None) -> Gate:
    settings = settings or get_settings()
    return Gate(settings.evidence_min_rows, settings.evidence_max_age_days, settings.min_margin_pct)


def today() -> date:
    return utcnow().date()


def margin_pct(price, cost) -> Decimal:
    """(price - cost) / price in percent, to two decimals."""
    price, cost = Decimal(str(price)), Decimal(str(cost))
    return ((price - cost) * 100 / price).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def assess(*, price, cost, evidence_dates, on: date, gate: Gate) -> Assessment:
    """Whether a product (given as plain values) clears the gate on a day; the discovery
    script scores supplier products with it, and it agrees with `servable` by construction."""
    dates = sorted(evidence_dates, reverse=True)
    margin = margin_pct(price, cost)
    cutoff = gate.cutoff(on)
    recent = sum(1 for d in dates if d >= cutoff)
    why = None
    if margin < gate.min_margin_pct:
        why = "thin_margin"
    elif len(dates) < gate.min_rows:
        why = "too_few_rows"
    elif dates[gate.min_rows - 1] < cutoff:
        why = "old_evidence"
    return Assessment(clears=why is None, margin_pct=margin, recent_rows=recent, evidence_count=len(dates),
                      evidence_latest=dates[0] if dates else None, why_not=why)


def servable(gate: Gate | None = None, on: date | None = None):
    """The condition on ProductGate rows that clear the gate on a day (a peewee expression)."""
    gate = gate or current_gate()
    on = on or today()
    return servable_from(gate.cutoff(on), gate.min_margin_pct)


def servable_from(cutoff, min_margin_pct):
    """`servable` given its two figures: the cutoff date and the least margin."""
    return (ProductGate.gate_date >= cutoff) & (ProductGate.margin_pct >= min_margin_pct)


def row_clears(row: ProductGate | None, gate: Gate, on: date) -> bool:
    """`servable` for one loaded ProductGate row (a product without figures never clears)."""
    if row is None or row.gate_date is None:
        return False
    gate_date = row.gate_date
    if isinstance(gate_date, str):  # SQLite hands back the text of a date it stored
        gate_date = date.fromisoformat(gate_date[:10])
    return gate_date >= gate.cutoff(on) and Decimal(row.margin_pct) >= gate.min_margin_pct


def refresh(product_ids=None, *, gate: Gate | None = None) -> int:
    """Recomputes the gate figures of the given products (all products when None) from
    their price, cost and evidence rows; returns how many products have figures now.

    The catalog loader calls this inside its transaction, after writing the evidence of a
    chunk of products: `evidence_gate.refresh(chunk_ids)`. A product without figures is
    never served.
    """
    gate = gate or current_gate()
    # The evidence's new version: whatever changed, a card's trends kept under the old one are
    # not read again (services/discovery/card_cache.py).
    version = uuid.uuid4().hex
    with transaction():
        if product_ids is None:
            ProductGate.delete().execute()
            return _insert(Product.select(Product.product_id), gate, version)
        ids = list(dict.fromkeys(product_ids))
        done = 0
        for start in range(0, len(ids), BATCH):
            chunk = ids[start:start + BATCH]
            ProductGate.delete().where(ProductGate.product.in_(chunk)).execute()
            done += _insert(Product.select(Product.product_id).where(Product.product_id.in_(chunk)), gate, version)
        return done


def _insert(which, gate: Gate, version: str) -> int:
    ev = Evidence.alias("ev")
    owned = ev.product == Product.product_id
    count = ev.select(pw.fn.COUNT(ev.id)).where(owned)
    latest = ev.select(pw.fn.MAX(ev.date)).where(owned)
    nth = ev.select(ev.date).where(owned).order_by(ev.date.desc()).limit(1).offset(gate.min_rows - 1)
    margin = pw.fn.ROUND((Product.price - Product.cost) * 100.0 / Product.price, 2)
    query = (Product.select(Product.product_id, Product.rank, margin, count, latest, nth, pw.Value(version))
             .where(Product.product_id.in_(which)))
    ProductGate.insert_from(query, [ProductGate.product, ProductGate.rank, ProductGate.margin_pct,
                                    ProductGate.evidence_count, ProductGate.evidence_latest,
                                    ProductGate.gate_date, ProductGate.evidence_version]).execute()
    return ProductGate.select().where(ProductGate.product.in_(which)).count()
