"""Customers' mail becomes tickets (the `mail_poll` job, jobs/desk.py).

A poll reads the unread messages of the inbound mailbox (integrations/mail/inbound.py),
and for each one:

1. Parses it (email.policy.default) and finds whose it is by its recipients (To, Cc,
   Delivered-To, X-Original-To): a founder's support address is their
   support_email_local @ the domain connected to a store whose product they claimed
   (services/business.py, services/domains.py). A customer's answer to their order's receipt
   reaches the desk too: the receipt's Reply-To is the store's support address, or, while the
   store has none, the order's reply address (`order_reply_address`: order+<order id> at the
   service's own mail domain, the host of BASE_URL), which files the mail for the founder who
   claimed the order's product. Mail for no founder's address is given to nobody: it is
   counted in the poll's result (`unrouted`) and marked read.
2. Threads it: a message whose In-Reply-To or References names a message of one of the
   founder's tickets (the customer's earlier mail, or our reply's Message-ID) joins that
   ticket, which opens again; anything else is a new ticket, and the founder's keyword
   rules are applied to it, once, in the transaction that creates it.
3. Commits, then marks the messages read in the mailbox.

Exactly once: a message is kept under its sender and its Message-ID (or, when it has none,
a digest of its bytes), unique per founder on TicketMessage: another sender's mail naming
the same Message-ID is not a duplicate, so nobody can keep a customer's mail off the desk by
sending a Message-ID first. Two polls that read the same message at
once both try to insert it; the index lets one through and the other's savepoint rolls
back (its new ticket with it), so there is one ticket whatever the overlap. A poll that
dies after committing and before marking the mail read takes it again next time, and the
index again says it is there already.

After the commit, each new ticket is handed to the support agent once
(services.desk.agent.on_new_ticket: a draft, or an answer, as the founder's ai_email_mode
says); `agent_done_at` records it, so a poll that stopped before the hook ran runs it next
time, and automatic mail (Auto-Submitted, bounces) is never answered by the agent.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from html.parser import HTMLParser

import peewee as pw

from config import get_settings
from integrations.mail import sender_domain, service_address
from integrations.mail.inbound import InboundMail, InboundUnavailable, source_for
from models.clock import iso, utcnow
from models.db import db, transaction
from models.desk import Ticket, TicketMessage
from models.discovery import Claim
from models.domain import DomainOrder
from models.job import Job
from models.payment import CustomerOrder
from services.business import settings_of, store_business
from services.desk import agent, rules
from services.ownership import Owner

log = logging.getLogger("desk.inbound")

MAIL_POLL = "mail_poll"  # the job's kind (jobs/desk.py)
MAIL_POLL_SUBJECT = "inbound"  # one subject: one poll of the mailbox at a time
POLLS_KEPT = timedelta(days=1)  # finished poll jobs kept (the clock starts one a minute)
BATCH = 200  # messages read per poll; the next poll takes the rest
MAX_BYTES = 25 * 1024 * 1024  # a larger message is not read (the mail server's usual cap)
MAX_TEXT = 100_000  # characters of a message's text kept
MAX_SUBJECT = 300
MAX_ID = 300
NO_SUBJECT = "(no subject)"
RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To")
# The local part of an order's reply address begins so; the order's id follows.
ORDER_REPLY = "order+"


@dataclass
class PollResult:
    read: int = 0  # messages read from the mailbox
    new_tickets: list[int] = field(default_factory=list)
    appended: int = 0  # messages added to a ticket's thread
    duplicates: int = 0  # messages already on the desk (another poll took them, or an earlier one)
    unrouted: int = 0  # messages for no founder's support address: given to nobody
    unreadable: int = 0  # messages with no sender to answer, or that do not parse
    agent_runs: int = 0
    error: str | None = None  # the mailbox could not be read (tried again at the next poll)

    def as_dict(self) -> dict:
        return {"read": self.read, "new_tickets": len(self.new_tickets), "appended": self.appended,
                "duplicates": self.duplicates, "unrouted": self.unrouted, "unreadable": self.unreadable,
                "agent_runs": self.agent_runs, "error": self.error}


def poll(*, limit: int = BATCH, settings=None) -> dict:
    """Reads the unread inbound mail into tickets; answers what it did (counts, no addresses)."""
    result = PollResult()
    try:
        source = source_for(settings or get_settings())
    except InboundUnavailable as exc:
        log.warning("inbound mail not read", extra={"fields": {"error": str(exc)}})
        result.error = str(exc)
        return result.as_dict()
    try:
        mails = source.unread(limit)
        result.read = len(mails)
        done = [mail.key for mail in mails if _take(mail, result)]
        # Only now, with every ticket committed, is the mail marked read in the mailbox.
        source.mark_read(done)
    except InboundUnavailable as exc:
        log.warning("inbound mail not read", extra={"fields": {"error": str(exc)}})
        result.error = str(exc)
    finally:
        source.close()
    _run_agent(result)
    if result.read:
        log.info("inbound mail polled", extra={"fields": result.as_dict()})
    return result.as_dict()


def mail_state(*, every_seconds: int) -> dict:
    """What the desk says of its mailbox, from the latest poll that finished (the clock
    starts one every `every_seconds`): when it finished, and whether it read the mailbox
    lately (within two periods: the clock keeps it read)."""
    latest = (Job.select(Job.finished_at, Job.result)
              .where(Job.kind == MAIL_POLL, Job.subject == MAIL_POLL_SUBJECT, Job.status == Job.DONE)
              .order_by(Job.created_at.desc()).first())
    if latest is None or latest.finished_at is None:
        return {"checked": False, "checked_at": None, "every_seconds": every_seconds}
    read = not (latest.result or {}).get("error")
    recent = latest.finished_at >= utcnow() - timedelta(seconds=2 * every_seconds)
    return {"checked": read and recent, "checked_at": iso(latest.finished_at), "every_seconds": every_seconds}


def forget_old_polls() -> int:
    """Deletes finished poll jobs older than a day: the clock starts one every minute."""
    return (Job.delete().where(Job.kind == MAIL_POLL, Job.status.in_(Job.FINISHED),
                               Job.updated_at < utcnow() - POLLS_KEPT).execute())


# --- One message ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Parsed:
    message_id: str
    sender: str  # the customer's address: From (or Sender), never Reply-To
    sender_name: str | None
    recipients: tuple[str, ...]  # lower-case addresses
    subject: str
    text: str
    thread_ids: tuple[str, ...]  # In-Reply-To, then References newest first
    automatic: bool  # Auto-Submitted other than "no", or a bounce


def _take(mail: InboundMail, result: PollResult) -> bool:
    """Files one message on the desk; True when it may be marked read (filed, a duplicate,
    for nobody, or unreadable). A database error propagates: the mail stays unread."""
    parsed = parse(mail.raw)
    if parsed is None:
        result.unreadable += 1
        return True
    founders = _founders_for(parsed.recipients)
    if not founders:
        result.unrouted += 1
        return True
    for owner, support_address, product_id in founders:
        _file(parsed, owner, support_address, product_id, result)
    return True


def parse(raw: bytes) -> Parsed | None:
    """The parts of a message the desk keeps, or None when it has no sender to answer (or is too large)."""
    if len(raw) > MAX_BYTES:
        return None
    try:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        sender = _addresses(message, "From") or _addresses(message, "Sender")
        if not sender:
            return None
        name = _display_name(message)
        recipients = tuple(dict.fromkeys(a for h in RECIPIENT_HEADERS for a in _addresses(message, h)))
        subject = " ".join(str(message.get("Subject") or "").split())[:MAX_SUBJECT] or NO_SUBJECT
        own_id = _message_id(message.get("Message-ID")) or f"<{hashlib.sha256(raw).hexdigest()}@inbound.invalid>"
        thread = [_message_id(message.get("In-Reply-To"))]
        thread += list(reversed(re.findall(r"<[^<>\s]+>", str(message.get("References") or ""))))
        auto = str(message.get("Auto-Submitted") or "no").strip().lower()
        automatic = (auto != "no" or sender[0].startswith(("mailer-daemon@", "postmaster@"))
                     or message.get_content_type() == "multipart/report")
        # The customer is who the mail is from, never its Reply-To: a stranger could name
        # anyone there, and the agent in auto mode would then mail them (the store writing
        # to third parties at a stranger's word).
        return Parsed(message_id=own_id, sender=sender[0], sender_name=name, recipients=recipients,
                      subject=subject, text=_text(message), automatic=automatic,
                      thread_ids=tuple(dict.fromkeys(i for i in thread if i and len(i) <= MAX_ID)))
    except Exception:  # a message no parser path can read is not worth a crashed poll
        log.warning("inbound message not parsed", exc_info=True)
        return None


def _addresses(message: EmailMessage, header: str) -> list[str]:
    found = []
    for value in message.get_all(header) or []:
        try:
            found += [a.addr_spec.lower() for a in value.addresses if a.username and a.domain]
        except AttributeError:  # not an address header to the parser (Delivered-To, X-Original-To)
            found += [address.lower() for _name, address in email.utils.getaddresses([str(value)])
                      if "@" in address]
        except (ValueError, IndexError):
            continue
    return [a for a in found if len(a) <= 254 and " " not in a]


def _display_name(message: EmailMessage) -> str | None:
    try:
        name = message["From"].addresses[0].display_name
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return " ".join(name.split())[:200] or None


def _message_id(value) -> str | None:
    if not value:
        return None
    found = re.search(r"<[^<>\s]+>", str(value))
    text = found.group(0) if found else str(value).strip()
    return text if text and len(text) <= MAX_ID and " " not in text else None


def _text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, AssertionError):  # an unknown charset: the bytes, replaced
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace")
    if not isinstance(content, str):
        return ""
    if part.get_content_type() == "text/html":
        content = _html_text(content)
    content = content.replace("\r\n", "\n").replace("\x00", "")
    return content.strip()[:MAX_TEXT]


class _Words(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in ("br", "p", "div", "li", "tr"):
            self.words.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.words.append(data)


def _html_text(html: str) -> str:
    reader = _Words()
    reader.feed(html)
    return re.sub(r"\n\s*\n+", "\n\n", "".join(reader.words))


# --- Whose it is --------------------------------------------------------------------------------

def support_address_of(product_id: str) -> str | None:
    """The support address of the store of `product_id`, as the Settings of the founder who
    claimed it and its connected domain make it now (None: it has none)."""
    owner = _claimant(product_id)
    return store_business(owner.key, product_id)["support_email"] if owner is not None else None


def order_reply_address(order_id: str) -> str:
    """The order's reply address: mail to it reaches the desk of the founder who claimed the
    order's product, whether or not their store has a support address."""
    return service_address(f"{ORDER_REPLY}{order_id}", get_settings().base_url)


