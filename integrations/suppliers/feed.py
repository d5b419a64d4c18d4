"""Reading the supplier feed: a .jsonl or .jsonl.gz file, or a folder of them, parsed once
per process and kept until a file changes (cached by path and modification time).

Every line is one supplier's offer of one product: its product_id says which product (a
catalog product's id, or a feed product's own), its sku names the offer line within the
supplier's range. A product may have many lines (one per supplier offering it); a line is
known by its supplier and SKU together, and the first line of a (supplier, SKU) pair wins.
A line without a SKU is named by its product id in the SKU's place (the only name the feed
gives it).

A line becomes a `FeedLine` when it has a product_id and a SKU of at most 120 characters
(the columns that record them are that wide), a name, a supplier and a numeric cost;
anything else (a line that is not JSON, a line without a supplier) is skipped, as
scripts/discover.py skips it: one bad line never hides the rest of the feed.
"""
from __future__ import annotations

import gzip
import json
import math
import re
import threading
from dataclasses import dataclass
from pathlib import Path

# The same cap scripts/discover.py puts on a feed: read (and decompressed) bytes per file.
FEED_MAX_BYTES = 64 * 1024 * 1024

# Words that say how a product is packed or joined, not what it is: sharing them says
# nothing about two products being alike.
# The widest product id and SKU a line may have: what the catalog and the sample and
# connection rows keep of them.
MAX_ID_CHARS = 120

STOPWORDS = frozenset({"and", "the", "for", "with", "of", "in", "on", "to", "by", "an", "or", "set", "pack",
                       "piece", "pair", "kit"})


def words(text: str) -> frozenset[str]:
    """The words of a product name that say what it is: lower case, plurals folded
    (bands -> band), numbers, one-letter words and packing words left out."""
    found = set()
    for word in re.findall(r"[a-z0-9]+", text.casefold()):
        if len(word) < 2 or word.isdigit() or word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.add(word)
    return frozenset(found)


@dataclass(frozen=True)
class FeedLine:
    product_id: str
    name: str
    words: frozenset[str]
    supplier: str
    cost: float
    currency: str
    moq: int | None
    lead_time_days: int | None
    ships_from: str | None
    sku: str  # the feed's SKU, else the product id
    rating: float | None


def key(text: str) -> str:
    """A supplier name or SKU as compared: surrounding and repeated spaces and case ignored."""
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class Feed:
    lines: tuple[FeedLine, ...]
    # product id -> the lines offering that product, in feed order
    by_product: dict[str, tuple[FeedLine, ...]]
    # (key(supplier), key(sku)) -> the offer line
    by_offer: dict[tuple[str, str], FeedLine]
    # key(supplier) -> the feed's own spelling
    suppliers: dict[str, str]
    # word -> how rare it is across the feed's names (log(lines / lines with the word))
    rarity: dict[str, float]


class FeedUnreadable(Exception):
    """The feed's file or folder cannot be read; the message is one line."""


def _number(value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return kind(value)


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def parse_line(text: str) -> FeedLine | None:
    """One feed line as a FeedLine, or None when it lacks what a supplier option needs."""
    try:
        item = json.loads(text)
    except ValueError:
        return None
    if not isinstance(item, dict):
        return None
    product_id, name, supplier = _text(item.get("product_id")), _text(item.get("name")), _text(item.get("supplier"))
    cost = _number(item.get("cost"), float)
    if not (product_id and name and supplier) or cost is None or cost < 0:
        return None
    sku = _text(item.get("sku")) or product_id
    if len(product_id) > MAX_ID_CHARS or len(sku) > MAX_ID_CHARS:
        return None
    rating = _number(item.get("rating"), float)
    return FeedLine(product_id=product_id, name=name, words=words(name), supplier=supplier, cost=cost,
                    currency=(_text(item.get("currency")) or "USD").upper(), moq=_number(item.get("moq"), int),
                    lead_time_days=_number(item.get("lead_time_days"), int),
                    ships_from=_text(item.get("ships_from")), sku=sku,
                    rating=round(rating, 1) if rating is not None else None)


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")) and p.is_file())
    if path.is_file():
        return [path]
    raise FeedUnreadable(f"the supplier feed {path} does not exist")


def _read(file: Path) -> list[str]:
    try:
        with open(file, "rb") as handle:
            stream = gzip.GzipFile(fileobj=handle) if file.name.endswith(".gz") else handle
            raw = stream.read(FEED_MAX_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise FeedUnreadable(f"cannot read the supplier feed {file}: {exc}") from None
    if len(raw) > FEED_MAX_BYTES:
        raise FeedUnreadable(f"the supplier feed {file} is larger than {FEED_MAX_BYTES} bytes")
    return raw.decode("utf-8", errors="replace").splitlines()


def _stamp(path: Path) -> tuple:
    """What changes when the feed changes: each file's name, size and modification time
    (and the folder's own, so an added or removed file counts)."""
    try:
        files = _files(path)
        own = path.stat().st_mtime_ns if path.is_dir() else None
        return (own,) + tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    except OSError as exc:
        raise FeedUnreadable(f"cannot read the supplier feed {path}: {exc}") from None


def parse(path: Path) -> Feed:
    """Reads and parses the whole feed (a file or a folder)."""
    lines, by_product, by_offer, suppliers, counts = [], {}, {}, {}, {}
    for file in _files(path):
        for text in _read(file):
            line = parse_line(text)
            if line is None:
                continue
            offer = (key(line.supplier), key(line.sku))
            if offer in by_offer:  # the first line of a supplier's SKU wins
                continue
            lines.append(line)
            by_offer[offer] = line
            by_product.setdefault(line.product_id, []).append(line)
            suppliers.setdefault(offer[0], line.supplier)
            for word in line.words:
                counts[word] = counts.get(word, 0) + 1
    rarity = {word: math.log(len(lines) / count) for word, count in counts.items()}
    return Feed(lines=tuple(lines), by_product={pid: tuple(found) for pid, found in by_product.items()},
                by_offer=by_offer, suppliers=suppliers, rarity=rarity)


_cache: dict[str, tuple[tuple, Feed]] = {}
_lock = threading.Lock()


def load(source: str) -> Feed:
    """The parsed feed at `source` (a file or folder), parsed once per process and again
    only when a file's size or modification time changes."""
    path = Path(source)
    stamp = _stamp(path)
    cached = _cache.get(source)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    # One thread parses while the others wait for its result, rather than every request
    # thread of a fresh process parsing 3,000 lines at once.
    with _lock:
        cached = _cache.get(source)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        feed = parse(path)
        _cache.clear()  # one feed per process: the settings name one
        _cache[source] = (stamp, feed)
        return feed
