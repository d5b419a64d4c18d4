"""The founder's keyword rules (POST /api/settings/rules; decisions.md "Desk, tasks and
settings"): when a new ticket's subject or text contains a rule's keyword, the rule sets
its category, priority or status.

Rules are applied by the inbound poll (services/desk/inbound.py) to each new ticket, once,
in the transaction that creates it, oldest rule first (so where two rules set one field,
the newer one's value stands). A message that joins an existing ticket is not matched
again: the founder may have changed what the rules set. A rule cannot solve or close a
ticket: those need a resolution, which only the founder writes.
"""
from __future__ import annotations

import unicodedata

from models.clock import iso, utcnow
from models.db import transaction
from models.desk import KeywordRule, Ticket
from models.session import Session
from services.errors import Refused
from services.ownership import owner_of

OPS = ("add", "delete")
MAX_KEYWORD = 100
MAX_RULES = 100
SETTABLE = {
    "category": Ticket.CATEGORIES,
    "priority": Ticket.PRIORITIES,
    "status": (Ticket.OPEN, Ticket.PENDING),  # solved and closed need a resolution
}


def rules_of(*, session: Session) -> dict:
    """The founder's rules, oldest first."""
    owner = owner_of(session)
    rows = KeywordRule.select().where(KeywordRule.owner == owner.key).order_by(KeywordRule.id)
    return {"status": "ok", "rules": [_row(rule) for rule in rows]}


def change(*, session: Session, op: str | None, keyword=None, sets=None, rule_id=None) -> dict:
    """POST /api/settings/rules: adds or deletes a rule; answers it and the whole list."""
    owner = owner_of(session)
    if op not in OPS:
        raise Refused("unknown_op", "Keyword rules can be added (op add) or deleted (op delete); nothing was changed.")
    if op == "add":
        words = _keyword(keyword)
        values = _sets(sets)
        with transaction():
            if KeywordRule.select().where(KeywordRule.owner == owner.key).count() >= MAX_RULES:
                raise Refused("invalid_rule", f"You can keep {MAX_RULES} keyword rules at most: delete one first; "
                                              "nothing was added.")
            rule = KeywordRule.create(owner=owner.key, session=session.id, account=session.account_id,
                                      keyword=words, created_at=utcnow(),
                                      **{f"set_{name}": value for name, value in values.items()})
        return {**rules_of(session=session), "status": "added", "rule": _row(rule)}
    if isinstance(rule_id, bool) or not isinstance(rule_id, int):
        raise Refused("invalid_rule", "Name the rule to delete by its id (a whole number); nothing was changed.")
    deleted = KeywordRule.delete().where(KeywordRule.id == rule_id, KeywordRule.owner == owner.key).execute()
    if not deleted:
        raise Refused("not_found", "You have no keyword rule with that id; nothing was changed.")
    return {**rules_of(session=session), "status": "deleted", "rule": None}


def _keyword(keyword) -> str:
    words = " ".join(keyword.split()) if isinstance(keyword, str) else ""
    if (not words or len(words) > MAX_KEYWORD
            or any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in words)):
        raise Refused("invalid_rule", f"A rule needs a keyword of 1 to {MAX_KEYWORD} characters on one line; nothing "
                                      "was added.", field="keyword")
    return words


def _sets(sets) -> dict:
    if not isinstance(sets, dict) or not sets:
        raise Refused("invalid_rule", "A rule must set at least one of category, priority or status; nothing was "
                                      "added.", field="set")
    values = {}
    for name, value in sets.items():
        if name not in SETTABLE:
            raise Refused("invalid_rule", "A rule can set a ticket's category, priority or status only; nothing "
                                          "was added.", field=f"set.{name}"[:60])
        if value not in SETTABLE[name]:
            raise Refused("invalid_rule", f"A rule's {name} must be one of {', '.join(SETTABLE[name])}; nothing was "
                                          "added.", field=f"set.{name}")
        values[name] = value
    return values


def apply(ticket: Ticket, *, subject: str, text: str) -> list[int]:
    """Sets on a new ticket what its founder's matching rules set (inside the caller's
    transaction); answers the ids of the rules that matched."""
    haystack = f"{subject}\n{text}".casefold()
    changes, matched = {}, []
    for rule in KeywordRule.select().where(KeywordRule.owner == ticket.owner).order_by(KeywordRule.id):
        if rule.keyword.casefold() not in haystack:
            continue
        matched.append(rule.id)
        for name in SETTABLE:
            value = getattr(rule, f"set_{name}")
            if value is not None:
                changes[name] = value
    if changes:
        Ticket.update(**changes).where(Ticket.id == ticket.id).execute()
    return matched


def _row(rule: KeywordRule) -> dict:
    sets = {name: getattr(rule, f"set_{name}") for name in SETTABLE if getattr(rule, f"set_{name}") is not None}
    return {"id": rule.id, "keyword": rule.keyword, "set": sets, "created_at": iso(rule.created_at)}
