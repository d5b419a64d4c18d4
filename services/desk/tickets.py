"""The founder's desk (GET, POST /api/helpdesk): the tickets with counts by status, and the
actions on one ticket: set (status, priority or category), reply, note and draft.

A ticket is the founder's alone: any other id (another founder's, or none) is
`ticket_not_found`, alike. Solving or closing needs a resolution, kept on the ticket. A
reply is mailed to the customer, threaded, and leaves an open ticket pending
(services/desk/replies.py, which the support agent answers through too). A note is for the
founder only. A draft is the support agent's (services/desk/agent.py), written through the
AI seam and metered `support`.
"""
from __future__ import annotations

import peewee as pw

from models.clock import iso, utcnow
from models.db import transaction
from models.desk import Ticket, TicketMessage
from models.session import Session
from services.desk import agent, orders_lookup, replies, satisfaction
from services.errors import Refused
from services.ownership import owner_of

ACTIONS = ("set", "reply", "note", "draft")
SETTABLE = {"status": Ticket.STATUSES, "priority": Ticket.PRIORITIES, "category": Ticket.CATEGORIES}
MAX_TEXT = 20_000  # characters of a reply or a note
MAX_RESOLUTION = 2_000
LISTED = 100  # tickets answered by GET, the latest changed first


# --- Reading -----------------------------------------------------------------------------------

def desk(*, session: Session, support_email: str | None = None) -> dict:
    """GET /api/helpdesk: the founder's tickets (latest changed first) and their counts by status."""
    owner = owner_of(session)
    counts = {status: 0 for status in Ticket.STATUSES}
    for status, count in (Ticket.select(Ticket.status, pw.fn.COUNT(Ticket.id)).where(Ticket.owner == owner.key)
                          .group_by(Ticket.status).tuples()):
        counts[status] = count
    total = sum(counts.values())
    if total == 0:
        return {"status": "no_tickets_yet", "reason": "no_tickets_yet",
                "explanation": "You have no support tickets yet. They will appear here when customers write to "
                               + (support_email or "your support address") + ".",
                "tickets": [], "counts": counts, "total": 0, "support_email": support_email}
    rows = list(Ticket.select().where(Ticket.owner == owner.key)
                .order_by(Ticket.updated_at.desc(), Ticket.id.desc()).limit(LISTED))
    threads: dict[int, list[TicketMessage]] = {t.id: [] for t in rows}
    for message in (TicketMessage.select().where(TicketMessage.ticket.in_(list(threads)))
                    .order_by(TicketMessage.id)):  # one query for every listed ticket's messages
        threads[message.ticket_id].append(message)
    # One query for every listed ticket's order, as for their messages.
    orders = orders_lookup.order_answers(
        orders_lookup.orders_for(owner.key, [orders_lookup.wanted_of(t, threads[t.id]) for t in rows]))
    return {"status": "ok", "tickets": [ticket_answer(t, messages=threads[t.id], order=orders.get(t.id, {}))
                                        for t in rows],
            "counts": counts, "total": total, "support_email": support_email}


def ticket_answer(ticket: Ticket, *, messages: list[TicketMessage] | None = None, order: dict | None = None) -> dict:
    """A ticket as the API answers it, with its messages oldest first and the order its
    customer wrote about (`order`: its answer, {} for none; looked up when None)."""
    if messages is None:
        messages = list(TicketMessage.select().where(TicketMessage.ticket == ticket.id).order_by(TicketMessage.id))
    if order is None:
        matched = orders_lookup.order_of(ticket, messages)
        order = orders_lookup.order_answer(*matched) if matched else {}
    return {"id": ticket.id, "subject": ticket.subject, "customer_email": ticket.customer_email,
            "customer_name": ticket.customer_name, "status": ticket.status, "priority": ticket.priority,
            "category": ticket.category, "messages": [_message_answer(m) for m in messages],
            "resolution": ticket.resolution, "satisfaction": _satisfaction(ticket),
            "product_id": ticket.product_id, "support_address": ticket.support_address,
            "order": order or None,
            "created_at": iso(ticket.created_at), "updated_at": iso(ticket.updated_at)}


