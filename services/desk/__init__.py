"""The support desk (issue 25): customers' mail becomes tickets (inbound.py), the founder
acts on them (tickets.py) and keeps keyword rules (rules.py). The support agent and the
satisfaction ratings (agent.py, satisfaction.py) build on these; a reply, the founder's or
the agent's, goes out through replies.py, so the desk's actions call the agent and never
the other way round. Two leaves serve the agent and the desk alike: parts.py cuts a message
into the questions it asks, orders_lookup.py finds the founder's order a ticket is about.

A founder's desk rows are keyed by owner ("session:<id>" or "account:<id>"), so when a
session is bound to an account its tickets, their messages and its rules become the
account's (the adopter below).
"""
from __future__ import annotations

from models.desk import KeywordRule, Ticket, TicketMessage
from services.ownership import adopter, adoption_keys, session_key


def _desk_held(session_id: int) -> list[str]:
    key = session_key(session_id)
    tickets = Ticket.select().where(Ticket.owner == key).count()
    rules = KeywordRule.select().where(KeywordRule.owner == key).count()
    return ([f"{tickets} support conversation{'' if tickets == 1 else 's'}"] if tickets else []) + (
        [f"{rules} support rule{'' if rules == 1 else 's'}"] if rules else [])


@adopter(kind="desk", held=_desk_held)
def adopt_desk(session_id: int, account_id: int) -> dict:
    """A session's tickets, their messages and its keyword rules become its account's."""
    session_key, account_key = adoption_keys(session_id, account_id)
    moved = Ticket.update(owner=account_key, account=account_id).where(Ticket.owner == session_key).execute()
    TicketMessage.update(owner=account_key).where(TicketMessage.owner == session_key).execute()
    rules = (KeywordRule.update(owner=account_key, account=account_id)
             .where(KeywordRule.owner == session_key).execute())
    return {"desk": [f"{moved} tickets", f"{rules} rules"]} if moved or rules else {}
