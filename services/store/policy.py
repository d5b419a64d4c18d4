"""The founder's policy as an edit states it: "mention free returns within 30 days" is the
founder stating their return window, so the edit saves it as their statement (services/
founder_statements.py, in business settings) with the new version, and the copy may then say
it. Shared by the store editor (edits.py) and the ad editor (services/growth/ads.py).

Also the grammar's reading of the request as a model's context: a model backend is given the
same parse the offline editor applies (services/plain_requests.py), so both read one request
the same way.
"""
from __future__ import annotations

from models.store import Store
from services import founder_statements, plain_requests


def stated_in_requests(parsed: plain_requests.Parsed) -> dict:
    """The statement fields the request's "mention ..." parts state ({} when none)."""
    stated: dict = {}
    for request in parsed.requests:
        if request.verb == plain_requests.MENTION:
            stated.update(founder_statements.stated_in(request.text))
    return stated


def with_stated(statements: tuple[str, ...], stated: dict) -> tuple[str, ...]:
    """The policy sentences with what the request states added (before it is saved), so the
    offline writers and a model may say it."""
    if not stated:
        return tuple(statements)
    said = founder_statements.sentences(founder_statements.Statements(**{
        k: v for k, v in founder_statements.checked(stated, founder_statements.Statements()).items()}))
    return (*statements, *(s for s in said.values() if s not in statements))


def save_stated(product_id: str, stated: dict) -> None:
    """Saves the statements into the business settings of the store's owner."""
    store = Store.get(Store.product == product_id)
    founder_statements.save(store.owner, stated)


def with_policy(document: dict, policy: dict) -> dict:
    """The document with the owner's policy as its pages show it (the business block's `policy`)."""
    business = {k: v for k, v in (document.get("business") or {}).items() if k != "policy"}
    if policy:
        business["policy"] = dict(policy)
    return {**document, "business": business}


def parsed_context(parsed: plain_requests.Parsed | None) -> dict:
    """{"requests": [...]}: the grammar's reading of the message, for a model's context; {}
    when there is none (a field named: the message is its new text) or nothing was understood."""
    return {"requests": [r.as_dict() for r in parsed.requests]} if parsed and parsed.requests else {}
