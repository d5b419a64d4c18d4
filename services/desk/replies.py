"""Replying on a ticket: the one way a reply reaches a customer, whether the founder wrote it
(services/desk/tickets.py) or the support agent did (services/desk/agent.py).

Its own module so the dependency goes one way: the desk's actions call the agent (to draft)
and both call this, and this calls neither. A reply is mailed threaded (our own Message-ID at
the store's support domain, In-Reply-To the customer's last message, References the thread),
with Reply-To the store's support address, so the customer's answer comes back to the desk
and joins the same ticket; it leaves an open ticket pending (waiting on the customer) and
carries its one-click rating link (services/desk/satisfaction.py).
"""
from __future__ import annotations

import email.utils
import logging

from config import get_settings
from integrations.mail import MailRejected, MailUnavailable, Message, get_mailer
from integrations.mail.render import render
from models.clock import utcnow
from models.db import transaction
from models.desk import Ticket, TicketMessage
from services.business import settings_of
from services.desk import satisfaction
from services.ownership import owner_from_key

log = logging.getLogger("desk")

REFERENCES_KEPT = 20  # Message-IDs in a reply's References (the thread's latest)


def send_reply(ticket_id: int, text: str, *, author: str = TicketMessage.FOUNDER) -> TicketMessage:
    """Mails a reply on the ticket to its customer and keeps it on the thread; answers the message
    (`sent` says whether the mailer took it: a mailer that is down is reported, not hidden)."""
    ticket = Ticket.get_by_id(ticket_id)
    thread = list(TicketMessage.select().where(TicketMessage.ticket == ticket.id,
                                               TicketMessage.direction.in_((TicketMessage.IN, TicketMessage.OUT)),
                                               TicketMessage.message_id.is_null(False))
                  .order_by(TicketMessage.id))
    answered = next((m for m in reversed(thread) if m.direction == TicketMessage.IN), thread[-1] if thread else None)
    domain = ticket.support_address.rpartition("@")[2] or None
    message_id = email.utils.make_msgid(idstring="desk", domain=domain)
    subject = ticket.subject if ticket.subject.lower().startswith("re:") else f"Re: {ticket.subject}"
    now = utcnow()
    with transaction():
        row = TicketMessage.create(ticket=ticket.id, owner=ticket.owner, direction=TicketMessage.OUT, author=author,
                                   from_addr=ticket.support_address, to_addr=ticket.customer_email,
                                   subject=subject[:300], text=text, message_id=message_id,
                                   in_reply_to=answered.message_id if answered else None, created_at=now)
        waiting = Ticket.PENDING if ticket.status == Ticket.OPEN else ticket.status
        Ticket.update(updated_at=now, status=waiting).where(Ticket.id == ticket.id).execute()
    link = satisfaction.rating_link(row.id)
    mail_subject, mail_text, mail_html = render("desk_reply", subject=subject, text=text, rating_link=link)
    settings = settings_of(owner_from_key(ticket.owner))
    mail = Message(to=ticket.customer_email, subject=mail_subject, text=mail_text, html=mail_html,
                   message_id=message_id, in_reply_to=row.in_reply_to,
                   references=tuple(m.message_id for m in thread)[-REFERENCES_KEPT:],
                   reply_to=ticket.support_address, from_name=settings["business_name"],
                   auto_submitted=author != TicketMessage.FOUNDER)
    try:
        get_mailer(get_settings()).send(mail)
        sent = True
    except (MailUnavailable, MailRejected) as exc:
        log.warning("desk reply not sent", extra={"fields": {"ticket_id": ticket.id, "message": row.id,
                                                            "error": str(exc)[:200]}})
        sent = False
    TicketMessage.update(sent=sent).where(TicketMessage.id == row.id).execute()
    return TicketMessage.get_by_id(row.id)
