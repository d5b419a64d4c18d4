"""The support agent's two kinds of AI writing (services/desk/agent.py asks for them):
`support_answer` (an answer to a customer's question, POST /api/support) and `support_draft`
(a reply mail to a ticket), with their schemas, their deterministic offline writers and the
finish every backend's answer goes through.

A store's facts are cut into passages, each a citable fact ({kind, field, value}): the
product record and the offer's price (the task's Facts), the FAQ, shipping, returns and
guarantee of the store's copy (the task's `current`), the business's own stated policies
(`current["policies"]`, services/founder_statements.py: preferred to the copy's general
words), the business name and support address (Facts.business) and, on a ticket, the order
the customer wrote about (`current["order"]`, services/desk/orders_lookup.py).

A message is answered part by part (services/desk/parts.py cuts it; the parts travel in
`current["parts"]`, so a model sees them too). The offline writer answers a part only when
every word of it that carries meaning is found in the passages it cites; the words that only
say how something is asked ("how long does shipping take": long, take) never block a part,
but a part asking "how long" or "how much" is answered only by a passage that holds a time
or a number. The answered parts make the answer; the others are listed in `unanswered`, for
the founder (a note on the ticket) or the shop (a visitor is told it answers them by mail),
never guessed. When no part is backed the writer abstains, naming the words the facts do not
cover. A model's answer is held to the same facts (`_finished`): a cite must be a passage,
word for word; a sentence with a number no cited passage holds is dropped; an answer left
without a backed cite is an abstention.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from integrations import ai
from integrations.ai.claims import sentences
from integrations.ai.schemas import record
from services import search
from services.desk.parts import MAX_PART, MAX_PARTS, message_text, parts_of
from services.money import display_major

ANSWER_KIND = "support_answer"
DRAFT_KIND = "support_draft"

ANSWERED = "answered"  # what the AI kinds answer; the API says ok
ABSTAINED = "abstained"

MAX_ANSWER = 1500
MAX_CITES = 8  # of a whole answer
MAX_PART_CITES = 4  # of one part of it
# policy: the business's stated policies; order: the order a ticket's customer wrote about.
CITE_KINDS = ("product", "offer", "faq", "shipping", "returns", "settings", "policy", "order")

# Words a customer writes around a question that say nothing about what is asked.
FILLER = frozenset("""
hi hello hey dear thanks thank regards cheers wondering wonder question questions ask asking asked quick
hope hoping kindly sir madam team shop store wanted wants just really
""".split())

# Words that say how a question is asked, not what it asks about: they help choose a passage
# but never leave a part unanswered ("how long does shipping take": shipping must be backed;
# long and take are the question's shape). What they ask for is checked apart (_NEEDS).
QUESTION_WORDS = frozenset("""
long take takes taking took much many soon quick quickly fast far often usually normally typically exactly
roughly approximately possible able happen happens news update updates
""".split())

# The words that ask for a passage by its topic, beyond the words of its text.
TOPICS = {
    ("offer", "price"): "price prices priced cost costs costing much expensive cheap pay paying charge charged "
                        "amount dollars",
    ("product", "name"): "name called product",
    ("product", "category"): "category kind type range",
    ("shipping", "shipping"): "ship ships shipping shipped deliver delivers delivery delivered send sent post "
                              "postage dispatch arrive arrives order policy",
    ("returns", "returns"): "return returns returned refund refunds exchange exchanges back send policy",
    ("returns", "guarantee"): "guarantee warranty damaged broken wrong faulty defective policy",
    ("settings", "business_name"): "business company who",
    ("settings", "support_email"): "contact email mail reach write address support touch",
    ("order", "status"): "order orders ordered status track tracking parcel package receipt paid payment purchase "
                         "purchased bought number",
}
# The business's stated policies (services/founder_statements.sentences: topic -> sentence),
# asked for as the copy's shipping, returns and guarantee are, and "ships_to" by where it goes.
POLICY_TOPICS = {
    "shipping": TOPICS[("shipping", "shipping")] + " days business",
    "returns": TOPICS[("returns", "returns")] + " days",
    "guarantee": TOPICS[("returns", "guarantee")],
    "ships_to": TOPICS[("shipping", "shipping")] + " country countries abroad international internationally "
                                                   "worldwide overseas",
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
    "unanswered": {"type": "array", "maxItems": MAX_PARTS,
                   "items": {"type": "string", "minLength": 1, "maxLength": MAX_PART},
                   "description": "the parts of the message (current.parts) the facts do not answer, as written"},
    "abstain_reason": {"type": "string", "maxLength": 300,
                       "description": "when abstained: one sentence saying what the facts do not cover"},
}
# `unanswered` may be left out (a model answering a one-part question often does): the
# finish makes it [] then.
SUPPORT_ANSWER = record({"answer": {"type": "string", "maxLength": MAX_ANSWER,
                                    "description": "the answer to the customer, from the cited facts only"},
                         **_COMMON}, optional=("unanswered",))
SUPPORT_DRAFT = record({"text": {"type": "string", "maxLength": 3000,
                                 "description": "the reply mail's text: a greeting, the answer, a sign-off"},
                        **_COMMON}, optional=("unanswered",))

_RULES = ("Answer only from the facts and the store's copy you are given (its FAQ, shipping, returns and "
          "guarantee, the business's stated policies, the business details and the customer's order when given). "
          "Cite each fact you use, word for word, as {kind, field, value}. The message's questions are listed in "
          "current.parts: answer each part the facts back, and list every other part, as written, in unanswered; "
          "never guess. When no part is backed, abstain and say what is not covered.")


# --- Passages: the citable facts of a store ---------------------------------------------------

@dataclass(frozen=True)
class Passage:
    kind: str
    field: str
    value: str  # what is cited, as the facts hold it
    said: str  # the sentence the answer uses
    topic: str = ""  # further words that ask for it
    # Answers its topic before any other passage: the order a ticket's customer wrote about
    # is what "has my order shipped?" asks about first, before the shop's shipping text.
    leads: bool = False


def passages(task: ai.Task) -> list[Passage]:
    """The citable facts of a task, in the order an answer prefers them."""
    facts, copy = task.facts, task.current or {}
    product = facts.product
    found: list[Passage] = []

    def add(kind, field, value, said=None, topic="", leads=False):
        value = " ".join(str(value or "").split())
        if value:
            found.append(Passage(kind, field, value, said or value, topic or TOPICS.get((kind, field), ""), leads))

    order = copy.get("order")
    if isinstance(order, dict):
        add("order", "status", order.get("said"), topic=f"{TOPICS[('order', 'status')]} {order.get('number') or ''}",
            leads=True)
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
    # The business's own stated policies come before the copy's general words on the same
    # topics, so a tie between them goes to what the founder said.
    for topic, sentence in (copy.get("policies") or {}).items():
        if topic in POLICY_TOPICS:
            add("policy", topic, sentence, topic=POLICY_TOPICS[topic])
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
    """What a customer's mail asks: its questions (services/desk/parts.py) joined, quoted lines
    and the signature left out, or its whole text when none ends in a question mark."""
    return " ".join(parts_of(message_text(mail)))


# What a part asks for beyond its topic: "how long" is answered by a time ("3 to 7 business
# days"), "how much" by an amount of money (or "free"), "how many" by a number; the topic
# alone ("Your order is packed and sent once...") does not answer them, so such a part is
# left rather than half answered. A time may come from any passage the part cites ("Do you
# ship to Canada, and how long?"); an amount must be in every one, or "how much is
# shipping?" would be answered with the product's price or a delivery time.
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve fourteen fifteen twenty "
                 "thirty sixty ninety")
_A_NUMBER = rf"(?:\d+(?:[.,]\d+)*|{'|'.join(_NUMBER_WORDS.split())})"


@dataclass(frozen=True)
class _Need:
    words: str  # how the part asks, as an abstention names it
    asks: re.Pattern
    holds: re.Pattern  # what a passage must hold to answer it
    every: bool  # every cited passage must hold it (else one is enough)


_NEEDS = (
    _Need("how long", re.compile(r"\bhow\s+(?:long|soon|quickly|fast)\b|\bhow\s+many\s+(?:hours|days|weeks|months)\b",
                                 re.IGNORECASE),
          re.compile(rf"\b{_A_NUMBER}\b[^.!?]{{0,30}}?\b(?:hours?|days?|weeks?|months?)\b", re.IGNORECASE), False),
    _Need("how much", re.compile(r"\bhow\s+much\b", re.IGNORECASE),
          re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:(?-i:[A-Z]{3})|dollars?|euros?|pounds?)\b|\bfree\b", re.IGNORECASE), True),
    _Need("how many", re.compile(r"\bhow\s+many\b(?!\s+(?:hours|days|weeks|months)\b)", re.IGNORECASE),
          re.compile(rf"\b{_A_NUMBER}\b", re.IGNORECASE), True),
)
_TOPIC_STEMS = _stems(" ".join(TOPICS.values()))


def _needs(part: str) -> list[_Need]:
    """What the part asks for beyond its topic (a time, an amount, a number)."""
    return [need for need in _NEEDS if need.asks.search(part)]


def _unmet(needs: list[_Need], chosen: list[Passage]) -> list[str]:
    """How the part asks, for each ask the chosen passages do not answer."""
    unmet = []
    for need in needs:
        has = [bool(need.holds.search(p.value)) for p in chosen]
        if not (all(has) if need.every else any(has)):
            unmet.append(need.words)
    return unmet


# --- The offline writers ----------------------------------------------------------------------

def _choose(part: str, found: list[Passage], before: str = "") -> tuple[list[Passage], list[str]]:
    """(the passages that answer one part of a message, its words or asks no passage covers).
    Every word that carries meaning must be covered; the question's own words (QUESTION_WORDS)
    only help choose, unless the part has no other. A part that names no topic of its own
    ("Do you deliver to Canada, and how long does it take?") is about the topic words of the
    part `before` it. A passage that leads (the ticket's order) and is asked for is taken
    first; then one asked for by its topic (a price question, a FAQ's own question) is
    preferred to one that only mentions the word in passing."""
    needs = _needs(part)
    if needs:  # passages holding what is asked for first, so a tie goes to them
        found = sorted(found, key=lambda p: not all(need.holds.search(p.value) for need in needs))
    terms = terms_of(part)
    hard = [t for t in terms if t not in QUESTION_WORDS]
    soft = [t for t in terms if t in QUESTION_WORDS]
    if not hard and before:
        hard = [t for t in terms_of(before) if t not in QUESTION_WORDS and _stems(t) & _TOPIC_STEMS]
        terms = hard + soft
    topical = {p: _stems(p.topic) for p in found}
    words = {p: topical[p] | _stems(p.value) for p in found}
    wanted = {t: {stem(v) for v in search.variants(t)} for t in terms}
    covering = {t: [p for p in found if wanted[t] & words[p]] for t in terms}
    must = hard or soft
    missing = [t for t in hard if not covering[t]] if hard else []
    chosen: list[Passage] = []
    left = {t for t in must if covering[t]}
    for passage in found:
        # By its topic only: the ordered product's name in its sentence is no reason to lead.
        if passage.leads and any(wanted[t] & topical[passage] for t in left):
            chosen.append(passage)
            left -= {t for t in left if passage in covering[t]}
    while left and len(chosen) < MAX_PART_CITES:
        # Most of the words left, then most of them by topic, then most of the question's own
        # words, then the first in `found` order.
        best = max(found, key=lambda p: (sum(1 for t in left if p in covering[t]),
                                         sum(1 for t in left if wanted[t] & topical[p]),
                                         sum(1 for t in soft if p in covering[t]), -found.index(p)))
        chosen.append(best)
        left -= {t for t in left if best in covering[t]}
    if left:
        missing.extend(sorted(left))
    if not must or (not hard and not chosen):
        missing.extend(t for t in soft if t not in missing)
    if chosen and not missing:
        missing.extend(_unmet(needs, chosen))
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


def parts_asked(task: ai.Task) -> list[str]:
    """The parts of the message the task answers: those the agent cut (current.parts), else
    the instructions cut here."""
    given = [str(p) for p in (task.current or {}).get("parts") or [] if str(p).strip()]
    return given or parts_of(task.instructions) or [task.instructions]


def write_answer(task: ai.Task) -> dict:
    """The support_answer kind's offline writer: each backed part's passages' sentences, the
    others in `unanswered`; an abstention when no part is backed."""
    found = passages(task)
    used: list[Passage] = []
    unanswered: list[str] = []
    missing: list[str] = []
    before = ""
    for part in parts_asked(task):
        chosen, lacking = _choose(part, found, before)
        before = part
        if lacking or not chosen:
            unanswered.append(part[:MAX_PART])
            missing.extend(w for w in lacking if w not in missing)
            continue
        used.extend(p for p in chosen if p not in used)
    used = used[:MAX_CITES]
    if not used:
        return {"status": ABSTAINED, "answer": "", "cites": [], "unanswered": unanswered[:MAX_PARTS],
                "abstain_reason": abstention(task.instructions, missing)}
    answer = " ".join(p.said for p in used)
    return {"status": ANSWERED, "answer": _cut(answer, MAX_ANSWER), "abstain_reason": "",
            "unanswered": unanswered[:MAX_PARTS],
            "cites": [{"kind": p.kind, "field": p.field, "value": p.value} for p in used]}


def write_draft(task: ai.Task) -> dict:
    """The support_draft kind's offline writer: the answer inside a reply mail, or an abstention."""
    answered = write_answer(task)
    if answered["status"] == ABSTAINED:
        return {"status": ABSTAINED, "text": "", "cites": [], "unanswered": answered["unanswered"],
                "abstain_reason": answered["abstain_reason"]}
    return {"status": ANSWERED, "text": _mail(answered["answer"], task), "cites": answered["cites"],
            "unanswered": answered["unanswered"], "abstain_reason": ""}


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
    # The parts left for a person, as the backend listed them: what it could not back is
    # shown to the founder (or said to a visitor), never answered by the service itself.
    unanswered = []
    for part in copy.get("unanswered") or []:
        part = " ".join(str(part).split())[:MAX_PART]
        if part and part not in unanswered:
            unanswered.append(part)
    copy = {**copy, "unanswered": unanswered[:MAX_PARTS]}
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
        return {"status": ABSTAINED, text_key: "", "cites": [], "unanswered": copy["unanswered"],
                "abstain_reason": why[:300]}, dropped
    return {**copy, text_key: text, "cites": cites}, dropped


ai.register(ai.Kind(ANSWER_KIND, SUPPORT_ANSWER, offline=write_answer, finish=_finished, asks=(
    "Answer the customer's question (the instructions) for the store. " + _RULES)))
ai.register(ai.Kind(DRAFT_KIND, SUPPORT_DRAFT, offline=write_draft, finish=_finished, asks=(
    "Write the reply mail to the customer's message (the instructions) for the store: a greeting, the answer "
    "and a sign-off with the business name. " + _RULES)))