def _message_answer(message: TicketMessage) -> dict:
    return {"id": message.id, "direction": message.direction, "author": message.author, "from": message.from_addr,
            "to": message.to_addr, "subject": message.subject, "text": message.text,
            "created_at": iso(message.created_at), "message_id": message.message_id, "sent": message.sent}


def _satisfaction(ticket: Ticket) -> dict | None:
    return satisfaction.ticket_satisfaction(ticket.id)


# --- Acting ----------------------------------------------------------------------------------------

def act(*, session: Session, action: str | None, ticket_id=None, field: str | None = None, value=None,
        resolution=None, text=None) -> dict:
    """POST /api/helpdesk: one action on one of the founder's tickets; answers the ticket as it now is."""
    if action not in ACTIONS:
        raise Refused("unknown_action", "The desk can set a ticket's status, priority or category, reply, add a "
                                        "note or draft a reply (action set, reply, note or draft); nothing was "
                                        "changed.")
    ticket = _own(session, ticket_id)
    if action == "set":
        status = _set(ticket, field, value, resolution)
        extra = {}
    elif action == "reply":
        words = _text(text, empty="empty_reply", what="reply")
        message = replies.send_reply(ticket.id, words, author=TicketMessage.FOUNDER)
        status, extra = "replied", {"message": _message_answer(message)}
    elif action == "note":
        words = _text(text, empty="empty_note", what="note")
        with transaction():
            note = TicketMessage.create(ticket=ticket.id, owner=ticket.owner, direction=TicketMessage.NOTE,
                                        author=TicketMessage.FOUNDER, text=words, created_at=utcnow())
            Ticket.update(updated_at=utcnow()).where(Ticket.id == ticket.id).execute()
        status, extra = "noted", {"message": _message_answer(note)}
    else:
        drafted = agent.draft_reply(ticket.id, account_id=session.account_id)
        status, extra = "drafted", {"draft": drafted}
    return {"status": status, "ticket": ticket_answer(Ticket.get_by_id(ticket.id)), **extra}


def _own(session: Session, ticket_id) -> Ticket:
    """The founder's ticket by id; another founder's (or none) is ticket_not_found, alike."""
    if isinstance(ticket_id, bool) or not isinstance(ticket_id, int):
        raise Refused("ticket_not_found", "Name the ticket by its id (a whole number from the desk); nothing was "
                                          "changed.")
    ticket = Ticket.get_or_none(Ticket.id == ticket_id, Ticket.owner == owner_of(session).key)
    if ticket is None:
        raise Refused("ticket_not_found", "There is no ticket with that id on your desk; nothing was changed.")
    return ticket


def _set(ticket: Ticket, field: str | None, value, resolution) -> str:
    if field not in SETTABLE:
        raise Refused("bad_field", "Only a ticket's status, priority or category can be set; nothing was changed.",
                      field=field if isinstance(field, str) else None)
    if value not in SETTABLE[field]:
        raise Refused("invalid_ticket_value", f"A ticket's {field} is one of {', '.join(SETTABLE[field])}; nothing "
                                              "was changed.", field=field)
    changes = {field: value, "updated_at": utcnow()}
    if field == "status" and value in Ticket.FINISHED:
        words = resolution.strip() if isinstance(resolution, str) else ""
        if not words:
            raise Refused("resolution_required", f"A ticket is {value} only with a resolution: say in a sentence how "
                                                 "it was resolved; nothing was changed.")
        if len(words) > MAX_RESOLUTION:
            raise Refused("text_too_long", f"A resolution can be {MAX_RESOLUTION} characters at most; nothing was "
                                           "changed.")
        changes["resolution"] = words
    with transaction():
        Ticket.update(**changes).where(Ticket.id == ticket.id).execute()
    return "updated"


def _text(text, *, empty: str, what: str) -> str:
    words = text.strip() if isinstance(text, str) else ""
    if not words:
        raise Refused(empty, f"Your {what} is empty: write it first; nothing was {'sent' if what == 'reply' else 'saved'}.")
    if len(words) > MAX_TEXT or "\x00" in words:
        raise Refused("text_too_long", f"A {what} can be {MAX_TEXT} characters at most, with no NUL characters; "
                                       "nothing was changed.")
    return words
