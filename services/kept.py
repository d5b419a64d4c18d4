"""A bounded map kept in a web process between requests, shared by its threads: what a hot
path read before and can use again under a key that says when it is still right (the cards of
services/discovery/card_cache.py, the sessions of services/sessions.py). Past its size the least
recently used entry is dropped; every use holds a lock.

An OrderedDict does the ordering in C: a lookup is one hash of the key to find it and one to
mark it used. (cachetools' LRUCache, used before, took four hashes and five Python calls per
lookup: a feed looks up twelve cards, each keyed by its fourteen columns, and that lookup was
about a tenth of the feed's own Python, measured in instructions with callgrind.)"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

# Every map made, so that all can be emptied at once (forget_all).
_EVERY: weakref.WeakSet = weakref.WeakSet()


class Kept:
    def __init__(self, size: int):
        self._size = size
        self._kept: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        _EVERY.add(self)

    def get(self, key):
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
            return value

    def get_many(self, keys) -> dict:
        """key -> value for the keys kept."""
        found = {}
        kept = self._kept
        with self._lock:
            for key in keys:
                value = kept.get(key)
                if value is not None:
                    kept.move_to_end(key)
                    found[key] = value
        return found

    def put(self, key, value) -> None:
        with self._lock:
            self._keep(key, value)

    def put_many(self, found: dict) -> None:
        with self._lock:
            for key, value in found.items():
                self._keep(key, value)

    def _keep(self, key, value) -> None:
        kept = self._kept
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > self._size:
            kept.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def forget_all() -> None:
    """Empties every kept map of this process: for when the tables were emptied behind the
    service's back (the test suite between tests). A key says when its value is still right
    for the rows as they evolve, not for a database started over: a new test's rows may
    repeat the ids, times and fingerprints of the last one's with other contents."""
    for kept in list(_EVERY):
        kept.clear()
