"""What a find, feed or pass knows about its owner before it acts, read in one statement:

- the resolver's two facts (the most recent claim, the live hold: the same queries as
  `resolver.resolve_owner`, answered through `resolver.resolved`);
- the claim allowance;
- the held product with its gate figures (so its card needs no second read) and whether
  it is recorded as seen;
- which of the find_served and shown_field milestones are reached (a request records
  only those that are not);
- for a feed, the best candidates too (it shows them, or mints a hold from them).
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

import peewee as pw

from models.account import Account, Milestone
from models.catalog import Product
from models.db import KeptSQL, db, param, read_row
from models.discovery import Claim, ClaimAllowance, Hold, ProductGate
from models.session import Session
from services import meter, milestones
from services.discovery.allowance import BASE_ALLOWANCE, Allowance
from services.discovery.cards import (
    CANDIDATE_COLUMNS,
    CARD_FIELDS,
    CARD_READERS,
    Candidate,
    candidates_query,
    card_columns,
    seen_flag,
)
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
    candidates: tuple | None = None  # the best candidates (cards.Candidate), when asked for
    candidates_limit: int = 0  # how many were asked for (fewer came back when fewer are free)
    # A bound owner's account as the meter reads it (id, tier, term_ends_at, referrals: what
    # meter.spend would read next), None when the account is gone; unbound: None too.
    account: object | None = None


# The account's columns the meter's spend reads (services/meter._build_account_plan's).
AccountPlan = namedtuple("AccountPlan", "id tier term_ends_at referrals")


def read_state(owner: Owner, now: datetime, *, gate=None, day: date | None = None, candidates: int = 0,
               check: dict | None = None) -> OwnerState:
    """Reads what the owner has now, in one statement; with `candidates`, also that many
    of the best candidates (`cards.candidates` for `gate` on `day`, read in the same
    statement: a feed needs them whether it serves its hold or mints one).

    `check`: the owner's session as this process read it before (sessions.remembered_session,
    every column), not read again for this request. The statement reads the row of its token
    too, and when that is not exactly `check` (signed in since, given a new token, pruned)
    this raises StaleSession: what was read was for an owner the request may no longer be,
    and nothing has been written yet."""
    bound = owner.account_id is not None
    checked = check is not None
    rows = db.execute_sql(*state_sql(owner, now, gate=gate, day=day, candidates=candidates,
                                     token_hash=check["token_hash"] if checked else None)).fetchall()
    found = None
    if candidates:
        # The state's row first, then one row per candidate (_with_candidates).
        start, width = 1, len(rows[0]) - len(_CANDIDATE_ONLY)
        # As read (cards.candidate_card): its card where the state's row has the held card, then its own.
        found = tuple(Candidate._make(r[_CANDIDATE_CARD] + r[width:]) for r in rows[1:])
    else:
        start, width = 0, None
    raw = rows[0][start:width]
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
                      missing_milestones=tuple(missing), candidates=found, candidates_limit=candidates,
                      account=account)


def state_sql(owner: Owner, now: datetime, *, gate=None, day: date | None = None, candidates: int = 0,
              token_hash: str | None = None) -> tuple[str, list]:
    """The statement `read_state` runs (see there), as SQL text and its parameters."""
    values = dict(session_id=owner.session_id, account_id=owner.account_id, key=owner.key, now=now)
    if candidates:
        values.update(cutoff=gate.cutoff(day), min_margin=gate.min_margin_pct)
    if token_hash is not None:
        values["token_hash"] = token_hash
    return _STATE.sql(owner.account_id is not None, candidates, token_hash is not None, **values)


def _state_statement(bound: bool, candidates: int, checked: bool):
    """The state's row, with `candidates` of the best candidates after it when asked for; its
    values are named (models/db.KeptSQL): session_id, account_id, key, now, and cutoff and
    min_margin with candidates, token_hash when `checked`."""
    owner = param_owner(bound)
    columns = _state_columns(owner, param("now"), param("key"), checked)
    query = _state_query(columns, param("token_hash") if checked else None)
    if candidates:
        query = _with_candidates(query, [name for name, _, _ in columns], candidates_query(bound, candidates, 0))
    return query


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


def _state_columns(owner: Owner, now, key, checked: bool) -> list[tuple[str, object, pw.Field | None]]:
    """The state's columns: (name, expression, the field it is read back as, or None for a
    value taken as it comes). The names are those of the row `read_state` reads; they do
    not change with the owner, only with `checked`."""
    bound = owner.account_id is not None
    hold = live_hold(owner, now)
    allowance = ClaimAllowance.select
    columns = [
        ("claimed_id", latest_claim(owner), Claim.product),
        ("hold_id", _held_product(hold), Hold.product),
        ("held_until", hold.select(Hold.expires_at), Hold.expires_at),
        ("lifts", allowance(ClaimAllowance.lifts).where(ClaimAllowance.owner == key), None),
        ("claims_made", allowance(ClaimAllowance.claims_made).where(ClaimAllowance.owner == key), None),
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
    plan = meter.plan_columns(owner.account_id) if bound else [pw.SQL("NULL")] * len(_PLAN_READERS)
    columns += [(name, expression, reader) for (name, reader), expression in zip(_PLAN_READERS, plan, strict=True)]
    if checked:  # the row of the request's token, as it is now (read_state's `check`)
        columns += [(f"session_{field.name}", field, field) for field in SESSION_FIELDS]
    return columns


def _held_product(hold):
    """The live hold's product: evaluated once per statement; the ordering is total."""
    return hold.select(Hold.product)


