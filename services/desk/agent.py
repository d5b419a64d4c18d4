"""The support agent (issue 25 point 4; spec 4.7 POST /api/support, 8.1 `support`): answers a
customer's question from the store's own facts only, citing each fact it used, and abstains
when nothing backs an answer; drafts and sends replies to the desk's tickets.

The facts are the store's: the product record and the offer's price (services/store/facts.py),
the FAQ, shipping, returns and guarantee of the store document (services/store/versions.py),
the founder's business settings (services/business.py) and stated policies
(services/founder_statements.py), and on a ticket the order its customer wrote about
(services/desk/orders_lookup.py). A message is answered part by part (services/desk/parts.py):
what the facts back is answered, the rest is left, for the founder in a note on the ticket or,
to a visitor, said plainly to be the shop's to answer by mail. The writing is two kinds of AI
task (services/desk/answers.py: `support_answer`, `support_draft`), whose offline writers
answer only what the passages they cite back and whose finish holds any backend to that.

The meter's subject is the account of the store's founder (the agent answers for them and
spends their `support` credits); credits are spent immediately before the AI writes and
given back when it abstains or fails, so only an answer costs anything (services/meter.py).
A visitor's question (a store not the asker's) may use only the founder's share of those
credits, and one answered before for the same facts costs nothing (services/desk/public.py).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from integrations import ai
from models.clock import utcnow
from models.db import transaction
from models.desk import Ticket, TicketMessage
from models.session import Session
from models.store import Store
from services import business, founder_statements
from services.desk import orders_lookup, public, replies
from services.desk.answers import (
    ABSTAINED,
    ANSWER_KIND,
    ANSWERED,
    CITE_KINDS,
    DRAFT_KIND,
    abstention,
    question_of,
    terms_of,
)
from services.desk.parts import parts_of
from services.discovery import resolve
from services.errors import Refused
from services.meter import METER_REFUSALS, Share, ShareUsed, metered
from services.ownership import Owner, owner_from_key, owner_of
from services.store import facts as store_facts
from services.store.versions import document_of, latest

__all__ = ["ABSTAINED", "ANSWER_KIND", "CITE_KINDS", "DRAFT_KIND", "draft_reply", "on_new_ticket", "support"]

OK = "ok"
REFUSED = "refused"
MAX_QUESTION = 1000  # characters of a question (longer: 400 question_too_long)
MAX_MAIL = 5000  # characters of a ticket's message the draft reads

log = logging.getLogger("services.desk.agent")

BUCKET = "support"
_AI_REASONS = {ai.errors.UNAVAILABLE: "cli_unavailable"}


# --- Which store answers ------------------------------------------------------------------------

@dataclass(frozen=True)
class StoreSource:
    """The store a question is answered for: its product, the document answered from, and the
    founder; `public` when the asker is not that founder (a visitor of the published store)."""

    product_id: str
    document: dict
    owner: Owner
    public: bool = False


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
        source = _source(store, document_of(store.product_id, store.published_version))
        return replace(source, public=store.owner != owner.key)
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


def task_for(source: StoreSource, kind: str, question: str, *, order: dict | None = None) -> ai.Task:
    """The AI task: the product as the store shows it, the price it charges, its copy's FAQ,
    shipping, returns and guarantee, the business's stated policies, its name and address,
    the question and the parts it asks (services/desk/parts.py), and on a ticket the order
    the customer wrote about (services/desk/orders_lookup.py).

    The store document answered from (the published version for a customer) wins over the
    catalog record read now: a customer is answered what the page they read says, and an order
    is charged the published version's price (services/commerce/orders.py)."""
    document = source.document
    loaded = store_facts.load(source.product_id)
    product = dict(loaded.product) if loaded else {"product_id": source.product_id}
    shown = document.get("product") or {}
    product.update({k: shown[k] for k in ("name", "description", "category") if shown.get(k)})
    if document.get("price"):
        offer = {"price": document["price"], "currency": document.get("currency") or product.get("currency")}
    elif loaded is not None:
        offer = {"price": loaded.price, "currency": (loaded.offer or {}).get("currency") or product.get("currency")}
    else:
        offer = None
    settings = business.settings_of(source.owner)
    doc_business = document.get("business") or {}
    shop = settings["business_name"] or doc_business.get("name")
    copy = document.get("copy") or {}
    facts = ai.Facts(product=product, evidence=[], offer=offer,
                     business={"business_name": shop, "support_email": doc_business.get("support_email")})
    current = {key: copy.get(key) for key in ("faq", "shipping", "returns", "guarantee")}
    current["policies"] = _policies(source.owner)
    current["parts"] = parts_of(question)
    if order is not None:
        current["order"] = order
    return ai.Task(kind=kind, facts=facts, instructions=question, current=current)


