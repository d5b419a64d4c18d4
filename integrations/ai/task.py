"""What an AI-backed feature asks for (Task and its Facts) and what it gets back (Answer)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Facts:
    """Everything copy may say; anything else may not be claimed."""

    product: dict  # the catalog record: product_id, name, description, category, price, cost, currency, images, ...
    evidence: list[dict]  # dated rows: {date, source, metric, value, note}
    offer: dict | None  # the researched offer figures (price, unit_margin, margin_pct, ..., currency), or None
    business: dict = field(default_factory=dict)  # optional: business_name, support_email


@dataclass(frozen=True)
class Task:
    """One piece of writing to do."""

    kind: str  # "store_copy" now; later "edit", "ad_copy", "support_draft"
    facts: Facts
    instructions: str = ""  # the founder's own words (a plain-language edit), may be ""
    current: dict | None = None  # the copy being edited, if any


@dataclass(frozen=True)
class Answer:
    """The copy to use, what was removed from it, and which backend wrote it."""

    copy: dict  # valid against the kind's schema, unbacked sentences removed
    dropped: list[dict]  # [{field, sentence, why}], why: number | certification | origin
    backend: str  # offline | openai | command
