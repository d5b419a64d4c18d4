"""The one place where failures become HTTP answers.

Every answer that says no is JSON `{status, reason, explanation}` with a reason from the
registry: domain refusals (`Refused`), bad input (`ApiError`), HTTP-level failures (unknown
path, wrong method, body too large), an unreachable database, and any uncaught exception
(500 `internal_error` with a request id; the traceback goes only to the log).

One refusal has no reason, because the spec gives it none (5.13: "401 | none (explanation
only) | Research routes answer with a sign-in-to-research sentence"): a research route
(declared `sign_in_to_research=True`) reached by a session without an account answers 401
`{status: refused, explanation: SIGN_IN_TO_RESEARCH}`, built here by `explanation_only`.
"""
from __future__ import annotations

import logging
import traceback
from pathlib import Path

from flask import current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from config import ROOT
from logformat import logged_path
from services.database import UNAVAILABLE, close_connection
from services.errors import Refused, require_registered
from services.reasons import REASONS, default_status, sentence
from services.redis_waits import UNREACHABLE as REDIS_UNREACHABLE

log = logging.getLogger("api")


SIGN_IN_TO_RESEARCH = ("Sign in to research: discovery research runs and the research workspace belong to a "
                       "signed-in account. Save your email address or open the sign-in link mailed to you, then try "
                       "again.")


class SignInToResearch(Exception):
    """A research route reached by a session without an account (spec 5.13)."""


class ApiError(Exception):
    """A refusal decided at the HTTP edge (bad JSON, bad fields), with its status."""

    def __init__(self, status: int, reason: str, explanation: str | None = None, *, fields: dict | None = None,
                 detail: str | None = None, headers: dict | None = None):
        require_registered(reason)
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.explanation = explanation
        self.fields = fields or {}
        self.detail = detail
        self.headers = headers or {}


def refusal(status: int, reason: str, explanation: str | None = None, *, word: str = "refused", detail: str | None = None,
            headers: dict | None = None, **fields):
    """Builds the JSON answer for a refusal."""
    if reason not in REASONS:
        # An unregistered code is a bug; say so in the log, never to the client.
        log.error("unregistered reason code", extra={"fields": {"reason": reason}})
    text = explanation or (sentence(reason) if reason in REASONS else "The request was refused.")
    if detail:
        text = f"{text} ({detail})"
    body = {"status": word, "reason": reason, "explanation": text}
    body.update(fields)
    response = jsonify(body)
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def explanation_only(status: int, explanation: str):
    """The spec's one refusal without a reason code (see the module docstring)."""
    response = jsonify({"status": "refused", "explanation": explanation})
    response.status_code = status
    return response


def _route_status(reason: str) -> int:
    """The status the called route declared for this reason, else the registry's default."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    declaration = getattr(view, "declaration", None)
    declared = declaration.status_for(reason) if declaration else None
    return declared or default_status(reason)


# HTTP-level failures raised by Flask/Werkzeug, mapped to registry reasons.
_HTTP_REASONS = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}


FIRST_RUN_STATES = frozenset({"not_claimed"})


_DATABASE_MODULE = "models/db.py"  # where every database error surfaces: the caller is the news


def _our_frame(exc: BaseException) -> str | None:
    """Where in this service's own code an error was raised (file:line of the innermost frame
    outside the libraries), so an operator reading a 503 knows which read met the outage."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith(str(ROOT)) and "site-packages" not in frame.filename \
                and not frame.filename.endswith(_DATABASE_MODULE):
            found = f"{Path(frame.filename).relative_to(ROOT)}:{frame.lineno}"
    return found


def install_error_handlers(app) -> None:
    @app.errorhandler(Refused)
    def on_refused(exc: Refused):
        status = _route_status(exc.reason)
        # A first-run state the spec names answers as that state (spec 4.4: POST /api/store
        # with no product resolved is 200 `status: not_claimed`), not as a refusal.
        word = exc.reason if status == 200 and exc.reason in FIRST_RUN_STATES else "refused"
        return refusal(status, exc.reason, exc.explanation, word=word, **exc.fields)

    @app.errorhandler(SignInToResearch)
    def on_sign_in_to_research(exc: SignInToResearch):
        return explanation_only(401, SIGN_IN_TO_RESEARCH)

    @app.errorhandler(ApiError)
    def on_api_error(exc: ApiError):
        word = "error" if exc.status >= 500 else "refused"
        return refusal(exc.status, exc.reason, exc.explanation, word=word, detail=exc.detail, headers=exc.headers, **exc.fields)

    @app.errorhandler(HTTPException)
    def on_http_exception(exc: HTTPException):
        code = exc.code or 500
        reason = _HTTP_REASONS.get(code, "invalid_request" if code < 500 else "internal_error")
        headers = {}
        if code == 405 and getattr(exc, "valid_methods", None):
            # OPTIONS is answered everywhere; Allow names the methods the route serves.
            headers["Allow"] = ", ".join(sorted(set(exc.valid_methods) - {"OPTIONS"}))
        return refusal(code, reason, word="error", headers=headers)

    for error_class in UNAVAILABLE:
        @app.errorhandler(error_class)
        def on_database_unavailable(exc):
            log.warning("database unavailable", extra={"fields": {
                "request_id": g.get("request_id"), "error": type(exc).__name__, "where": _our_frame(exc)}})
            close_connection()
            return refusal(503, "database_unavailable", word="error")

    for error_class in REDIS_UNREACHABLE:
        @app.errorhandler(error_class)
        def on_redis_unreachable(exc):
            # Whatever needed Redis itself (not a job's message: jobs/send.py leaves that to
            # the reaper) could not be done; the call waited at most REDIS_WAIT_SECONDS.
            log.warning("redis unreachable", extra={"fields": {"request_id": g.get("request_id"), "error": type(exc).__name__}})
            return refusal(503, "queue_unavailable", word="error")

    @app.errorhandler(Exception)
    def on_uncaught(exc: Exception):
        request_id = g.get("request_id")
        log.error("uncaught exception", exc_info=exc, extra={"fields": {"request_id": request_id, "path": logged_path(request.path)}})
        return refusal(500, "internal_error", word="error", request_id=request_id)
