"""The words the demo catalog's products are written in: its categories, the evidence sources
with the metric each reports, and `P`, which bundles one hand-written product."""
from __future__ import annotations

HK = "Home & Kitchen"
PET = "Pet Supplies"
FIT = "Fitness"
BEA = "Beauty & Personal Care"
OUT = "Outdoor & Camping"
TEC = "Tech Accessories"
BAB = "Baby & Kids"
OFF = "Office & Desk"
CATEGORIES = [HK, PET, FIT, BEA, OUT, TEC, BAB, OFF]

# Evidence source -> metric name reported by that source.
SOURCE_METRIC = {
    "google_trends": "interest_index",
    "amazon_bestsellers": "bsr_rank",
    "tiktok_views": "weekly_views",
    "reddit_mentions": "monthly_mentions",
    "supplier_quote": "unit_price_quote",
    "etsy_listings": "listings_count",
    "search_volume": "monthly_searches",
    "review_count": "reviews",
}

GT = "google_trends"
AMZ = "amazon_bestsellers"
TT = "tiktok_views"
RD = "reddit_mentions"
SQ = "supplier_quote"
ETSY = "etsy_listings"
SV = "search_volume"
RC = "review_count"


def P(product_id, category, name, description, price, cost, currency, images,
      rank, evidence, **extra):
    """Bundle one hand-written product record.

    ``evidence`` rows are ``(when, source, value, note)`` where ``when`` is an
    int (days before ANCHOR) or a literal ``"YYYY-MM-DD"`` string.
    ``extra`` keyword fields are appended after the standard keys.
    """
    return {
        "product_id": product_id,
        "category": category,
        "name": name,
        "description": description,
        "price": price,
        "cost": cost,
        "currency": currency,
        "images": images,
        "rank": rank,
        "evidence": evidence,
        "extra": extra,
    }
