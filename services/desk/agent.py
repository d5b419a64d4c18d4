"""The support agent (issue 25 point 4; spec 4.7 POST /api/support, 8.1 `support`): answers a
customer's question from the store's own facts only, citing each fact it used, and abstains
when nothing backs an answer.

The facts are the store's: the product record and the offer's price (services/store/facts.py),
the FAQ, shipping, returns and guarantee of the store document (services/store/versions.py),
and the founder's business settings (services/business.py). They are cut into passages, each
a citable fact ({kind, field, value}). Two kinds of AI task are registered here:
`support_answer` (POST /api/support) and `support_draft` (a reply to a ticket). Their offline
writer answers only when every word of the question that carries meaning is found in the
passages it cites; a question about anything else (a country, a material, a delivery time the
facts do not give) abstains, so the agent never guesses. A model's answer goes through the
same test (`_finished`): a cite must be a passage of the facts, word for word, and a sentence
with a number no cited passage holds is dropped; an answer left without a backed cite is an
abstention.

The meter's subject is the account of the store's founder (the agent answers for them and
spends their `support` credits); credits are spent immediately before the AI writes and
given back when it abstains or fails, so only an answer costs anything (services/meter.py).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from integrations import ai
from integrations.ai.claims import sentences
from integrations.ai.schemas import record
from models.clock import utcnow
from models.session import Session
from models.store import Store
from services import business, search
from services.discovery import resolve
from services.errors import Refused
from services.meter import metered
from services.money import display_major
from services.ownership import Owner, owner_of
from services.store import facts as store_facts
from services.store.versions import document_of, latest

log = logging.getLogger("services.desk.agent")

BUCKET = "support"
ANSWER_KIND = "support_answer"
DRAFT_KIND = "support_draft"

OK = "ok"
ANSWERED = "answered"  # what the AI kinds answer; the API says ok
ABSTAINED = "abstained"
REFUSED = "refused"

MAX_QUESTION = 1000  # characters of a question (longer: 400 question_too_long)
MAX_MAIL = 5000  # characters of a ticket's message the draft reads
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


def _abstention(question: str, missing: list[str]) -> str:
    if not terms_of(question):
        return "The question has no words the store's facts could answer."
    listed = ", ".join(f"“{w}”" for w in missing[:5])
    return (f"The store's facts (its product record, price, FAQ, shipping, returns and contact details) say "
            f"nothing about {listed}, so the agent does not guess.")[:300]


def write_answer(task: ai.Task) -> dict:
    """The support_answer kind's offline writer: the cited passages' sentences, or an abstention."""
    found = passages(task)
    chosen, missing = _choose(task.instructions, found)
    if missing or not chosen:
        return {"status": ABSTAINED, "answer": "", "cites": [], "abstain_reason": _abstention(task.instructions, missing)}
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
        reason = copy.get("abstain_reason") or ("The answer rested on nothing the store's facts hold, so the agent "
                                                "does not send it.")
        return {"status": ABSTAINED, text_key: "", "cites": [], "abstain_reason": reason[:300]}, dropped
    return {**copy, text_key: text, "cites": cites}, dropped


ai.register(ai.Kind(ANSWER_KIND, SUPPORT_ANSWER, offline=write_answer, finish=_finished, asks=(
    "Answer the customer's question (the instructions) for the store. " + _RULES)))
ai.register(ai.Kind(DRAFT_KIND, SUPPORT_DRAFT, offline=write_draft, finish=_finished, asks=(
    "Write the reply mail to the customer's message (the instructions) for the store: a greeting, the answer "
    "and a sign-off with the business name. " + _RULES)))

_AI_REASONS = {ai.errors.UNAVAILABLE: "cli_unavailable"}


# --- Which store answers ------------------------------------------------------------------------

@dataclass(frozen=True)
class StoreSource:
    """The store a question is answered for: its product, the document answered from, and the founder."""

    product_id: str
    document: dict
    owner: Owner


def owner_from_key(key: str) -> Owner:
    """The Owner a stored owner key names ("account:<id>" or "session:<id>")."""
    kind, _, number = key.partition(":")
    return Owner(session_id=0, account_id=int(number)) if kind == "account" else Owner(int(number), None)


def store_for_session(session: Session, product_id: str | None) -> StoreSource:
    """The store POST /api/support answers for: a published store's product named by product_id
    (a customer on the storefront; the asker's own store answers from its draft), else the
    asker's own resolved product's store. Refused when there is none."""
    owner = owner_of(session)
    if product_id is not None:
        store = Store.get_or_none(Store.product == product_id)
        if store is not None and store.owner == owner.key and store.version:
            return _source(store, latest(store.product_id).document)
        if store is None or store.published_version is None or store.owner is None:
            raise Refused("not_found", "No published store sells a product with that id.")
        return _source(store, document_of(store.product_id, store.published_version))
    resolved = resolve(session)
    if resolved is None:
        raise Refused("no_product", "You have no product yet, so the agent has no store to answer for. Find and "
                                    "claim a product, or name a published store's product_id.")
    store = Store.get_or_none(Store.product == resolved.product_id, Store.owner == owner.key)
    if store is None or store.version == 0:
        raise Refused("not_started", "Your store is not built yet, so the agent has no store facts to answer from. "
                                     "Build it from the Store screen.")
    return _source(store, latest(store.product_id).document)


def store_for_owner(key: str, product_id: str | None) -> StoreSource | None:
    """The store a ticket is answered for: its product's store when the founder built it, else the
    founder's store published or changed last; None when they have none."""
    query = Store.select().where(Store.owner == key, Store.version > 0)
    store = query.where(Store.product == product_id).first() if product_id else None
    if store is None:
        store = query.order_by(Store.published_at.desc(nulls="LAST"), Store.updated_at.desc()).first()
    if store is None:
        return None
    number = store.published_version or store.draft
    return _source(store, document_of(store.product_id, number))


def _source(store: Store, document: dict) -> StoreSource:
    return StoreSource(product_id=store.product_id, document=document, owner=owner_from_key(store.owner))


def task_for(source: StoreSource, kind: str, question: str) -> ai.Task:
    """The AI task: the store's facts, its copy's FAQ, shipping, returns and guarantee, and the question."""
    loaded = store_facts.load(source.product_id)
    product = loaded.product if loaded else {}
    offer = loaded.offer if loaded else None
    if loaded is not None and offer is None:
        offer = {"price": loaded.price, "currency": product.get("currency")}
    settings = business.settings_of(source.owner)
    doc_business = source.document.get("business") or {}
    shop = settings["business_name"] or doc_business.get("name")
    copy = source.document.get("copy") or {}
    facts = ai.Facts(product=product, evidence=[], offer=offer,
                     business={"business_name": shop, "support_email": doc_business.get("support_email")})
    current = {key: copy.get(key) for key in ("faq", "shipping", "returns", "guarantee")}
    return ai.Task(kind=kind, facts=facts, instructions=question, current=current)


# --- POST /api/support ----------------------------------------------------------------------------

class _Abstained(Exception):
    """The AI abstained: raised inside the metered block so its credits come back."""

    def __init__(self, copy: dict):
        super().__init__("abstained")
        self.copy = copy


def support(*, session: Session, question: str | None, product_id: str | None = None) -> dict:
    """Answers a customer's question from a store's own facts, citing them, or abstains."""
    if question is None:
        raise Refused("no_question", "Send a question, for example {\"question\": \"How much does it cost?\"}.")
    text = " ".join(question.split())
    if not text:
        raise Refused("empty_question", "Your question is blank. Type a question and try again.")
    if len(text) > MAX_QUESTION:
        raise Refused("question_too_long", f"A question may be at most {MAX_QUESTION} characters; yours has "
                                           f"{len(text)}. Ask something shorter.")
    source = store_for_session(session, product_id)
    base = {"question": text, "product_id": source.product_id}
    if not terms_of(text):
        return {"status": ABSTAINED, "reason": "no_query_terms", **base, "answer": None, "cites": [],
                "explanation": "Your question has no words the store's facts could answer (only greetings, short or "
                               "very common words). Ask about the product, its price, shipping or returns."}
    try:
        copy = _write(task_for(source, ANSWER_KIND, text), source.owner.account_id)
    except _Abstained as abstained:
        return {"status": ABSTAINED, "reason": "not_in_store_facts", **base, "answer": None, "cites": [],
                "explanation": abstained.copy.get("abstain_reason") or _abstention(text, [])}
    return {"status": OK, **base, "answer": copy["answer"], "cites": copy["cites"]}


def _write(task: ai.Task, account_id: int | None) -> dict:
    """The AI's answer, metered for the account: spent first, given back on abstention or failure."""
    with metered(account_id, BUCKET):
        try:
            answer = ai.complete(task)
        except ai.AIError as exc:
            raise Refused(_AI_REASONS.get(exc.reason, "cli_failed"), "The support agent could not answer just "
                          "now, so nothing was charged. Try again in a moment.") from None
        if answer.copy["status"] != ANSWERED:
            raise _Abstained(answer.copy)
    return answer.copy


# --- Tickets: drafts and automatic answers ---------------------------------------------------------

def _ticket_task(ticket) -> tuple[ai.Task, StoreSource]:
    from models.desk import TicketMessage

    source = store_for_owner(ticket.owner, ticket.product_id)
    if source is None:
        raise Refused("not_started", "You have no store built, so the agent has no store facts to answer from.")
    first = (TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.direction == TicketMessage.IN)
             .order_by(TicketMessage.created_at.desc(), TicketMessage.id.desc()).first())
    mail = (first.text if first is not None else "")[:MAX_MAIL]
    asked = question_of(mail) or ticket.subject
    return task_for(source, DRAFT_KIND, asked), source


