"""The store document (format 1): everything a store's pages are rendered from, as JSON.

Rendering (services/store/render.py) is a pure function of it, edits patch it, and every
build or change is stored as a new numbered version (services/store/versions.py). The
document holds the product as the catalog describes it, the price the store charges, the
dated evidence rows that back its copy, the copy itself (written by the AI backend from
those facts only), a palette, and per page an ordered list of sections.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata

from integrations.ai.schemas import STORE_COPY, record, validate
from services import evidence_kinds as kinds
from services.store.document_format import FORMAT, PALETTES, POLICY_TOPICS
from services.store.sections import LEADS, PAGES

# Sections a store can lead with (services/store/sections.py).
SECTIONS = LEADS
MAX_EVIDENCE_ROWS = 6
# Each page's title in a new store; its sections come from sections.PAGES.
PAGE_TITLES = {"faq": "Questions and answers", "shipping": "Shipping and returns", "contact": "Contact",
               "privacy": "Privacy", "terms": "Terms"}

_TEXT = {"type": "string", "maxLength": 5000}
_SECTION = record({"type": {"type": "string", "minLength": 1, "maxLength": 40}})
# The schema every stored version is checked against (JSON Schema 2020-12, validated as
# integrations/ai/schemas.py describes). Section types are open (a newer type renders as
# nothing on an older renderer), so they are checked as names, not against a list.
SCHEMA = record({
    "format": {"type": "integer", "enum": [FORMAT]},
    "product_id": {"type": "string", "minLength": 1, "maxLength": 120},
    "slug": {"type": "string", "minLength": 1, "maxLength": 80},
    "currency": {"type": "string", "minLength": 3, "maxLength": 3},
    "price": {"type": "number", "minimum": 0},
    "checkout": {"type": "boolean"},
    "business": record({"name": {"type": "string", "minLength": 1, "maxLength": 200},
                        "support_email": {"type": ["string", "null"], "maxLength": 320},
                        # The founder's statements of their policy, by topic, one sentence each
                        # (services/founder_statements.py): the business's word, shown as its
                        # policy, never an evidence row. Older versions have none.
                        "policy": record({topic: {"type": "string", "minLength": 1, "maxLength": 300}
                                          for topic in POLICY_TOPICS}, optional=POLICY_TOPICS)},
                       optional=("policy",)),
    "theme": record({"palette": {"type": "string", "enum": list(PALETTES)}}),
    "product": record({"name": {"type": "string", "minLength": 1, "maxLength": 200}, "description": _TEXT,
                       "category": {"type": "string", "maxLength": 80},
                       "images": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 2000}}}),
    "copy": STORE_COPY,
    "evidence": {"type": "array", "maxItems": MAX_EVIDENCE_ROWS, "items": record({
        "date": {"type": "string", "minLength": 10, "maxLength": 10}, "source": {"type": "string", "maxLength": 80},
        "metric": {"type": "string", "maxLength": 80}, "value": {"type": ["number", "null"]}, "text": _TEXT,
        # The metric in words (services/evidence_kinds.py), so the renderer, which reads nothing
        # but the document, shows any catalog's metric readably; older versions have none.
        "label": {"type": "string", "maxLength": 200}}, optional=("label",))},
    "lead": {"type": "string", "enum": list(SECTIONS)},
    "pages": {"type": "array", "minItems": 1, "maxItems": 20, "items": record({
        "id": {"type": "string", "minLength": 1, "maxLength": 40}, "title": {"type": "string", "maxLength": 200},
        "sections": {"type": "array", "maxItems": 20, "items": _SECTION}})},
})


COPY_FIELDS = tuple(STORE_COPY["properties"])  # the fields of a store's copy an edit may name


def problems(document) -> list[str]:
    """What is wrong with a store document against SCHEMA ([] when it is valid)."""
    return validate(document, SCHEMA)


def slug_for(product_id: str, name: str) -> str:
    """A stable, readable address part: the product's name and a short hash of its id (ids
    are unique, so slugs are too)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    words = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:56].strip("-") or "store"
    return f"{words}-{hashlib.sha256(product_id.encode()).hexdigest()[:6]}"


def palette_for(category: str) -> str:
    """The palette a category gets (stable across builds)."""
    return PALETTES[int(hashlib.sha256(category.encode()).hexdigest(), 16) % len(PALETTES)]


def evidence_rows(rows: list[dict]) -> list[dict]:
    """The newest dated numeric evidence rows, whatever the catalog calls their metrics, as
    the store shows them. Money stays private (services/evidence_kinds.py): a shopper has no
    use for the founder's unit cost or a quote."""
    public = [r for r in rows if kinds.reading(r) is not None and not kinds.private(r["metric"])]
    public.sort(key=lambda r: (r["date"], r.get("source", "")), reverse=True)
    shown = []
    for row in public[:MAX_EVIDENCE_ROWS]:
        text = row.get("note") or (f"{row.get('source') or 'A source'} reports {_figure(row['value'])} "
                                   f"{kinds.label(row['metric'])}.")
        shown.append({"date": row["date"], "source": row.get("source", ""), "metric": row["metric"],
                      "value": row.get("value"), "text": text, "label": kinds.label(row["metric"])})
    return shown


def _figure(value) -> str:
    """A reading as a shopper reads it: 2400000.0 -> "2,400,000", 4.6 -> "4.6"."""
    value = float(value)
    return f"{int(value):,}" if value.is_integer() else f"{value:,}"


def build_document(*, product: dict, evidence: list[dict], price: float, copy: dict, slug: str,
                   business_name: str | None = None, support_email: str | None = None,
                   checkout: bool = False, policy: dict | None = None) -> dict:
    """The document of a freshly built store."""
    name = product["name"]
    # A founder's own product is filed under a category named for the founder ("Your own
    # product", services/own_product.py): the store shows a shopper no category for it.
    category = "" if product.get("own") else product.get("category", "")
    titles = {**PAGE_TITLES, "home": copy["seo_title"], "product": name}
    return {
        "format": FORMAT,
        "product_id": product["product_id"],
        "slug": slug,
        "currency": product["currency"],
        "price": round(float(price), 2),
        # Whether the store takes orders: true when it was built with a payment provider
        # configured (the renderer also closes the buy box while payments are off).
        "checkout": checkout,
        "business": {"name": business_name or name, "support_email": support_email,
                     **({"policy": dict(policy)} if policy else {})},
        "theme": {"palette": palette_for(product.get("category", ""))},
        "product": {"name": name, "description": product.get("description", ""),
                    "category": category, "images": list(product.get("images") or [])},
        "copy": copy,
        "evidence": evidence_rows(evidence),
        "lead": "hero",
        "pages": [{"id": page, "title": titles[page], "sections": [{"type": t} for t in types]}
                  for page, types in PAGES.items()],
    }
