"""The offline editor: plain-language store edits it can carry out exactly, without a model.

It is the store_edit kind's offline writer (registered in services/store/edits.py), so the
AI seam's offline backend runs it. It reads the founder's message with the grammar both
editors share (services/plain_requests.py: shorten, lengthen, mention, remove, replace, set,
lead with, tone, price, add a question; several joined by "and" applied together) and
applies each request to the store's own parts with services/copy_changes.py, the same
changes the ad editor makes. A part of the message outside the grammar is refused as a
whole (Refused `editor_unavailable`, nothing changed) with the closest requests it does
understand, as examples from the founder's own store (`examples`); an edit that would put a
field past its bounds is refused `too_long`. A model backend (AI_BACKEND openai or command)
takes any request, with the grammar's reading as context.

The store's parts, by the grammar's names: the headline, the line under it (the founder's
"text" or "subheadline"), the button, the About text ("about" or "description"), the
guarantee, shipping and returns texts, the search engines' title and description, the
benefits and the questions. With no part named, a request acts on the line under the
headline (shorten, lengthen, mention) or on every text that holds its words (remove,
replace, tone).
"""
from __future__ import annotations

import copy as copying

from integrations import ai
from integrations.ai.schemas import STORE_COPY, validate
from integrations.copy_text import price_text, short_name
from services import copy_changes, plain_requests
from services.errors import Refused
from services.plain_requests import Request
from services.store import sections
from services.store.sections import LEADS

# The grammar's parts -> the store copy's fields.
FIELDS = {"headline": "headline", "subheadline": "subheadline", "call_to_action": "call_to_action",
          "text": "subheadline", "description": "about", "about": "about", "guarantee": "guarantee",
          "shipping": "shipping", "returns": "returns", "seo_title": "seo_title", "seo_description": "seo_description",
          "benefits": "benefits", "faq": "faq"}
DEFAULT_FIELD = "subheadline"
TEXTS = tuple(f for f, rule in STORE_COPY["properties"].items() if rule.get("type") == "string")
# Fields read as a name rather than sentences: shortened to fewer words, not fewer sentences.
NAME_LIKE = ("headline", "call_to_action", "seo_title")
_QUOTES = "\"'“”‘’"

UNDERSTANDS = ("Without an AI model the editor understands: make a part shorter or longer, mention something, "
               "remove or replace words, change a part to new words, lead with a section, change the tone to "
               "friendly, plain or premium, set the price, and add or remove a question.")


def edit(task: ai.Task) -> dict:
    """The store's copy (and leading section and price) after the requested edit; refuses what it cannot do."""
    current = task.current or {}
    copy = copying.deepcopy(current.get("copy") or {})
    message = (task.instructions or "").strip()
    field = current.get("field")
    changed = {"lead": None, "price": None}
    if field:
        if STORE_COPY["properties"].get(field, {}).get("type") != "string":
            raise Refused("editor_unavailable", f"The offline editor can rewrite a piece of text, not "
                                                f"{sections.said(field)}; name a question to add or remove instead.")
        copy[field] = message.strip(_QUOTES).strip()
    else:
        parsed = plain_requests.parse(message)
        if not parsed.understood:
            raise not_understood(parsed, copy, task.facts)
        for request in parsed.requests:
            _apply(request, copy, changed, task.facts)
    problems = validate(copy, STORE_COPY)
    if problems:
        raise Refused("too_long", sections.said_in_words(problems)[:300])
    return {"copy": copy, **changed}


def not_understood(parsed: plain_requests.Parsed, copy: dict, facts: ai.Facts) -> Refused:
    """The refusal of words outside the grammar, with the closest requests it understands as examples."""
    words = parsed.not_understood[0] if parsed.not_understood else ""
    examples = plain_requests.closest(words, **_example_words(copy, facts))
    said = f"“{words[:120]}”" if words else "that"
    return Refused("editor_unavailable", f"The editor did not understand {said}. Without an AI model it understands "
                                         f"requests like {plain_requests.said_list(examples)}.", examples=examples)


def _example_words(copy: dict, facts: ai.Facts) -> dict:
    name = str(facts.product.get("name") or "")
    headline = str(copy.get("headline") or "")
    word = next((w.strip(",.") for w in headline.split() if len(w.strip(",.")) > 4), "")
    return {"name": short_name(name, 40) if name else "", "price": price_text(facts), "word": word,
            "text_part": "About text"}


def _field(request: Request, default: str | None = DEFAULT_FIELD) -> str | None:
    if request.part is None:
        return default
    if request.part not in FIELDS:
        raise Refused("editor_unavailable", f"Your store has no part called “{request.part}” for “{request.said}”.")
    return FIELDS[request.part]


def _text_field(request: Request, copy: dict, default: str | None = DEFAULT_FIELD) -> str:
    field = _field(request, default)
    if field not in TEXTS:
        raise Refused("editor_unavailable", f"“{request.said}” needs a piece of text: the headline, the line under "
                                            f"it, the button, the About text, the guarantee, shipping or returns.")
    if not isinstance(copy.get(field), str) or not copy[field]:
        raise Refused("editor_unavailable", f"Your store has no {sections.COPY_PARTS[field][0].lower()} yet.")
    return field


