"""What a find, feed or pass knows about its owner before it acts, read in one statement:

- the resolver's two facts (the most recent claim, the live hold: the same queries as
  `resolver.resolve_owner`, answered through `resolver.resolved`);
- the claim allowance;
- the held product with its gate figures (so its card needs no second read) and whether
  it is recorded as seen;
- which of the find_served and shown_field milestones are reached (a request records
  only those that are not).

A feed's candidates are a statement of their own (cards.candidates): joined to this one by
UNION ALL, PostgreSQL took longer to plan the whole (1.7 ms) than to plan and run both
apart (0.8 ms).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

import peewee as pw

from models.account import Account, Milestone
from models.catalog import Product
from models.db import KeptSQL, db, param, read_row
from models.discovery import Claim, ClaimAllowance, Hold, ProductGate
from models.session import Session
from services import meter, milestones
from services.discovery.allowance import BASE_ALLOWANCE, Allowance
from services.discovery.cards import CANDIDATE_COLUMNS, CARD_FIELDS, CARD_READERS, card_columns, seen_flag
from services.discovery.resolver import Resolved, latest_claim, live_hold, param_owner, resolved
from services.ownership import Owner
from services.sessions import SESSION_FIELDS, StaleSession

MILESTONES = (milestones.FIND_SERVED, milestones.SHOWN_FIELD)  # what a find or feed advances


@dataclass(frozen=True)
class OwnerState:
    resolved: Resolved | None
    allowance: Allowance
    held: object | None  # the live hold's product and gate figures (card fields), when it has one
    # The same product's card columns as the driver returned them (a candidate row's first
    # values: cards.candidate_card takes either), when it has one.
    held_card: tuple | None
    held_seen: bool  # the held product is recorded as seen by the owner
    missing_milestones: tuple  # (name, session_id, account_id) rows a find or feed must record
    # A bound owner's account as the meter reads it (id, tier, term_ends_at, referrals: what
    # meter.spend would read next), None when the account is gone; unbound: None too.
    account: object | None = None


# The account's columns the meter's spend reads (services/meter._build_account_plan's).
AccountPlan = namedtuple("AccountPlan", "id tier term_ends_at referrals")


def read_state(owner: Owner, now: datetime, *, check: dict | None = None) -> OwnerState:
    """Reads what the owner has now, in one statement.

    `check`: the owner's session as this process read it before (sessions.remembered_session,
    every column), not read again for this request. The statement reads the row of its token
    too, and when that is not exactly `check` (signed in since, given a new token, pruned)
    this raises StaleSession: what was read was for an owner the request may no longer be,
    and nothing has been written yet."""
    bound = owner.account_id is not None
    checked = check is not None
    raw = db.execute_sql(*state_sql(owner, now, token_hash=check["token_hash"] if checked else None)).fetchone()
    row = _state_row(checked)._make(read_row(_readers(checked), raw))
    if checked and {field.name: getattr(row, f"session_{field.name}") for field in SESSION_FIELDS} != check:
        raise StaleSession()
    allowance = Allowance(BASE_ALLOWANCE + (row.lifts or 0), row.claims_made or 0)
    missing = [(name, owner.session_id, None)
               for name, reached in zip(MILESTONES, (row.session_m0, row.session_m1), strict=True) if not reached]
    if bound:
        missing += [(name, None, owner.account_id)
                    for name, reached in zip(MILESTONES, (row.account_m0, row.account_m1), strict=True) if not reached]
    account = AccountPlan(owner.account_id, row.plan_tier, row.plan_term_ends_at, row.plan_referrals) \
        if bound and row.plan_tier is not None else None
    return OwnerState(resolved=resolved(row.claimed_id, row.hold_id, row.held_until), allowance=allowance,
                      held=row if row.product_id is not None else None, held_seen=bool(row.held_seen),
                      held_card=raw[_HELD_CARD] if row.product_id is not None else None,
                      missing_milestones=tuple(missing), account=account)


def state_sql(owner: Owner, now: datetime, *, token_hash: str | None = None) -> tuple[str, list]:
    """The statement `read_state` runs (see there), as SQL text and its parameters."""
    values = dict(session_id=owner.session_id, account_id=owner.account_id, key=owner.key, now=now)
    if token_hash is not None:
        values["token_hash"] = token_hash
    return _STATE.sql(owner.account_id is not None, token_hash is not None, **values)


def _state_statement(bound: bool, checked: bool):
    """The state's row; its values are named (models/db.KeptSQL): session_id, account_id,
    key, now, and token_hash when `checked`."""
    owner = param_owner(bound)
    held = live_hold(owner, param("now")).alias("held")
    return _state_query(owner, held, param("key"), _state_columns(owner, held, checked),
                        param("token_hash") if checked else None)


_STATE = KeptSQL(_state_statement)


def _reached(owner: Owner, name: str, bound_to_account: bool):
    """Whether a milestone is reached, as a column (true when so; false or null when not).
    (session, name) is unique, so the session's flag reads that one row's account (null:
    the session's own row), by that unique key."""
    if bound_to_account:
        return pw.fn.EXISTS(Milestone.select(Milestone.id).where(Milestone.account == owner.account_id,
                                                                 Milestone.name == name))
    return Milestone.select(Milestone.account.is_null()).where(Milestone.session == owner.session_id,
                                                               Milestone.name == name)


def _state_columns(owner: Owner, held, checked: bool) -> list[tuple[str, object, pw.Field | None]]:
    """The state's columns: (name, expression, the field it is read back as, or None for a
    value taken as it comes), over the tables `_state_query` joins (`held`: the live hold).
    The names are those of the row `read_state` reads; they do not change with the owner,
    only with `checked`."""
    bound = owner.account_id is not None
    columns = [
        ("claimed_id", latest_claim(owner), Claim.product),
        ("hold_id", held.c.product_id, Hold.product),
        ("held_until", held.c.expires_at, Hold.expires_at),
        ("lifts", ClaimAllowance.lifts, None),
        ("claims_made", ClaimAllowance.claims_made, None),
        ("session_m0", _reached(owner, MILESTONES[0], False), None),
        ("session_m1", _reached(owner, MILESTONES[1], False), None),
        ("account_m0", _reached(owner, MILESTONES[0], True) if bound else pw.SQL("NULL"), None),
        ("account_m1", _reached(owner, MILESTONES[1], True) if bound else pw.SQL("NULL"), None),
        # The held product with its card fields, by the names a candidate's row has (cards.py).
        ("product_id", Product.product_id, Product.product_id),
        *((column._alias, column, reader) for column, reader in zip(card_columns(), CARD_READERS[1:], strict=True)),
        # An anonymous owner's live hold always has this session's seen row (a hold is minted
        # together with it, and only a product the session saw can be selected), so only a
        # bound owner, whose hold may come from another device, needs the lookup.
        ("held_seen", seen_flag(owner, Product.product_id) if bound else pw.SQL("1"), None),
    ]
    # A bound owner's plan, as the meter's spend reads it (services/meter.py): read here, a
    # find or feed spends without a statement of its own to read it.
    plan = meter.plan_columns() if bound else [pw.SQL("NULL")] * len(_PLAN_READERS)
    columns += [(name, expression, reader) for (name, reader), expression in zip(_PLAN_READERS, plan, strict=True)]
    if checked:  # the row of the request's token, as it is now (read_state's `check`)
        columns += [(f"session_{field.name}", field, field) for field in SESSION_FIELDS]
    return columns


def _state_query(owner: Owner, held, key, columns: list, token_hash):
    """The state's row (`columns`, from _state_columns): one row whatever is missing, each
    table left-joined to it by a key that names at most one of its rows (the live hold is a
    subquery of one row; the product and its gate row by the hold's product; the allowance
    by its owner key; the account by its id; with a token hash, its session)."""
    query = (pw.Select(from_list=[pw.Select(columns=[pw.SQL("1")]).alias("base")],
                       columns=[expression.alias(name) for name, expression, _ in columns])
             .join(held, pw.JOIN.LEFT_OUTER, on=pw.SQL("1 = 1"))
             .join(Product, pw.JOIN.LEFT_OUTER, on=(Product.product_id == held.c.product_id))
             .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id))
             .join(ClaimAllowance, pw.JOIN.LEFT_OUTER, on=(ClaimAllowance.owner == key)))
    if owner.account_id is not None:
        query = query.join(Account, pw.JOIN.LEFT_OUTER, on=(Account.id == owner.account_id))
    if token_hash is not None:
        query = query.join(Session, pw.JOIN.LEFT_OUTER, on=(Session.token_hash == token_hash))
    return query


