"""The offline copywriter: plain, deterministic copy written only from the facts, no network.

Same facts, same copy, byte for byte: nothing here reads the clock, the environment or a
random source, and evidence rows are taken in a fixed order. It states a number only by
copying it from the facts (the price, an evidence value, the year of an evidence date, the
product's own description), repeats certifications and origins only where it repeats the
description, and promises nothing about delivery times or options, return periods or refunds. It is
also the fallback the claim filter uses for a field an AI answer lost.

OfflineBackend is the `offline` backend of the seam: it writes any task with the offline
writer its kind registered (this copywriter for store_copy).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from integrations.ai.claims import sentences
from integrations.ai.kinds import kind_of
from integrations.ai.task import Facts, Task
from models import evidence_kinds as kinds

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


class OfflineBackend:
    """Writes each task with its kind's offline writer: deterministic, no network."""

    name = "offline"

    def __init__(self, settings=None):
        pass  # nothing to configure

    def write(self, task: Task) -> dict:
        return kind_of(task.kind).offline(task)


def write(task: Task) -> dict:
    """What the offline backend writes for a task."""
    return OfflineBackend().write(task)


def write_store_copy(task: Task) -> dict:
    """The store_copy kind's offline writer."""
    return store_copy(task.facts)


def store_copy(facts: Facts) -> dict:
    """The store page's copy for a product: every field of the store_copy schema."""
    product = facts.product
    name = " ".join(str(product.get("name") or "").split()) or "this product"
    category = " ".join(str(product.get("category") or "").split())
    shop = " ".join(str(facts.business.get("business_name") or "").split())
    email = str(facts.business.get("support_email") or "").strip()
    price = price_text(facts)
    described = [s.strip() for s, _ in sentences(" ".join(str(product.get("description") or "").split())) if s.strip()]
    if not described:
        described = [f"The {name}, from our {category} range." if category else f"Meet the {name}."]
    demand = demand_sentences(facts.evidence)
    contact = f"write to us at {email}" if email else "contact us through this store"

    # What the checkout really shows (the sandbox's page and Stripe's): the delivery address it
    # asks for and one total. It offers no delivery options or shipping charges, so none are promised.
    cost = f"It costs {price}, and the checkout shows the total for your order before you pay." if price else ""
    support = f"Questions before or after you buy? Just {contact}."
    benefits = [item for item in [
        ("Good to know", described[1] if len(described) > 1 else ""),
        ("Why shoppers want it", join(demand, 240)),
        ("One clear price", cost),
        ("Details", described[2] if len(described) > 2 else ""),
        ("Help when you need it", support),
        ("Written from the facts", "Every detail on this page comes from the product's own record."),
        ("Simple returns", "Returns are accepted on unused items in their original condition."),
    ] if 10 <= len(item[1]) <= 240][:5]

    shipping = (f"Your order is packed and sent once your payment is confirmed. The checkout asks where to send it "
                f"and shows the total before you pay. If something goes wrong on the way, {contact} and we will sort "
                f"it out.")
    returns = (f"Returns are accepted on unused items in their original condition. To start one, {contact} and we "
               f"will tell you how to send it back.")
    guarantee = f"If your order arrives damaged or is not what this page describes, {contact} and we will put it right."

    question = f"What is the {name}?"
    faq = [
        (question if len(question) <= 140 else "What is this product?", join(described, 400)),
        ("How much does it cost?", cost),
        ("Why do shoppers want it?", join(demand, 400)),
        ("How is my order shipped?", shipping),
        ("Can I return it?", returns),
        ("How do I get in touch?", f"Just {contact} with any question, before or after you buy."),
    ]

    opening = f"{shop} sells the {name}" if shop else f"We sell the {name}"
    about = join([
        f"{opening}, from the {category} category." if category else f"{opening}.",
        "We chose it for the demand behind it." if demand else "",
        # One figure is enough here: the benefits and the questions carry the rest.
        demand[0] if demand else "",
        "Everything on this page is written from the product's own details"
        + (" and that research" if demand else "") + ", so you know what you are buying.",
    ], 900)

    seo_title = f"{name} | {shop}" if shop and len(name) + len(shop) + 3 <= 70 else cut(name, 70, "")
    if len(seo_title) < 10:
        seo_title = cut(f"Buy the {name} online", 70, "")
    seo_description = join([cut(described[0], 160), f"It costs {price}." if price else "",
                            "Read the details, shipping and returns before you buy."], 160)
    headline = cut(name, 90, "")
    return {
        "headline": headline if len(headline) >= 3 else f"The {headline}",
        "subheadline": cut(described[0], 160),
        "benefits": [{"title": title, "text": text} for title, text in benefits],
        "faq": [{"question": q, "answer": a} for q, a in faq if len(a) >= 5],
        "about": about,
        "shipping": shipping,
        "returns": returns,
        "guarantee": guarantee,
        "seo_title": seo_title,
        "seo_description": seo_description,
        "call_to_action": "Buy now",
    }


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
