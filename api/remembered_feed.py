"""GET /api/feed before Flask, for a founder this process remembers: a WSGI layer (in front of
api/published_pages.py) that serves the feed of a cookie whose session services/sessions.py
remembers here, on the service's own host, with none of Flask's request machinery. Everything
else goes on to the app as before: another path or method, a query string or a body, another
Host (maybe a connected domain), a request that says it is cross-site or names an Origin
(the app's guard decides those), a cookie not remembered here, a session found stale.

What it answers is what the app would (tests/test_remembered_feed.py compares the two): the
cards as api/discovery.as_sent writes them, the headers api/http.py adds (no cookie: a
remembered session's answer issues none), the request's log line and its metrics, and the
jobs the feed made, sent after it. When the feed raises (a meter refusal, nothing to show, a
database fault), the request goes on to the app with the exception in its environ, and the
feed's view raises it there: the answer is then the app's own, hooks and handlers included.
The feed's statement is one atomic step, and what a feed writes after it it writes in one
transaction, so nothing runs twice.

Why: the feed is the request a founder's app sends most, its own work is one statement, and
Flask's contexts and hooks were about a quarter of its CPU (bench/README.md, "Session 18").
"""
from __future__ import annotations

import time

from werkzeug.http import parse_cookie

from api import before_flask
from api.http import NO_STORE
from api.session import COOKIE_NAME
from config import get_settings
from jobs.send import send_all
from services import discovery, sessions
from services.database import close_connection, waiting_at_most
from services.sessions import StaleSession

PATH = "/api/feed"  # its path, and its URL rule as the app's log lines and metrics name it
# Where the feed's exception waits for the app's view (api/discovery.feed raises it).
FAILED = "ff.remembered_feed.failed"


class RememberedFeed:
    def __init__(self, app):
        self.next = app.wsgi_app

    def __call__(self, environ, start_response):
        remembered = self._remembered(environ)
        if remembered is None:
            return self.next(environ, start_response)
        started = time.perf_counter()
        try:
            # The request's database waits are bounded as the app's first hook bounds them.
            with waiting_at_most(get_settings().db_wait_seconds, in_all=True):
                cards, jobs = discovery.feed(session=remembered.session, check=remembered.values)
                send_all(jobs)  # after the feed's commit, as the app's view sends them
        except StaleSession:
            return self.next(environ, start_response)  # nothing was written: the app reads the session anew
        except Exception as exc:  # noqa: BLE001  (the app's handlers answer it: see the docstring)
            environ[FAILED] = exc
            return self.next(environ, start_response)
        finally:
            close_connection()  # as the app's teardown does
        body = b"[" + b",".join(cards) + b"]\n"
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body))), ("Cache-Control", NO_STORE)]
        return before_flask.send(environ, start_response, "200 OK", headers, body, PATH, started)

    @staticmethod
    def _remembered(environ):
        """The remembered session of a plain feed request, or None (the app answers it)."""
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") != "GET" \
                or environ.get("QUERY_STRING") or not before_flask.without_body(environ) or "HTTP_ORIGIN" in environ \
                or environ.get("HTTP_SEC_FETCH_SITE", "").lower() == "cross-site":
            return None
        if not before_flask.on_own_host(environ):
            return None
        return sessions.remembered_session(parse_cookie(environ).get(COOKIE_NAME))
