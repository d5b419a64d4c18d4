"""Outcomes of claimed products and the published track record (spec 2.13; decisions.md).

A founder declares what a claimed product cost (spend) and earned (revenue); the track
record counts those declarations across all founders: a win is revenue above spend.

What the store earned is known already: a declaration that sends no revenue takes the
store's confirmed revenue (the paid orders the Orders screen counts, in the product's
currency), so the founder is asked for it only when no order was paid.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import peewee as pw

from integrations.payments import major_units
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import transaction
from models.discovery import Claim
from models.payment import RevenueTotal
from models.research import Outcome
from models.session import Session
from services.discovery import resolve
from services.errors import Refused

WIN = "win"
MISS = "miss"
DEFINITION = ("A declared outcome is a win when its revenue is above its spend and a miss otherwise (a figure not "
              "declared counts as 0). Claimed products without a declared outcome are pending. The hit rate is "
              "wins / (wins + misses), over every founder's declared outcomes.")


def _money(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def record_outcome(*, session: Session, spend: float | None, revenue: float | None, note: str | None) -> dict:
    """Records the outcome of the session's claimed product; revenue not sent is the
    store's confirmed revenue when it has any, and other figures not sent keep their
    earlier value."""
    if spend is None and revenue is None:
        raise Refused("nothing_to_record", "Send spend, revenue or both (non-negative amounts); nothing was recorded.")
    resolved = resolve(session)
    if resolved is None:
        raise Refused("no_claim_record", "You have no claimed product to record an outcome for; nothing was recorded.")
    if resolved.claimed_product_id is None:
        raise Refused("no_claim", "You hold this product but have not claimed it; claim it before recording its "
                                  "outcome. Nothing was recorded.")
    claim = Claim.get(Claim.product == resolved.claimed_product_id)
    from_orders = False
    if revenue is None:  # what the store's paid orders earned, when they earned anything
        revenue = orders_revenue(claim.product_id)
        from_orders = revenue is not None
    now = utcnow()
    values = {"claim": claim.id, "declared_at": now, "spend": _money(spend), "revenue": _money(revenue), "note": note}
    # Later declarations replace what they send and keep the rest (one row per claim,
    # settled by its unique claim id even when two arrive at once).
    changed = {Outcome.declared_at: now}
    for name, value in (("spend", values["spend"]), ("revenue", values["revenue"]), ("note", note)):
        if value is not None:
            changed[getattr(Outcome, name)] = value
    with transaction():
        Outcome.insert(**values).on_conflict(conflict_target=[Outcome.claim], update=changed).execute()
    return {"status": "recorded", "outcome": {**describe(Outcome.get(Outcome.claim == claim.id), claim.product_id),
                                              "revenue_from_orders": from_orders}}


def orders_revenue(product_id: str) -> Decimal | None:
    """The store's confirmed revenue in the product's currency (major units), or None when
    no order of it was paid."""
    total = (RevenueTotal.select(RevenueTotal.confirmed_minor, RevenueTotal.currency)
             .join(Product, on=(RevenueTotal.product == Product.product_id))
             .where(RevenueTotal.product == product_id, RevenueTotal.currency == Product.currency).first())
    return None if total is None else major_units(total.confirmed_minor, total.currency)


def describe(outcome: Outcome, product_id: str) -> dict:
    spend, revenue = outcome.spend, outcome.revenue
    return {
        "product_id": product_id,
        "spend": float(spend) if spend is not None else None,
        "revenue": float(revenue) if revenue is not None else None,
        "note": outcome.note,
        "result": WIN if (revenue or 0) > (spend or 0) else MISS,
        "declared_at": iso(outcome.declared_at),
    }


def track_record() -> dict:
    """The published hit rate over every declared outcome, with its basis."""
    is_win = pw.fn.COALESCE(Outcome.revenue, 0) > pw.fn.COALESCE(Outcome.spend, 0)
    outcomes, wins = (Outcome.select(pw.fn.COUNT(Outcome.id), pw.fn.SUM(pw.Case(None, [(is_win, 1)], 0)))
                      .tuples().get())
    wins = int(wins or 0)
    claims = Claim.select().count()
    return {
        "status": "ok",
        "hit_rate": round(wins / outcomes, 4) if outcomes else None,
        "wins": wins,
        "misses": outcomes - wins,
        "pending": claims - outcomes,
        "basis": {"outcomes": outcomes, "definition": DEFINITION},
    }