def _draft_copy(ticket, account_id: int | None) -> dict:
    """The reply the agent writes for the ticket's latest customer message; Refused when it
    cannot (no store, an abstention: not_in_store_facts, the meter's 429)."""
    task, _source = _ticket_task(ticket)
    if not terms_of(task.instructions):
        raise Refused("no_query_terms", "The customer's message has no words the store's facts could answer, so "
                                        "the agent wrote no draft.")
    try:
        return _write(task, account_id)
    except _Abstained as abstained:
        raise Refused("not_in_store_facts", (abstained.copy.get("abstain_reason") or "") +
                      " No draft was written; answer this one yourself.") from None


def draft_reply(ticket_id: int, *, account_id: int | None) -> dict:
    """Writes the agent's draft reply to a ticket as a draft message, metered `support` for the account."""
    from models.desk import Ticket, TicketMessage

    ticket = Ticket.get_or_none(Ticket.id == ticket_id)
    if ticket is None:
        raise Refused("ticket_not_found")
    copy = _draft_copy(ticket, account_id)
    message = TicketMessage.create(ticket=ticket.id, owner=ticket.owner, direction=TicketMessage.DRAFT,
                                   author=TicketMessage.AGENT, subject=_reply_subject(ticket.subject),
                                   text=copy["text"], created_at=utcnow())
    return {"status": "drafted", "message_id": message.id, "text": copy["text"], "cites": copy["cites"]}


