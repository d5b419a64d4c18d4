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

from integrations.ai import claims
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, join, price_text, short_name, whole_sentence
from services import copy_changes, plain_requests
from services.errors import Refused
from services.growth.ad_limits import CALLS_TO_ACTION, FIELDS, GOOGLE, LIMITS, META, PLATFORMS
from services.plain_requests import (
    ADD_QUESTION,
    LEAD,
    LENGTHEN,
    MENTION,
    PRICE,
    REMOVE,
    REPLACE,
    SET,
    SHORTEN,
    TONE,
    VERBS,
    Request,
)

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
             "whole copy of both platforms as it should read afterwards. " + plain_requests.AS_CONTEXT)


def reads_whole(written: dict, task: Task) -> list[str]:
    """The ad_edit kind's check of a model's answer: every rewritten field reads whole."""
    current, name = (task.current or {}).get("copy") or {}, str(task.facts.product.get("name") or "")
    return [f"{platform}.{why}" for platform in PLATFORMS
            for why in copy_changes.not_whole(current.get(platform) or {}, written.get(platform) or {}, name)]


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
# The same grammar as the store editor's (services/plain_requests.py), applied with the same
# changes (services/copy_changes.py) to an ad's four fields: a request means one thing in both.

# The grammar's parts -> an ad's fields ("the line under the headline" is the description line).
AD_FIELDS = {"headline": "headline", "subheadline": "description", "text": "primary_text",
             "description": "description", "call_to_action": "call_to_action", "about": "primary_text"}
DEFAULT_FIELD = "primary_text"
NAME_LIKE = ("headline", "call_to_action")
UNDERSTOOD = ("make a field shorter or longer, mention something (the price, free returns within 30 days), remove "
              "or replace words, set a field to new words, lead with the price, change the tone to friendly, plain "
              "or premium, or use another button (Shop Now, Buy Now, Order Now, Learn More, Get Offer), on Meta, on "
              "Google or on both")
_EDIT_VERBS = tuple(v for v in VERBS if v not in (ADD_QUESTION, PRICE))


def write_ad_edit(task: Task) -> dict:
    """The ad_edit kind's offline writer: the current copy with the founder's requests applied
    (on the platform a request names, else the one the screen named, else both); refuses
    (`editor_unavailable`, with the closest requests as examples) words outside the grammar."""
    current = task.current or {}
    copy = {platform: dict(current["copy"][platform]) for platform in PLATFORMS}
    parsed = plain_requests.parse(task.instructions)
    if not parsed.understood:
        words = parsed.not_understood[0] if parsed.not_understood else ""
        name = str(task.facts.product.get("name") or "")
        examples = plain_requests.closest(words, name=short_name(name, 30) if name else "",
                                          word=_a_word(copy[META]["primary_text"]), verbs=_EDIT_VERBS)
        said = f"“{words[:120]}”" if words else "that"
        raise Refused("editor_unavailable", f"The ad editor did not understand {said}. Without an AI model it "
                                            f"understands requests like {plain_requests.said_list(examples)}.",
                      examples=examples)
    for request in parsed.requests:
        platforms = [request.platform] if request.platform else (
            [current["platform"]] if current.get("platform") in PLATFORMS else list(PLATFORMS))
        for platform in platforms:
            _apply_to_ad(request, copy[platform], platform, task.facts)
    return copy


def _a_word(text: str) -> str:
    return next((w.strip(",.") for w in text.split() if len(w.strip(",.")) > 4 and w[0].isalpha()), "")


def _ad_field(request: Request, default: str | None = DEFAULT_FIELD) -> str:
    if request.part is None and default:
        return default
    if request.part not in AD_FIELDS:
        raise Refused("editor_unavailable", f"An ad has no {request.part.replace('_', ' ')} for “{request.said}”: it "
                                            "has a headline, a text, a description line and a button. Ask your "
                                            "store's editor for the store's parts.")
    return AD_FIELDS[request.part]


def _apply_to_ad(request: Request, fields: dict, platform: str, facts: Facts) -> None:
    verb, limits, price = request.verb, LIMITS[platform], price_text(facts)
    if verb in (ADD_QUESTION, PRICE):
        raise Refused("editor_unavailable", "An ad shows your store's price and holds no questions: "
                                            f"“{request.said}” is one for your store's editor.")
    if verb == LEAD:
        if request.part != "price" or not price:
            raise Refused("editor_unavailable", "An ad has no sections to move; it can lead with the price "
                                                "(“Lead with the price”).")
        fields["primary_text"] = _price_first(fields["primary_text"], price, limits["primary_text"])
        return
    if verb == TONE:
        for field in ([_ad_field(request)] if request.part else ["headline", "primary_text", "description"]):
            fields[field] = copy_changes.toned(fields[field], request.text, is_name=field in NAME_LIKE)
        return
    if verb in (REMOVE, REPLACE):
        words = request.text if verb == REMOVE else request.old
        for field in ([_ad_field(request)] if request.part else list(FIELDS)):
            if field == "call_to_action":
                continue  # a button's words are chosen from the platform's, never edited
            fields[field] = (copy_changes.removed(fields[field], words, is_name=field in NAME_LIKE) if verb == REMOVE
                             else copy_changes.replaced(fields[field], request.old, request.text))
        return
    _change_field(request, fields, _ad_field(request), limits[_ad_field(request)], facts)


def _change_field(request: Request, fields: dict, field: str, limit: int, facts: Facts) -> None:
    """A request that acts on one field of a platform's ad: set, shorten, lengthen, mention."""
    verb = request.verb
    if field == "call_to_action":
        if verb != SET:
            raise Refused("editor_unavailable", f"A button's words are one of {', '.join(CALLS_TO_ACTION)}; "
                                                "say which (“use a Buy Now button”).")
        button = next((cta for cta in CALLS_TO_ACTION if cta.lower() == request.text.lower()), None)
        if button is None:
            raise Refused("editor_unavailable", f"A button can say {', '.join(CALLS_TO_ACTION)}, not "
                                                f"“{request.text[:40]}”.")
        fields[field] = button
    elif verb == SET:
        fields[field] = request.text
    elif verb == SHORTEN:
        fields[field] = copy_changes.shortened(fields[field], is_name=field in NAME_LIKE)
    elif verb == LENGTHEN:
        fields[field] = copy_changes.lengthened(fields[field], is_name=field in NAME_LIKE, limit=limit,
                                                name=str(facts.product.get("name") or ""),
                                                more=copy_changes.more_sentences(facts))
    elif verb == MENTION:
        sentence = copy_changes.sentence_to_mention(request.text, facts)
        said = copy_changes.mentioned(fields[field], sentence, is_name=field in NAME_LIKE, limit=limit)
        if said is None:
            raise Refused("too_long", f"There is no room for “{sentence}” in the ad's {field.replace('_', ' ')} "
                                      f"({limit} characters at most on one of its platforms).")
        fields[field] = said


def _price_first(text: str, price: str, limit: int) -> str:
    """The text opening with its price ("Yours for $34.99."), its other sentences after it as
    far as they fit whole."""
    priced = f"Yours for {price}."
    rest = [s.strip() for s, _ in claims.sentences(text) if s.strip() and price not in s]
    return join([priced, *rest], limit)
