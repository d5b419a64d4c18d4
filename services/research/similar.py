"""What a founder's own product's price can be read against: the prices of similar catalog
products. An own product has no evidence of its own (nothing outside has measured it), but
the catalog knows what products like it sell for.

"Similar" is the category of the closest catalog product to the own product's name and
description (the catalog's full-text search, as POST /api/analyze reads a description): an
own product is filed under a category of the founder's screens, not one of the catalog's.
The prices read are every catalog product's in that category and the own product's
currency (no exchange rate is assumed); founders' own products are never among them.
"""
from __future__ import annotations

from decimal import Decimal
from statistics import median

from models.catalog import Product
from services import search
from services.catalog import OWN_PRODUCT_PREFIX
from services.research.offer import money

# Hits looked at for the closest product in the own product's currency.
CLOSEST_OF = 5


def similar_prices(*, name: str, description: str, currency: str) -> dict | None:
    """{category, closest, products, low, median, high, currency} of the catalog products like
    the one described, or None when the catalog has nothing like it in that currency."""
    text = f"{name} {description}"
    hits = search.search(text, limit=CLOSEST_OF) if search.query_terms(text) else []
    closest = next((hit for hit in hits if hit.currency == currency), None)
    if closest is None:
        return None
    prices = sorted(Decimal(str(price)) for (price,) in Product.select(Product.price).where(
        Product.category == closest.category, Product.currency == currency,
        ~Product.product_id.startswith(OWN_PRODUCT_PREFIX)).tuples())
    if not prices:  # the closest product left the catalog since the search: nothing to compare
        return None
    return {"category": closest.category, "closest": closest.name, "products": len(prices),
            "low": float(money(prices[0])), "median": float(money(median(prices))), "high": float(money(prices[-1])),
            "currency": currency}


def cite(similar: dict) -> dict:
    """The source of a comparison: the catalog's prices of the similar products."""
    return {"type": "similar", "category": similar["category"], "products": similar["products"]}
