"""Customer satisfaction (issue 25 point 5; spec 4.6 GET /api/satisfaction): the one-click
rating link every reply carries, the page it opens, the rating it records, and the analysis
of a founder's ratings.

The link is BASE_URL/rate/<token>, the token `<message id>.<HMAC-SHA256 of it>`, keyed by a key
derived from SECRET_KEY for this purpose only (so no other signature of the service can be
replayed as a rating token). It binds the reply's id: a tampered token, or one whose id was
changed to another message's, does not verify. It is deterministic (the same reply always
gets the same link, so a reply sent again is rated once) and single use in effect: a reply
has at most one rating, kept by a unique index, so a second click records nothing and is told
the rating was recorded. Opening the link (GET) never records: mail scanners prefetch links.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from datetime import datetime, timedelta

import peewee as pw

from config import get_settings
from models.clock import iso, utcnow
from models.db import transaction
from models.desk import Ticket, TicketMessage
from models.satisfaction import SatisfactionRating
from models.session import Session
from models.store import Store
from services import business
from services.ownership import adopter, adoption_keys, owner_from_key, owner_of, session_key
from services.store import render
from services.store.versions import document_of

SATISFIED = SatisfactionRating.SATISFIED
MAX_COMMENT = SatisfactionRating.MAX_COMMENT
TREND_WEEKS = 8
WORST_SHOWN = 3
# The page has no script and posts only to this origin; images may come from the store's photos.
CSP = ("default-src 'none'; img-src 'self' https: data:; style-src 'self'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")

_TOKEN = re.compile(r"^([1-9][0-9]{0,18})\.([0-9a-f]{64})$")

ASK, RECORDED, ALREADY, INVALID = "ask", "recorded", "already", "invalid"


# --- The link -------------------------------------------------------------------------------

def _key() -> bytes:
    return hmac.new(get_settings().secret_key.encode(), b"satisfaction-rating-link-v1", hashlib.sha256).digest()


def _mac(message_id: int) -> str:
    return hmac.new(_key(), f"rate:{message_id}".encode(), hashlib.sha256).hexdigest()


def token_for(message_id: int) -> str:
    """The rating token of a reply message."""
    return f"{int(message_id)}.{_mac(int(message_id))}"


def rating_link(message_id: int) -> str:
    """The one-click rating link the desk appends to a reply's text."""
    return f"{get_settings().base_url.rstrip('/')}/rate/{token_for(message_id)}"


def message_of(token: str) -> TicketMessage | None:
    """The reply a token names, or None when it is malformed, forged or names no sent reply."""
    match = _TOKEN.match(token or "")
    if match is None:
        return None
    message_id = int(match.group(1))
    # Constant-time: the answer's timing says nothing about how much of a forgery was right.
    if not hmac.compare_digest(_mac(message_id), match.group(2)):
        return None
    message = TicketMessage.get_or_none(TicketMessage.id == message_id)
    if message is None or message.direction != TicketMessage.OUT:
        return None
    return message


# --- The page and the rating -------------------------------------------------------------------

def page(token: str) -> tuple[str, int]:
    """GET /rate/<token>: (the page's HTML, status); it shows the choices and records nothing."""
    message = message_of(token)
    if message is None:
        return _render(None, INVALID), 404
    existing = SatisfactionRating.get_or_none(SatisfactionRating.message == message.id)
    if existing is not None:
        return _render(message, ALREADY, score=existing.score), 200
    return _render(message, ASK, action=f"/rate/{token_for(message.id)}"), 200


def record(token: str, *, score: int, comment: str) -> tuple[str, int]:
    """POST /rate/<token>: records the rating once; a second one records nothing and says so."""
    message = message_of(token)
    if message is None:
        return _render(None, INVALID), 404
    ticket = Ticket.get_by_id(message.ticket_id)
    text = " ".join((comment or "").split())[:MAX_COMMENT] or None
    try:
        with transaction():
            # The unique index on the message settles two clicks at once: one row; the other
            # insert is refused by the database and told the rating was recorded.
            SatisfactionRating.create(message=message.id, ticket=ticket.id, owner=ticket.owner,
                                      session=ticket.session_id, account=ticket.account_id, score=score,
                                      comment=text, rated_at=utcnow())
    except pw.IntegrityError:
        existing = SatisfactionRating.get_or_none(SatisfactionRating.message == message.id)
        return _render(message, ALREADY, score=existing.score if existing else None), 200
    return _render(message, RECORDED, score=score), 200