def _policies(owner: Owner) -> dict[str, str]:
    """The business's stated policies as shopper sentences (topic -> sentence), read now: a
    policy the founder saves answers at once, before the store is rebuilt with it."""
    return founder_statements.sentences(founder_statements.of(owner.key))


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
    task = task_for(source, ANSWER_KIND, text)
    try:
        copy = _answer_visitor(task, source) if source.public else _write(task, source.owner.account_id)
    except _Abstained as abstained:
        return {"status": ABSTAINED, "reason": "not_in_store_facts", **base, "answer": None, "cites": [],
                "explanation": abstained.copy.get("abstain_reason") or abstention(text, [])}
    left = copy.get("unanswered") or []
    answer = f"{copy['answer']} {_left_to_the_shop(left, task)}".strip()
    return {"status": OK, **base, "answer": answer, "cites": copy["cites"], "unanswered": left}


def _left_to_the_shop(left: list[str], task: ai.Task) -> str:
    """What an asker is told of the parts the facts do not answer: plainly, that the shop
    answers them itself, by mail (the agent never guesses them)."""
    if not left:
        return ""
    email = task.facts.business.get("support_email")
    write = f"write to {email}" if email else "write to the shop"
    asked = ", ".join(f"“{part}”" for part in left)
    which = "Your other question" if len(left) == 1 else "Your other questions"
    return f"{which} ({asked}) the shop answers itself: {write} and it will answer you by mail."


def _answer_visitor(task: ai.Task, source: StoreSource) -> dict:
    """A visitor's question: the answer kept for it when there is one (no model call, no
    spend), else one written within the founder's share, and kept. A visitor turned away is
    told the assistant is busy, never the founder's usage, limits or reset time."""
    key = public.key_of(task)
    kept = public.kept_answer(key)
    if kept is not None:
        public.count(source.product_id, public.ANSWERED, public.FROM_EARLIER)
        return kept
    try:
        copy = _write(task, source.owner.account_id, share=public.share_of(source.owner))
    except (ShareUsed, Refused) as stopped:
        if isinstance(stopped, Refused) and stopped.reason not in METER_REFUSALS:
            raise  # the AI backend failing is said as it is (cli_unavailable, cli_failed)
        public.count(source.product_id, public.TURNED_AWAY)
        raise Refused("support_busy") from None
    # Only a whole answer is kept: a kept answer is {answer, cites}, with no room for the
    # parts left to the shop, and one that left some is written afresh next time.
    if not copy.get("unanswered"):
        public.keep(key, source.product_id, task, copy)
    public.count(source.product_id, public.ANSWERED)
    return copy


def _write(task: ai.Task, account_id: int | None, *, share: Share | None = None) -> dict:
    """The AI's answer, metered for the account (within `share` of it when given): spent
    first, given back on abstention or failure."""
    with metered(account_id, BUCKET, share=share):
        try:
            answer = ai.complete(task)
        except ai.AIError as exc:
            raise Refused(_AI_REASONS.get(exc.reason, "cli_failed"), "The support agent could not answer just "
                          "now, so nothing was charged. Try again in a moment.") from None
        if answer.copy["status"] != ANSWERED:
            raise _Abstained(answer.copy)
    return answer.copy


# --- Tickets: drafts and automatic answers ---------------------------------------------------------

def _ticket_task(ticket: Ticket) -> tuple[ai.Task, StoreSource]:
    source = store_for_owner(ticket.owner, ticket.product_id)
    if source is None:
        raise Refused("not_started", "You have no store built, so the agent has no store facts to answer from.")
    latest_in = (TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.direction == TicketMessage.IN)
                 .order_by(TicketMessage.id.desc()).first())
    mail = (latest_in.text if latest_in is not None else "")[:MAX_MAIL]
    asked = question_of(mail) or ticket.subject
    matched = orders_lookup.order_of(ticket)
    order = orders_lookup.task_order(matched[0]) if matched is not None else None
    return task_for(source, DRAFT_KIND, asked, order=order), source


def _draft_copy(ticket: Ticket, account_id: int | None) -> dict:
    """The reply the agent writes for the ticket's latest customer message; Refused when it
    cannot (no store, an abstention: not_in_store_facts, the meter's 429)."""
    task, _source = _ticket_task(ticket)
    if not terms_of(task.instructions):
        raise Refused("no_query_terms", "The customer's message has no words the store's facts could answer, so "
                                        "the agent wrote no draft.")
    try:
        return _write(task, account_id)
    except _Abstained as abstained:
        why = abstained.copy.get("abstain_reason") or abstention(task.instructions, [])
        raise Refused("not_in_store_facts", f"{why} No draft was written; answer this one yourself.") from None