def _claimant(product_id: str) -> Owner | None:
    claim = Claim.get_or_none(Claim.product == product_id)
    return Owner(session_id=claim.session_id, account_id=claim.account_id) if claim is not None else None


def _founders_for(recipients: tuple[str, ...]) -> list[tuple[Owner, str, str]]:
    """(owner, support address, product id) for each recipient that is a founder's support
    address or an order's reply address."""
    found: dict[str, tuple[Owner, str, str]] = {}
    service_domain = sender_domain(get_settings().base_url)
    for address in recipients:
        local, _, domain = address.rpartition("@")
        if not local or not domain:
            continue
        if domain == service_domain:
            order_id = local.removeprefix(ORDER_REPLY) if local.startswith(ORDER_REPLY) else None
            order = CustomerOrder.get_or_none(CustomerOrder.id == order_id) if order_id else None
            owner = _claimant(order.product_id) if order is not None else None
            if owner is not None:
                found.setdefault(owner.key, (owner, address, order.product_id))
            continue
        order = (DomainOrder.select(DomainOrder.product, DomainOrder.session, DomainOrder.account)
                 .where(DomainOrder.domain == domain, DomainOrder.state == DomainOrder.CONNECTED).first())
        if order is None:
            continue
        owner = _claimant(order.product_id)
        if owner is None:
            continue
        # The domain must be the claimant's own (they ordered it for their store), and the
        # local part the one their settings name: anything else reaches nobody.
        if not owner.has(order) or (settings_of(owner)["support_email_local"] or "") != local:
            continue
        found.setdefault(owner.key, (owner, address, order.product_id))
    return list(found.values())


