"""The ad's copy as the AI seam sees it: the schemas of the `ad_copy` kind (writing the ad)
and the `ad_edit` kind (changing it in plain language), their offline writers, and the
finish that holds written copy to the facts.

The offline writers are deterministic and write only from the facts: the product's name,
the first sentences of its description, its price and what its evidence backs in a
shopper's words (Facts.demand: "More and more shoppers are looking for <product>."). Every
field fits its platform's limit by construction and reads whole: a name too long for a headline
gives way to a shorter name that still names the product (copy_text.short_name: never its first
words cut off), and a sentence too long ends early at a clause boundary with a full stop or
gives way to the next one (copy_text.whole_sentence), never cut with "…" mid-clause.

An ad is shown to shoppers on the ad platforms, so it addresses the buyer: the evidence is
the founder's research and no ad tells it (no search counts, ranks, view or review counts,
no "search data" or "Amazon"). The finish holds any backend to that: a sentence is backed
by the facts without the research (integrations/ai/claims.public_backing), so one quoting a
research figure is dropped like an invented one.
"""
from __future__ import annotations

import re

from integrations.ai import claims
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, join, price_text, short_name, shorter, whole_sentence
from services.growth.ad_limits import CALLS_TO_ACTION, FIELDS, GOOGLE, LIMITS, META, PLATFORMS

AD_COPY_KIND = "ad_copy"
AD_EDIT_KIND = "ad_edit"

_WHAT = {"headline": "the ad's headline", "primary_text": "the text above (Meta) or the first line under (Google) "
         "the headline", "description": "the line under the image (Meta) or the second description line (Google)",
         "call_to_action": "the button's words"}


def _platform_copy(platform: str, *, strict: bool) -> dict:
    limits = LIMITS[platform]
    fields = {}
    for field in FIELDS:
        # An edit's answer may run long: the service refuses a long field by name (too_long)
        # rather than the seam asking again, so its schema only bounds what is read.
        most = limits[field] if strict else 400
        rule = {"type": "string", "minLength": 1 if strict else 0, "maxLength": most,
                "description": f"{_WHAT[field]}, at most {limits[field]} characters on {platform}"}
        if field == "call_to_action" and strict:
            rule["enum"] = list(CALLS_TO_ACTION)
        fields[field] = rule
    return record(fields)


AD_COPY = record({platform: _platform_copy(platform, strict=True) for platform in PLATFORMS})
AD_EDIT = record({platform: _platform_copy(platform, strict=False) for platform in PLATFORMS})

ASKS_COPY = ("Write a paid social ad (meta: Facebook and Instagram) and a responsive search ad (google) that sell "
             "this product, each field within its platform's length limit, from the facts only; when the current "
             "copy gives the store's headline, the ad's headline says the same where it fits. "
             + claims.SPEAK_TO_THE_BUYER)
ASKS_EDIT = ("Change the ad's current copy as the founder's instructions ask, changing nothing else, and answer the "
             "whole copy of both platforms as it should read afterwards.")


# --- Writing the ad --------------------------------------------------------------------------

def write_ad_copy(task: Task) -> dict:
    """The ad_copy kind's offline writer (the store's headline, when the task carries it, leads)."""
    return ad_copy(task.facts, store=(task.current or {}).get("store"))


def ad_copy(facts: Facts, *, store: dict | None = None) -> dict:
    """Both platforms' ads for the product, every field within its limit. `store` is the
    store's own copy ({headline}) the ad is written from: its headline is the ad's wherever it
    fits whole, so an ad says what the store says."""
    product = facts.product
    name = " ".join(str(product.get("name") or "").split()) or "This product"
    category = " ".join(str(product.get("category") or "").split())
    price = price_text(facts)
    described = [s.strip() for s, _ in claims.sentences(" ".join(str(product.get("description") or "").split()))
                 if s.strip()]
    # What the evidence backs, in a shopper's words, or nothing: never the research itself.
    demand = list(facts.demand)
    priced = f"Yours for {price}." if price else ""
    opening = described[0] if described else f"The {name}, from our {category} range." if category else name

    store_headline = " ".join(str((store or {}).get("headline") or "").split())

    def headline(limit: int) -> str:
        # The store's headline when it fits whole; else the name whole, or a shorter name that
        # still names the product.
        if 3 <= len(store_headline) <= limit and store_headline != name:
            return store_headline
        core = name.split(",")[0].strip() or name
        return short_name(core, limit) if len(core) >= 3 else cut(f"The {core}", limit, "")

    def short_line(limit: int) -> str:
        for candidate in (f"Now {price}" if price else "", cut(category, limit, "") if category else "",
                          "See it in our store"):
            if candidate and len(candidate) <= limit:
                return candidate
        return "Shop it today"

    def body(limit: int, *more: str) -> str:
        # The price always shows: the opening gives way to it, ending early at a clause or
        # giving way to a later sentence that fits whole.
        room = limit - len(priced) - 1 if priced else limit
        first = next((whole for whole in (whole_sentence(s, room) for s in [opening, *described[1:]]) if whole), "")
        return join([first, priced, *more], limit)

    meta = {
        "headline": headline(LIMITS[META]["headline"]),
        "primary_text": body(LIMITS[META]["primary_text"], demand[0] if demand else ""),
        "description": short_line(LIMITS[META]["description"]),
        "call_to_action": "Shop Now",
    }
    google = {
        "headline": headline(LIMITS[GOOGLE]["headline"]),
        "primary_text": body(LIMITS[GOOGLE]["primary_text"]),
        # The second description line says what the first (primary_text, with the price) did not.
        "description": join([whole_sentence(described[1], LIMITS[GOOGLE]["description"]) or ""
                             if len(described) > 1 else "", demand[0] if demand else "",
                             f"From our {category} range." if category else ""], LIMITS[GOOGLE]["description"])
        or short_line(LIMITS[GOOGLE]["description"]),
        "call_to_action": "Shop Now",
    }
    return {META: meta, GOOGLE: google}