# The plan's columns as the meter reads them (meter.plan_columns' order), and their fields.
_PLAN_READERS = (("plan_tier", Account.tier), ("plan_term_ends_at", Account.term_ends_at), ("plan_referrals", None))


@lru_cache(maxsize=2)
def _layout(checked: bool) -> tuple[tuple[str, ...], tuple]:
    """The state's column names and how each is read back (read_row's fields), in the state
    row's order: they are the same whoever the owner is, and change only with `checked`."""
    columns = _state_columns(param_owner(True), live_hold(param_owner(True), None).alias("held"), checked)
    return tuple(name for name, _, _ in columns), tuple(reader for _, _, reader in columns)


def _names(checked: bool) -> tuple[str, ...]:
    return _layout(checked)[0]


def _readers(checked: bool) -> tuple:
    return _layout(checked)[1]


@lru_cache(maxsize=2)
def _state_row(checked: bool):
    """The state's row (its names do not change with the owner, only with `checked`)."""
    return namedtuple("OwnerStateRow", _names(checked))


def _held_card_columns() -> slice:
    """Where the held product's card columns are in the state's row: product_id, then
    CARD_FIELDS, which are a candidate row's card columns, in their order."""
    names = _names(False)
    first = names.index("product_id")
    assert tuple(names[first:first + len(CARD_FIELDS) + 1]) == CANDIDATE_COLUMNS[:len(CARD_FIELDS) + 1], names
    return slice(first, first + len(CARD_FIELDS) + 1)


_HELD_CARD = _held_card_columns()
