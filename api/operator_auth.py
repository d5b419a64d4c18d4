"""The operators' password: HTTP Basic with ADMIN_PASSWORD as the password (any user name).

GET /admin, GET /marketing and GET /metrics ask for it; each names its own refusals, so a
scraper's 401 and an operator's 401 read differently in logs and in the reason registry.
They share one count of tries per client address (services/operator_password.py): past
FAILURES_ALLOWED wrong passwords in a window, 429 `operator_password_throttled` with
Retry-After, whatever the password, until the window ends.
"""
from __future__ import annotations

import hmac
import ipaddress

from flask import request

from api.errors import ApiError
from services import operator_password


def require_admin_password(password: str | None, *, realm: str, not_configured: str,
                           credentials_required: str) -> None:
    """Refuses the request unless it carries HTTP Basic with `password`: 403 `not_configured`
    when no password is set (nobody can be let in), 429 `operator_password_throttled` when
    its client has used up its tries, else 401 `credentials_required` with a Basic challenge
    for `realm`."""
    if not password:
        raise ApiError(403, not_configured)
    challenge = {"WWW-Authenticate": f'Basic realm="{realm}", charset="UTF-8"'}
    credentials = request.authorization
    given = credentials.password if credentials is not None and credentials.type == "basic" else None
    if given is None:
        raise ApiError(401, credentials_required, headers=challenge)
    client = client_address()
    # Counted before it is compared: guesses sent all at once stop at the same bound.
    tried = operator_password.attempt(client, realm=realm)
    if not tried.allowed:
        raise ApiError(429, "operator_password_throttled", headers={"Retry-After": str(tried.retry_after)})
    # Compared in constant time, so the answer's timing says nothing about the password.
    if not hmac.compare_digest(given.encode(), password.encode()):
        operator_password.failed(client, realm=realm)
        raise ApiError(401, credentials_required, headers=challenge)
    operator_password.succeeded(client)


def client_address() -> str:
    """Whom the tries are counted for: the peer's address, or, when the peer is on this host
    (the front of `make procs`, or a TLS proxy beside it), the client it names last in
    X-Forwarded-For, as the front itself believes only a peer on this host. Without that, every
    visitor behind the front would share one count, and one guesser would lock out every
    operator. An IPv6 client is counted by its /64, which one subscriber usually holds whole."""
    peer = _address(request.remote_addr)
    if peer is not None and _local(peer):
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        peer = _address(forwarded) or peer
    if peer is None:
        return "unknown"
    if peer.version == 6:
        if peer.ipv4_mapped is not None:
            return str(peer.ipv4_mapped)
        return str(ipaddress.ip_network(f"{peer}/64", strict=False))
    return str(peer)


def _address(text: str | None):
    try:
        return ipaddress.ip_address(text or "")
    except ValueError:
        return None


def _local(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)
