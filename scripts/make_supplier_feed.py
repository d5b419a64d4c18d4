#!/usr/bin/env python3
"""Generate the bundled offline supplier feed: what scripts/discover.py reads by default,
and what GET /api/suppliers answers supplier options from.

Output: ``scripts/data/supplier_feed.jsonl.gz``, one JSON object a line, in two parts:

1. Feed products (3,000 by default): each a line in the catalog format of decisions.md
   (product_id, name, description, category, price, cost, currency, images, rank,
   evidence) plus one supplier's offer of it, fields the catalog keeps as extras
   (supplier, sku, moq, lead_time_days, ships_from, rating). Discovery adds the ones that
   clear the evidence gate to the catalog.
2. Offer lines for every product of the demo catalog (scripts/data/demo_catalog.jsonl,
   made by make_demo_catalog.py): 2 to 5 suppliers' offers of each, one line per offer:
   product_id (the catalog product offered), name (the catalog's), supplier, sku (unique
   in the feed), cost (the unit cost, 70-130 % of the catalog cost), currency (the
   catalog product's), moq, lead_time_days, ships_from (the supplier's country) and
   rating. An offer line has no price: it offers a product listed elsewhere, so discovery
   skips it, while supplier options read it.

Deterministic and standard library only: a fixed seed, evidence dated relative to the
fixed anchor ``ANCHOR`` (never today's date), and a gzip stream with no timestamp or file
name, so re-running it rewrites a byte-identical file.

Like a real feed, it is uneven: most products would clear the evidence gate, but some have
thin or negative margins, some only old evidence, some a single evidence row and some
none at all.

Usage::

    python3 scripts/make_supplier_feed.py [--count 3000] [--out PATH]

Run it again after changing the demo catalog: tests/test_discover.py checks that the
committed feed is byte for byte what this script makes.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

# This folder is on sys.path when run as a script.
from make_demo_catalog import SOURCE_METRIC
from supplier_feed_goods import CATALOG

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "scripts" / "data" / "supplier_feed.jsonl.gz"
DEMO_CATALOG = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
ANCHOR = date(2026, 11, 15)
SEED = 20261115
IMAGE_HOST = "https://images.supplier-feed.example"

SOURCES = SOURCE_METRIC  # evidence source -> the metric it reports, as in the demo catalog

SUPPLIERS = ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Shenzhen Gadgetline", "Guangzhou PetCare Ltd.",
             "Xiamen Outdoor Works", "Hangzhou Silk & Co.", "Dongguan Fitline", "Qingdao GreenGrow",
             "Ho Chi Minh Craftworks", "Izmir Textiles", "Porto Cork Supply", "Jaipur Handmade"]
SHIPS_FROM = ["CN", "CN", "CN", "VN", "TR", "PT", "IN", "US"]
AUDIENCES = ["small apartments", "busy parents", "weekend hikers", "first-time buyers", "gift shoppers",
             "remote workers", "students", "renters", "minimalists", "travellers"]
LINES = [("", 1.0), ("Premium ", 1.35), ("Eco ", 1.1), ("Classic ", 0.9), ("Deluxe ", 1.5), ("Essentials ", 0.8)]
TRENDS = ["is climbing steadily", "is stable year round", "peaks ahead of the holidays", "has doubled since spring",
          "is up about 20 % year on year", "shows a late-summer bump"]


def supplier_rating(supplier: str) -> float:
    """The supplier's rating, 3.5 to 5.0 in steps of 0.1, derived from a hash of its name:
    the same supplier always has the same rating, and drawing it takes nothing from the
    random stream (every other field of every line stays as it was before ratings)."""
    digest = hashlib.sha256(supplier.encode("utf-8")).digest()
    return round(3.5 + int.from_bytes(digest[:4], "big") % 16 / 10, 1)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def price_point(rng: random.Random, low: float, high: float) -> float:
    value = rng.uniform(low, high)
    return float(f"{max(int(value), 5)}.99") if value >= 10 else round(value, 2)


def evidence_rows(rng: random.Random, name: str, price: float, cost: float, profile: str) -> list[dict]:
    keyword = name.split(",")[0].lower()
    if profile == "none":
        return []
    if profile == "single":
        offsets = [rng.randint(5, 200)]
    elif profile == "old":
        offsets = sorted(rng.sample(range(560, 1100), rng.randint(2, 5)))
    else:  # "fresh": two to six rows over the last ~ten months
        offsets = sorted(rng.sample(range(3, 320), rng.randint(2, 6)))
    rows = []
    for offset in offsets:
        source = rng.choice(list(SOURCES))
        metric = SOURCES[source]
        if source == "google_trends":
            value, note = rng.randint(18, 96), f"US interest in '{keyword}' {rng.choice(TRENDS)}."
        elif source == "amazon_bestsellers":
            value = rng.randint(150, 9500)
            note = f"Ranked #{value:,} in its Amazon subcategory."
        elif source == "tiktok_views":
            value = rng.randint(40, 4000) * 1000
            note = f"{value:,} weekly views on videos showing a {keyword}."
        elif source == "reddit_mentions":
            value = rng.randint(12, 260)
            note = f"Recommended in {value} threads this month, mostly by {rng.choice(AUDIENCES)}."
        elif source == "supplier_quote":
            value = round(cost * rng.uniform(0.55, 0.85), 2)
            note = f"FOB quote per unit at a {rng.choice([100, 200, 300, 500, 1000])}-piece MOQ."
        elif source == "etsy_listings":
            value = rng.randint(40, 3200)
            note = f"{value:,} Etsy listings; handmade versions sell above ${price:.0f}."
        elif source == "search_volume":
            value = rng.randint(8, 160) * 100
            note = f"US monthly searches for '{keyword}'."
        else:
            value = rng.randint(120, 24000)
            note = f"The leading listing has {value:,} reviews at {rng.choice(['4.3', '4.4', '4.5', '4.6', '4.7'])} stars."
        rows.append({"date": (ANCHOR - timedelta(days=offset)).isoformat(), "source": source, "metric": metric,
                     "value": value, "note": note})
    rows.sort(key=lambda row: row["date"])
    return rows


def products(count: int) -> list[dict]:
    rng = random.Random(SEED)
    combos = []
    for category, bases in CATALOG.items():
        for base in bases:
            noun, what, first, second, prices = base
            for a in first:
                for b in second:
                    combos.append((category, noun, what, a, b, prices))
    # Every combination once, then more pack sizes of the same items as needed, in a fixed order.
    rng.shuffle(combos)
    items, seen_names, round_no = [], set(), 0
    while len(items) < count:
        for category, noun, what, a, b, (low, high) in combos:
            if len(items) >= count:
                break
            # Later rounds are the same items in a supplier's other product lines.
            line, factor = LINES[round_no % len(LINES)]
            name = f"{line}{a} {noun}, {b}"
            if name in seen_names:
                continue
            seen_names.add(name)
            items.append(_product(rng, len(items) + 1, category, noun, what, a, b, low * factor, high * factor, name))
        round_no += 1
    return items


def _product(rng, number, category, noun, what, a, b, low, high, name) -> dict:
    price = price_point(rng, low, high)
    roll = rng.random()
    if roll < 0.08:
        cost = round(price * rng.uniform(0.82, 1.15), 2)  # thin or negative margin
    else:
        cost = round(price * rng.uniform(0.18, 0.62), 2)
    profile_roll = rng.random()
    profile = "fresh" if profile_roll < 0.80 else "old" if profile_roll < 0.88 else "single" if profile_roll < 0.96 else "none"
    currency = "USD" if rng.random() < 0.8 else rng.choice(["EUR", "GBP"])
    product_id = f"sf-{number:05d}-{slug(name.split(',')[0])}"[:120]
    audience = rng.choice(AUDIENCES)
    description = (f"{what}. This {a.lower()} version comes as {b.lower() if not b[0].isdigit() else b}. "
                   f"Popular with {audience}; ships in plain retail packaging.")
    images = [f"{IMAGE_HOST}/{product_id}/{n}.jpg" for n in range(1, rng.randint(2, 4) + 1)]
    line = {
        "product_id": product_id,
        "name": name,
        "description": description,
        "category": category,
        "price": price,
        "cost": cost,
        "currency": currency,
        "images": images,
        "rank": round(rng.uniform(5, 95), 1),
        "evidence": evidence_rows(rng, name, price, cost, profile),
        "supplier": rng.choice(SUPPLIERS),
        "sku": f"SKU-{number:05d}-{rng.randint(100, 999)}",
        "moq": rng.choice([50, 100, 200, 300, 500, 1000]),
        "lead_time_days": rng.randint(7, 45),
        "ships_from": rng.choice(SHIPS_FROM),
    }
    line["rating"] = supplier_rating(line["supplier"])  # after every draw, outside the random stream
    return line


# --- Offers of the demo catalog's products ----------------------------------------------------

# Where each supplier ships from, and what that means for an offer: lead time in days, the
# unit cost as a share of the catalog cost, and the minimum orders it takes. Factories abroad
# are cheaper and slower with larger minimums; a warehouse in the buyer's market is dearer,
# ships in days and sells by the carton.
ORIGINS = {
    "CN": {"days": (12, 35), "cost": (0.70, 1.00), "moq": [100, 200, 300, 500, 1000]},
    "VN": {"days": (18, 40), "cost": (0.72, 1.02), "moq": [100, 200, 300, 500]},
    "IN": {"days": (20, 45), "cost": (0.75, 1.05), "moq": [50, 100, 200, 300]},
    "TR": {"days": (10, 24), "cost": (0.85, 1.10), "moq": [50, 100, 200]},
    "PT": {"days": (7, 18), "cost": (0.90, 1.15), "moq": [50, 100, 150]},
    "US": {"days": (2, 7), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
    "NL": {"days": (2, 6), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
    "GB": {"days": (2, 6), "cost": (1.05, 1.30), "moq": [10, 24, 50]},
}
SUPPLIER_COUNTRY = {
    "Ningbo Homeware Co.": "CN", "Yiwu Bright Goods": "CN", "Shenzhen Gadgetline": "CN",
    "Guangzhou PetCare Ltd.": "CN", "Xiamen Outdoor Works": "CN", "Hangzhou Silk & Co.": "CN",
    "Dongguan Fitline": "CN", "Qingdao GreenGrow": "CN", "Ho Chi Minh Craftworks": "VN",
    "Izmir Textiles": "TR", "Porto Cork Supply": "PT", "Jaipur Handmade": "IN",
    "Columbus Fulfilment Co.": "US", "Rotterdam Stockhouse B.V.": "NL", "Midlands Wholesale Ltd.": "GB",
}
# Suppliers that make goods of a demo category; the warehouse of the product's market joins them.
CATEGORY_SUPPLIERS = {
    "Home & Kitchen": ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Porto Cork Supply", "Jaipur Handmade",
                       "Ho Chi Minh Craftworks"],
    "Pet Supplies": ["Guangzhou PetCare Ltd.", "Yiwu Bright Goods", "Izmir Textiles", "Ningbo Homeware Co.",
                     "Ho Chi Minh Craftworks"],
    "Fitness": ["Dongguan Fitline", "Xiamen Outdoor Works", "Yiwu Bright Goods", "Porto Cork Supply",
                "Izmir Textiles"],
    "Beauty & Personal Care": ["Hangzhou Silk & Co.", "Yiwu Bright Goods", "Jaipur Handmade", "Shenzhen Gadgetline",
                               "Qingdao GreenGrow"],
    "Outdoor & Camping": ["Xiamen Outdoor Works", "Qingdao GreenGrow", "Dongguan Fitline", "Ningbo Homeware Co.",
                          "Ho Chi Minh Craftworks"],
    "Tech Accessories": ["Shenzhen Gadgetline", "Dongguan Fitline", "Yiwu Bright Goods", "Xiamen Outdoor Works",
                         "Ningbo Homeware Co."],
    "Baby & Kids": ["Ningbo Homeware Co.", "Yiwu Bright Goods", "Hangzhou Silk & Co.", "Izmir Textiles",
                    "Ho Chi Minh Craftworks"],
    "Office & Desk": ["Shenzhen Gadgetline", "Ningbo Homeware Co.", "Porto Cork Supply", "Izmir Textiles",
                      "Yiwu Bright Goods"],
}
WAREHOUSE = {"USD": "Columbus Fulfilment Co.", "EUR": "Rotterdam Stockhouse B.V.", "GBP": "Midlands Wholesale Ltd."}
MIN_OFFERS, MAX_OFFERS = 2, 5


def supplier_code(supplier: str) -> str:
    """The first letters of a supplier's words: "Ningbo Homeware Co." -> "NHC"."""
    return "".join(word[0] for word in re.findall(r"[A-Za-z]+", supplier)).upper()[:4]