def backed_ad_copy(copy: dict, task: Task) -> tuple[dict, list[dict]]:
    """The ad_copy kind's finish: each platform's copy without the sentences the facts cannot
    back (claims.py) once the research is left out of them (an ad tells shoppers none of its
    figures), the offline writer's field standing in where one would no longer fit."""
    fallback = ad_copy(task.facts)
    backing = claims.public_backing(task.facts)
    finished, dropped = {}, []
    for platform in PLATFORMS:
        kept, gone = claims.filter_copy(copy[platform], backing, fallback[platform],
                                        AD_COPY["properties"][platform])
        finished[platform] = kept
        dropped += [{**d, "field": f"{platform}.{d['field']}"} for d in gone]
    return finished, dropped


# --- Editing it in plain language (the offline editor) -----------------------------------------

FIELD_WORDS = (
    ("call_to_action", r"call[\s-]+to[\s-]+action|button|cta"),
    ("primary_text", r"primary[\s-]+text|main[\s-]+text|body(?:\s+text)?|ad\s+text"),
    ("description", r"description"),
    ("headline", r"headline|title|heading"),
)
PLATFORM_WORDS = ((META, r"\b(?:meta|facebook|instagram)\b"), (GOOGLE, r"\bgoogle\b"))
UNDERSTOOD = ("set a field to new words (\"set the headline to Keep knives off the counter\"), shorten a field, "
              "mention the price or lead with it, or use another button (Shop Now, Buy Now, Order Now, Learn More, "
              "Get Offer), on Meta, on Google or on both")
_QUOTED = re.compile(r"[\"“”‘’'](.+)[\"“”‘’']\s*\.?\s*$", re.DOTALL)


def write_ad_edit(task: Task) -> dict:
    """The ad_edit kind's offline writer: the current copy with the instruction applied (the
    platform named in the message, else the one the request named, else both); unchanged
    when it does not understand the instruction."""
    current = task.current or {}
    copy = {platform: dict(current["copy"][platform]) for platform in PLATFORMS}
    message = " ".join(task.instructions.split())
    lowered = message.lower()
    platforms = [p for p, words in PLATFORM_WORDS if re.search(words, lowered)] or (
        [current["platform"]] if current.get("platform") else list(PLATFORMS))
    price = price_text(task.facts)
    for platform in platforms:
        fields = copy[platform]
        button = next((cta for cta in CALLS_TO_ACTION if cta.lower() in lowered), None)
        new = _new_words(message)
        if re.search(r"\b(?:shorter|shorten|trim)\b", lowered) and not _QUOTED.search(message):
            for field in _named_fields(lowered) or ["primary_text"]:
                fields[field] = shorter(fields[field], is_name=field in ("headline", "call_to_action"))
        elif re.search(r"\b(?:lead|start|open|begin)\s+with\s+(?:the\s+|its\s+|our\s+)?price\b", lowered) and price:
            fields["primary_text"] = _price_first(fields["primary_text"], price, LIMITS[platform]["primary_text"])
        elif button and (new is None or new[0] == "call_to_action"):
            fields["call_to_action"] = button
        elif new is not None:
            fields[new[0]] = new[1]
        elif re.search(r"\b(?:mention|add|include|show)\b.*\bprice\b", lowered) and price:
            field = "primary_text"
            if price not in fields[field]:
                fields[field] = f"{fields[field].rstrip()} Yours for {price}.".strip()
    return copy


def _named_fields(lowered: str) -> list[str]:
    return [field for field, words in FIELD_WORDS if re.search(rf"\b(?:{words})\b", lowered)]


def _new_words(message: str) -> tuple[str, str] | None:
    """(field, text) when the message sets one field to new words: "set the headline to X",
    "headline: X", "make the description say X", "change the button to Buy Now"."""
    for field, words in FIELD_WORDS:
        found = re.search(rf"\b(?:{words})\b\s*(?:to\s+say|to\s+read|should\s+(?:say|read|be)|say|read|to|:|=|as)\s+(.+)$",
                          message, flags=re.IGNORECASE | re.DOTALL)
        if found:
            text = found.group(1).strip()
            quoted = _QUOTED.match(text)
            if quoted and text[0] in "\"“‘'":
                text = quoted.group(1).strip()
            return field, text
    return None


def _price_first(text: str, price: str, limit: int) -> str:
    """The text opening with its price ("Yours for $34.99."), its other sentences after it as
    far as they fit whole."""
    priced = f"Yours for {price}."
    rest = [s.strip() for s, _ in claims.sentences(text) if s.strip() and price not in s]
    return join([priced, *rest], limit)
