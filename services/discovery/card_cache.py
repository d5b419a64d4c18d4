"""The cards' trends, kept between requests in each web process.

A card's trends are its product's dated evidence drawn as series (models/evidence_kinds.trends):
reading and grouping them was a statement and about a third of a feed's own time, for values
that change only when the catalog is loaded again. The loader rewrites a product's evidence and
then calls services/evidence_gate.refresh, which writes a new `evidence_version` token (uuid4)
into its gate row; find and feed read that token with the card's other fields (they read the
gate row anyway) and keep the trends under (product, token). A reload gives a new token, so
trends read under the old one are never served again, and nothing has to be told to forget:
a token is never reused, whatever order the requests and the reload run in (a request that
read the old token may keep the newer evidence under it, which no one asks for again).

A product without a token (no gate row: a claimed product the gate dropped) is read afresh
each time. Bounded: at most MAX_PRODUCTS products per process, the least recently served
dropped first (a feed serves the best-ranked products, so the working set is small).
The kept lists are shared by the requests that serve them and are never changed in place.
"""
from __future__ import annotations

import threading

from cachetools import LRUCache

MAX_PRODUCTS = 4096

_kept: LRUCache = LRUCache(maxsize=MAX_PRODUCTS)
_lock = threading.Lock()  # gunicorn's threads share the process's cache; LRUCache is not thread-safe


def kept(keys) -> dict:
    """The trends kept for these (product_id, version) keys: key -> trends, for those kept."""
    found = {}
    with _lock:
        for key in keys:
            trends = _kept.get(key)
            if trends is not None:
                found[key] = trends
    return found


def keep(found: dict) -> None:
    """Keeps trends read afresh, by (product_id, version)."""
    with _lock:
        for key, trends in found.items():
            _kept[key] = trends


def forget_all() -> None:
    """Empties this process's cache (tests that rebuild the catalog in place)."""
    with _lock:
        _kept.clear()


def size() -> int:
    with _lock:
        return len(_kept)
