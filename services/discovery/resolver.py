"""The resolver: the one place that answers "which product is this session's".

Every founder-scoped endpoint of the service resolves the founder's product through
`resolve` and nothing else, so what a founder sees is the same everywhere and a product
claimed by another founder never appears as theirs.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from models.clock import utcnow
from models.compiled import Param
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
    """`resolve` for an owner at a given moment."""
    claim = latest_claim(owner).first()
    hold = live_hold(owner, now).first()
    hold_id, until = (hold.product_id, hold.expires_at) if hold else (None, None)
    return resolved(claim.product_id if claim else None, hold_id, until)


def latest_claim(owner: Owner):
    """The owner's most recent claim (a query of its product)."""
    return (Claim.select(Claim.product).where(owner.owns(Claim))
            .order_by(Claim.created_at.desc(), Claim.id.desc()).limit(1))


def live_hold(owner: Owner, now):
    """The owner's live hold, the one that lasts longest (a query of its product and expiry)."""
    return (Hold.select(Hold.product, Hold.expires_at).where(owner.owns(Hold), Hold.expires_at > now)
            .order_by(Hold.expires_at.desc()).limit(1))


def param_owner(bound: bool) -> Owner:
    """An owner whose ids are parameters (`session_id`, `account_id`) of a statement built
    once (models/compiled.py), anonymous or bound to an account."""
    return Owner(session_id=Param("session_id"), account_id=Param("account_id") if bound else None)


def resolved(claimed_id: str | None, hold_id: str | None, until: datetime | None) -> Resolved | None:
    """The answer for a most recent claim and a live hold (either may be None): claimed
    first, then the hold. `services.discovery.state` reads both in one statement with the
    two queries above and answers through this function too."""
    if claimed_id is not None:
        return Resolved(claimed_id, CLAIMED, claimed_id, hold_id, until)
    if hold_id is not None:
        return Resolved(hold_id, HELD, None, hold_id, until)
    return None
