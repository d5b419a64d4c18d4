"""Plans (tiers) and what they read as today."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

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


# --- Limits, exactly (spec 8.2: a tier's multiplier times a referral step's, of the Pro figures) ---

@lru_cache(maxsize=256)
def exact_multiplier(number) -> Fraction:
    # From the decimal string, so 0.1 is one tenth and not the nearest binary float. Kept:
    # every spend reads the multipliers of its account's tier and referrals, a few values.
    return Fraction(str(number))


def _round(value: Fraction) -> int:
    """Rounds half up (the figures of spec 8 are whole already; this only pins the rule)."""
    return int((value + Fraction(1, 2)) // 1)


@lru_cache(maxsize=1024)
def scaled_limits(pro_5h: int, pro_week: int, multiplier: Fraction) -> tuple[int, int]:
    # Exact fractions cost more than the rest of a usage read: a pure function of a few
    # values (the buckets' Pro limits, the tiers' and referral steps' multipliers), kept.
    return _round(pro_5h * multiplier), _round(pro_week * multiplier)
