"""What every request goes through: its id, the size and cross-site checks, the session
cookie, the cache and security headers (no answer a shared cache may keep carries a
cookie), and one structured log line.

The log line names the route and the path without its query string: sign-in tokens
travel in query strings, and cookie values never appear in any log. Bearer values that
travel in the path itself (a journey carrier's id, a rating token, a sandbox checkout's
id) are cut from it (logformat.logged_path).
"""
from __future__ import annotations

import logging
import secrets
import time
from urllib.parse import urlsplit

from flask import g, jsonify, make_response, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.exceptions import NotFound
from werkzeug.routing import RequestRedirect

from api import hosts
from api.errors import ApiError
from api.routing import BODY_METHODS, UNDECLARED, declaration_of
from api.session import ensure_cookie
from logformat import logged_path
from services.database import close_connection, waiting_at_most
from services.metrics import observe_request

log = logging.getLogger("api.request")

NO_STORE = "private, no-store, must-revalidate"


class _UnusedFlaskSession(SecureCookieSessionInterface):
    """Flask's cookie session, which the service never uses (its session is ff_session,
    api/session.py): for a request without Flask's cookie, the empty session Flask would
    open, without first building the signing serializer Flask builds on every request."""

    def open_session(self, app, request):
        # `in`, not .get: a missing key's .get raises and catches a KeyError inside werkzeug.
        if app.secret_key and self.get_cookie_name(app) not in request.cookies:
            return self.session_class()
        return super().open_session(app, request)


def install_request_conventions(app, settings) -> None:
    app.session_interface = _UnusedFlaskSession()

    # Each hook reads Flask's request and g once, through their proxies: every attribute read
    # through a proxy costs a failed lookup on the proxy (an AttributeError made and dropped)
    # before it reaches the object, and the hooks run on every request.
    @app.before_request
    def start_request():
        req, here = request._get_current_object(), g._get_current_object()
        # From here to the teardown, the request's database operations together wait at most
        # DB_WAIT_SECONDS (models/db.py): a database that stops answering costs the request a
        # 503 database_unavailable within that bound, not its thread for good.
        here.database_waits = waiting_at_most(settings.db_wait_seconds, in_all=True)
        here.database_waits.__enter__()
        here.request_id = secrets.token_hex(8)
        here.started = time.perf_counter()
        if "\x00" in req.path:
            # No path names anything with a NUL in it (%00), and PostgreSQL cannot even
            # compare text holding one: the JSON 404 of any unknown path, before any route.
            raise NotFound()
        # A connected domain's Host is matched to its store's routes before anything below
        # reads the route (redirects, the body limit, the cross-site guard).
        hosts.route_store_host(app)
        if "//" in req.environ.get("PATH_INFO", ""):
            # Nor does a path with an empty segment name anything (README): werkzeug drops
            # leading slashes before matching, so //api/health would otherwise be answered as
            # /api/health while /api//health matches nothing. After the store host is known,
            # so a store's domain answers it as its own 404, without the founders' cookie.
            raise NotFound()
        if isinstance(req.routing_exception, RequestRedirect):
            return relative_redirect(req.routing_exception)
        limit = body_limit(app, settings)
        # Werkzeug stops reading past this too (a body sent without Content-Length, chunked).
        req.max_content_length = limit
        length = req.content_length
        if length is not None and length > limit:
            raise ApiError(413, "payload_too_large")
        _refuse_cross_site(app, settings)

    @app.after_request
    def finish_response(response):
        req, here = request._get_current_object(), g._get_current_object()
        if hosts.store_domain() is None:
            # A store's host never issues the founders' cookie, not even on its 404s.
            ensure_cookie(response, settings)
        path = req.path
        if path.startswith("/api/") or path == "/login" or path.startswith("/login/"):
            response.headers["Cache-Control"] = NO_STORE
        keep_cookies_out_of_shared_caches(response)
        headers = response.headers
        headers["X-Request-Id"] = here.get("request_id", "")
        # Set unless the route set them: Headers.setdefault finds a missing header by raising
        # and catching a KeyError.
        present = {name.lower() for name, _value in headers.items()}
        if "x-content-type-options" not in present:
            headers["X-Content-Type-Options"] = "nosniff"
        if "referrer-policy" not in present:
            headers["Referrer-Policy"] = "same-origin"
        route = req.url_rule.rule if req.url_rule else None
        started = here.get("started")
        _log_request(response, req, here.get("request_id"), route, started)
        if started is not None:
            observe_request(route=route, method=req.method, status=response.status_code,
                            seconds=time.perf_counter() - started)
        return response

    @app.teardown_request
    def release_connection(exc):
        close_connection()
        waits = g.pop("database_waits", None)
        if waits is not None:
            waits.__exit__(None, None, None)


