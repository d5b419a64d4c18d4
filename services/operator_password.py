"""How many operator passwords one client may try (issue 44): GET /admin, GET /marketing and
GET /metrics all take ADMIN_PASSWORD over HTTP Basic, which a script could otherwise guess at
hundreds of times a second.

Each try with a password counts, before the password is compared, in a counter per client
address that every web process shares (Redis; this process's own in embedded mode, which
runs one): counting first means a burst of guesses sent at once is cut at the same bound as
guesses sent one by one. Once a client has tried FAILURES_ALLOWED passwords within
WINDOW_SECONDS without getting in, it is refused until that window ends, whatever it sends.
The right password clears the client's count. A request with no password at all (a
browser's first visit, before it asks) is not a try.

When Redis does not answer, the tries are counted in this process instead (with a warning):
the bound then holds per process, never not at all.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from redis.exceptions import RedisError

from config import get_settings
from integrations.counters import get_counters

log = logging.getLogger("operator_password")

FAILURES_ALLOWED = 5
WINDOW_SECONDS = 15 * 60
_NAME = "operator-password:"


@dataclass(frozen=True)
class Try:
    allowed: bool  # False: the client used up its tries; refuse without comparing
    retry_after: int  # seconds until its window ends


def attempt(client: str, *, realm: str) -> Try:
    """Counts one password try of `client`; says whether it may still be compared."""
    count, left = _count(lambda counters: counters.add(_NAME + client, WINDOW_SECONDS))
    allowed = count <= FAILURES_ALLOWED
    if count == FAILURES_ALLOWED + 1:  # once a window, so a flood of refused guesses writes one line
        log.warning("operator password tries refused until the window ends", extra={"fields": {
            "realm": realm, "client": client, "tries": FAILURES_ALLOWED, "retry_after": left}})
    return Try(allowed=allowed, retry_after=left)


def failed(client: str, *, realm: str) -> None:
    """Logs a wrong password (which, of course, the line does not hold)."""
    count, left = _count(lambda counters: counters.peek(_NAME + client))
    log.warning("operator password refused", extra={"fields": {
        "realm": realm, "client": client, "tries": count, "tries_allowed": FAILURES_ALLOWED,
        "window_left_seconds": left}})


def succeeded(client: str) -> None:
    """The client got in: its earlier wrong tries no longer count against it."""
    _count(lambda counters: counters.clear(_NAME + client))


def forget_all() -> None:
    """Forgets every client's tries (tests start from nothing)."""
    _count(lambda counters: counters.clear_all(_NAME))
    get_counters(None).clear_all(_NAME)


def _count(operation):
    redis_url = get_settings().redis_url
    try:
        return operation(get_counters(redis_url))
    except RedisError as exc:
        log.warning("operator password tries counted in this process: Redis did not answer",
                    extra={"fields": {"error": f"{type(exc).__name__}: {exc}"}})
        return operation(get_counters(None))
