"""Plain copy text every offline writer shares: a price as a shopper reads it, the evidence
told as sentences, and text cut or joined to fit a field.

The store copywriter (integrations/ai/offline.py) and the services' own offline writers
(organic posts, ad copy, page copy, Fix's drafts) all write from the same facts the same way,
so they read these from here rather than from one another: a service importing the AI
backend's copywriter for its helpers would depend on that backend's internals. It sits in
integrations/, beside the seam, because the seam's copywriter may not import services.

Deterministic like the writers it serves: nothing reads the clock, the environment or a
random source, and a number is only ever copied from the facts.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from models import evidence_kinds as kinds

if TYPE_CHECKING:
    from integrations.ai.task import Facts

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
CENT = Decimal("0.01")

# What a shopper is told of the evidence is decided by models/evidence_kinds.py, whatever
# the catalog calls its metrics: demand (a rank or a count), reviews and competing listings,
# never money (the founder's costs and quotes) and never rates or durations (they say how
# well, not how many, and a store promises nothing about periods). These are only the
# phrasings of the demo catalog's metrics, in the order they are told, each with the source
# it cites; any other metric is told by its kind (`_generic`), after them.
PHRASES = {
    "monthly_searches": ("Products like this are searched for {value} times a month", "search data"),
    "reviews": ("The best-known listing of this kind has {value} customer reviews", "marketplace reviews"),
    "weekly_views": ("Videos about products like this drew {value} views in a week", "TikTok"),
    "interest_index": ("Search interest in products like this stood at {value} on the trends index", "Google Trends"),
    "bsr_rank": ("A listing of this kind ranked #{value} in its Amazon best-seller category", "Amazon"),
    "monthly_mentions": ("Products like this came up {value} times in a month of online discussion", "Reddit"),
    "listings_count": ("Sellers offered {value} listings of products like this", "Etsy"),
}
TOLD_ROLES = frozenset({kinds.DEMAND, kinds.REVIEWS, kinds.COMPETITION})
MOST_DEMAND_SENTENCES = 3


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


def demand_sentences(evidence: list[dict]) -> list[str]:
    """Plain sentences from the newest reading of each metric a shopper may be told (dated,
    numeric, of a told role), each citing its source and month; a rising series says what it
    rose from. The demo catalog's metrics first, in PHRASES order, then any other by newest."""
    signals = [s for s in kinds.classify_all(evidence).values() if s.roles & TOLD_ROLES and s.kind != kinds.MONEY]
    order = list(PHRASES)
    signals.sort(key=lambda s: (order.index(s.metric) if s.metric in order else len(order),
                                _negated_day(s.newest.date), s.metric))
    told = []
    for signal in signals:
        value = _number(Decimal(str(signal.newest.value)))
        when = _month(signal.newest.date.isoformat())
        if signal.metric in PHRASES:
            template, source = PHRASES[signal.metric]
            sentence = template.format(value=value)
        else:
            sentence, source = _generic(signal, value), _words(signal.newest.source) or "our research"
        if signal.direction == kinds.RISING and signal.before is not None:
            sentence += f", {'climbing from #' if signal.lower_is_better else 'up from '}" \
                        f"{_number(Decimal(str(signal.before.value)))}"
        told.append(sentence + f" ({source}{', ' + when if when else ''}).")
    return told[:MOST_DEMAND_SENTENCES]


def _generic(signal, value: str) -> str:
    """A metric without a phrasing of its own, told by its kind: a rank as a place, a count as a reach."""
    label = signal.label
    if signal.kind == kinds.RANK:
        return f"A listing of this kind held #{value} on {label}"
    return f"{label[:1].upper()}{label[1:]} for products like this reached {value}"


def _words(name: str) -> str:
    return " ".join(kinds.words(name))


def _negated_day(day: date) -> int:
    return -day.toordinal()


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


def _number(value: Decimal) -> str:
    """A figure as the facts hold it, with thousands separated: 22400 -> 22,400, 4.6 -> 4.6."""
    return f"{int(value):,}" if value == value.to_integral_value() else f"{value.normalize():,f}"


def _month(day: str) -> str:
    try:
        parsed = date.fromisoformat(day[:10])
    except ValueError:
        return ""
    return f"{MONTHS[parsed.month - 1]} {parsed.year}"
