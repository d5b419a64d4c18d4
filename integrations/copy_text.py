"""Plain copy text every offline writer shares: a price as a shopper reads it, and text cut
or joined to fit a field.

The store copywriter (integrations/ai/offline.py) and the services' own offline writers
(organic posts, ad copy, page copy, Fix's drafts) all write from the same facts the same way,
so they read these from here rather than from one another: a service importing the AI
backend's copywriter for its helpers would depend on that backend's internals. It sits in
integrations/, beside the seam, because the seam's copywriter may not import services. It
holds no domain rule: what the evidence may tell a shopper is decided in services
(services/ai_facts.py: what it backs, in a shopper's words, never its figures or sources)
and comes to the writers in the facts (Facts.demand).

Deterministic like the writers it serves: nothing reads the clock, the environment or a
random source, and a number is only ever copied from the facts.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from integrations.ai.task import Facts

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
CENT = Decimal("0.01")


def price_text(facts: Facts) -> str:
    """The selling price as a shopper reads it ("$34.99", "34.99 SEK"), from the offer or else the catalog; "" when unknown."""
    offer = facts.offer or {}
    raw = offer.get("price") if offer.get("price") is not None else facts.product.get("price")
    amount = _decimal(raw)
    if amount is None or amount <= 0:
        return ""
    # Cents as the facts give them: a price is never rounded into a number they do not hold.
    written = f"{amount:,.2f}" if amount == amount.quantize(CENT) else f"{amount.normalize():,f}"
    currency = str(offer.get("currency") or facts.product.get("currency") or "").strip().upper()
    return f"{SYMBOLS[currency]}{written}" if currency in SYMBOLS else f"{written} {currency}".strip()


def join(parts: list[str], limit: int) -> str:
    """The non-empty parts, in order, that fit together in `limit` characters; the first one cut to fit when none does."""
    parts = [p for p in parts if p]
    text = ""
    for part in parts:
        longer = f"{text} {part}".strip()
        if len(longer) <= limit:
            text = longer
    return text or (cut(parts[0], limit) if parts else "")


def cut(text: str, limit: int, ellipsis: str = "…") -> str:
    """The text, or its words up to `limit` characters ending with the ellipsis."""
    if len(text) <= limit:
        return text
    room = limit - len(ellipsis)
    head = text[:room + 1].rsplit(" ", 1)[0] if " " in text[:room + 1] else text[:room]
    return head[:room].rstrip(" ,;:-") + ellipsis


def _decimal(raw) -> Decimal | None:
    if raw is None or isinstance(raw, bool):
        return None
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None