def shared_cache_may_keep(response) -> bool:
    """Whether a shared cache (a CDN, a proxy) may store this answer: any answer not marked
    `private` or `no-store`. A Set-Cookie does not stop a cache from storing an answer (RFC
    9111, 7.3), and without Cache-Control a 200, 301 or 404 may be kept heuristically, so an
    answer without either directive counts as kept. `private="Set-Cookie"` (the qualified
    form) keeps the rest of the answer shareable, so it counts as kept too."""
    return not any(_name(d) == "no-store" or (_name(d) == "private" and "=" not in d) for d in _directives(response))


def keep_cookies_out_of_shared_caches(response) -> None:
    """An answer that sets a cookie is never left for a shared cache to keep, or it would
    hand one visitor's session to the next. A route that marked its answer shareable (public,
    s-maxage, no-cache...) and still sets a cookie is a programming error (the route should be
    declared `session=False`): it is logged, and the answer is made `private` rather than the
    cookie dropped, because a route that set a cookie may also have answered for this visitor
    alone, and the visitor keeps the session it was given. An answer that said nothing about
    caching (a 404 of an unknown path, a redirect) is simply marked `private`."""
    if not response.headers.getlist("Set-Cookie") or not shared_cache_may_keep(response):
        return
    declared = _directives(response)
    if declared:
        log.error("programming error: a shareable answer sets a cookie; made private", extra={"fields": {
            "request_id": g.get("request_id"), "route": request.url_rule.rule if request.url_rule else None,
            "cache_control": ", ".join(declared)}})
    # What only a shared cache reads goes; what the browser's own cache reads stays.
    kept = [d for d in declared if _name(d) not in ("public", "private", "s-maxage", "proxy-revalidate")]
    response.headers["Cache-Control"] = ", ".join(["private", *kept])


def _directives(response) -> list[str]:
    """The Cache-Control directives of an answer, as sent (over one header or several)."""
    return [d.strip() for d in ",".join(response.headers.getlist("Cache-Control")).split(",") if d.strip()]


def _name(directive: str) -> str:
    return directive.partition("=")[0].strip().lower()


def untrusted_bytes(data, *, content_type: str, cache_control: str, **headers: str):
    """An answer carrying bytes the service did not write (a founder's upload, a generated
    image, a stranger's page fixed by Fix): a browser must never run or sniff them as ours,
    so they go out as their declared type only, in a sandbox with nothing allowed.
    `headers` are added as given (`Content_Disposition` for Content-Disposition)."""
    response = make_response(data)
    response.headers["Content-Type"] = content_type
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response.headers["Cache-Control"] = cache_control
    for name, value in headers.items():
        response.headers[name.replace("_", "-")] = value
    return response


def relative_redirect(moved: RequestRedirect):
    """A redirect the router asked for, in JSON, to a relative Location.

    Werkzeug builds the target of its own redirects (a slash added or merged, a rule's
    redirect_to or defaults) as an absolute URL from the request's Host header, which the
    client chose; a shared cache would then send others to that host. Only the path and
    query are kept, with one leading slash (`//host` would be another site again).
    """
    target = urlsplit(moved.new_url)
    location = "/" + target.path.lstrip("/") + (f"?{target.query}" if target.query else "")
    response = jsonify({"status": "moved", "location": location})
    response.status_code = moved.code
    response.headers["Location"] = location
    return response


def body_limit(app, settings) -> int:
    """The largest body this request may send: MAX_BODY_BYTES, or the larger ceiling its
    route declared (`declare(max_body_bytes=...)`: POST /api/product takes images)."""
    endpoint = request.endpoint
    declaration = declaration_of(app.view_functions.get(endpoint)) if endpoint else None
    declared = declaration.max_body_bytes if declaration is not None else None
    return max(settings.max_body_bytes, declared or 0)


def _refuse_cross_site(app, settings) -> None:
    """Refuses a state-changing request that another site made the browser send.

    The browser says so in Sec-Fetch-Site; older browsers still send Origin on such
    requests. Every body-taking method counts as state-changing, and so does any route
    that declares it (find and feed mint holds and spend credits) or declares nothing at
    all: a new route is protected until it says otherwise. Routes called by other servers
    (provider callbacks) are exempt and authenticate by signature.
    """
    req = request._get_current_object()
    if req.endpoint is None:
        return  # no route: nothing to protect (the answer is a 404 or 405)
    declaration = declaration_of(app.view_functions.get(req.endpoint)) or UNDECLARED
    if declaration.callback:
        return
    if req.method not in BODY_METHODS and not declaration.changes_state:
        return
    headers = req.headers
    if headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        raise ApiError(403, "cross_site_request")
    origin = headers.get("Origin")
    if origin and origin not in (settings.origin, req.host_url.rstrip("/")) \
            and not hosts.store_origin_accepted(origin, declaration):
        raise ApiError(403, "cross_site_request")


def _log_request(response, req, request_id, route, started) -> None:
    log.info("request", extra={"fields": {
        "request_id": request_id,
        "method": req.method,
        "route": route,
        "path": logged_path(req.path),
        "status": response.status_code,
        "duration_ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
    }})
