"""The resolver: the one place that answers "which product is this session's".

Every founder-scoped endpoint of the service resolves the founder's product through
`resolve` and nothing else, so what a founder sees is the same everywhere and a product
claimed by another founder never appears as theirs.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import peewee as pw

from models.clock import utcnow
from models.db import KeptSQL, param, read_value
from models.discovery import Claim, Hold
from models.session import Session
from services.ownership import Owner, owner_of

CLAIMED = "claimed"
HELD = "held"


@dataclass(frozen=True)
class Resolved:
    """What product a session has.

    `product_id` is its most recent claim, else its live hold (`state` says which);
    `hold_product_id` / `held_until` describe its live hold even when a claim came first
    (discovery shows that hold while the founder is still under the allowance).
    """

    product_id: str
    state: str  # CLAIMED or HELD
    claimed_product_id: str | None
    hold_product_id: str | None
    held_until: datetime | None


def resolve(session: Session, *, now: datetime | None = None) -> Resolved | None:
    """Resolves the session's product: claimed first (its most recent claim), then its live
    hold; None when it has neither.

    A bound session resolves by its account (a claim made on any device of the account
    counts), an anonymous one by itself. A hold whose 30 minutes have passed does not
    resolve (it is free to take).
    """
    return resolve_owner(owner_of(session), now or utcnow())


def resolve_owner(owner: Owner, now: datetime) -> Resolved | None:
    """`resolve` for an owner at a given moment: one statement (every founder-scoped route
    resolves, so its most recent claim and its live hold are read together, its SQL text
    kept: models/db.KeptSQL)."""
    claimed_id, hold_id, held_until = _RESOLVE.run(owner.account_id is not None, session_id=owner.session_id,
                                                   account_id=owner.account_id, now=now).fetchone()
    # A scalar subquery's column is not read back through its field by peewee: SQLite hands
    # back the text of a time.
    return resolved(claimed_id, hold_id, read_value(Hold.expires_at, held_until))


def latest_claim(owner: Owner):
    """The owner's most recent claim (a query of its product)."""
    return (Claim.select(Claim.product).where(owner.owns(Claim))
            .order_by(Claim.created_at.desc(), Claim.id.desc()).limit(1))


def live_hold(owner: Owner, now):
    """The owner's live hold, the one that lasts longest (a query of its product and expiry).
    The order is total, so the query names one row however often a statement runs it."""
    return (Hold.select(Hold.product, Hold.expires_at).where(owner.owns(Hold), Hold.expires_at > now)
            .order_by(Hold.expires_at.desc(), Hold.product.desc()).limit(1))


def param_owner(bound: bool) -> Owner:
    """An owner whose ids are the named values `session_id` and `account_id` of a statement
    whose text is kept (models/db.KeptSQL), anonymous or bound to an account."""
    return Owner(session_id=param("session_id"), account_id=param("account_id") if bound else None)


def _resolve_query(bound: bool):
    """The most recent claim and the live hold (its product and expiry) as one row."""
    owner = param_owner(bound)
    hold = live_hold(owner, param("now"))
    return pw.Select(from_list=[pw.Select(columns=[pw.SQL("1")]).alias("base")], columns=[
        latest_claim(owner).alias("claimed_id"),
        hold.select(Hold.product).alias("hold_id"),
        hold.select(Hold.expires_at).alias("held_until"),
    ])


_RESOLVE = KeptSQL(_resolve_query)


def resolved(claimed_id: str | None, hold_id: str | None, until: datetime | None) -> Resolved | None:
    """The answer for a most recent claim and a live hold (either may be None): claimed
    first, then the hold. `services.discovery.state` reads both in one statement with the
    two queries above and answers through this function too."""
    if claimed_id is not None:
        return Resolved(claimed_id, CLAIMED, claimed_id, hold_id, until)
    if hold_id is not None:
        return Resolved(hold_id, HELD, None, hold_id, until)
    return None
