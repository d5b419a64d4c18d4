"""GET /admin and GET /marketing: the operators' pages (spec 4.7's internal paths), HTML
rendered on the server from services/admin.py's figures and services/admin_charts.py's SVG.

Both ask for HTTP Basic with ADMIN_PASSWORD (any user name), compared in constant time as
GET /metrics does; with no ADMIN_PASSWORD they refuse everyone. They read no session and
issue no cookie, are never cached, cannot be framed, and run no script at all.
"""
from __future__ import annotations

from functools import wraps

from flask import Response, render_template, request
from marshmallow import Schema, fields, validate

from api.operator_auth import require_admin_password
from api.routing import Blueprint
from config import get_settings
from services import admin, admin_charts, operator_password

bp = Blueprint("admin", __name__, description="The operators' pages (HTTP Basic with ADMIN_PASSWORD).")

# `data:` images: the pages' blank favicon (`<link rel="icon" href="data:,">`), which keeps the
# browser from asking for /favicon.ico; the pages run no script, so an image can do no harm.
PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'")

DECISIONS = [
    "GET /admin and GET /marketing are the operators' HTML pages. They ask for HTTP Basic with ADMIN_PASSWORD as "
    "the password (any user name), compared in constant time; without it, or with another, they answer JSON 401 "
    "`admin_credentials_required` with WWW-Authenticate: Basic; with no ADMIN_PASSWORD set they refuse everyone "
    "with 403 `admin_not_configured`: JSON, except to a browser (an Accept that prefers text/html to "
    "application/json), which is answered the same 403 as an HTML page saying how to turn the pages on (set "
    "ADMIN_PASSWORD, at least 16 characters, and restart); either answer carries Vary: Accept. Every answer of "
    "theirs, refusals included, is `no-store, private`, carries "
    "X-Frame-Options: DENY and the Content-Security-Policy `" + PAGE_CSP + "` (no script; styles from "
    "/static/admin/), and they neither read nor issue the session cookie.",
    f"Wrong admin passwords are throttled per client address (services/operator_password.py): every request that "
    f"carries a password counts as a try before the password is compared, in a count every web process shares "
    f"(Redis; in embedded mode the one process's), and the right password clears the client's count. After "
    f"{operator_password.FAILURES_ALLOWED} tries without getting in within "
    f"{operator_password.WINDOW_SECONDS // 60} minutes (the window starts at the first try), GET /admin, "
    f"GET /marketing and GET /metrics answer that client 429 `operator_password_throttled` with Retry-After "
    f"(the seconds left of its window), whatever password it sends, until the window ends. A request with no "
    f"password (a browser's first visit) is not a try. The client is the peer's address, or, when the peer is on "
    f"the same host (the front, a TLS proxy), the last address of its X-Forwarded-For; an IPv6 client is counted "
    f"by its /64. Each wrong password is logged (realm, client, tries so far; never the password), and the first "
    f"throttled try of a window once. ADMIN_PASSWORD must be at least 16 characters: a shorter one stops the "
    f"service at start.",
    f"GET /admin lists accounts, claims and jobs ({admin.PAGE_SIZE} rows of each per page, newest first), worker "
    "health, job states, the queue's waiting times and meter use per bucket. `q` narrows the lists (an account's "
    "email; a claim's product id, product name or account email; a job's kind or subject; case-insensitive, "
    f"taken literally), at most {admin.MAX_SEARCH} characters, else 400 `invalid_search`. `page` is a whole number "
    f"from 1 to {admin.MAX_PAGE} (default 1), else 400 `invalid_page`; a page past a list's last shows it empty. "
    "GET /marketing shows the referral funnel, the store funnel over the last "
    f"{admin.FUNNEL_DAYS} days and Fix runs per day over the last {admin.FIX_DAYS}. Charts are inline SVG drawn on "
    "the server, each with a <title> stating its figures.",
]

_HTML = {"type": "string", "description": "An operator page (HTML)"}
_REFUSALS = {401: ["admin_credentials_required"], 403: ["admin_not_configured"],
             429: ["operator_password_throttled"]}


class AdminQuery(Schema):
    q = fields.String(load_default="", validate=validate.Length(max=admin.MAX_SEARCH), metadata={
        "reason": "invalid_search", "description": "Words an account email, product id or name, or job kind holds"})
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=admin.MAX_PAGE), metadata={
        "reason": "invalid_page", "description": "The page of each list, from 1"})


def _admin_only(view):
    """Refuses the request before anything else is read unless it carries the admin password."""

    @wraps(view)
    def run(*args, **kwargs):
        password = get_settings().admin_password
        if not password and _wants_html():
            # An operator opening /admin before turning it on: a page saying how, not JSON.
            return _page("admin/not_configured.html", status=403)
        require_admin_password(password, realm="admin", not_configured="admin_not_configured",
                               credentials_required="admin_credentials_required")
        return view(*args, **kwargs)

    return run


@bp.after_request
def _never_kept(response: Response) -> Response:
    """Every answer of these routes, refusals included: never stored, never framed."""
    response.headers["Cache-Control"] = "no-store, private"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Content-Security-Policy"] = PAGE_CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.vary.add("Accept")  # with no ADMIN_PASSWORD, a browser gets HTML and a client JSON
    return response


def _wants_html() -> bool:
    """Whether the client is a browser: its Accept prefers text/html to JSON (*/* and no
    Accept at all are answered JSON)."""
    return request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"


def _page(template: str, status: int = 200, **context) -> Response:
    return Response(render_template(template, **context), status=status, mimetype="text/html")


@bp.get("/admin")
@bp.declare(changes_state=False, session=False, refuses={400: ["invalid_page", "invalid_search"], **_REFUSALS})
@_admin_only
@bp.arguments(AdminQuery, location="query")
@bp.response(200, _HTML, content_type="text/html")
def admin_page(query):
    """The operators' page: accounts, claims, jobs, worker health and meter use, searchable and paged."""
    q, page = query["q"].strip(), query["page"]
    by_hour, ages, meter = admin.jobs_by_hour(), admin.queue_ages(), admin.meter_use()
    return _page("admin/admin.html", q=q, page=page, page_size=admin.PAGE_SIZE,
                 accounts=admin.accounts(q, page), claims=admin.claims(q, page), jobs=admin.jobs(q, page),
                 states=admin.job_states(), workers=admin.workers(get_settings().worker_stale_seconds),
                 meter=meter, charts=[admin_charts.jobs_chart(by_hour), admin_charts.queue_age_chart(ages),
                                      admin_charts.meter_chart(meter)])


@bp.get("/marketing")
@bp.declare(changes_state=False, session=False, refuses=_REFUSALS)
@_admin_only
@bp.response(200, _HTML, content_type="text/html")
def marketing_page():
    """The operators' marketing figures: referrals, the store funnel and Fix runs."""
    referrals, funnel, fix = admin.referrals(), admin.store_funnel(), admin.fix_days()
    return _page("admin/marketing.html", referrals=referrals, funnel=funnel, fix=fix,
                 charts=[admin_charts.referral_chart(referrals), admin_charts.store_funnel_chart(funnel),
                         admin_charts.fix_chart(fix)])
