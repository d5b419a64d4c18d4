"""The claim allowance, and the share control that lifts it.

The allowance is a counter per owner (`claim_allowance`, keyed "session:<id>" or
"account:<id>"): allowance = BASE_ALLOWANCE + lifts, and a claim spends it with one
conditional UPDATE (`claims_made < allowance`) in the claim's own transaction, so 50
simultaneous claims at an allowance of 1 spend it once. Each share action lifts it by one,
at most MAX_SHARE_LIFTS times; the lift is a conditional UPDATE too.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from config import get_settings
from models.clock import utcnow
from models.db import transaction
from models.discovery import Claim, ClaimAllowance, ShareAction
from models.session import Session
from services.discovery.cards import card, product_rows, version_of, with_trends
from services.ownership import Owner, owner_of
from services.referrals import code_for

BASE_ALLOWANCE = 1  # decisions.md: one claim, and one more per share action
MAX_SHARE_LIFTS = 4  # so the allowance tops out at 5 (sharing is a click, a claim takes a product from everyone)


@dataclass(frozen=True)
class Allowance:
    allowance: int
    claims_made: int

    @property
    def finds_remaining(self) -> int:
        return max(0, self.allowance - self.claims_made)

    def fields(self) -> dict:
        return {"allowance": self.allowance, "claims_made": self.claims_made, "finds_remaining": self.finds_remaining}


MAX_ALLOWANCE_WORDS = "the most one founder can claim"


def next_claim(allowance: Allowance) -> str:
    """What unlocks the founder's next claim, in their words: nothing while claims are left,
    a share while shares still lift the allowance, and at its cap that nothing does."""
    most = BASE_ALLOWANCE + MAX_SHARE_LIFTS
    left = allowance.finds_remaining
    if left:
        return f"You can claim {left} more product{'' if left == 1 else 's'} now."
    if allowance.allowance < most:
        return (f"Share your link to unlock your next claim: each share unlocks one more, up to {most} "
                "claims in all.")
    return (f"You have claimed {most} products, {MAX_ALLOWANCE_WORDS}, so sharing unlocks no more. "
            "What you claimed stays yours.")


def allowance_of(owner: Owner) -> Allowance:
    row = ClaimAllowance.get_or_none(ClaimAllowance.owner == owner.key)
    if row is None:
        return Allowance(BASE_ALLOWANCE, 0)
    return Allowance(BASE_ALLOWANCE + row.lifts, row.claims_made)


def claims(*, session: Session) -> dict:
    """Answers the session's claim allowance and the products it claimed, newest first.

    Read before a claim (the app says what a claim spends) and whatever the feed shows (a
    founder's claims stay in view after a share lifts the allowance and the feed holds a
    new card): a read of the founder's own rows, so neither metered nor recorded as seen."""
    owner = owner_of(session)
    ids = [row.product_id for row in Claim.select(Claim.product).where(owner.owns(Claim))
           .order_by(Claim.created_at.desc(), Claim.id.desc())]
    rows = product_rows(ids)
    allowance = allowance_of(owner)
    return {"status": "ok", **allowance.fields(), "max_allowance": BASE_ALLOWANCE + MAX_SHARE_LIFTS,
            "next_claim": next_claim(allowance),
            "claimed": with_trends([card(*rows[pid], yours=True, claimed=True) for pid in ids if pid in rows],
                                   [version_of(rows[pid][1]) for pid in ids if pid in rows])}


def ensure_allowance_row(key: str, now: datetime) -> None:
    ClaimAllowance.insert(owner=key, lifts=0, shares=0, claims_made=0, updated_at=now).on_conflict_ignore().execute()


def spend_claim(owner: Owner, now: datetime) -> bool:
    """Spends one claim of the allowance (inside the claim's transaction, after
    `ensure_allowance_row`); False when it is used up."""
    return (ClaimAllowance.update(claims_made=ClaimAllowance.claims_made + 1, updated_at=now)
            .where(ClaimAllowance.owner == owner.key,
                   ClaimAllowance.claims_made < BASE_ALLOWANCE + ClaimAllowance.lifts)
            .execute()) == 1


def share(*, session: Session) -> dict:
    """Records a use of the share control, lifts the claim allowance by one (up to its cap)
    and returns the session's coded referral link."""
    owner, now = owner_of(session), utcnow()
    code = code_for(session)
    with transaction():
        ensure_allowance_row(owner.key, now)
        lifted = (ClaimAllowance.update(lifts=ClaimAllowance.lifts + 1, shares=ClaimAllowance.shares + 1, updated_at=now)
                  .where(ClaimAllowance.owner == owner.key, ClaimAllowance.lifts < MAX_SHARE_LIFTS)
                  .execute()) == 1
        if not lifted:
            (ClaimAllowance.update(shares=ClaimAllowance.shares + 1, updated_at=now)
             .where(ClaimAllowance.owner == owner.key).execute())
        ShareAction.create(session=owner.session_id, account=owner.account_id, lifted=lifted, created_at=now)
    allowance = allowance_of(owner)
    if lifted:
        explanation = (f"Your link is ready to share. Sharing raised your claim allowance to {allowance.allowance}, "
                       f"so you can claim {allowance.finds_remaining} more product"
                       f"{'' if allowance.finds_remaining == 1 else 's'}.")
    else:
        explanation = (f"Your link is ready to share. Your claim allowance is already at its most, "
                       f"{allowance.allowance}; friends who join through your link still raise your usage limits.")
    return {
        "status": "share_recorded",
        "shared": True,
        "url": f"{get_settings().base_url}/r/{code}",
        **allowance.fields(),
        "explanation": explanation,
        "observed": "The share control was used. This records the click only: it does not mean anyone has "
                    "opened or seen your link.",
    }
