"""The ff_session cookie: resolved lazily, issued on any response to a request without a
valid one, and stored in that same request so the holds it takes next match it."""
from __future__ import annotations

import logging

from flask import current_app, g, request

from services import sessions
from services.database import UNAVAILABLE, close_connection
from services.sessions import Remembered, Session, find_session, open_session

log = logging.getLogger("api.session")

COOKIE_NAME = "ff_session"
ONE_YEAR = 31536000


def current_session() -> Session:
    """The session of this request; a request without a valid cookie gets a new one."""
    here = g._get_current_object()  # read through the proxy once (api/http.py says why)
    if "session" not in here:
        req = request._get_current_object()
        if not _route_has_sessions(req):
            # A route declared session=False is never given a cookie (ensure_cookie), so a
            # session opened here would be a row nobody can ever come back to.
            raise RuntimeError(f"{req.endpoint} is declared session=False but reads the session")
        session = find_session(req.cookies.get(COOKIE_NAME))
        if session is None:
            # Missing, malformed or never issued by us: a fresh value, never the client's.
            session, here.new_cookie_value = open_session()
        here.session = session
    return here.session


def remembered_session() -> Remembered | None:
    """For find and feed only: the session this process last read for the request's cookie,
    made this request's session without reading it again (so the answer issues no cookie),
    or None (then call current_session). The caller must hand `values` to a statement that
    checks them and, on StaleSession, call `forget_remembered_session` and start over."""
    here, req = g._get_current_object(), request._get_current_object()
    if "session" in here or not _route_has_sessions(req):
        return None
    remembered = sessions.remembered_session(req.cookies.get(COOKIE_NAME))
    if remembered is not None:
        here.session = remembered.session
    return remembered


def forget_remembered_session() -> None:
    """The remembered session was stale: the request's session is read as usual next."""
    g.pop("session", None)


def sent_session() -> Session | None:
    """The session the request's cookie names, or None: never opens one and never issues a
    cookie, so a route declared `session=False` may call it (GET /media/ shows founders their
    own unpublished uploads, and gives nobody a cookie or a session row for an image)."""
    return find_session(request.cookies.get(COOKIE_NAME))


def reissue_cookie() -> None:
    """Sets the cookie on this response even when the request's was valid (GET /login
    always sets it, so a failed redemption never loses the anonymous journey)."""
    current_session()
    if not g.get("new_cookie_value"):
        g.new_cookie_value = request.cookies.get(COOKIE_NAME)


def replace_cookie(value: str) -> None:
    """Sends a new cookie value with this response (the session was rotated)."""
    g.new_cookie_value = value


def _route_has_sessions(req) -> bool:
    """Whether the request `req`'s route reads and issues the cookie: every route but those
    declared `session=False` (a request that matched no route gets one too)."""
    view = current_app.view_functions.get(req.endpoint) if req.endpoint else None
    declaration = getattr(view, "declaration", None)
    return declaration is None or (declaration.session and not declaration.callback)


def ensure_cookie(response, settings) -> None:
    """Issues the cookie if this request came without a valid one (spec 2.1, 4.1, 5 rule 2):
    every endpoint of spec section 4, public or session, refusals included. Routes declared
    `session=False` get none, and none of them is a spec endpoint but POST /api/track (a
    recorded deviation, api/openapi.py): what a shared cache may keep and is the same for
    everyone (the public store pages, static files, /media/), what providers call server to
    server or send the customer's browser back to (/pay/..., the billing webhook, /metrics),
    and the store's own funnel events (store visitors are not founders). api/http.py makes
    private any shareable answer that still would carry one."""
    if not _route_has_sessions(request._get_current_object()):
        return
    here = g._get_current_object()
    if "session" not in here:
        try:
            current_session()
        except UNAVAILABLE:
            # The database is down: a value that was never stored would be replaced on the
            # next request anyway, so none is issued now.
            close_connection()
            log.warning("session not issued: database unavailable", extra={"fields": {"request_id": here.get("request_id")}})
            return
    value = here.get("new_cookie_value")
    if value:
        response.set_cookie(COOKIE_NAME, value, max_age=ONE_YEAR, path="/", httponly=True, samesite="Lax",
                            secure=settings.secure_cookies)
