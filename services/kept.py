"""A bounded map kept in a web process between requests, shared by its threads: what a hot
path read before and can use again under a key that says when it is still right (the cards of
services/discovery/card_cache.py, the sessions of services/sessions.py). cachetools' LRU drops
the least recently used entry past its size; it is not thread-safe, so every use holds a lock."""
from __future__ import annotations

import threading

from cachetools import LRUCache


class Kept:
    def __init__(self, size: int):
        self._kept: LRUCache = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            return self._kept.get(key)

    def get_many(self, keys) -> dict:
        """key -> value for the keys kept."""
        found = {}
        with self._lock:
            for key in keys:
                value = self._kept.get(key)
                if value is not None:
                    found[key] = value
        return found

    def put(self, key, value) -> None:
        with self._lock:
            self._kept[key] = value

    def put_many(self, found: dict) -> None:
        with self._lock:
            for key, value in found.items():
                self._kept[key] = value

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
