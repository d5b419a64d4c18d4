"""Journey carriers (POST /api/journey, POST /api/journey/<id>/consume): a route of the app,
with a little data, handed from one browser to another ("Continue on another device").

A carrier's id is 128 random bits, shown once; only its SHA-256 is stored. It lives
CARRIER_MINUTES and is spent once: the consume is one conditional UPDATE (WHERE not yet
consumed AND not expired) whose row count decides, so of any number of browsers opening
the same link at once exactly one gets the route. A route is one of the app's own
(`#/app/...`; `/app/...` and `/#/app/...` are taken and stored in that form), never an outside
address, so a carrier cannot send anyone off the service.
"""
from __future__ import annotations

import json
import re
import secrets
from datetime import timedelta

from config import get_settings
from models.clock import iso, utcnow
from models.db import transaction
from models.session import Session
from models.walkthrough import JourneyCarrier
from services.errors import Refused
from services.tokens import hash_token

CARRIER_MINUTES = 15
MAX_ROUTE = 300
MAX_DATA_BYTES = 2048  # the data as compact JSON
# Spent and expired carriers are deleted this long after they expire, when the next is issued.
KEPT_AFTER_EXPIRY = timedelta(days=1)
CONTINUE_PATH = "/#/app/continue?c="

# An app route: "#/app/<screen>", more path segments, and an optional plain query. No
# scheme, host, backslash, "//" or "..", so it can only name a screen of this app.
_ROUTE = re.compile(r"#/app/[a-z0-9-]+(?:/[A-Za-z0-9_-]+)*(?:\?[A-Za-z0-9_.~%=&+-]*)?")
# How links write one (issue 51.4): "/app/store", "#/app/store" and "/#/app/store" name the
# same screen; each is stored as the app's hash route, "#/app/store".
ROUTE_SHAPE = re.compile(r"(?:/#|#)?" + _ROUTE.pattern[1:])
_ID = re.compile(r"[0-9a-f]{32}")


def issue(*, session: Session, route, data=None) -> dict:
    """Issues a carrier of `route` (and `data`) for 15 minutes; answers its id, shown once."""
    route = app_route(route)
    if route is None:
        raise Refused("invalid_route", f"A journey carries a screen of this app: a route like #/app/home or "
                                       f"/app/home of at most {MAX_ROUTE} characters, never an outside address. Nothing was issued.")
    if data is not None and (not isinstance(data, dict)
                             or len(json.dumps(data, separators=(",", ":"))) > MAX_DATA_BYTES):
        raise Refused("invalid_journey_data", f"A journey's data is one JSON object of at most {MAX_DATA_BYTES} "
                                              "bytes; nothing was issued.")
    raw = secrets.token_hex(16)
    now = utcnow()
    expires_at = now + timedelta(minutes=CARRIER_MINUTES)
    with transaction():
        JourneyCarrier.delete().where(JourneyCarrier.expires_at < now - KEPT_AFTER_EXPIRY).execute()
        JourneyCarrier.create(id_hash=hash_token(raw), route=route, data=data, session=session.id, created_at=now,
                              expires_at=expires_at)
    return {"status": "ok", "id": raw, "expires_at": iso(expires_at),
            "url": f"{get_settings().base_url}{CONTINUE_PATH}{raw}"}


def app_route(route) -> str | None:
    """The app's hash route for a route as links write it (/app/x, #/app/x, /#/app/x); None
    when it is not a route of the app."""
    if not isinstance(route, str) or len(route) > MAX_ROUTE + 1 or not ROUTE_SHAPE.fullmatch(route):
        return None
    stored = "#" + route[route.index("/app/"):]
    return stored if len(stored) <= MAX_ROUTE else None


def consume(*, carrier_id: str) -> dict:
    """Spends the carrier: its route and data, once; refuses already_consumed after, not_found when unknown or expired."""
    if not isinstance(carrier_id, str) or not _ID.fullmatch(carrier_id):
        raise _not_found()
    id_hash, now = hash_token(carrier_id), utcnow()
    # The database decides who spends it: the row count of one conditional UPDATE. On
    # PostgreSQL a racing UPDATE waits for the winner's commit, then finds consumed_at set
    # and updates nothing; on SQLite writers queue. Never read-then-write.
    with transaction():
        spent = (JourneyCarrier.update(consumed_at=now)
                 .where(JourneyCarrier.id_hash == id_hash, JourneyCarrier.consumed_at.is_null(),
                        JourneyCarrier.expires_at > now)
                 .execute())
    row = JourneyCarrier.get_or_none(JourneyCarrier.id_hash == id_hash)
    if spent == 1 and row is not None:
        return {"status": "ok", "route": row.route, "data": row.data}
    if row is None or row.expires_at <= now:
        raise _not_found()
    raise Refused("already_consumed", "This link to continue was opened already, so it has been used up. Make a new "
                                      "one on the device you came from.")


def _not_found() -> Refused:
    return Refused("not_found", f"No link to continue has that id, or its {CARRIER_MINUTES} minutes are over. Make a "
                                "new one on the device you came from.")