# --- Filing ---------------------------------------------------------------------------------------

def _file(parsed: Parsed, owner: Owner, support_address: str, product_id: str, result: PollResult) -> None:
    now = utcnow()
    try:
        with transaction():
            # A savepoint inside: the loser of a race on the unique index rolls back its own
            # rows only (a new ticket included), and the transaction stays usable.
            with db.atomic():
                ticket = _thread_of(parsed, owner)
                created = ticket is None
                if created:
                    ticket = Ticket.create(
                        owner=owner.key, session=owner.session_id, account=owner.account_id,
                        subject=parsed.subject, customer_email=parsed.sender, customer_name=parsed.sender_name,
                        support_address=support_address, product=product_id, created_at=now, updated_at=now,
                        # Automatic mail is never handed to the agent (no answering a bounce).
                        agent_done_at=now if parsed.automatic else None)
                TicketMessage.create(ticket=ticket, owner=owner.key, direction=TicketMessage.IN,
                                     author=TicketMessage.CUSTOMER, from_addr=parsed.sender,
                                     to_addr=support_address, subject=parsed.subject, text=parsed.text,
                                     message_id=parsed.message_id,
                                     in_reply_to=parsed.thread_ids[0] if parsed.thread_ids else None,
                                     created_at=now)
                if created:
                    rules.apply(ticket, subject=parsed.subject, text=parsed.text)
                else:
                    # The customer wrote again: the ticket is theirs to answer once more.
                    (Ticket.update(updated_at=now, status=Ticket.OPEN)
                     .where(Ticket.id == ticket.id).execute())
    except pw.IntegrityError:
        result.duplicates += 1
        return
    if created:
        result.new_tickets.append(ticket.id)
    else:
        result.appended += 1


