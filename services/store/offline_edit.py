"""The offline editor: plain-language store edits it can carry out exactly, without a model.

It is the store_edit kind's offline writer (registered in services/store/edits.py), so the
AI seam's offline backend runs it. It understands a handful of requests and refuses the
rest with Refused `editor_unavailable`, saying what it does understand (a model backend,
AI_BACKEND openai or command, takes any request), and an edit that would put a field past
its bounds with `too_long`. What it understands:

- "change the headline to ..." (also the subheadline, call to action, guarantee, shipping,
  returns, about, SEO title and SEO description, by those names or the words
  services/store/sections.py knows for them);
- "make the headline shorter" / "shorten the subheadline": the same shortening as the growth
  editor's (integrations/copy_text.shorter: a shorter name, or fewer whole sentences);
- with a `field` named, the message is that field's new text;
- "add a question: <question>? <answer>";
- "remove the question about <words>";
- "lead with <section>" or "move <section> to the top" (a section's name, another word for
  it, or a field it holds: "lead with the headline" leads with the hero);
- "set the price to 24.99" (the store checks the bounds and keeps it as the founder's own price).
"""
from __future__ import annotations

import copy as copying
import re

from integrations import ai
from integrations.ai.schemas import STORE_COPY, validate
from integrations.copy_text import shorter
from services.errors import Refused
from services.store import sections
from services.store.sections import FIELD_WORDS, LEADS

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
_SHORTER = re.compile(r"^(?:please\s+)?(?:(?:make|keep)\s+(?:the\s+|our\s+)?(?P<a>"
                      + "|".join(sorted((re.escape(w) for w in FIELD_WORDS), key=len, reverse=True))
                      + r")\s+(?:a\s+(?:bit|little)\s+)?shorter|(?:shorten|trim)\s+(?:the\s+|our\s+)?(?P<b>"
                      + "|".join(sorted((re.escape(w) for w in FIELD_WORDS), key=len, reverse=True))
                      + r"))\s*[.!]?$", re.IGNORECASE)
# Fields read as a name rather than sentences: shortened to fewer words, not fewer sentences.
_NAME_LIKE = ("headline", "call_to_action", "seo_title")
_QUOTES = "\"'“”‘’"

UNDERSTANDS = ("The offline editor understands: change the headline (or the subheadline, call to action, "
               "guarantee, shipping, returns, about, SEO title or SEO description) to new words or make it shorter; "
               "add a question: "
               "<question>? <answer>; remove the question about <words>; lead with a section; set the price to "
               "an amount. Anything else needs an AI model, which this service is not set up with.")


def edit(task: ai.Task) -> dict:
    """The store's copy (and leading section) after the requested edit; refuses what it cannot do."""
    current = task.current or {}
    copy = copying.deepcopy(current.get("copy") or {})
    message = (task.instructions or "").strip()
    field = current.get("field")
    lead = price = None
    if field:
        if STORE_COPY["properties"].get(field, {}).get("type") != "string":
            raise Refused("editor_unavailable", f"The offline editor can rewrite a piece of text, not "
                                                f"{sections.said(field)}; name a question to add or remove instead.")
        copy[field] = message.strip(_QUOTES).strip()
    elif match := _SHORTER.match(message):
        # The same "shorter" as the growth editor's (integrations/copy_text.shorter).
        named = sections.field_named(match["a"] or match["b"])
        if not isinstance(copy.get(named), str) or not copy[named]:
            raise Refused("editor_unavailable", f"Your store has no {sections.said(named)} to make shorter.")
        copy[named] = shorter(copy[named], is_name=named in _NAME_LIKE)
    elif match := _SET.match(message):
        copy[sections.field_named(match["field"])] = match["text"].strip(_QUOTES).strip()
    elif match := _ADD.match(message):
        copy["faq"] = copy["faq"] + [{"question": match["q"].strip(), "answer": match["a"].strip(_QUOTES).strip()}]
    elif match := _REMOVE.match(message):
        words = match["words"].lower().strip(_QUOTES)
        # Words match in any form and by the other names of a section ("returns" finds "Can
        # I return it?", "delivery" the shipping question): a founder's terms, not the copy's.
        gone = next((item for item in copy["faq"] if sections.mentions(item["question"], words)), None)
        if gone is None:
            raise Refused("editor_unavailable", f"No question of your store mentions {words[:60]!r}. Its questions: "
                          + " ".join(f"“{item['question']}”" for item in copy["faq"])[:240])
        copy["faq"] = [item for item in copy["faq"] if item is not gone]  # one request removes one question
    elif match := _LEAD.search(message):
        word = (match["a"] or match["b"]).lower()
        lead = sections.named(word)
        if lead not in LEADS:
            raise Refused("editor_unavailable", f"Your store has no section called {word!r} to lead with; it has "
                                                f"{', '.join(sections.said(s) for s in LEADS)}.")
    elif match := _PRICE.match(message):
        price = float(match["amount"].replace(",", "."))
    else:
        raise Refused("editor_unavailable", UNDERSTANDS)
    problems = validate(copy, STORE_COPY)
    if problems:
        raise Refused("too_long", sections.said_in_words(problems)[:300])
    return {"copy": copy, "lead": lead, "price": price}

