"""Named locks with an expiry: Redis across processes and hosts, in-process when embedded.

Both backends hand out the same lock object: `locks.lock(name, ttl_seconds)` is a handle
that can be acquired, extended and released. Every hold carries a random token, and
release and extend act only while the lock still holds that token: a holder whose lock
expired and was taken by someone else can neither release nor prolong the newer hold.
On Redis the handle wraps redis-py's `Lock` (SET NX PX, token-checked Lua release and
extend); the in-process one keeps the same rules under a mutex.

A lock that expires is not a guarantee by itself (a stalled holder may wake after its
lease). Jobs therefore also fence their writes with the attempt number (services/jobs).

When Redis does not answer, extend and release say False ("not ours any more") with one
warning line rather than raise: the hold expires by itself, and a job that finished must
not be reported as failed because its lock could not be let go. Acquire still raises, so
a caller never believes it holds a lock it could not take.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from contextlib import contextmanager

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import LockError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("locks")

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError)

_POLL_SECONDS = 0.02  # how often a waiting acquire tries again


class RedisLock:
    """One hold on a named Redis lock (redis-py's `Lock`, its token shared by all threads
    of the holder, so a heartbeat thread can extend what the job's thread acquired)."""

    def __init__(self, client, key: str, ttl_seconds: float):
        self.name = key
        self.ttl_seconds = ttl_seconds
        self._lock = client.lock(key, timeout=ttl_seconds, sleep=_POLL_SECONDS, thread_local=False)

    def acquire(self, *, wait_seconds: float = 0) -> bool:
        """Takes the lock with a fresh token; False when someone else still holds it after
        `wait_seconds`."""
        if wait_seconds > 0:
            return self._lock.acquire(blocking=True, blocking_timeout=wait_seconds)
        return self._lock.acquire(blocking=False)

    def extend(self, ttl_seconds: float | None = None) -> bool:
        """Sets the time left to `ttl_seconds` (default: the lock's TTL) while the hold is
        still ours; False when it expired or another holder has it."""
        try:
            return self._lock.extend(ttl_seconds or self.ttl_seconds, replace_ttl=True)
        except LockError:  # LockNotOwnedError, or never acquired
            return False
        except _UNREACHABLE as exc:
            self._unreachable("extend", exc)
            return False

    def release(self) -> bool:
        """Lets go if the hold is still ours; False (and nothing deleted) otherwise."""
        try:
            self._lock.release()
            return True
        except LockError:
            return False
        except _UNREACHABLE as exc:
            self._unreachable("release", exc)
            return False

    def _unreachable(self, action: str, exc: Exception) -> None:
        log.warning("lock left to expire: Redis did not answer", extra={"fields": {
            "lock": self.name, "action": action, "ttl_seconds": self.ttl_seconds,
            "error": f"{type(exc).__name__}: {exc}"}})

    def owned(self) -> bool:
        return self._lock.owned()


class RedisLocks:
    def __init__(self, client, prefix: str = "ff:lock:"):
        self._redis = client
        self._prefix = prefix

    def lock(self, name: str, ttl_seconds: float) -> RedisLock:
        """A handle on the named lock, not yet acquired."""
        return RedisLock(self._redis, self._prefix + name, ttl_seconds)

    def acquire(self, name: str, ttl_seconds: float) -> RedisLock | None:
        """Takes the named lock without waiting; None when someone else holds it."""
        lock = self.lock(name, ttl_seconds)
        return lock if lock.acquire() else None


class InProcessLock:
    """One hold on a named lock of an InProcessLocks table; the same rules as RedisLock."""

    def __init__(self, table: InProcessLocks, name: str, ttl_seconds: float):
        self.name = name
        self.ttl_seconds = ttl_seconds
        self._table = table
        self._token: str | None = None

    def acquire(self, *, wait_seconds: float = 0) -> bool:
        deadline = time.monotonic() + wait_seconds
        while True:
            token = self._table._take(self.name, self.ttl_seconds)
            if token is not None:
                self._token = token
                return True
            if time.monotonic() + _POLL_SECONDS > deadline:
                return False
            time.sleep(_POLL_SECONDS)

    def extend(self, ttl_seconds: float | None = None) -> bool:
        return self._token is not None and self._table._extend(self.name, self._token, ttl_seconds or self.ttl_seconds)

    def release(self) -> bool:
        token, self._token = self._token, None
        return token is not None and self._table._release(self.name, token)

    def owned(self) -> bool:
        return self._token is not None and self._table._holder(self.name) == self._token


class InProcessLocks:
    def __init__(self):
        self._held: dict[str, tuple[str, float]] = {}  # name -> (token, expiry on the monotonic clock)
        self._mutex = threading.Lock()

    def lock(self, name: str, ttl_seconds: float) -> InProcessLock:
        return InProcessLock(self, name, ttl_seconds)

    def acquire(self, name: str, ttl_seconds: float) -> InProcessLock | None:
        lock = self.lock(name, ttl_seconds)
        return lock if lock.acquire() else None

    def _holder(self, name: str) -> str | None:
        with self._mutex:
            current = self._held.get(name)
            return current[0] if current is not None and current[1] > time.monotonic() else None

    def _take(self, name: str, ttl_seconds: float) -> str | None:
        now = time.monotonic()
        with self._mutex:
            current = self._held.get(name)
            if current is not None and current[1] > now:
                return None
            if len(self._held) > 1000:  # the clock's "fired" marks are never released: drop expired ones
                self._held = {k: v for k, v in self._held.items() if v[1] > now}
            token = secrets.token_hex(16)
            self._held[name] = (token, now + ttl_seconds)
            return token

    def _extend(self, name: str, token: str, ttl_seconds: float) -> bool:
        now = time.monotonic()
        with self._mutex:
            current = self._held.get(name)
            if current is None or current[0] != token or current[1] <= now:
                return False
            self._held[name] = (token, now + ttl_seconds)
            return True

    def _release(self, name: str, token: str) -> bool:
        now = time.monotonic()
        with self._mutex:
            current = self._held.get(name)
            if current is None or current[0] != token:
                return False
            del self._held[name]
            return current[1] > now  # an expired hold was no longer ours to release


_locks = None
_locks_guard = threading.Lock()


def get_locks(redis_url: str | None):
    """The process's lock service for the configured backend."""
    global _locks
    with _locks_guard:
        wanted = RedisLocks if redis_url else InProcessLocks
        if not isinstance(_locks, wanted):
            if redis_url:
                from integrations.redis_client import get_redis

                _locks = RedisLocks(get_redis(redis_url))
            else:
                _locks = InProcessLocks()
        return _locks


@contextmanager
def holding(locks, name: str, ttl_seconds: float, *, wait_seconds: float = 0):
    """Yields the held lock (which the holder may `extend`), or None when someone else
    holds it (after waiting up to `wait_seconds` for them to let go). Released on exit,
    if it is still ours."""
    lock = locks.lock(name, ttl_seconds)
    held = lock.acquire(wait_seconds=wait_seconds)
    try:
        yield lock if held else None
    finally:
        if held:
            lock.release()
