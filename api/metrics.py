"""GET /metrics: the service's figures in Prometheus text format, for the operators' scraper."""
from __future__ import annotations

import ipaddress

from flask import Response, request

from api.operator_auth import require_admin_password
from api.routing import Blueprint
from config import get_settings
from jobs.send import queue_depths
from services.metrics import scrape

bp = Blueprint("metrics", __name__, description="Figures for the operators' scraper.")

DECISIONS = [
    "GET /metrics serves Prometheus text (prometheus-client): ff_http_requests_total{route,method,status} and "
    "ff_http_request_duration_seconds{route,method} from every web process, and, read from the database and the "
    "broker at scrape time, ff_jobs{kind,status} (jobs queued or running now, and jobs done or failed in the last 15 "
    "minutes: a scrape counts through the job table's status index, never the whole table), "
    "ff_job_duration_seconds{kind} (jobs finished in the last 15 minutes), ff_job_oldest_queued_age_seconds, "
    "ff_workers_alive, ff_queue_depth{queue,state}, ff_retention_left{kind}, ff_database_up, ff_broker_up. `route` is "
    "the URL rule, never the raw path.",
    "Retention (the clock's hourly prune_retained, services/retention.py, in batches of 500 ids, one of each kind in turn, "
    "until nothing aged is left or RETENTION_BUDGET_SECONDS (300) is spent; what a run leaves is reported as "
    "ff_retention_left{kind}): finished jobs JOB_RETENTION_DAYS (7) after their last change, except the newest of each kind and "
    "subject (routes answer it as the latest run, build or publish); store funnel events and sessions' presence "
    "after FUNNEL_RETENTION_DAYS (90, never fewer than the store metrics' 90-day window); Fix runs with their pages "
    "and events FIX_RETENTION_DAYS (30) after they finished or their follow-up mail went, never while the follow-up "
    "is owed; lapsed holds, spent or expired sign-in links and confirmations, and sandbox checkouts that ended unpaid "
    "(once their notifications were delivered) EXPIRED_RETENTION_DAYS (1) after their end; journey carriers a day "
    "after they expired. Payments, orders, revenue, the ad ledger, billing events and what founders made are never "
    "pruned.",
    "GET /metrics is public only with METRICS_PUBLIC=1; otherwise it answers a direct loopback peer (a request "
    "carrying Forwarded or X-Forwarded-For came through a proxy and is not loopback), or HTTP Basic with "
    "ADMIN_PASSWORD as the password (any user name). Refusals are JSON: 401 `metrics_credentials_required` with "
    "WWW-Authenticate: Basic when ADMIN_PASSWORD is set, else 403 `metrics_not_public`. Passwords tried here count "
    "with those of the operator pages (api/admin.py): past their bound, 429 `operator_password_throttled` with "
    "Retry-After. It issues no session cookie.",
    "`dramatiq` worker processes serve their own figures (dramatiq's Prometheus middleware: dramatiq_messages_total, "
    "dramatiq_message_duration_milliseconds, ...) on WORKER_METRICS_PORT (default 9191, 0 = off), bound to "
    "127.0.0.1 unless METRICS_PUBLIC=1; one server per host serves every worker process there.",
]

_PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP")


@bp.get("/metrics")
# A scraper is a server, not a browser: like the provider callbacks it is given no session.
@bp.declare(changes_state=False, callback=True, session=False,
            refuses={401: ["metrics_credentials_required"], 403: ["metrics_not_public"],
                     429: ["operator_password_throttled"]})
@bp.response(200, {"type": "string"}, content_type="text/plain")
def metrics():
    """Serves the service's figures in Prometheus text format (requests, jobs, queues, workers).

    Public with METRICS_PUBLIC=1; otherwise from loopback, or with HTTP Basic and ADMIN_PASSWORD."""
    settings = get_settings()
    _allow(settings)
    body, content_type = scrape(worker_stale_seconds=settings.worker_stale_seconds, queue_depths=queue_depths)
    response = Response(body, content_type=content_type)
    response.headers["Cache-Control"] = "no-store"
    return response


def _allow(settings) -> None:
    """Refuses the scrape unless the figures are public, the peer is this host, or the
    admin password came with it."""
    if settings.metrics_public or _from_loopback():
        return
    require_admin_password(settings.admin_password, realm="metrics", not_configured="metrics_not_public",
                           credentials_required="metrics_credentials_required")


def _from_loopback() -> bool:
    """True for a peer on this host that no proxy relayed: behind a reverse proxy on the
    same host every visitor would otherwise look local."""
    if any(name in request.headers for name in _PROXY_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)
