"""What an answer made before Flask (a WSGI layer in front of the app: api/published_pages.py,
api/remembered_feed.py) must carry to be the app's own: the headers api/http.py's hooks add to
every answer, the request's log line and its metrics."""
from __future__ import annotations

import logging
import secrets
import time
from urllib.parse import urlsplit

from api.hosts import host_name
from config import get_settings
from logformat import logged_path
from services.metrics import observe_request

log = logging.getLogger("api.request")


def without_body(environ) -> bool:
    """Whether the request sends no body (a layer leaves any other to the app's body limit)."""
    return environ.get("CONTENT_LENGTH") in (None, "", "0") and not environ.get("HTTP_TRANSFER_ENCODING")


def on_own_host(environ) -> bool:
    """Whether the request came to the service's own host (or to an address, or a name no
    store could connect): another name may be a connected domain, which the app's host routing
    decides (api/hosts.py)."""
    host = host_name(environ.get("HTTP_HOST", ""))
    return host is None or host == (urlsplit(get_settings().base_url).hostname or "").lower()


def send(environ, start_response, status: str, headers: list, body: bytes, route: str, started: float) -> list:
    """Starts the answer (`headers` then the app's own), logs and counts it as the app does
    (`route`: the URL rule; `started`: time.perf_counter() when the layer took the request) and
    returns its body (none to a HEAD)."""
    request_id = secrets.token_hex(8)
    start_response(status, [*headers, ("X-Request-Id", request_id), ("X-Content-Type-Options", "nosniff"),
                            ("Referrer-Policy", "same-origin")])
    method, code, seconds = environ["REQUEST_METHOD"], int(status[:3]), time.perf_counter() - started
    log.info("request", extra={"fields": {
        "request_id": request_id, "method": method, "route": route, "path": logged_path(environ.get("PATH_INFO")),
        "status": code, "duration_ms": round(seconds * 1000, 2)}})
    observe_request(route=route, method=method, status=code, seconds=seconds)
    return [body] if method == "GET" else []
