"""One Redis client per URL per process (redis-py pools its connections itself), and how long
any call of this process waits on Redis.

A Redis that stops answering without closing (hung, or a network that drops packets) would
hold the caller until its socket timeout: each call here waits at most the process's bound
to connect and at most that again for its answer (redis-py retries none of them). The
first process role to say its bound keeps it, as models/db.init_db does for the database:
the web says REDIS_WAIT_SECONDS (api/__init__.py, before the broker is made), a worker
process or the clock WORKER_REDIS_WAIT_SECONDS (workers/broker.py); `make run`'s one
process runs jobs too and takes the worker's.
"""
from __future__ import annotations

import threading

import redis

_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()
_DEFAULT_WAIT_SECONDS = 10.0
_wait_seconds: float | None = None


def bound_redis_waits(seconds: float) -> float:
    """Sets this process's bound on one Redis call unless a role already set it; answers
    the bound in force."""
    global _wait_seconds
    with _lock:
        if _wait_seconds is None:
            _wait_seconds = float(seconds)
        return _wait_seconds


def redis_wait_seconds() -> float:
    return _DEFAULT_WAIT_SECONDS if _wait_seconds is None else _wait_seconds


def new_redis(url: str, **options) -> redis.Redis:
    """A client of its own (the broker's) that waits at most the process's bound."""
    wait = redis_wait_seconds()
    return redis.Redis.from_url(url, socket_timeout=wait, socket_connect_timeout=wait, **options)


def get_redis(url: str) -> redis.Redis:
    """The process's shared client for `url` (locks, counters, published pointers)."""
    with _lock:
        client = _clients.get(url)
    if client is None:
        made = new_redis(url, health_check_interval=30)
        with _lock:
            client = _clients.setdefault(url, made)
    return client


# What "Redis did not answer" looks like to a caller: refused or reset (ConnectionError), or
# no answer within the bound (TimeoutError). dramatiq raises its own for a send it could not
# make; jobs/send.py catches that itself.
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
