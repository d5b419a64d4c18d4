"""The order a ticket is about (issue 50 point 4): the founder's customer order whose number
the customer's mail names, else the latest order placed with the address the mail came from.
The desk shows it on the ticket (GET /api/helpdesk `order`) and the support agent answers
"where is my order?" with its status, as the order's row holds it.

Only the founder's own orders are looked at: those of the stores they own (Store.owner is the
ticket's owner key). A number another founder's order carries, or an address that bought
only from another store, matches nothing, so one founder's desk never shows or tells
another's order.

An order's number is what the customer's receipt and thank-you page show: the first 8
characters of its id (services/commerce/order_number.py); a link's whole 32-character id is
taken too. The number is searched as a whole word, in any case. Nothing is stored: the match
is read again each time from the ticket's messages and the orders, so a refund or a payment
confirmed later shows at once, with no column to keep in step.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import peewee as pw

from models.clock import iso
from models.desk import Ticket, TicketMessage
from models.payment import CustomerOrder
from models.store import Store
from services.money import display
from services.store.own import name_of

NUMBERS_READ = 5  # order numbers taken from one message (a mail full of hex is not searched whole)
BY_NUMBER, BY_SENDER = "number", "sender"


# services.commerce is imported when first needed, not with this module: its package imports
# the order mails, which import the desk's inbound mail, which imports the agent and this.
def order_number(order_id: str) -> str:
    from services.commerce.order_number import order_number as number_of
    return number_of(order_id)


@cache
def _number_length() -> int:
    from services.commerce.order_number import NUMBER_LENGTH
    return NUMBER_LENGTH


@cache
def _numbers() -> re.Pattern:
    return re.compile(rf"(?<![0-9a-z])(?:[0-9a-f]{{32}}|[0-9a-f]{{{_number_length()}}})(?![0-9a-z])", re.IGNORECASE)


@dataclass(frozen=True)
class Wanted:
    """What one ticket could match: the numbers its customer's mail names (newest message
    first) and the address it came from."""

    ticket_id: int
    numbers: tuple[str, ...]
    email: str


def numbers_in(text: str) -> list[str]:
    """The order numbers (or whole ids) a text names, lower-cased, in order, each once."""
    found: list[str] = []
    for match in _numbers().finditer(text or ""):
        number = match.group(0).lower()
        if number not in found:
            found.append(number)
        if len(found) == NUMBERS_READ:
            break
    return found


def wanted_of(ticket: Ticket, messages: Iterable[TicketMessage]) -> Wanted:
    """What the ticket's customer wrote that can name an order: the numbers in their
    messages (the newest first, then the subject) and their address."""
    numbers: list[str] = []
    inbound = [m for m in messages if m.direction == TicketMessage.IN]
    for text in [m.text for m in sorted(inbound, key=lambda m: m.id, reverse=True)] + [ticket.subject]:
        numbers += [n for n in numbers_in(text) if n not in numbers]
    return Wanted(ticket.id, tuple(numbers), (ticket.customer_email or "").strip().lower())


def orders_for(owner_key: str, wanted: list[Wanted]) -> dict[int, tuple[CustomerOrder, str]]:
    """Each ticket's order and how it matched (BY_NUMBER or BY_SENDER), among the founder's
    own stores' orders, in one query for all the tickets: a number named wins; else the
    sender's latest paid order, else their latest of any state."""
    numbers = {n for w in wanted for n in w.numbers}
    emails = {w.email for w in wanted if w.email}
    if not numbers and not emails:
        return {}
    short = {n for n in numbers if len(n) == _number_length()}
    whole = numbers - short
    matches = pw.fn.LOWER(CustomerOrder.email).in_(sorted(emails)) if emails else None
    for condition in ((pw.fn.SUBSTR(CustomerOrder.id, 1, _number_length()).in_(sorted(short)) if short else None),
                      (CustomerOrder.id.in_(sorted(whole)) if whole else None)):
        if condition is not None:
            matches = condition if matches is None else (matches | condition)
    stores = Store.select(Store.product).where(Store.owner == owner_key)
    rows = list(CustomerOrder.select().where(CustomerOrder.product.in_(stores), matches)
                .order_by(CustomerOrder.created_at.desc(), CustomerOrder.id.desc()))
    found: dict[int, tuple[CustomerOrder, str]] = {}
    for w in wanted:
        named = next((row for n in w.numbers for row in rows if row.id == n or order_number(row.id) == n), None)
        if named is not None:
            found[w.ticket_id] = (named, BY_NUMBER)
            continue
        theirs = [row for row in rows if w.email and row.email.lower() == w.email]
        latest = next((row for row in theirs if row.state == CustomerOrder.PAID), theirs[0] if theirs else None)
        if latest is not None:
            found[w.ticket_id] = (latest, BY_SENDER)
    return found


