"""The supplier seam: sourcing options for a product, and which suppliers exist, read from
the supplier feed named by SUPPLIER_FEED (the bundled offline feed by default; feed.py).

    options_for("sf-00001-long-cat-tunnel")          # a feed product id
    options_for("bamboo cutting board")                # a product name
    options_for("kitchen-knife-strip", name="Acacia Wood Magnetic Knife Strip")  # a catalog product

An option is one feed line: a supplier's offer of a product (its unit cost, minimum order,
lead time, origin, SKU and the supplier's rating). The line whose product id is the one
asked for comes first; then the lines whose names share the most words with the product's
name (among as many shared words, rarer words first: "knife" says more than "magnetic"),
cheapest first among equals; at most `limit`.

An http(s) feed is what scripts/discover.py fetches on a schedule; answering a request from
it would fetch it while the founder waits, so this seam does not: it raises
`SuppliersUnavailable` and the caller says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from config import get_settings
from integrations.suppliers.feed import Feed, FeedLine, FeedUnreadable, load, words

MAX_OPTIONS = 10


class SuppliersUnavailable(Exception):
    """The feed cannot answer: it is a URL, or its file cannot be read. One line."""


@dataclass(frozen=True)
class SupplierOption:
    supplier: str
    unit_cost: float
    currency: str
    shipping_days: int | None  # the line's lead_time_days
    moq: int | None
    rating: float | None  # null when the feed gives none
    ships_from: str | None
    sku: str | None
    product_id: str  # the feed line's product
    name: str
    relevance: int  # words shared with the product's name (the exact product: all of its own)


def _feed(source: str | None) -> Feed:
    source = source or get_settings().supplier_feed
    if "://" in source:
        raise SuppliersUnavailable("The supplier feed is a URL; supplier options are read from a feed file or folder "
                                   "only (SUPPLIER_FEED), so none can be given.")
    try:
        return load(source)
    except FeedUnreadable as exc:
        raise SuppliersUnavailable(f"The supplier feed cannot be read: {exc}.") from None


def _option(line: FeedLine, relevance: int) -> SupplierOption:
    return SupplierOption(supplier=line.supplier, unit_cost=line.cost, currency=line.currency,
                          shipping_days=line.lead_time_days, moq=line.moq, rating=line.rating,
                          ships_from=line.ships_from, sku=line.sku, product_id=line.product_id, name=line.name,
                          relevance=relevance)


def feed_name(product_id: str, *, source: str | None = None) -> str | None:
    """The name the feed gives a product id, or None when the feed has no such line."""
    line = _feed(source).by_id.get(product_id)
    return line.name if line else None


def options_for(product: str, *, name: str | None = None, source: str | None = None,
                limit: int = MAX_OPTIONS) -> list[SupplierOption]:
    """Sourcing options for a product id or name (`name`, when given, is the name to match:
    a catalog product's). Raises SuppliersUnavailable when the feed cannot answer."""
    feed = _feed(source)
    exact = feed.by_id.get(product.strip())
    wanted = words(name if name is not None else exact.name if exact else product)
    found = [_option(exact, len(exact.words))] if exact else []
    if wanted:
        ranked = []
        for line in feed.lines:
            shared = wanted & line.words
            if shared and line is not exact:
                # Rounded so that float sums of the same words in another order tie exactly.
                rarity = round(sum(feed.rarity.get(word, 0.0) for word in shared), 6)
                ranked.append((-len(shared), -rarity, line.cost, line.product_id, line))
        ranked.sort(key=lambda entry: entry[:4])
        found += [_option(entry[4], -entry[0]) for entry in ranked[:limit]]
    return found[:limit]


def supplier_named(name: str, *, source: str | None = None) -> str | None:
    """The feed's spelling of a supplier name (matched ignoring case and surrounding
    spaces), or None when no feed line has that supplier."""
    return _feed(source).suppliers.get(" ".join(name.split()).casefold())


def offers_of(supplier: str, *, source: str | None = None) -> list[SupplierOption]:
    """Every feed line of one supplier (spelled as the feed spells it), cheapest first."""
    lines = sorted((line for line in _feed(source).lines if line.supplier == supplier),
                   key=lambda line: (line.cost, line.product_id))
    return [_option(line, 0) for line in lines]
