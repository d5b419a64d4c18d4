"""One Redis client per URL per process (redis-py pools its connections itself)."""
from __future__ import annotations

import threading

import redis

_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()


def get_redis(url: str) -> redis.Redis:
    with _lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5, health_check_interval=30)
            _clients[url] = client
        return client