def read_catalog(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def offers(catalog: list[dict], taken_skus: set[str]) -> list[dict]:
    """2 to 5 suppliers' offer lines for every catalog product, in catalog order.

    Each product draws from a random stream of its own (seeded by SEED and its product
    id), so adding or changing one product of the catalog leaves every other product's
    offers as they were."""
    lines = []
    for product in catalog:
        rng = random.Random(f"{SEED}:{product['product_id']}")
        currency = product["currency"]
        pool = CATEGORY_SUPPLIERS[product["category"]] + [WAREHOUSE[currency]]
        chosen = rng.sample(pool, rng.randint(MIN_OFFERS, MAX_OFFERS))
        for supplier in chosen:
            country = SUPPLIER_COUNTRY[supplier]
            origin = ORIGINS[country]
            sku = f"{supplier_code(supplier)}-{rng.randint(10000, 99999)}"
            while sku in taken_skus:
                sku = f"{supplier_code(supplier)}-{rng.randint(10000, 99999)}"
            taken_skus.add(sku)
            line = {
                "product_id": product["product_id"],
                "name": product["name"],
                "supplier": supplier,
                "sku": sku,
                "cost": max(round(product["cost"] * rng.uniform(*origin["cost"]), 2), 0.01),
                "currency": currency,
                "moq": rng.choice(origin["moq"]),
                "lead_time_days": rng.randint(*origin["days"]),
                "ships_from": country,
            }
            line["rating"] = supplier_rating(supplier)
            lines.append(line)
    return lines


def write(items: list[dict], out: Path) -> int:
    text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")
    buffer = io.BytesIO()
    # No timestamp and no file name in the header: the same input gives the same bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as stream:
        stream.write(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    return len(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Generate the bundled supplier feed.")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--catalog", type=Path, default=DEMO_CATALOG,
                        help="the catalog whose products get offer lines (default: the demo catalog)")
    args = parser.parse_args(argv)
    items = products(args.count)
    catalog = read_catalog(args.catalog)
    offered = offers(catalog, {item["sku"] for item in items})
    raw = write(items + offered, args.out)
    print(f"{args.out}: {len(items)} products and {len(offered)} offer lines for the {len(catalog)} products of "
          f"{args.catalog.name}, {raw:,} bytes uncompressed, {args.out.stat().st_size:,} compressed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
