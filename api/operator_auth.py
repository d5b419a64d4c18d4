"""The operators' password: HTTP Basic with ADMIN_PASSWORD as the password (any user name).

GET /admin, GET /marketing and GET /metrics ask for it; each names its own refusals, so a
scraper's 401 and an operator's 401 read differently in logs and in the reason registry.
"""
from __future__ import annotations

import hmac

from flask import request

from api.errors import ApiError


def require_admin_password(password: str | None, *, realm: str, not_configured: str,
                           credentials_required: str) -> None:
    """Refuses the request unless it carries HTTP Basic with `password`: 403 `not_configured`
    when no password is set (nobody can be let in), else 401 `credentials_required` with a
    Basic challenge for `realm`."""
    if not password:
        raise ApiError(403, not_configured)
    credentials = request.authorization
    given = credentials.password if credentials is not None and credentials.type == "basic" else None
    # Compared in constant time, so the answer's timing says nothing about the password.
    if given is None or not hmac.compare_digest(given.encode(), password.encode()):
        raise ApiError(401, credentials_required,
                       headers={"WWW-Authenticate": f'Basic realm="{realm}", charset="UTF-8"'})