def order_of(ticket: Ticket, messages: Iterable[TicketMessage] | None = None) -> tuple[CustomerOrder, str] | None:
    """The order one ticket is about and how it matched, or None."""
    if messages is None:
        messages = TicketMessage.select().where(TicketMessage.ticket == ticket.id, TicketMessage.direction == TicketMessage.IN)
    return orders_for(ticket.owner, [wanted_of(ticket, messages)]).get(ticket.id)


# --- In words ------------------------------------------------------------------------------------

def _day(moment) -> str:
    return f"{moment.day} {moment:%B %Y}" if moment is not None else ""


def status_words(order: CustomerOrder) -> str:
    """The order's state as a customer is told it: only what its row holds (payment taken or
    not), never a delivery the service has no record of."""
    return {CustomerOrder.PAID: "paid", CustomerOrder.OPEN: "awaiting payment",
            CustomerOrder.FAILED: "payment declined", CustomerOrder.EXPIRED: "closed unpaid"}.get(order.state, order.state)


def order_sentence(order: CustomerOrder) -> str:
    """The sentence the agent answers an order question with, and cites."""
    what = f"{order.quantity} × {name_of(order.product_id) or 'item'}, {display(order.amount_minor, order.currency)}"
    number = order_number(order.id)
    if order.state == CustomerOrder.PAID:
        return f"Your order {number} ({what}) was placed and paid on {_day(order.paid_at or order.created_at)}."
    if order.state == CustomerOrder.OPEN:
        return f"Your order {number} ({what}) was started on {_day(order.created_at)} and is not paid yet."
    if order.state == CustomerOrder.FAILED:
        return (f"The payment for your order {number} ({what}) of {_day(order.created_at)} was declined, so the order "
                "was not placed.")
    return f"Your order {number} ({what}) of {_day(order.created_at)} was not paid, so it was closed."


def order_answers(found: dict[int, tuple[CustomerOrder, str]]) -> dict[int, dict]:
    """Each ticket's order as its API answer shows it; each product's name read once."""
    names = {pid: name_of(pid) for pid in {order.product_id for order, _how in found.values()}}
    return {ticket_id: order_answer(order, how, product_name=names[order.product_id])
            for ticket_id, (order, how) in found.items()}


def order_answer(order: CustomerOrder, how: str, *, product_name: str | None = None) -> dict:
    """The order as a ticket's API answer shows it."""
    return {"order_id": order.id, "number": order_number(order.id), "matched_by": how, "status": order.state,
            "status_words": status_words(order), "product_id": order.product_id,
            "product_name": product_name or name_of(order.product_id), "quantity": order.quantity,
            "amount_minor": order.amount_minor, "currency": order.currency,
            "total": display(order.amount_minor, order.currency), "created_at": iso(order.created_at),
            "paid_at": iso(order.paid_at)}


def task_order(order: CustomerOrder) -> dict:
    """The order as the agent's task carries it (services/desk/answers.py reads `said`)."""
    return {"number": order_number(order.id), "status": order.state, "said": order_sentence(order)}