def _reply_subject(subject: str) -> str:
    subject = " ".join((subject or "").split())
    return (subject if subject.lower().startswith("re:") else f"Re: {subject}")[:300]


def on_new_ticket(ticket_id: int) -> None:
    """Called once a new ticket is in and its rules applied: with ai_email_mode draft the agent
    drafts a reply, with auto it sends the answers it can back (and leaves the rest open), off:
    nothing. Never raises for what the agent cannot do: the ticket simply stays for the founder."""
    from models.desk import Ticket, TicketMessage
    from services.desk import tickets

    ticket = Ticket.get_or_none(Ticket.id == ticket_id)
    if ticket is None:
        return
    mode = business.settings_of(owner_from_key(ticket.owner))["ai_email_mode"]
    if mode not in ("draft", "auto"):
        return
    # At most once per ticket: a second call (a poll that ran the hook again) finds the agent's message.
    if TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.author == TicketMessage.AGENT).exists():
        return
    try:
        if mode == "draft":
            draft_reply(ticket.id, account_id=ticket.account_id)
            return
        copy = _draft_copy(ticket, ticket.account_id)
    except Refused as refused:
        log.info("support agent left the ticket", extra={"fields": {"ticket_id": ticket.id, "mode": mode,
                                                                    "reason": refused.reason}})
        return
    tickets.send_reply(ticket.id, copy["text"], author=TicketMessage.AGENT)