def _state_query(columns: list, token_hash: str | None):
    """The state's row (`columns`, from _state_columns); with a token hash, its session's
    columns are read by it."""
    hold_id = next(expression for name, expression, _ in columns if name == "hold_id")
    # Joined on the hold's product id (a value computed once), so both are primary key lookups.
    query = (pw.Select(from_list=[pw.Select(columns=[pw.SQL("1")]).alias("base")],
                       columns=[expression.alias(name) for name, expression, _ in columns])
             .join(Product, pw.JOIN.LEFT_OUTER, on=(Product.product_id == hold_id))
             .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id)))
    if token_hash is not None:  # by its unique token hash: at most one row
        query = query.join(Session, pw.JOIN.LEFT_OUTER, on=(Session.token_hash == token_hash))
    return query


# The plan's columns as the meter reads them (meter.plan_columns' order), and their fields.
_PLAN_READERS = (("plan_tier", Account.tier), ("plan_term_ends_at", Account.term_ends_at), ("plan_referrals", None))


def _with_candidates(inner, names: list[str], best):
    """The state's row, then the best candidates (`best`, cards.candidates_query), best
    first: one statement in two parts (UNION ALL). A candidate's product id and card
    columns share the held product's columns in the state's row (the same names and
    types); the rest of each part's columns are null in the other part. (Joined instead,
    each of a feed's candidate rows repeated the state's 27 columns; side by side, it had
    14 more columns, each described by the server and read by the driver on every feed.)
    The candidates' rows are kept as read (cards.candidate_card decodes one only to build a
    card it has not kept)."""
    state = inner.alias("state")
    best = best.alias("best")
    shared = set(names[_HELD_CARD])  # the held card's names: a candidate's first columns (_held_card_columns)
    empty = pw.SQL("NULL")
    own = pw.Select(from_list=[state], columns=[pw.Value(0).alias("part"),
                                                *(getattr(state.c, name).alias(name) for name in names),
                                                *(empty.alias(f"candidate_{name}") for name in _CANDIDATE_ONLY)])
    others = pw.Select(from_list=[best], columns=[pw.Value(1),
                                                  *(getattr(best.c, name) if name in shared else empty
                                                    for name in names),
                                                  *(getattr(best.c, name) for name in _CANDIDATE_ONLY)])
    return (own + others).order_by(pw.SQL('"part"'), pw.SQL('"candidate_feed_rank" DESC'), pw.SQL('"product_id"'))


@lru_cache(maxsize=2)
def _layout(checked: bool) -> tuple[tuple[str, ...], tuple]:
    """The state's column names and how each is read back (read_row's fields), in the state
    row's order: they are the same whoever the owner is, and change only with `checked`."""
    columns = _state_columns(param_owner(True), None, None, checked)
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
_CANDIDATE_ONLY = CANDIDATE_COLUMNS[_HELD_CARD.stop - _HELD_CARD.start:]  # a candidate's columns past its card
# Where a candidate's product id and card columns are in its row of the state with candidates
# (after the `part` column, where the state's row has the held card).
_CANDIDATE_CARD = slice(_HELD_CARD.start + 1, _HELD_CARD.stop + 1)