def _thread_of(parsed: Parsed, owner: Owner) -> Ticket | None:
    """The founder's ticket holding a message this one answers (In-Reply-To first), or None."""
    if not parsed.thread_ids:
        return None
    rows = {m.message_id: m.ticket_id for m in TicketMessage.select(TicketMessage.message_id, TicketMessage.ticket)
            .where(TicketMessage.owner == owner.key, TicketMessage.message_id.in_(list(parsed.thread_ids)))}
    for message_id in parsed.thread_ids:
        if message_id in rows:
            return Ticket.get_or_none(Ticket.id == rows[message_id], Ticket.owner == owner.key)
    return None


# --- The agent, once per new ticket -----------------------------------------------------------------

def _run_agent(result: PollResult) -> None:
    """Hands each new ticket not yet handed to the agent to it, once (also those an earlier
    poll committed but stopped before handing over)."""
    pending = [t.id for t in Ticket.select(Ticket.id).where(Ticket.agent_done_at.is_null()).order_by(Ticket.id)
               .limit(BATCH)]
    for ticket_id in pending:
        # Claimed with one conditional UPDATE: two polls never hand one ticket over twice.
        if Ticket.update(agent_done_at=utcnow()).where(Ticket.id == ticket_id,
                                                       Ticket.agent_done_at.is_null()).execute() != 1:
            continue
        try:
            agent.on_new_ticket(ticket_id)
            result.agent_runs += 1
        except Exception:  # the ticket stays on the desk for the founder; the agent's fault is logged
            log.warning("support agent failed on a new ticket", exc_info=True,
                        extra={"fields": {"ticket_id": ticket_id}})
