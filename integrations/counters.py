"""Counters that expire: Redis across processes and hosts, in-process when embedded.

`counters.add(name, window_seconds)` counts one more event under `name` and answers the
count with the seconds left until the count starts again from nothing; the first event of
a window starts its clock (a fixed window, not a sliding one). `counters.peek(name)` reads
the same without counting, and `counters.clear(name)` forgets the name.

On Redis a count is one transaction (MULTI): SET NX with the window's expiry (only the
first event of a window creates the key), then INCR, which keeps the expiry; so a window
is never stretched by later events and a key is never left without one. Every web process
of every host counts in the same key. The embedded backend keeps the same rules under a
mutex (embedded mode runs one web process).
"""
from __future__ import annotations

import math
import threading
import time

_MAX_NAMES = 10_000  # in-process: past this many names, expired ones are dropped


class RedisCounters:
    def __init__(self, client, prefix: str = "ff:count:"):
        self._redis = client
        self._prefix = prefix

    def add(self, name: str, window_seconds: int) -> tuple[int, int]:
        key = self._prefix + name
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(key, 0, ex=window_seconds, nx=True)
            pipe.incr(key)
            pipe.ttl(key)
            _started, count, left = pipe.execute()
        return int(count), max(int(left), 1)

    def peek(self, name: str) -> tuple[int, int]:
        key = self._prefix + name
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(key)
            pipe.ttl(key)
            count, left = pipe.execute()
        return (int(count), max(int(left), 1)) if count is not None else (0, 0)

    def clear(self, name: str) -> None:
        self._redis.delete(self._prefix + name)

    def clear_all(self, prefix: str) -> None:
        """Forgets every name that starts with `prefix` (tests start from nothing)."""
        for key in self._redis.scan_iter(match=self._prefix + prefix + "*", count=500):
            self._redis.delete(key)


class InProcessCounters:
    def __init__(self):
        self._counts: dict[str, tuple[int, float]] = {}  # name -> (count, end of its window, monotonic)
        self._mutex = threading.Lock()

    def add(self, name: str, window_seconds: int) -> tuple[int, int]:
        now = time.monotonic()
        with self._mutex:
            count, ends = self._current(name, now)
            if count == 0:
                ends = now + window_seconds
                if len(self._counts) > _MAX_NAMES:
                    self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            self._counts[name] = (count + 1, ends)
            return count + 1, max(math.ceil(ends - now), 1)

    def peek(self, name: str) -> tuple[int, int]:
        now = time.monotonic()
        with self._mutex:
            count, ends = self._current(name, now)
        return (count, max(math.ceil(ends - now), 1)) if count else (0, 0)

    def clear(self, name: str) -> None:
        with self._mutex:
            self._counts.pop(name, None)

    def clear_all(self, prefix: str) -> None:
        with self._mutex:
            self._counts = {k: v for k, v in self._counts.items() if not k.startswith(prefix)}

    def _current(self, name: str, now: float) -> tuple[int, float]:
        count, ends = self._counts.get(name, (0, 0.0))
        return (count, ends) if ends > now else (0, 0.0)


_in_process = InProcessCounters()
_redis_counters: dict[str, RedisCounters] = {}
_guard = threading.Lock()


def get_counters(redis_url: str | None):
    """The counters of the configured backend: Redis at `redis_url`, else this process's."""
    if not redis_url:
        return _in_process
    with _guard:
        counters = _redis_counters.get(redis_url)
        if counters is None:
            from integrations.redis_client import get_redis

            counters = _redis_counters[redis_url] = RedisCounters(get_redis(redis_url))
        return counters
