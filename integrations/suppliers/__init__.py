"""The supplier seam: which suppliers offer a product, and on what terms, read from the
supplier feed named by SUPPLIER_FEED (the bundled offline feed by default; feed.py).

    offers_for("kitchen-magnetic-knife-strip")   # the lines that offer this product
    similar_goods("Acacia Wood Magnetic Knife Strip")  # lines of goods named like it
    offer("Ningbo Homeware Co.", "NHC-62654")      # one offer line, by supplier and SKU

An option is one feed line: one supplier's offer of one product (its unit cost, minimum
order, lead time, origin, SKU and the supplier's rating). A product's own options are the
lines whose product_id is that product's. Only for a product no line offers does a caller
fall back on similar goods: lines whose names share the most words with the product's name
(among as many shared words, rarer words first: "knife" says more than "magnetic"),
cheapest first among equals. Those are other products, and the caller must say so.

An http(s) feed is what scripts/discover.py fetches on a schedule; answering a request from
it would fetch it while the founder waits, so this seam does not: it raises
`SuppliersUnavailable` and the caller says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from config import get_settings
from integrations.suppliers.feed import Feed, FeedLine, FeedUnreadable, key, load, words

MAX_OPTIONS = 10


class SuppliersUnavailable(Exception):
    """The feed cannot answer: it is a URL, or its file cannot be read. One line."""


@dataclass(frozen=True)
class SupplierOption:
    supplier: str
    sku: str  # with supplier, names the offer line
    product_id: str  # the product the line offers
    name: str  # what the line offers, as the feed names it
    unit_cost: float
    currency: str
    shipping_days: int | None  # the line's lead_time_days
    moq: int | None
    rating: float | None  # null when the feed gives none
    ships_from: str | None
    relevance: int  # words shared with the product's name (a line of the product itself: all of its own)


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
    return SupplierOption(supplier=line.supplier, sku=line.sku, product_id=line.product_id, name=line.name,
                          unit_cost=line.cost, currency=line.currency, shipping_days=line.lead_time_days,
                          moq=line.moq, rating=line.rating, ships_from=line.ships_from, relevance=relevance)


def _cheapest_first(line: FeedLine) -> tuple:
    return line.cost, key(line.supplier), key(line.sku)


def feed_name(product_id: str, *, source: str | None = None) -> str | None:
    """The name the feed gives a product id (its first line's), or None when no line offers it."""
    found = _feed(source).by_product.get(product_id)
    return found[0].name if found else None


def offers_for(product_id: str, *, source: str | None = None, limit: int | None = MAX_OPTIONS) -> list[SupplierOption]:
    """The lines that offer this product, cheapest first (then by supplier and SKU); at
    most `limit` (None: all). Raises SuppliersUnavailable when the feed cannot answer."""
    lines = sorted(_feed(source).by_product.get(product_id.strip(), ()), key=_cheapest_first)
    return [_option(line, len(line.words)) for line in lines[:limit]]


def similar_goods(name: str, *, source: str | None = None, limit: int = MAX_OPTIONS) -> list[SupplierOption]:
    """Lines of goods named like `name` (a product no line offers): most shared words
    first, then rarer shared words, then cheapest; at most `limit`."""
    feed = _feed(source)
    wanted = words(name)
    ranked = []
    for line in feed.lines if wanted else ():
        shared = wanted & line.words
        if shared:
            # Rounded so that float sums of the same words in another order tie exactly.
            rarity = round(sum(feed.rarity.get(word, 0.0) for word in shared), 6)
            ranked.append((-len(shared), -rarity, line.cost, line.product_id, key(line.supplier), line))
    ranked.sort(key=lambda entry: entry[:5])
    return [_option(entry[5], -entry[0]) for entry in ranked[:limit]]


def offer(supplier: str, sku: str, *, source: str | None = None) -> SupplierOption | None:
    """The offer line a supplier and SKU name (both matched ignoring case and extra
    spaces), or None when the feed has no such line."""
    line = _feed(source).by_offer.get((key(supplier), key(sku)))
    return _option(line, len(line.words)) if line else None


def supplier_named(name: str, *, source: str | None = None) -> str | None:
    """The feed's spelling of a supplier name (matched ignoring case and extra spaces), or
    None when no feed line has that supplier."""
    return _feed(source).suppliers.get(key(name))


def offers_of(supplier: str, *, source: str | None = None) -> list[SupplierOption]:
    """Every line of one supplier (spelled as the feed spells it), cheapest first."""
    lines = sorted((line for line in _feed(source).lines if line.supplier == supplier), key=_cheapest_first)
    return [_option(line, 0) for line in lines]
