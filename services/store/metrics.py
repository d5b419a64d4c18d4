"""Store metrics: the funnel events a published store's pages send (POST /api/track) and
the founder's figures over a window of days (GET /api/editor/metrics, spec 2.12).

An event counts once per (product, visitor session, event, UTC day): the unique index of
`funnel_event` decides, so a page sending it twice, or fifty copies racing, leave one row.
The visitor session is an id the store's script made up in the visitor's browser; `paid`
is that browser's word, so it is reported as unverified (the payment ledger is the
authority on sales).
"""
from __future__ import annotations

import re
from datetime import timedelta

import peewee as pw

from models.clock import utcnow
from models.db import KeptSQL, param
from models.discovery import Claim
from models.funnel import FunnelEvent
from models.session import Session
from models.store import Store
from services.discovery import resolve
from services.errors import Refused
from services.ownership import owner_of
from services.reasons import sentence
from services.store.builds import store_product

EVENTS = FunnelEvent.EVENTS
RECORDED, IGNORED = "recorded", "ignored"
DEFAULT_DAYS, MAX_DAYS = 14, 90
# A utm_campaign the store's script passes on: an ad campaign's key (services/growth/delivery.py),
# or a founder's own link's name.
CAMPAIGN = re.compile(r"[A-Za-z0-9_-]{1,64}")
PAID_EXPLANATION = ("paid counts the visitor sessions whose browser reported a payment to the store's page: an "
                    "unverified browser event that anyone can send. The payment ledger (your orders and revenue, "
                    "confirmed with the payment provider) is the authority on sales.")


def record_event(*, product_id: str, event: str, visitor_session: str, campaign: str | None = None) -> dict:
    """Records one funnel event of a published store's visitor, once per day (with the
    utm_campaign of the link they arrived by, when the store's script read one)."""
    if event not in EVENTS:
        raise Refused("invalid_event")
    if not _PUBLISHED.run(product_id=product_id).fetchone():
        # A page of a store that is not (or no longer) public, or a made-up product id:
        # nothing is recorded, and the visitor's page is not bothered with an error.
        return {"status": IGNORED, "reason": "not_published", "explanation": sentence("not_published")}
    now = utcnow()
    # A duplicate (the same visitor, event and day) is no error: the index keeps the first.
    _RECORD.run(product_id=product_id, visitor_session=visitor_session, event=event, day=now.date(), created_at=now,
                campaign=campaign)
    return {"status": RECORDED}


# Every visitor's page sends events: both statements keep their SQL text (models/db.KeptSQL).
_PUBLISHED = KeptSQL(lambda: Store.select(pw.SQL("1")).where(Store.product == param("product_id"),
                                                             Store.published_version.is_null(False)))
_RECORD = KeptSQL(lambda: FunnelEvent.insert(
    product=param("product_id"), visitor_session=param("visitor_session"), event=param("event"), day=param("day"),
    created_at=param("created_at"), campaign=param("campaign")).on_conflict_ignore())


def _own_product(session: Session, product_id: str | None) -> str:
    """The product whose figures the founder may see: the one asked for if it is one of their
    claims or the product they hold, else their resolved product. Anyone else's product, and
    an unknown id, are refused alike (`not_found`), so the answer tells nothing of another
    founder's store."""
    if not product_id:
        return store_product(session)
    owner = owner_of(session)
    resolved = resolve(session)
    if not ((resolved is not None and resolved.product_id == product_id)
            or Claim.select(pw.SQL("1")).where(owner.owns(Claim), Claim.product == product_id).exists()):
        raise Refused("not_found", "You have no product with that id, so there are no figures to show.")
    return product_id


def metrics(*, session: Session, product_id: str | None = None, days: int = DEFAULT_DAYS) -> dict:
    """The founder's store funnel over the last `days` UTC days, today included."""
    if not 1 <= days <= MAX_DAYS:
        raise Refused("invalid_days")
    product_id = _own_product(session, product_id)
    today = utcnow().date()
    since = today - timedelta(days=days - 1)
    sessions = pw.fn.COUNT(pw.fn.DISTINCT(FunnelEvent.visitor_session))
    counts = dict(FunnelEvent.select(FunnelEvent.event, sessions)
                  .where(FunnelEvent.product == product_id, FunnelEvent.day >= since, FunnelEvent.day <= today)
                  .group_by(FunnelEvent.event).tuples())
    return {
        "status": "ok",
        "product_id": product_id,
        "days": days,
        "since": since.isoformat(),
        "until": today.isoformat(),
        "sessions": counts.get(FunnelEvent.PAGE_VIEW, 0),
        "cart": counts.get(FunnelEvent.ADD_TO_CART, 0),
        "checkout": counts.get(FunnelEvent.CHECKOUT, 0),
        "paid": counts.get(FunnelEvent.PAID, 0),
        "paid_unverified": True,
        "explanation": PAID_EXPLANATION,
    }