def draft_reply(ticket_id: int, *, account_id: int | None) -> dict:
    """Writes the agent's draft reply to a ticket as a draft message, metered `support` for the
    account. One draft per customer message: when the agent has drafted a reply to the latest
    one already (the "Draft replies for me" mode did, or an earlier press), that draft is the
    answer, and nothing is written or charged again."""
    ticket = Ticket.get_or_none(Ticket.id == ticket_id)
    if ticket is None:
        raise Refused("ticket_not_found")
    drafted = _drafted(ticket)
    if drafted is not None:
        return _drafted_answer(drafted)
    copy = _draft_copy(ticket, account_id)
    left = copy.get("unanswered") or []
    now = utcnow()
    with transaction():
        # The ticket's row first: a second draft at the same moment waits here, then finds this one.
        Ticket.update(updated_at=now).where(Ticket.id == ticket.id).execute()
        drafted = _drafted(ticket)
        if drafted is not None:
            return _drafted_answer(drafted)
        message = TicketMessage.create(ticket=ticket.id, owner=ticket.owner, direction=TicketMessage.DRAFT,
                                       author=TicketMessage.AGENT, subject=_reply_subject(ticket.subject),
                                       text=copy["text"], created_at=now)
        _note_left(ticket, left, now)
    return {"status": "drafted", "message_id": message.id, "text": copy["text"], "cites": copy["cites"],
            "left": left}


LEFT_FOR_YOU = "Left for you: "


def _note_left(ticket: Ticket, left: list[str], now) -> None:
    """The parts of the customer's message the agent could not back, as a note on the ticket
    (one line each), so the founder sees what the draft or the answer does not cover."""
    if left:
        TicketMessage.create(ticket=ticket.id, owner=ticket.owner, direction=TicketMessage.NOTE,
                             author=TicketMessage.AGENT, text="\n".join(LEFT_FOR_YOU + part for part in left),
                             created_at=now)


def _drafted(ticket: Ticket) -> TicketMessage | None:
    """The agent's draft of a reply to the ticket's latest customer message, if it wrote one."""
    latest_in = (TicketMessage.select(TicketMessage.id).where(TicketMessage.ticket == ticket.id,
                                                              TicketMessage.direction == TicketMessage.IN)
                 .order_by(TicketMessage.id.desc()).first())
    query = TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.direction == TicketMessage.DRAFT,
                                         TicketMessage.author == TicketMessage.AGENT)
    if latest_in is not None:
        query = query.where(TicketMessage.id > latest_in.id)
    return query.order_by(TicketMessage.id.desc()).first()


def _drafted_answer(message: TicketMessage) -> dict:
    # Its sources are not kept with a draft: the draft's words are what the founder edits.
    # What it left is the agent's note written with it.
    note = (TicketMessage.select(TicketMessage.text)
            .where(TicketMessage.ticket == message.ticket_id, TicketMessage.direction == TicketMessage.NOTE,
                   TicketMessage.author == TicketMessage.AGENT, TicketMessage.id > message.id)
            .order_by(TicketMessage.id).first())
    left = [line[len(LEFT_FOR_YOU):] for line in (note.text.splitlines() if note else [])
            if line.startswith(LEFT_FOR_YOU)]
    return {"status": "drafted", "message_id": message.id, "text": message.text, "cites": [], "left": left}


def _reply_subject(subject: str) -> str:
    subject = " ".join((subject or "").split())
    return (subject if subject.lower().startswith("re:") else f"Re: {subject}")[:300]


def on_new_ticket(ticket_id: int) -> None:
    """Called once a new ticket is in and its rules applied: with ai_email_mode draft the agent
    drafts a reply, with auto it sends the answers it can back (and leaves the rest open), off:
    nothing. Never raises for what the agent cannot do: the ticket simply stays for the founder."""
    ticket = Ticket.get_or_none(Ticket.id == ticket_id)
    if ticket is None:
        return
    founder = owner_from_key(ticket.owner)  # the meter's subject: the account whose desk it is
    mode = business.settings_of(founder)["ai_email_mode"]
    if mode not in ("draft", "auto"):
        return
    # At most once per ticket: a second call (a poll that ran the hook again) finds the agent's message.
    if TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.author == TicketMessage.AGENT).exists():
        return
    try:
        if mode == "draft":
            draft_reply(ticket.id, account_id=founder.account_id)
            return
        copy = _draft_copy(ticket, founder.account_id)
    except Refused as refused:
        log.info("support agent left the ticket", extra={"fields": {"ticket_id": ticket.id, "mode": mode,
                                                                    "reason": refused.reason}})
        return
    left = copy.get("unanswered") or []
    replies.send_reply(ticket.id, _with_rest_to_follow(copy["text"], left), author=TicketMessage.AGENT)
    if left:
        # Part of the message is the founder's to answer: the note says which, and the ticket
        # stays open (the reply made it pending, waiting on the customer, which it is not).
        now = utcnow()
        with transaction():
            _note_left(ticket, left, now)
            Ticket.update(status=Ticket.OPEN, updated_at=now).where(Ticket.id == ticket.id,
                                                                    Ticket.status == Ticket.PENDING).execute()


def _with_rest_to_follow(text: str, left: list[str]) -> str:
    """An automatic reply that answers part of the message says the rest follows from a person,
    before its sign-off."""
    if not left:
        return text
    asked = ", ".join(f"“{part}”" for part in left)
    which = "your other question" if len(left) == 1 else "your other questions"
    body, sep, sign_off = text.rpartition("\n\n")
    said = f"We will answer {which} ({asked}) ourselves in our next mail."
    return f"{body}\n\n{said}{sep}{sign_off}" if sep else f"{text}\n\n{said}"
