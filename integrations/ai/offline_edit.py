"""The offline editor: plain-language store edits it can carry out exactly, without a model.

It understands a handful of requests and refuses the rest, saying what it does understand
(AIError `editor_unavailable`); a model backend (AI_BACKEND openai or command) takes any
request. What it understands:

- "change the headline to ..." (also the subheadline, call to action, guarantee, shipping,
  returns, about, SEO title and SEO description, by those names or common synonyms);
- with a `field` named, the message is that field's new text;
- "add a question: <question>? <answer>";
- "remove the question about <words>";
- "lead with <section>" or "move <section> to the top";
- "set the price to 24.99" (the store checks the bounds and keeps it as the founder's own price).
"""
from __future__ import annotations

import copy as copying
import re

from integrations.ai.errors import EDITOR_UNAVAILABLE, AIError
from integrations.ai.schemas import STORE_COPY, validate
from integrations.ai.task import Task

TOO_LONG = "too_long"
SECTIONS = ("hero", "benefits", "evidence", "price", "reviews", "faq", "guarantee", "shipping")

FIELD_WORDS = {
    "headline": "headline", "title": "headline", "heading": "headline",
    "subheadline": "subheadline", "subtitle": "subheadline", "tagline": "subheadline",
    "call to action": "call_to_action", "cta": "call_to_action", "button": "call_to_action",
    "buy button": "call_to_action", "guarantee": "guarantee", "shipping": "shipping", "shipping text": "shipping",
    "returns": "returns", "returns text": "returns", "about": "about", "about text": "about",
    "seo title": "seo_title", "seo description": "seo_description", "meta description": "seo_description",
}
SECTION_WORDS = {**{s: s for s in SECTIONS}, "questions": "faq", "demand": "evidence", "pricing": "price",
                 "features": "benefits", "delivery": "shipping", "photo": "hero"}

_SET = re.compile(r"^(?:please\s+)?(?:change|set|make|replace|update|rewrite)\s+(?:the\s+|our\s+)?(?P<field>"
                  + "|".join(sorted((re.escape(w) for w in FIELD_WORDS), key=len, reverse=True))
                  + r")\s+(?:text\s+)?(?:to|with|as|into|:)\s*(?P<text>.+?)\s*$", re.IGNORECASE | re.DOTALL)
_ADD = re.compile(r"^(?:please\s+)?add\s+(?:an?\s+)?(?:faq|question)\s*:?\s*(?P<q>[^?]{3,}\?)\s*(?P<a>.+?)\s*$",
                  re.IGNORECASE | re.DOTALL)
_REMOVE = re.compile(r"^(?:please\s+)?(?:remove|delete|drop)\s+(?:the\s+)?(?:faq|question)\s+(?:about|on|that "
                     r"mentions)\s+(?P<words>.+?)\s*[.!]?$", re.IGNORECASE | re.DOTALL)
_LEAD = re.compile(r"\b(?:lead|start|open)\s+with\s+(?:the\s+|our\s+)?(?P<a>[a-z]+)|\bmove\s+(?:the\s+|our\s+)?"
                   r"(?P<b>[a-z]+)\s+(?:section\s+)?to\s+the\s+(?:top|start)", re.IGNORECASE)
_PRICE = re.compile(r"^(?:please\s+)?(?:set|change|make|put)\s+(?:the\s+|our\s+)?price\s+(?:to|at)\s+[$€£]?\s*"
                    r"(?P<amount>\d{1,9}(?:[.,]\d{1,2})?)\s*(?:usd|eur|gbp|dollars|euros|pounds)?\s*[.!]?$", re.IGNORECASE)
_QUOTES = "\"'“”‘’"

UNDERSTANDS = ("The offline editor understands: change the headline (or the subheadline, call to action, "
               "guarantee, shipping, returns, about, SEO title or SEO description) to new words; add a question: "
               "<question>? <answer>; remove the question about <words>; lead with a section; set the price to "
               "an amount. Anything else needs an AI model (AI_BACKEND openai or command).")


def edit(task: Task) -> dict:
    """The store's copy (and leading section) after the requested edit; refuses what it cannot do."""
    current = task.current or {}
    copy = copying.deepcopy(current.get("copy") or {})
    message = (task.instructions or "").strip()
    field = current.get("field")
    lead = price = None
    if field:
        if STORE_COPY["properties"].get(field, {}).get("type") != "string":
            raise AIError(EDITOR_UNAVAILABLE, f"The offline editor can set a text field, not {field!r}; name a "
                                              "question to add or remove instead.")
        copy[field] = message.strip(_QUOTES).strip()
    elif match := _SET.match(message):
        copy[FIELD_WORDS[match["field"].lower()]] = match["text"].strip(_QUOTES).strip()
    elif match := _ADD.match(message):
        copy["faq"] = copy["faq"] + [{"question": match["q"].strip(), "answer": match["a"].strip(_QUOTES).strip()}]
    elif match := _REMOVE.match(message):
        words = match["words"].lower().strip(_QUOTES)
        gone = next((item for item in copy["faq"] if words in item["question"].lower()), None)
        if gone is None:
            raise AIError(EDITOR_UNAVAILABLE, f"No question of your store mentions {words[:60]!r}.")
        copy["faq"] = [item for item in copy["faq"] if item is not gone]  # one request removes one question
    elif match := _LEAD.search(message):
        word = (match["a"] or match["b"]).lower()
        if word not in SECTION_WORDS:
            raise AIError(EDITOR_UNAVAILABLE, f"Your store has no section called {word!r} to lead with; it has "
                                              f"{', '.join(SECTIONS)}.")
        lead = SECTION_WORDS[word]
    elif match := _PRICE.match(message):
        price = float(match["amount"].replace(",", "."))
    else:
        raise AIError(EDITOR_UNAVAILABLE, UNDERSTANDS)
    problems = validate(copy, STORE_COPY)
    if problems:
        raise AIError(TOO_LONG, "; ".join(problems))
    return {"copy": copy, "lead": lead, "price": price}

