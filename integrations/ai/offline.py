"""The offline copywriter: plain, deterministic copy written only from the facts, no network.

Same facts, same copy, byte for byte: nothing here reads the clock, the environment or a
random source, and evidence rows are taken in a fixed order. It states a number only by
copying it from the facts (the price, an evidence value, the year of an evidence date, the
product's own description), repeats certifications and origins only where it repeats the
description, and promises nothing about delivery times or options, return periods or refunds
but what the founder stated (Facts.statements: their return window, shipping time, guarantee
and where they ship, which it says in their words in the shipping, returns and guarantee
texts). It is
also the fallback the claim filter uses for a field an AI answer lost. Its plain text (the
price as a shopper reads it, cutting and joining to fit) is integrations/copy_text.py's,
which the services' own offline writers share.

The store's copy speaks to the shopper for the shop: it tells no seller research (no search
counts, no best-seller ranks, no "we chose it for the demand"). Facts.demand, what the
evidence backs in a shopper's words, it leaves to the store's evidence section, which says
it already (the ads and generated pages say it too). It names no category of a founder's own
product (it is filed under one named for the founder). How to reach the shop is the support
address when the facts give one, else the store's Contact page, which always says how (the
support address, or the reply to the order's receipt: both reach the founder's desk).

OfflineBackend is the `offline` backend of the seam: it writes any task with the offline
writer its kind registered (this copywriter for store_copy).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from integrations.ai.claims import sentences
from integrations.ai.kinds import kind_of
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, join, price_text


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
    told = _told(facts)
    policies = _policies(told.contact, _stated(facts.statements))
    return {
        **_headings(told),
        "benefits": _benefits(told, policies),
        "faq": _faq(told, policies),
        "about": _about(told),
        "shipping": policies.shipping,
        "returns": policies.returns,
        "guarantee": policies.guarantee,
        **_search_listing(told),
        "call_to_action": "Buy now",
    }


@dataclass(frozen=True)
class _Told:
    """What the copy may say of the product and the shop, read once from the facts: each
    field's writer below puts these together and adds no fact of its own."""

    name: str
    category: str
    shop: str
    contact: str  # how a shopper reaches the shop, in the words of a sentence's end
    price: str  # "$34.99", "" when unknown
    cost: str  # the price sentence, "" when the price is unknown
    described: list[str]  # the description's sentences (at least one)


def _told(facts: Facts) -> _Told:
    product = facts.product
    name = " ".join(str(product.get("name") or "").split()) or "this product"
    category = "" if product.get("own") else " ".join(str(product.get("category") or "").split())
    email = str(facts.business.get("support_email") or "").strip()
    price = price_text(facts)
    described = [s.strip() for s, _ in sentences(" ".join(str(product.get("description") or "").split())) if s.strip()]
    # What the checkout really shows (the sandbox's page and Stripe's): the delivery address it
    # asks for and one total. It offers no delivery options or shipping charges, so none are promised.
    cost = f"It costs {price}, and the checkout shows the total for your order before you pay." if price else ""
    return _Told(name=name, category=category, shop=" ".join(str(facts.business.get("business_name") or "").split()),
                 contact=f"write to us at {email}" if email else "get in touch as our Contact page says", price=price,
                 cost=cost, described=described or [f"The {name}, from our {category} range." if category
                                                    else f"Meet the {name}."])


@dataclass(frozen=True)
class _Policies:
    """The shop's promises, the same for every product: they say what the checkout and the
    founder do, and a delivery time, a return period or a guarantee only in the founder's
    own statements, first, before what every order gets."""

    shipping: str
    returns: str
    guarantee: str
    stated: dict  # topic (returns, shipping, guarantee, ships_to) -> the founder's sentence


# Which of the founder's statements a sentence is (they come as sentences, each on its own
# topic: services/founder_statements.sentences): a guarantee may mention returns, so it is
# recognised first, and anything unrecognised is the founder's guarantee in their own words.
_TOPIC_WORDS = (("guarantee", re.compile(r"\bguarantee|\bwarrant(?:y|ies)\b|\bmoney[\s-]back\b", re.I)),
                ("returns", re.compile(r"\breturns?\b|\brefunds?\b", re.I)),
                ("ships_to", re.compile(r"^\s*we\s+ship\s+to\b", re.I)),
                ("shipping", re.compile(r"\bship|\bdeliver|\barriv|\bdispatch", re.I)))