def _limit(field: str) -> int:
    return STORE_COPY["properties"][field].get("maxLength", 500)


def _apply(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    """One request carried out on the copy (and on `changed`: the lead and the price)."""
    _APPLY[request.verb](request, copy, changed, facts)


def _shorten(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    field = _text_field(request, copy)
    copy[field] = copy_changes.shortened(copy[field], is_name=field in NAME_LIKE)


def _lengthen(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    field = _text_field(request, copy)
    copy[field] = copy_changes.lengthened(copy[field], is_name=field in NAME_LIKE, limit=_limit(field),
                                          name=str(facts.product.get("name") or ""), more=copy_changes.more_sentences(facts))


def _set(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    copy[_text_field(request, copy)] = request.text


def _replace(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    for field in _fields_holding(request, copy, request.old):
        _each_text(copy, field, lambda text, is_name: copy_changes.replaced(text, request.old, request.text))


def _remove(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    if request.part == "faq":
        _remove_question(copy, request.text)
        return
    for field in _fields_holding(request, copy, request.text):
        if field == "benefits":  # a benefit about the words goes whole: its title would say it still
            copy["benefits"] = [b for b in copy["benefits"]
                                if _all_text([b]) == copy_changes.removed(_all_text([b]), request.text, is_name=True)]
            continue
        _each_text(copy, field, lambda text, is_name: copy_changes.removed(text, request.text, is_name=is_name))


def _tone(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    for field in ([_field(request)] if request.part else [*TEXTS, "benefits", "faq"]):
        _each_text(copy, field, lambda text, is_name: copy_changes.toned(text, request.text, is_name=is_name))


def _lead(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    lead = "price" if request.part == "price" else sections.named(request.text)
    if lead not in LEADS:
        raise Refused("editor_unavailable", f"Your store has no section called “{request.text}” to lead with; "
                                            f"it has {', '.join(sections.said(s) for s in LEADS)}.")
    changed["lead"] = lead


def _price(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    changed["price"] = float(request.text)


def _add_question(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    copy["faq"] = [*copy.get("faq", []), {"question": request.text, "answer": request.old.strip(_QUOTES).strip()}]


def _mention(request: Request, copy: dict, changed: dict, facts: ai.Facts) -> None:
    sentence = copy_changes.sentence_to_mention(request.text, facts)
    field = _text_field(request, copy)
    said = copy_changes.mentioned(copy[field], sentence, is_name=field in NAME_LIKE, limit=_limit(field))
    if said is None:
        raise Refused("too_long", f"{sections.COPY_PARTS[field][0]} has no room for “{sentence}” within "
                                  f"{_limit(field)} characters; mention it in the line under the headline instead, "
                                  "or make it shorter first.")
    copy[field] = said


_APPLY = {plain_requests.SHORTEN: _shorten, plain_requests.LENGTHEN: _lengthen, plain_requests.MENTION: _mention,
          plain_requests.SET: _set, plain_requests.REPLACE: _replace, plain_requests.REMOVE: _remove,
          plain_requests.TONE: _tone, plain_requests.LEAD: _lead, plain_requests.PRICE: _price,
          plain_requests.ADD_QUESTION: _add_question}


def _fields_holding(request: Request, copy: dict, words: str) -> list[str]:
    """The field the request names, or every field (texts, benefits, questions) that holds the words."""
    if request.part:
        return [_field(request)]
    return [f for f in (*TEXTS, "benefits", "faq") if copy_changes.removed(_all_text(copy.get(f)), words,
                                                                           is_name=True) != _all_text(copy.get(f))]


def _all_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(str(v) for item in value for v in item.values())
    return ""


def _each_text(copy: dict, field: str, change) -> None:
    """Applies `change(text, is_name)` to a text field, or to each text of a list's items."""
    value = copy.get(field)
    if isinstance(value, str):
        copy[field] = change(value, field in NAME_LIKE)
    elif isinstance(value, list):
        copy[field] = [{key: change(text, key in ("title", "question")) if isinstance(text, str) else text
                        for key, text in item.items()} for item in value]


def _remove_question(copy: dict, words: str) -> None:
    words = words.lower().strip(_QUOTES)
    # Words match in any form and by the other names of a section ("returns" finds "Can I
    # return it?", "delivery" the shipping question): a founder's terms, not the copy's.
    gone = next((item for item in copy.get("faq", []) if sections.mentions(item["question"], words)), None)
    if gone is None:
        raise Refused("editor_unavailable", f"No question of your store mentions “{words[:60]}”. Its questions: "
                      + " ".join(f"“{item['question']}”" for item in copy.get("faq", []))[:240])
    copy["faq"] = [item for item in copy["faq"] if item is not gone]  # one request removes one question
