"""Plans (tiers) and what they read as today."""
from __future__ import annotations

from models.account import Account
from models.clock import utcnow

TIER_LABELS = {Account.FREE: "Free", Account.PRO: "Pro", Account.MAX5: "Max 5x", Account.MAX20: "Max 20x"}
# Multipliers of spec 8.2, applied to the pro figures of 8.1.
TIER_MULTIPLIERS = {Account.FREE: 0.1, Account.PRO: 1, Account.MAX5: 5, Account.MAX20: 20}


def effective_tier(account: Account | None) -> str:
    """The tier an account reads as now: an unknown tier, or a paid one past its term, reads as free."""
    if account is None or account.tier not in TIER_MULTIPLIERS:
        return Account.FREE
    if account.tier != Account.FREE and account.term_ends_at is not None and account.term_ends_at <= utcnow():
        return Account.FREE
    return account.tier


def tier_label(tier: str) -> str:
    return TIER_LABELS[tier]
