"""Watches: "tell me when this product is free again".

A watch is placed on a product held (live) or claimed by someone else. It closes, once,
when the product is observed available again, and the notice goes out by a job after
the closing transaction commits. There is no sweeper: availability is observed where it
changes or is seen,

- when a holder releases a product (passes on it, selects another, or its hold is
  dropped because the product left the served set),
- when a feed renders a product as a free card (an expired hold is noticed this way),
- when the watcher lists their watches (GET /api/notify_me) or asks to watch it again,
- and, for the offer feature, wherever an offer becomes real (`observe_available(...,
  because="offer_ready", require_free=False)`).

Closing is one conditional UPDATE per watch (`WHERE closed_at IS NULL`), so two requests
observing the same release mail the watcher once.
"""
from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

import peewee as pw

from config import get_settings
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import transaction
from models.discovery import Claim, Hold, Watch
from models.job import Job
from models.session import Session
from services.accounts import normalize_email
from services.jobs import create_job
from services.mailing import send_mail
from services.ownership import owner_of
from services.reasons import sentence

WATCH_NOTICE = "watch_notice"  # the job kind that mails a notice
WATCHING = "watching"
AVAILABLE = "available"
OFFER_READY = "offer_ready"


def _nothing_to_watch(explanation: str | None = None, **fields) -> dict:
    return {"status": "refused", "reason": "nothing_to_watch",
            "explanation": explanation or sentence("nothing_to_watch"), **fields}


def watch(*, session: Session, email: str, product_id: str) -> tuple[dict, list[Job]]:
    """Records a watch on a product held or claimed by someone else; returns the answer
    and the jobs to send after commit."""
    address = normalize_email(email, reason="invalid_email")
    now = utcnow()
    if not Product.select().where(Product.product_id == product_id).exists():
        return _nothing_to_watch("There is no product with that id to watch."), []
    held = Hold.get_or_none(Hold.product == product_id, Hold.expires_at > now)
    claim = Claim.get_or_none(Claim.product == product_id)
    taken = claim or held
    if taken is None:
        # Free now: a watch of this founder's on it (if any) has its answer.
        jobs = observe_available([product_id], now=now)
        return _nothing_to_watch("That product is available now, so there is nothing to wait for."), jobs
    if owner_of(session).has(taken):
        return _nothing_to_watch("That product is yours, so there is nothing to wait for."), []
    with transaction():
        (Watch.insert(session=session.id, account=session.account_id, product=product_id, email=address,
                      created_at=now, closed_at=None, closed_because=None, notified_at=None)
         .on_conflict(conflict_target=[Watch.session, Watch.product],
                      update={Watch.email: pw.EXCLUDED.email, Watch.account: pw.EXCLUDED.account_id,
                              Watch.created_at: pw.EXCLUDED.created_at, Watch.closed_at: None,
                              Watch.closed_because: None, Watch.notified_at: None})
         .execute())
    return {"status": WATCHING, "product_id": product_id, "email": address, "since": iso(now),
            "because": "claimed" if claim is not None else "held"}, []


def watches(*, session: Session) -> tuple[dict, list[Job]]:
    """The session's watches, after closing those whose product is available now."""
    now, mine = utcnow(), owner_of(session).owns(Watch)
    open_ids = [pid for (pid,) in Watch.select(Watch.product).where(mine, Watch.closed_at.is_null()).tuples()]
    jobs = observe_available(open_ids, now=now)
    rows = list(Watch.select().where(mine).order_by(Watch.created_at.desc(), Watch.id.desc()))
    if not rows:
        return _nothing_to_watch("You are not watching any product.", watches=[]), jobs
    return {"status": "ok", "watches": [describe(w) for w in rows]}, jobs


def describe(row: Watch) -> dict:
    return {
        "product_id": row.product_id,
        "email": row.email,
        "state": WATCHING if row.closed_at is None else AVAILABLE if row.closed_because == AVAILABLE else row.closed_because,
        "since": iso(row.created_at),
        "closed_at": iso(row.closed_at),
        "notified_at": iso(row.notified_at),
    }


def observe_available(product_ids, *, now: datetime | None = None, because: str = AVAILABLE,
                      require_free: bool = True) -> list[Job]:
    """Closes the open watches on those of `product_ids` that are free now (no live hold,
    no claim; `require_free=False` closes them regardless) and creates one notice job per
    watch closed. Returns the jobs: the caller sends them after its transaction commits."""
    ids = list(dict.fromkeys(product_ids))
    if not ids:
        return []
    now = now or utcnow()
    query = Watch.select(Watch.id).where(Watch.closed_at.is_null(), Watch.product.in_(ids))
    if require_free:
        live = Hold.select(Hold.product).where((Hold.product == Watch.product) & (Hold.expires_at > now))
        claimed = Claim.select(Claim.product).where(Claim.product == Watch.product)
        query = query.where(~pw.fn.EXISTS(live), ~pw.fn.EXISTS(claimed))
    found = [wid for (wid,) in query.tuples()]
    jobs = []
    if not found:
        return jobs
    with transaction():
        for watch_id in found:
            closed = (Watch.update(closed_at=now, closed_because=because)
                      .where(Watch.id == watch_id, Watch.closed_at.is_null()).execute())
            if closed == 1:
                job, created = create_job(kind=WATCH_NOTICE, subject=f"watch:{watch_id}", payload={"watch_id": watch_id},
                                          max_attempts=4)
                if created:
                    jobs.append(job)
    return jobs


def notice(watch_id: int) -> dict | None:
    """What the notice mail needs (address, product name and id), or None when the watch
    is gone or its notice was already sent."""
    row = (Watch.select(Watch, Product).join(Product, on=(Watch.product == Product.product_id), attr="item")
           .where(Watch.id == watch_id).first())
    if row is None or row.notified_at is not None or row.closed_at is None:
        return None
    return {"email": row.email, "product_id": row.product_id, "product_name": row.item.name}


def mark_notified(watch_id: int) -> bool:
    return (Watch.update(notified_at=utcnow())
            .where(Watch.id == watch_id, Watch.notified_at.is_null()).execute()) == 1


def send_notice(watch_id: int, *, settings=None) -> dict:
    """Mails a watcher that the product they watched is available again (once); the
    `watch_notice` job's result. Raises TransientError while the mailer is down."""
    found = notice(watch_id)
    if found is None:
        return {"sent": False}
    settings = settings or get_settings()
    link = f"{settings.base_url}/?view=find&product={quote(found['product_id'], safe='')}"
    if not send_mail(found["email"], "watch_available", settings=settings, product_name=found["product_name"],
                     link=link, email=found["email"]):
        return {"sent": False, "why": "rejected"}
    mark_notified(watch_id)
    return {"sent": True}
