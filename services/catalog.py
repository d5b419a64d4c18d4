"""Loading a catalog file (JSON Lines, the format of decisions.md) into products and evidence.

A file is loaded whole or not at all: every line is validated first, every bad line is
reported by number, and only a clean file is written, in one transaction. Loading is
idempotent by product_id: a product already present is updated and its evidence rows are
replaced by the file's.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates
from peewee import EXCLUDED

from models.catalog import Evidence, Product
from models.clock import utcnow
from models.db import transaction
from services import evidence_gate

# A founder's own product (services/own_catalog.py) is a product row with an id of this
# prefix; no catalog line may take one.
OWN_PRODUCT_PREFIX = "own-"
KNOWN_FIELDS = {"product_id", "name", "description", "category", "price", "cost", "currency", "images", "rank", "evidence"}
BATCH = 500
# A reload rewrites everything about a product except when it was first loaded.
UPDATED_ON_RELOAD = ("name", "description", "category", "price", "cost", "currency", "images", "rank", "extra", "updated_at")
MAX_REPORTED_ERRORS = 20


class CatalogError(Exception):
    """The file cannot be loaded; `errors` lists (line number, message) for each bad line."""

    def __init__(self, errors: list[tuple[int, str]], total_bad: int):
        self.errors = errors
        self.total_bad = total_bad
        shown = "; ".join(f"line {n}: {m}" for n, m in errors)
        more = f" (and {total_bad - len(errors)} more bad lines)" if total_bad > len(errors) else ""
        super().__init__(f"nothing loaded: {shown}{more}")


@dataclass
class LoadReport:
    products: int
    created: int
    updated: int
    evidence: int


class _FiniteNumber(fields.Float):
    def _validated(self, value):
        number = super()._validated(value)
        if number is not None and not math.isfinite(number):
            raise self.make_error("invalid")
        return number

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class EvidenceLine(Schema):
    date = fields.Date(required=True, format="%Y-%m-%d")
    source = fields.String(required=True, validate=validate.Length(min=1, max=80))
    metric = fields.String(required=True, validate=validate.Length(min=1, max=80))
    value = _FiniteNumber(required=True)
    note = fields.String(load_default="", validate=validate.Length(max=2000))


class ProductLine(Schema):
    class Meta:
        unknown = INCLUDE  # unknown fields are kept (in Product.extra)

    product_id = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,119}$"))
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    description = fields.String(required=True, validate=validate.Length(min=1, max=10000))
    category = fields.String(required=True, validate=validate.Length(min=1, max=80))
    price = _FiniteNumber(required=True, validate=validate.Range(min=0.01, max=1_000_000))
    cost = _FiniteNumber(required=True, validate=validate.Range(min=0, max=1_000_000))
    currency = fields.String(required=True, validate=validate.Regexp(r"^[A-Z]{3}$"))
    images = fields.List(fields.String(validate=validate.Length(min=1, max=2000)), required=True,
                         validate=validate.Length(max=20))
    rank = _FiniteNumber(required=True)
    evidence = fields.List(fields.Nested(EvidenceLine), required=True, validate=validate.Length(max=500))

    @validates("images")
    def _image_urls(self, value, **kwargs):
        for url in value:
            if not (url.startswith("/") or url.startswith("https://") or url.startswith("http://")):
                raise ValidationError(f"{url!r} is not an absolute path or http(s) URL")


def _money(value: float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _describe(messages) -> str:
    parts = []
    for field_name, problem in sorted(messages.items(), key=lambda kv: str(kv[0])):
        if isinstance(problem, dict):
            parts.append(f"{field_name}: {_describe(problem)}")
        else:
            parts.append(f"{field_name}: {' '.join(str(p) for p in problem)}")
    return ", ".join(parts)


def parse_catalog(lines) -> list[dict]:
    """Validates every line; returns the products, or raises CatalogError naming the bad lines."""
    schema = ProductLine()
    products, errors, seen = [], [], {}
    bad = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise ValueError("a line must be one JSON object")
            item = schema.load(raw)
        except ValidationError as exc:
            bad += 1
            errors.append((number, _describe(exc.normalized_messages())))
            continue
        except ValueError as exc:
            bad += 1
            errors.append((number, f"not valid JSON ({exc})"))
            continue
        if item["product_id"].startswith(OWN_PRODUCT_PREFIX):
            bad += 1
            errors.append((number, f"product_id {item['product_id']!r}: ids starting with {OWN_PRODUCT_PREFIX!r} "
                                   "are founders' own products"))
            continue
        first = seen.setdefault(item["product_id"], number)
        if first != number:
            bad += 1
            errors.append((number, f"product_id {item['product_id']!r} is already on line {first}"))
            continue
        products.append(item)
    if bad:
        raise CatalogError(errors[:MAX_REPORTED_ERRORS], bad)
    return products


def load_catalog_file(path: str | Path) -> LoadReport:
    """Loads a catalog file; see the module docstring."""
    with open(path, encoding="utf-8") as handle:
        products = parse_catalog(handle)
    return load_products(products)


def load_products(products: list[dict]) -> LoadReport:
    now = utcnow()
    evidence_count = 0
    with transaction():
        ids = [p["product_id"] for p in products]
        existing = set()
        for start in range(0, len(ids), BATCH):
            chunk = ids[start:start + BATCH]
            existing.update(pid for (pid,) in Product.select(Product.product_id).where(Product.product_id.in_(chunk)).tuples())
        for start in range(0, len(products), BATCH):
            chunk = products[start:start + BATCH]
            rows = [_product_row(p, now) for p in chunk]
            (Product.insert_many(rows)
             .on_conflict(conflict_target=[Product.product_id],
                          update={getattr(Product, name): getattr(EXCLUDED, getattr(Product, name).column_name)
                                  for name in UPDATED_ON_RELOAD})
             .execute())
            chunk_ids = [p["product_id"] for p in chunk]
            Evidence.delete().where(Evidence.product.in_(chunk_ids)).execute()
            evidence_rows = [
                {"product": p["product_id"], "date": e["date"], "source": e["source"], "metric": e["metric"],
                 "value": e["value"], "note": e["note"]}
                for p in chunk for e in p["evidence"]
            ]
            for ev_start in range(0, len(evidence_rows), BATCH):
                Evidence.insert_many(evidence_rows[ev_start:ev_start + BATCH]).execute()
            evidence_count += len(evidence_rows)
            # The evidence gate's figures are computed from what was just written, in the
            # same transaction: a product is never served on stale figures.
            evidence_gate.refresh(chunk_ids)
    created = len([i for i in ids if i not in existing])
    return LoadReport(products=len(products), created=created, updated=len(products) - created, evidence=evidence_count)


def _product_row(item: dict, now) -> dict:
    extra = {k: v for k, v in item.items() if k not in KNOWN_FIELDS}
    return {
        "product_id": item["product_id"],
        "name": item["name"],
        "description": item["description"],
        "category": item["category"],
        "price": _money(item["price"]),
        "cost": _money(item["cost"]),
        "currency": item["currency"],
        "images": item["images"],
        "rank": item["rank"],
        "extra": extra,
        "created_at": now,
        "updated_at": now,
    }


def catalog_is_empty() -> bool:
    """Whether no catalog product is loaded (founders' own products do not count)."""
    return not Product.select().where(~Product.product_id.startswith(OWN_PRODUCT_PREFIX)).limit(1).exists()

