"""The support agent's two kinds of AI writing (services/desk/agent.py asks for them):
`support_answer` (an answer to a customer's question, POST /api/support) and `support_draft`
(a reply mail to a ticket), with their schemas, their deterministic offline writers and the
finish every backend's answer goes through.

A store's facts are cut into passages, each a citable fact ({kind, field, value}): the
product record and the offer's price (the task's Facts), the FAQ, shipping, returns and
guarantee of the store's copy (the task's `current`) and the business name and support
address (Facts.business). The offline writer answers only when every word of the question
that carries meaning is found in the passages it cites, and abstains otherwise, naming the
words the facts do not cover: it never guesses. A model's answer is held to the same facts
(`_finished`): a cite must be a passage, word for word; a sentence with a number no cited
passage holds is dropped; an answer left without a backed cite is an abstention.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from integrations import ai
from integrations.ai.claims import sentences
from integrations.ai.schemas import record
from services import search
from services.money import display_major

ANSWER_KIND = "support_answer"
DRAFT_KIND = "support_draft"

ANSWERED = "answered"  # what the AI kinds answer; the API says ok
ABSTAINED = "abstained"

MAX_ANSWER = 1500
MAX_CITES = 4
CITE_KINDS = ("product", "offer", "faq", "shipping", "returns", "settings")

# Words a customer writes around a question that say nothing about what is asked.
FILLER = frozenset("""
hi hello hey dear thanks thank regards cheers wondering wonder question questions ask asking asked quick
hope hoping kindly sir madam team shop store wanted wants just really
""".split())

# The words that ask for a passage by its topic, beyond the words of its text.
TOPICS = {
    ("offer", "price"): "price prices priced cost costs costing much expensive cheap pay paying charge charged "
                        "amount dollars",
    ("product", "name"): "name called product",
    ("product", "category"): "category kind type range",
    ("shipping", "shipping"): "ship ships shipping shipped deliver delivers delivery delivered send sent post "
                              "postage dispatch arrive arrives order",
    ("returns", "returns"): "return returns returned refund refunds exchange exchanges back send",
    ("returns", "guarantee"): "guarantee warranty damaged broken wrong faulty defective",
    ("settings", "business_name"): "business company who",
    ("settings", "support_email"): "contact email mail reach write address support touch",
}

_CITE = record({
    "kind": {"type": "string", "enum": list(CITE_KINDS)},
    "field": {"type": "string", "minLength": 1, "maxLength": 160},
    "value": {"type": "string", "minLength": 1, "maxLength": 5000},
})
_COMMON = {
    "status": {"type": "string", "enum": [ANSWERED, ABSTAINED]},
    "cites": {"type": "array", "maxItems": MAX_CITES, "items": _CITE,
              "description": "every fact the answer rests on, copied word for word from the facts"},
    "abstain_reason": {"type": "string", "maxLength": 300,
                       "description": "when abstained: one sentence saying what the facts do not cover"},
}
SUPPORT_ANSWER = record({"answer": {"type": "string", "maxLength": MAX_ANSWER,
                                    "description": "the answer to the customer, from the cited facts only"},
                         **_COMMON})
SUPPORT_DRAFT = record({"text": {"type": "string", "maxLength": 3000,
                                 "description": "the reply mail's text: a greeting, the answer, a sign-off"},
                        **_COMMON})

_RULES = ("Answer only from the facts and the store's copy you are given (its FAQ, shipping, returns and "
          "guarantee, and the business details). Cite each fact you use, word for word, as {kind, field, value}. "
          "When they do not answer the question, abstain and say what is not covered: never guess.")


# --- Passages: the citable facts of a store ---------------------------------------------------

@dataclass(frozen=True)
class Passage:
    kind: str
    field: str
    value: str  # what is cited, as the facts hold it
    said: str  # the sentence the answer uses
    topic: str = ""  # further words that ask for it


def passages(task: ai.Task) -> list[Passage]:
    """The citable facts of a task, in the order an answer prefers them."""
    facts, copy = task.facts, task.current or {}
    product = facts.product
    found: list[Passage] = []

    def add(kind, field, value, said=None, topic=""):
        value = " ".join(str(value or "").split())
        if value:
            found.append(Passage(kind, field, value, said or value, topic or TOPICS.get((kind, field), "")))

    offer = facts.offer or {}
    price = offer.get("price") if offer.get("price") is not None else product.get("price")
    currency = offer.get("currency") or product.get("currency") or ""
    if price:
        money = display_major(price, currency)
        add("offer", "price", money, f"It costs {money}.")
    name = product.get("name")
    add("product", "name", name, f"This is the {' '.join(str(name or '').split())}.")
    add("product", "description", product.get("description"))
    category = product.get("category")
    add("product", "category", category, f"It is part of our {' '.join(str(category or '').split())} range.")
    add("shipping", "shipping", copy.get("shipping"))
    add("returns", "returns", copy.get("returns"))
    add("returns", "guarantee", copy.get("guarantee"))
    shop = facts.business.get("business_name")
    add("settings", "business_name", shop, f"This shop is {' '.join(str(shop or '').split())}.")
    email = facts.business.get("support_email")
    add("settings", "support_email", email, f"You can write to us at {email}.")
    for item in copy.get("faq") or []:
        question, answer = str(item.get("question") or ""), str(item.get("answer") or "")
        # A FAQ is asked for by its own question, and by the topics that question is about.
        asked = _stems(question)
        about = " ".join(words for words in TOPICS.values() if asked & _stems(words))
        add("faq", " ".join(question.split())[:160], answer, topic=f"{question} {about}")
    return found


# --- Words -------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")


def stem(word: str) -> str:
    """A crude English stem, the same on both sides of a comparison (ships, shipped,
    shipping -> ship; returns -> return; prices, priced -> pric)."""
    word = word.lower()
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: len(word) - len(suffix)] + keep
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # shipp -> ship
    return word


def _stems(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(text.lower()):
        for variant in search.variants(word):
            found.add(stem(variant))
    return found


def terms_of(text: str) -> list[str]:
    """The words of a question that carry its meaning (search's terms without greetings and filler)."""
    return [t for t in search.query_terms(text) if t not in FILLER][:search.MAX_TERMS]


def question_of(mail: str) -> str:
    """What a customer's mail asks: its sentences that end in a question mark (quoted lines and
    the signature left out), or its whole text when none does."""
    lines = []
    for line in mail.splitlines():
        if line.strip() in ("--", "-- "):
            break
        if not line.lstrip().startswith(">"):
            lines.append(line)
    text = " ".join(" ".join(lines).split())
    asked = [s.strip() for s, _ in sentences(text) if s.strip().endswith("?")]
    return " ".join(asked) if asked else text


# --- The offline writers ----------------------------------------------------------------------

def _choose(question: str, found: list[Passage]) -> tuple[list[Passage], list[str]]:
    """(the passages that answer the question, its words no passage covers). A passage asked for
    by its topic (a price question, a FAQ's own question) is preferred to one that only
    mentions the word in passing."""
    terms = terms_of(question)
    topical = {p: _stems(p.topic) for p in found}
    words = {p: topical[p] | _stems(p.value) for p in found}
    wanted = {t: {stem(v) for v in search.variants(t)} for t in terms}
    covering = {t: [p for p in found if wanted[t] & words[p]] for t in terms}
    missing = [t for t, ps in covering.items() if not ps]
    chosen: list[Passage] = []
    left = {t for t in terms if covering[t]}
    while left and len(chosen) < MAX_CITES:
        # Most of the words left, then most of them by topic, then the first in `found` order.
        best = max(found, key=lambda p: (sum(1 for t in left if p in covering[t]),
                                         sum(1 for t in left if wanted[t] & topical[p]), -found.index(p)))
        chosen.append(best)
        left -= {t for t in left if best in covering[t]}
    if left:
        missing.extend(sorted(left))
    return chosen, missing


def abstention(question: str, missing: list[str]) -> str:
    """The sentence of an abstention, naming the question's words the facts do not cover."""
    if not terms_of(question):
        return "The question has no words the store's facts could answer."
    if not missing:
        return ("The store's facts (its product record, price, FAQ, shipping, returns and contact details) do not "
                "back an answer to this question, so the agent does not guess.")
    listed = ", ".join(f"“{w}”" for w in missing[:5])
    return (f"The store's facts (its product record, price, FAQ, shipping, returns and contact details) say "
            f"nothing about {listed}, so the agent does not guess.")[:300]


def write_answer(task: ai.Task) -> dict:
    """The support_answer kind's offline writer: the cited passages' sentences, or an abstention."""
    found = passages(task)
    chosen, missing = _choose(task.instructions, found)
    if missing or not chosen:
        return {"status": ABSTAINED, "answer": "", "cites": [], "abstain_reason": abstention(task.instructions, missing)}
    answer = " ".join(p.said for p in chosen)
    return {"status": ANSWERED, "answer": _cut(answer, MAX_ANSWER), "abstain_reason": "",
            "cites": [{"kind": p.kind, "field": p.field, "value": p.value} for p in chosen]}


def write_draft(task: ai.Task) -> dict:
    """The support_draft kind's offline writer: the answer inside a reply mail, or an abstention."""
    answered = write_answer(task)
    if answered["status"] == ABSTAINED:
        return {"status": ABSTAINED, "text": "", "cites": [], "abstain_reason": answered["abstain_reason"]}
    return {"status": ANSWERED, "text": _mail(answered["answer"], task), "cites": answered["cites"],
            "abstain_reason": ""}


def _mail(answer: str, task: ai.Task) -> str:
    shop = " ".join(str(task.facts.business.get("business_name") or "").split())
    return f"Hello,\n\n{answer}\n\nBest wishes,\n{shop or 'The team'}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


# --- The finish: what the seam keeps of any backend's answer ----------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _finished(copy: dict, task: ai.Task) -> tuple[dict, list[dict]]:
    """Keeps the cites that are passages of the facts, drops sentences with a number no cited
    passage holds, and abstains when no backed cite or no sentence is left."""
    text_key = "answer" if "answer" in copy else "text"
    if copy.get("status") != ANSWERED:
        return {**copy, text_key: "", "cites": []}, []
    known = {(p.kind, p.field): p for p in passages(task)}
    cites = []
    for cite in copy.get("cites") or []:
        passage = known.get((cite["kind"], cite["field"]))
        if passage is not None and " ".join(cite["value"].split()) in passage.value and cite not in cites:
            cites.append(cite)
    held = " ".join(known[(c["kind"], c["field"])].value for c in cites)
    if text_key == "text":
        held += " " + _mail("", task)
    kept, dropped = [], []
    for sentence, space in sentences(copy.get(text_key) or ""):
        if all(n in held for n in _NUMBER.findall(sentence)):
            kept.append(sentence + space)
        else:
            dropped.append({"field": text_key, "sentence": sentence.strip(), "why": "number"})
    text = "".join(kept).strip()
    if not cites or not text:
        why = copy.get("abstain_reason") or "The answer rested on nothing the store's facts hold, so the agent does not send it."
        return {"status": ABSTAINED, text_key: "", "cites": [], "abstain_reason": why[:300]}, dropped
    return {**copy, text_key: text, "cites": cites}, dropped


ai.register(ai.Kind(ANSWER_KIND, SUPPORT_ANSWER, offline=write_answer, finish=_finished, asks=(
    "Answer the customer's question (the instructions) for the store. " + _RULES)))
ai.register(ai.Kind(DRAFT_KIND, SUPPORT_DRAFT, offline=write_draft, finish=_finished, asks=(
    "Write the reply mail to the customer's message (the instructions) for the store: a greeting, the answer "
    "and a sign-off with the business name. " + _RULES)))
