"""Named locks with an expiry: Redis across processes and hosts, in-process when embedded.

A lock that expires is not a guarantee by itself (a stalled holder may wake after its
lease). Jobs therefore also fence their writes with the attempt number (services/jobs).
"""
from __future__ import annotations

import secrets
import threading
import time
from contextlib import contextmanager

# Deletes the key only if it still holds our token, so a holder whose lock expired and
# was taken by someone else cannot release the newer holder's lock.
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class RedisLocks:
    def __init__(self, client, prefix: str = "ff:lock:"):
        self._redis = client
        self._prefix = prefix
        self._release = client.register_script(_RELEASE)

    def acquire(self, name: str, ttl_seconds: float) -> str | None:
        token = secrets.token_hex(16)
        if self._redis.set(self._prefix + name, token, nx=True, px=int(ttl_seconds * 1000)):
            return token
        return None

    def release(self, name: str, token: str) -> None:
        self._release(keys=[self._prefix + name], args=[token])


class InProcessLocks:
    def __init__(self):
        self._held: dict[str, tuple[str, float]] = {}
        self._mutex = threading.Lock()

    def acquire(self, name: str, ttl_seconds: float) -> str | None:
        now = time.monotonic()
        with self._mutex:
            current = self._held.get(name)
            if current is not None and current[1] > now:
                return None
            token = secrets.token_hex(16)
            self._held[name] = (token, now + ttl_seconds)
            return token

    def release(self, name: str, token: str) -> None:
        with self._mutex:
            current = self._held.get(name)
            if current is not None and current[0] == token:
                del self._held[name]


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
    """Yields True while holding the lock, or False when someone else holds it (after
    waiting up to `wait_seconds` for them to let go)."""
    token = locks.acquire(name, ttl_seconds)
    deadline = time.monotonic() + wait_seconds
    while token is None and time.monotonic() < deadline:
        time.sleep(0.02)
        token = locks.acquire(name, ttl_seconds)
    try:
        yield token is not None
    finally:
        if token is not None:
            locks.release(name, token)