def _render(message: TicketMessage | None, state: str, *, score: int | None = None, action: str = "") -> str:
    if message is None:
        return render.render_rating(None, base_path="", state=state)
    ticket = Ticket.get_by_id(message.ticket_id)
    store = _published_store(ticket)
    shop = business.settings_of(owner_from_key(ticket.owner))["business_name"] or ""
    if store is None:
        return render.render_rating(None, base_path="", state=state, score=score, business_name=shop, action=action)
    document = document_of(store.product_id, store.published_version)
    return render.render_rating(document, base_path=f"/store/{store.slug}", state=state, score=score,
                                business_name=shop, action=action)


def _published_store(ticket: Ticket) -> Store | None:
    query = Store.select().where(Store.owner == ticket.owner, Store.published_version.is_null(False))
    store = query.where(Store.product == ticket.product_id).first() if ticket.product_id else None
    return store or query.order_by(Store.published_at.desc()).first()


def ticket_satisfaction(ticket_id: int) -> dict | None:
    """The ticket answer's `satisfaction`: the newest rating of its replies ({score, comment, rated_at}) or None."""
    row = (SatisfactionRating.select().where(SatisfactionRating.ticket == ticket_id)
           .order_by(SatisfactionRating.rated_at.desc(), SatisfactionRating.id.desc()).first())
    return {"score": row.score, "comment": row.comment, "rated_at": iso(row.rated_at)} if row else None


# --- The analysis ----------------------------------------------------------------------------------

def _figures(scores: list[int]) -> dict:
    satisfied = sum(1 for s in scores if s >= SATISFIED)
    return {"count": len(scores), "average": round(sum(scores) / len(scores), 2) if scores else None,
            "satisfied": satisfied, "satisfied_share": round(satisfied / len(scores), 4) if scores else None}


def _monday(moment: datetime) -> datetime:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def analysis(*, session: Session) -> dict:
    """GET /api/satisfaction: the founder's ratings counted, scored, by week and by worst category."""
    owner = owner_of(session)
    rows = list(SatisfactionRating.select(SatisfactionRating.score, SatisfactionRating.rated_at, Ticket.category)
                .join(Ticket, on=(SatisfactionRating.ticket == Ticket.id))
                .where(SatisfactionRating.owner == owner.key).tuples())
    this_week = _monday(utcnow())
    weeks = [this_week - timedelta(weeks=n) for n in range(TREND_WEEKS - 1, -1, -1)]
    by_week: dict[datetime, list[int]] = {w: [] for w in weeks}
    by_category: dict[str, list[int]] = {}
    for score, rated_at, category in rows:
        week = _monday(rated_at)
        if week in by_week:
            by_week[week].append(score)
        by_category.setdefault(category, []).append(score)
    trend = [{"week": w.date().isoformat(), **{k: v for k, v in _figures(s).items() if k != "satisfied"}}
             for w, s in by_week.items()]
    if not rows:
        return {"status": "no_ratings_yet", "reason": "no_ratings_yet",
                "explanation": "No customer has rated a reply yet. Each reply you send carries a one-click rating "
                               "link; the ratings show here.",
                "count": 0, "score": None, "trend": trend, "worst_categories": []}
    overall = _figures([score for score, _at, _category in rows])
    categories = sorted(({"category": c, **{k: v for k, v in _figures(s).items() if k != "satisfied"}}
                         for c, s in by_category.items()), key=lambda c: (c["average"], -c["count"], c["category"]))
    return {"status": "ok", "count": overall["count"],
            "score": {k: overall[k] for k in ("average", "satisfied", "satisfied_share")},
            "trend": trend, "worst_categories": categories[:WORST_SHOWN]}


def _ratings_held(session_id: int) -> list[str]:
    count = SatisfactionRating.select().where(SatisfactionRating.owner == session_key(session_id)).count()
    return [f"{count} customer rating{'' if count == 1 else 's'}"] if count else []


@adopter(kind="ratings", held=_ratings_held)
def adopt_ratings(session_id: int, account_id: int) -> dict:
    """A session's ratings become its account's, with its tickets."""
    session_key, account_key = adoption_keys(session_id, account_id)
    count = (SatisfactionRating.update(owner=account_key, account=account_id)
             .where(SatisfactionRating.owner == session_key).execute())
    return {"satisfaction": [str(count)]} if count else {}
