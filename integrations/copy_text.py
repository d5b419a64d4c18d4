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

import re
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


# Where a product's name turns from what it is to what it comes with or is for.
_QUALIFIER = re.compile(r"\s(?:with|for|and|in|by)\s", re.IGNORECASE)
# Where a sentence can end early and still read whole: before a clause that adds to it.
# (Not at a comma or "and" alone: those join the items of a list, which a cut leaves half-said.)
_CLAUSE = re.compile(r";\s|,\s(?=(?:so|which|while|and then)\s)|\s(?:with|that|which|so|while|to keep|during)\s|"
                     r"\s[–—]\s", re.IGNORECASE)


def name_core(name: str) -> str:
    """What a product's name says it is: before a comma and before what it comes with or is
    for ("Acacia Wood Magnetic Knife Strip, 16 in": "Acacia Wood Magnetic Knife Strip")."""
    return _QUALIFIER.split(" ".join(name.split(",")[0].split()), 1)[0].strip()


def short_name(name: str, limit: int) -> str:
    """A product's name whole when it fits, else a shorter name that still names it: the part
    before a comma ("…, 16 in"), then before what it comes with or is for ("… Kit with Band"),
    then its last words (an English name's head noun is its last word: "Handheld Milk
    Frother"), never its first words cut off mid-name; cut at a word only when no word fits."""
    name = " ".join(name.split())
    if len(name) <= limit:
        return name
    core = name.split(",")[0].strip() or name
    for candidate in (core, _QUALIFIER.split(core, 1)[0].strip()):
        if 3 <= len(candidate) <= limit:
            return candidate
    words = _QUALIFIER.split(core, 1)[0].split()
    for start in range(1, len(words)):
        tail = " ".join(words[start:])
        if len(tail) <= limit:
            return tail
    return cut(core, limit, "")


def whole_sentence(text: str, limit: int) -> str | None:
    """A sentence that fits `limit` and reads whole: the text itself, or its beginning up to
    the last clause boundary that fits (outside brackets), ended with a full stop; None when
    no beginning of at least three words fits. Never a sentence cut mid-clause with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    best = None
    for match in _CLAUSE.finditer(text):
        head = text[:match.start()].rstrip(" ,;:-–—")
        if head.count("(") != head.count(")") or len(head.split()) < 3:
            continue
        if len(head) + 1 <= limit:
            best = head + "."
    return best


def shorter(text: str, *, is_name: bool) -> str:
    """A field read whole but shorter, as both editors shorten one ("make the headline
    shorter"): a name-like field (a headline, a button) as a shorter name that still names it
    (its last words: short_name); a text without its last sentence, else ended at an earlier
    clause; unchanged when nothing shorter reads whole."""
    from integrations.ai.claims import sentences  # the one sentence splitter the writers share

    if is_name:
        short = short_name(text, len(text) - 1)
        return short if len(short.split()) >= 2 else text
    parts = [s.strip() for s, _ in sentences(text) if s.strip()]
    if len(parts) > 1:
        return " ".join(parts[:-1])
    return whole_sentence(text, max(3, len(text) * 2 // 3)) or text


def _decimal(raw) -> Decimal | None:
    if raw is None or isinstance(raw, bool):
        return None
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None
