"""The `page_copy` kind of writing (a generated page: services/pages.py), its offline
writer and its finish: every sentence from the store's own facts (the product record, what
its dated evidence backs, the offer, the founder's business settings), nothing a policy would
have to promise that the facts do not say (no return window, no delivery time, no
certification).

A generated page is a public store page, so it addresses the buyer: the evidence is the
founder's research, and a page says of it only what it backs in a shopper's words
(Facts.demand, the store's own "Popular right now" line: services/store/proof.py), never a
search count, a rank or a research source. The finish holds any backend to that: a sentence
is backed by the facts without the research (integrations/ai/claims.public_backing), so one
quoting a research figure is dropped like an invented one."""
from __future__ import annotations

from integrations.ai import claims
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, price_text
from services.store.proof import POPULAR

PAGE_COPY_KIND = "page_copy"
MAX_SECTIONS = 8


def _text(low: int, high: int, description: str) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high, "description": description}


PAGE_COPY = record({
    "title": _text(3, 120, "the page's heading"),
    "intro": _text(1, 600, "one or two sentences opening the page"),
    "sections": {"type": "array", "minItems": 1, "maxItems": MAX_SECTIONS, "items": record({
        "heading": _text(1, 120, "a section's heading (an FAQ's question)"),
        "body": _text(1, 1500, "the section's text; paragraphs separated by a blank line"),
    })},
})
ASKS = ("Write the page the founder asks for (current.page says which: landing, returns, shipping, privacy or faq) "
        "for their store, from the facts only: promise nothing the facts do not say. The page is public. "
        + claims.SPEAK_TO_THE_BUYER)


def write_page(task: Task) -> dict:
    """The page_copy kind's offline writer."""
    kind = (task.current or {}).get("page", "landing")
    return WRITERS.get(kind, _landing)(task.facts)


def backed_page(copy: dict, task: Task) -> tuple[dict, list[dict]]:
    """The page_copy kind's finish: the page without the sentences the facts cannot back
    (claims.py) once the research is left out of them (a public page tells shoppers none of
    its figures), the offline writer's text standing in where a field would no longer fit."""
    return claims.filter_copy(copy, claims.public_backing(task.facts), write_page(task), PAGE_COPY)


def _words(value) -> str:
    return " ".join(str(value or "").split())


def _shop(facts: Facts) -> str:
    return _words((facts.business or {}).get("business_name")) or "our shop"


def _contact(facts: Facts) -> str:
    email = _words((facts.business or {}).get("support_email"))
    return f"write to us at {email}" if email else "write to us through our contact page"


def _name(facts: Facts) -> str:
    return cut(_words(facts.product.get("name")) or "our product", 100, "")


def _landing(facts: Facts) -> dict:
    name = _name(facts)
    description = _words(facts.product.get("description"))
    price = price_text(facts)
    sections = [{"heading": f"About the {cut(name, 100, '')}", "body": cut(description or f"The {name}.", 1500)}]
    if price:
        sections.append({"heading": "Price", "body": f"Yours for {price}."})
    # What the evidence backs, in a shopper's words; no section at all when nothing backs it.
    demand = list(facts.demand)
    if demand:
        sections.append({"heading": POPULAR, "body": cut(" ".join(demand), 1500)})
    sections.append({"heading": "Questions", "body": f"Anything you want to know before you buy? Just {_contact(facts)}."})
    intro = f"The {name}, from {_shop(facts)}." if _shop(facts) != "our shop" else f"The {name}."
    return {"title": cut(name, 120, ""), "intro": cut(intro, 600), "sections": sections}


def _returns(facts: Facts) -> dict:
    name = _name(facts)
    return {"title": "Returns and refunds", "intro": f"How returns work at {_shop(facts)}.", "sections": [
        {"heading": "Asking for a return",
         "body": f"If your {name} is not right for you, {_contact(facts)} with your order number and what is wrong. "
                 "We reply with how to send it back."},
        {"heading": "Your refund",
         "body": "Once the item is back with us, we refund the amount you paid to the card or account you paid "
                 "with, and tell you when we have done it."},
        {"heading": "Damaged or wrong items",
         "body": "If your order arrived damaged or is not what you ordered, tell us with a photo and we put it "
                 "right."},
    ]}


def _shipping(facts: Facts) -> dict:
    return {"title": "Shipping", "intro": f"How orders from {_shop(facts)} reach you.", "sections": [
        {"heading": "Where we ship", "body": "We ship to the addresses our checkout accepts; it asks for yours "
                                              "when you pay."},
        {"heading": "Following your order", "body": "We mail you when your order is confirmed and again when it "
                                                    "ships."},
        {"heading": "Questions about delivery", "body": f"If your order has not arrived, {_contact(facts)} with "
                                                        "your order number."},
    ]}


def _privacy(facts: Facts) -> dict:
    return {"title": "Privacy policy", "intro": f"What {_shop(facts)} keeps about you, and why.", "sections": [
        {"heading": "What we keep", "body": "Your email address, your shipping address and what you ordered, "
                                            "so we can deliver your order and answer you about it."},
        {"heading": "Payments", "body": "Card details go to our payment provider's page and never reach us."},
        {"heading": "Your choices", "body": f"To see or delete what we keep about you, {_contact(facts)}."},
    ]}


def _faq(facts: Facts) -> dict:
    name = _name(facts)
    description = _words(facts.product.get("description"))
    price = price_text(facts)
    sections = [{"heading": f"What is the {name}?", "body": cut(description or f"The {name}.", 1500)}]
    if price:
        sections.append({"heading": "How much does it cost?", "body": f"{price}."})
    sections += [
        {"heading": "Can I return it?", "body": f"Yes: {_contact(facts)} with your order number and we reply with "
                                                "how to send it back."},
        {"heading": "How do I reach you?", "body": f"Just {_contact(facts)}."},
    ]
    return {"title": "Frequently asked questions", "intro": f"Answers about the {name}.", "sections": sections}


WRITERS = {"landing": _landing, "returns": _returns, "shipping": _shipping, "privacy": _privacy, "faq": _faq}