def _stated(statements: tuple[str, ...]) -> dict:
    """The founder's statements by topic (the first of each topic kept)."""
    stated: dict = {}
    for sentence in statements:
        text = " ".join(str(sentence).split())
        if text:
            topic = next((name for name, words in _TOPIC_WORDS if words.search(text)), "guarantee")
            stated.setdefault(topic, text)
    return stated


def _policies(contact: str, stated: dict) -> _Policies:
    shipping = join([stated.get("shipping", ""), stated.get("ships_to", ""),
                     "Your order is packed and sent once your payment is confirmed. The checkout asks where to send "
                     "it and shows the total before you pay.",
                     f"If something goes wrong on the way, {contact} and we will sort it out."], 500)
    returns = join([stated.get("returns", ""), "Returns are accepted on unused items in their original condition.",
                    f"To start one, {contact} and we will tell you how to send it back."], 500)
    guarantee = join([stated.get("guarantee", ""),
                      f"If your order arrives damaged or is not what this page describes, {contact} and we will put "
                      "it right."], 300)
    return _Policies(shipping=shipping, returns=returns, guarantee=guarantee, stated=stated)


def _headings(told: _Told) -> dict:
    """The headline (the product's name) and the line under it (the description's first sentence)."""
    headline = cut(told.name, 90, "")
    return {"headline": headline if len(headline) >= 3 else f"The {headline}",
            "subheadline": cut(told.described[0], 160)}


def _benefits(told: _Told, policies: _Policies) -> list[dict]:
    """Up to five benefits, in this order, of those with enough to say and short enough to fit."""
    described = told.described
    benefits = [item for item in [
        ("Good to know", described[1] if len(described) > 1 else ""),
        ("One clear price", told.cost),
        ("Details", described[2] if len(described) > 2 else ""),
        ("Help when you need it", f"Questions about your order? Just {told.contact}."),
        ("Simple returns", policies.stated.get("returns", "Returns are accepted on unused items in their original "
                                                           "condition.")),
        ("Our guarantee", policies.stated.get("guarantee", "")),
        ("Put right if it goes wrong", "If your order arrives damaged or is not what this page describes, we "
                                       "will put it right."),
    ] if 10 <= len(item[1]) <= 240][:5]
    return [{"title": title, "text": text} for title, text in benefits]


def _faq(told: _Told, policies: _Policies) -> list[dict]:
    """The questions a shopper asks, each answered from the facts; one with no answer is left out."""
    question = f"What is the {told.name}?"
    faq = [
        (question if len(question) <= 140 else "What is this product?", join(told.described, 400)),
        ("How much does it cost?", told.cost),
        ("How is my order shipped?", policies.shipping),
        ("Can I return it?", policies.returns),
        ("What if my order arrives damaged?", policies.guarantee),
        ("How do I get in touch?", f"Just {told.contact}, and give your order number if you have ordered."),
    ]
    return [{"question": q, "answer": a} for q, a in faq if len(a) >= 5]


def _about(told: _Told) -> str:
    """The shop to the shopper: what it sells, what the product is, and how to reach it."""
    opening = f"{told.shop} sells the {told.name}" if told.shop else f"We sell the {told.name}"
    return join([
        f"{opening}, part of our {told.category} range." if told.category else f"{opening}.",
        join(told.described, 600),
        "This page tells you what it is, what it costs and how shipping and returns work, so you know what you "
        f"are buying before you order. Questions about your order? Just {told.contact}.",
    ], 900)


def _search_listing(told: _Told) -> dict:
    """What a search engine shows: the title (the name and the shop when both fit) and the description."""
    name, shop, price = told.name, told.shop, told.price
    seo_title = f"{name} | {shop}" if shop and len(name) + len(shop) + 3 <= 70 else cut(name, 70, "")
    if len(seo_title) < 10:
        seo_title = cut(f"Buy the {name} online", 70, "")
    seo_description = join([cut(told.described[0], 160), f"It costs {price}." if price else "",
                            "Read the details, shipping and returns before you buy."], 160)
    return {"seo_title": seo_title, "seo_description": seo_description}
