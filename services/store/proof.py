"""What a store's dated evidence may tell its shoppers.

The evidence rows in a store document are the founder's research: their figures, sources and
dates show only in the founder's preview (templates/storefront/sections/evidence.html). A
store may still lead with its evidence (the decided sections include `evidence`, and the
demand intent proposes it), so its public pages say what the rows back in a shopper's words,
without a figure, a rank or a research source: that shoppers are looking for the product,
as of the month of the newest reading. Only a demand series that is not falling, and not low on its metric's published scale, backs it (the
same test the demand intent makes before it proposes leading with the evidence,
services/store/intents.py); with none, the section shows shoppers nothing.
"""
from __future__ import annotations

import services.evidence_kinds as kinds
from services.day_words import MONTHS

POPULAR = "Popular right now"  # the line's heading, wherever a public page says it (a generated landing page too)


def backing_readings(rows) -> list[kinds.Reading]:
    """The newest reading of each demand series that backs the shopper line (not falling, and
    not low on its metric's published scale), newest first: what a post cites for the line."""
    backing = [moved.now for moved in _backing(rows)]
    return sorted(backing, key=lambda r: (-r.date.toordinal(), r.metric, r.source))


def shopper_proof(rows, product_name: str) -> dict | None:
    """{heading, text, as_of} for shoppers from a document's evidence rows, or None when no
    demand series backs it (no demand reading, or its newest reading is falling or low)."""
    backing = _backing(rows)
    if not backing:
        return None
    newest = max(backing, key=lambda moved: moved.now.date)
    rising = any(moved.direction == kinds.RISING for moved in backing)
    day = newest.now.date
    text = (f"More and more shoppers are looking for {product_name}." if rising
            else f"Shoppers are looking for {product_name}.")
    return {"heading": POPULAR, "text": text, "as_of": f"{MONTHS[day.month - 1]} {day.year}"}


def _backing(rows) -> list[kinds.Direction]:
    """How each demand series that backs the line moves (its newest reading against the one before)."""
    backing = []
    for (_source, metric), found in kinds.series(rows).items():
        if kinds.DEMAND not in kinds.roles_of(metric, [r.value for r in found]):
            continue
        moved = kinds.direction(found, lower_is_better=kinds.lower_is_better(metric))
        # A reading its metric's published scale calls low backs no "popular" either.
        if moved.direction != kinds.FALLING and kinds.level(metric, moved.now.value)[0] != kinds.LOW:
            backing.append(moved)
    return backing
