"""What a find, feed or pass knows about its owner before it acts, read in one statement:

- the resolver's two facts (the most recent claim, the live hold: the same queries as
  `resolver.resolve_owner`, answered through `resolver.resolved`);
- the claim allowance;
- the held product with its gate figures (so its card needs no second read) and whether
  it is recorded as seen;
- which of the find_served and shown_field milestones are reached.

A request then writes only what is not already there: a repeat feed reads and writes
nothing else. The statement is built once per shape (models/compiled.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import peewee as pw

from models.account import Milestone
from models.catalog import Product
from models.compiled import Param, Statement
from models.discovery import ClaimAllowance, ProductGate, Seen
from services import milestones
from services.discovery.allowance import BASE_ALLOWANCE, Allowance
from services.discovery.resolver import Resolved, latest_claim, live_hold, param_owner, resolved
from services.ownership import Owner

MILESTONES = (milestones.FIND_SERVED, milestones.SHOWN_FIELD)  # what a find or feed advances


@dataclass(frozen=True)
class OwnerState:
    resolved: Resolved | None
    allowance: Allowance
    held: object | None  # the live hold's product and gate figures (card fields), when it has one
    held_seen: bool
    missing_milestones: tuple  # (name, session_id, account_id) rows a find or feed must record


def read_state(owner: Owner, now: datetime) -> OwnerState:
    """Reads what the owner has now (one statement)."""
    bound = owner.account_id is not None
    row = _STATE.first(bound, session_id=owner.session_id, account_id=owner.account_id, key=owner.key, now=now)
    allowance = Allowance(BASE_ALLOWANCE + (row.lifts or 0), row.claims_made or 0)
    missing = [(name, owner.session_id, None)
               for name, reached in zip(MILESTONES, (row.session_m0, row.session_m1)) if not reached]
    if bound:
        missing += [(name, None, owner.account_id)
                    for name, reached in zip(MILESTONES, (row.account_m0, row.account_m1)) if not reached]
    return OwnerState(resolved=resolved(row.claimed_id, row.hold_id, row.held_until), allowance=allowance,
                      held=row if row.product_id is not None else None, held_seen=bool(row.held_seen),
                      missing_milestones=tuple(missing))


def _reached(name: str, bound_to_account: bool):
    whose = ((Milestone.account == Param("account_id")) if bound_to_account
             else (Milestone.session == Param("session_id")) & Milestone.account.is_null())
    return pw.fn.EXISTS(Milestone.select(Milestone.id).where(whose, Milestone.name == name))


def _build(bound: bool):
    owner = param_owner(bound)
    base = pw.Select(columns=[pw.SQL("1")]).alias("base")
    hold = live_hold(owner, Param("now")).alias("h")
    allowance = ClaimAllowance.select
    columns = [  # the names are those of the row `read_state` reads
        latest_claim(owner).alias("claimed_id"),
        hold.c.product_id.alias("hold_id"),
        hold.c.expires_at.alias("held_until"),
        allowance(ClaimAllowance.lifts).where(ClaimAllowance.owner == Param("key")).alias("lifts"),
        allowance(ClaimAllowance.claims_made).where(ClaimAllowance.owner == Param("key")).alias("claims_made"),
        pw.fn.EXISTS(Seen.select(Seen.id).where(owner.owns(Seen), Seen.product == hold.c.product_id))
        .alias("held_seen"),
        _reached(MILESTONES[0], False).alias("session_m0"),
        _reached(MILESTONES[1], False).alias("session_m1"),
        (_reached(MILESTONES[0], True) if bound else pw.SQL("NULL")).alias("account_m0"),
        (_reached(MILESTONES[1], True) if bound else pw.SQL("NULL")).alias("account_m1"),
        # The held product as a card needs (the same names as a candidate's, see cards.py).
        Product.product_id.alias("product_id"),
        Product.name.alias("name"),
        Product.description.alias("description"),
        Product.category.alias("category"),
        Product.price.alias("price"),
        Product.cost.alias("cost"),
        Product.currency.alias("currency"),
        Product.images.alias("images"),
        Product.rank.alias("rank"),
        ProductGate.margin_pct.alias("margin_pct"),
        ProductGate.evidence_count.alias("evidence_count"),
        ProductGate.evidence_latest.alias("evidence_latest"),
        ProductGate.gate_date.alias("gate_date"),
    ]
    return (pw.Select(from_list=[base], columns=columns)
            .join(hold, pw.JOIN.LEFT_OUTER, on=pw.SQL("1 = 1"))
            .join(Product, pw.JOIN.LEFT_OUTER, on=(Product.product_id == hold.c.product_id))
            .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == hold.c.product_id)))


_STATE = Statement("owner_state", _build)
