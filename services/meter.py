"""The credit meter (spec 8.1-8.5): per-account buckets of credits in two fixed windows.

Each AI-backed feature spends a fixed cost from its own bucket. A bucket has a five-hour
allowance and a weekly cap; both windows are fixed integer boundaries of epoch time
(index = floor(t / size)), not sliding. The subject is the account: an anonymous session
has no subject to meter (spec 5.11), so nothing is spent or refused for it.

Why one conditional UPDATE: the check and the spend of both windows must be one atomic
step across threads and processes. Both windows live on one row (MeterUsage); the UPDATE
resets a window whose index moved on, adds the cost to both, and only matches when both
windows still have room. The database serialises concurrent UPDATEs of a row (PostgreSQL
re-evaluates the WHERE against the row a concurrent writer left; SQLite takes the write
lock up front), so the row count alone says allowed or refused, and a refused call spends
nothing. Reads (GET /api/usage, the refusal body) never decide anything.
"""
from __future__ import annotations

import logging
from collections import namedtuple
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

import peewee as pw

from models.account import Account, MeterUsage, Referral, ReferralCode
from models.clock import clock
from models.db import KeptSQL, param, read_row, transaction
from services.day_words import moment_words
from services.errors import Refused
from services.plans import TIER_MULTIPLIERS, effective_tier, exact_multiplier, scaled_limits, tier_label
from services.referrals import REFERRAL_MULTIPLIERS, multiplier_for, qualified_count

log = logging.getLogger("services.meter")

FIVE_HOURS = 18_000  # seconds
WEEK = 604_800  # seconds

WINDOW_5H = "5h"
WINDOW_WEEK = "week"

# What a metered route declares: refuses={429: list(METER_REFUSALS)} (429 is also the registry default).
METER_REFUSALS = ("usage_limit_reached", "weekly_limit_reached")


@dataclass(frozen=True)
class Bucket:
    id: str
    name: str  # the feature's display name
    cost: int  # credits per call
    pro_5h: int  # the pro tier's five-hour allowance
    pro_week: int  # the pro tier's weekly cap


# Spec 8.1, in table order (GET /api/usage lists them in this order).
BUCKETS: dict[str, Bucket] = {b.id: b for b in (
    Bucket("website_edit", "AI website editor", 50, 1000, 10000),
    Bucket("growth_edit", "AI Growth ad editor", 20, 500, 5000),
    Bucket("find", "Product find engine", 5, 500, 5000),
    Bucket("ad", "Ad generation", 10, 500, 5000),
    Bucket("support", "Support agent", 1, 500, 5000),
)}

REFERRAL_CAP = max(REFERRAL_MULTIPLIERS)
_TIER_ORDER = (Account.FREE, Account.PRO, Account.MAX5, Account.MAX20)


# --- Windows and limits ------------------------------------------------------------------

def window_index(t: float, size: int) -> int:
    return int(t // size)


def resets_at(index: int, size: int) -> int:
    """The epoch second at which the window `index` ends."""
    return (index + 1) * size


@dataclass(frozen=True)
class Plan:
    """What an account's limits are scaled by now."""

    tier: str
    referrals: int  # qualified referrals
    tier_multiplier: Fraction
    referral_multiplier: Fraction

    @property
    def multiplier(self) -> Fraction:
        return self.tier_multiplier * self.referral_multiplier

    def limits(self, bucket: Bucket) -> tuple[int, int]:
        """(five-hour limit, weekly limit) of a bucket."""
        return scaled_limits(bucket.pro_5h, bucket.pro_week, self.multiplier)


def plan_for(account: Account) -> Plan:
    return _plan(account, qualified_count(account.id))


def _plan(account, referrals: int) -> Plan:
    """The plan of an account (anything with its `tier` and `term_ends_at`) with `referrals`
    qualified referrals."""
    tier = effective_tier(account)
    return Plan(tier=tier, referrals=referrals, tier_multiplier=exact_multiplier(TIER_MULTIPLIERS[tier]),
                referral_multiplier=exact_multiplier(multiplier_for(referrals)))


# --- Reading the counters ----------------------------------------------------------------

@dataclass(frozen=True)
class BucketState:
    """One bucket of one account as of one moment."""

    bucket: Bucket
    used_5h: int
    limit_5h: int
    used_week: int
    limit_week: int
    resets_at_5h: int
    resets_at_week: int

    @property
    def exhausted_window(self) -> str | None:
        """The window that stops one more call now; when both do, the one that frees up later
        (so backing off until `resets_at` is enough), the week on a tie."""
        over_5h = self.used_5h + self.bucket.cost > self.limit_5h
        over_week = self.used_week + self.bucket.cost > self.limit_week
        if over_5h and over_week:
            return WINDOW_5H if self.resets_at_5h > self.resets_at_week else WINDOW_WEEK
        return WINDOW_5H if over_5h else WINDOW_WEEK if over_week else None

    @property
    def allowed(self) -> bool:
        return self.exhausted_window is None


def _states(account_id: int, plan: Plan, t: float) -> dict[str, BucketState]:
    w5, ww = window_index(t, FIVE_HOURS), window_index(t, WEEK)
    rows = {row.bucket: row for row in map(UsageRow._make, _USAGE_ROWS.run(account_id=account_id).fetchall())}
    states = {}
    for bucket in BUCKETS.values():
        row = rows.get(bucket.id)
        limit_5h, limit_week = plan.limits(bucket)
        # A count of an elapsed window reads as 0. (A row ahead of this clock, written by a
        # process whose clock runs ahead, still counts: see spend.)
        used_5h = row.used_5h if row is not None and row.window_5h >= w5 else 0
        used_week = row.used_week if row is not None and row.window_week >= ww else 0
        states[bucket.id] = BucketState(bucket, used_5h, limit_5h, used_week, limit_week,
                                        resets_at(w5, FIVE_HOURS), resets_at(ww, WEEK))
    return states


def usage(account_id: int | None) -> dict:
    """The GET /api/usage body (reads, never spends)."""
    # The account's tier and its qualified referrals (plan_for) in one statement.
    account = _account_plan(account_id) if account_id is not None else None
    if account is None:
        # No subject to meter (spec 5.11): the tier an account starts with, and no features.
        free = Plan(Account.FREE, 0, exact_multiplier(TIER_MULTIPLIERS[Account.FREE]), Fraction(1))
        return _header(False, free) | {"features": []}
    plan = _plan(account, account.referrals)
    states = _states(account.id, plan, clock.time())
    features = [{
        "feature": s.bucket.id,
        "name": s.bucket.name,
        "cost": s.bucket.cost,
        "used_5h": s.used_5h,
        "limit_5h": s.limit_5h,
        "used_week": s.used_week,
        "limit_week": s.limit_week,
        "resets_at_5h": s.resets_at_5h,
        "resets_at_week": s.resets_at_week,
        "allowed": s.allowed,
        "exhausted_window": s.exhausted_window,
    } for s in states.values()]
    return _header(True, plan) | {"features": features}


def _header(has_account: bool, plan: Plan) -> dict:
    return {
        "status": "ok",
        "account": has_account,
        "tier": plan.tier,
        "tier_label": tier_label(plan.tier),
        "multiplier": float(plan.multiplier),
        "referral_multiplier": float(plan.referral_multiplier),
    }


# --- Spending ----------------------------------------------------------------------------

@dataclass
class Charge:
    """Credits spent by one metered call, in the windows they were spent in."""

    account_id: int
    bucket: str
    cost: int
    window_5h: int
    window_week: int
    # The same credits counted against a share of the bucket (spend's `share`), given back with them.
    part: Charge | None = None
    _settled: bool = field(default=False, repr=False, compare=False)

    def refund(self) -> None:
        """Gives the credits back (only into the same windows, never below zero). For a metered call that failed or refused without changing anything."""
        if self._settled:
            return
        if self.part is not None:
            self.part.refund()
        # A window that moved on since the spend is left alone: its new count owes nothing.
        same_5h = MeterUsage.window_5h == self.window_5h
        same_week = MeterUsage.window_week == self.window_week
        with transaction():
            (MeterUsage.update(
                used_5h=pw.Case(None, [(same_5h & (MeterUsage.used_5h >= self.cost), MeterUsage.used_5h - self.cost),
                                       (same_5h, 0)], MeterUsage.used_5h),
                used_week=pw.Case(None, [(same_week & (MeterUsage.used_week >= self.cost), MeterUsage.used_week - self.cost),
                                         (same_week, 0)], MeterUsage.used_week),
            ).where(MeterUsage.account == self.account_id, MeterUsage.bucket == self.bucket, same_5h | same_week)
             .execute())
        self._settled = True

    def keep(self) -> None:
        """Marks the credits as used for good: the call changed something, so a later refund does nothing."""
        self._settled = True
        if self.part is not None:
            self.part.keep()


@dataclass(frozen=True)
class Share:
    """A part of a bucket's allowance that some of its calls may not go beyond: `fraction` of
    each window's limit, counted on a row of its own ("<bucket>:<name>") beside the bucket's.
    The calls spend from the bucket as every call does, and from the share as well, so the
    rest of the allowance stays for the account's other calls (services/desk/public.py: a
    store's visitors may use only the share of its founder's `support` credits the founder set)."""

    name: str
    fraction: Fraction


class ShareUsed(Exception):
    """The share's credits for this window are used up; nothing was spent."""


_UNREAD = object()


def spend(account_id: int | None, bucket: str, *, account=_UNREAD, share: Share | None = None) -> Charge | None:
    """Checks and spends `bucket`'s cost for the account immediately before the expensive call. None when account_id is None (not metered). Raises services.errors.Refused("usage_limit_reached" | "weekly_limit_reached", explanation, **fields) when refused.

    `account`: the account's id, tier, term_ends_at and qualified referrals when the caller
    read them in its own statement just before (find and feed: services/discovery/state.py),
    None when that read found the account gone; read here otherwise. Either way the one
    conditional UPDATE below spends under the limits of that plan, as read for this request.
    `share`: the call may also use no more than this share of the bucket (ShareUsed when it is
    used up)."""
    spec = BUCKETS[bucket]  # an unknown bucket is a programming error: KeyError
    if account_id is None:
        return None
    if account is _UNREAD:
        # The account's tier and its qualified referrals (plan_for) in one statement built once.
        account = _account_plan(account_id)
    if account is None:  # the account is gone: no subject to meter, as for an anonymous session
        return None
    if share is None:
        return _spend_bucket(account, spec)
    part = _spend_share(account, spec, share)
    try:
        charge = _spend_bucket(account, spec)
    except BaseException:
        part.refund()
        raise
    charge.part = part
    return charge


def _spend_share(account, spec: Bucket, share: Share) -> Charge:
    """Spends the cost from the share's own counter, whose limits are the share of the bucket's."""
    values = spend_values(account, spec, clock.time())
    values |= {"bucket": f"{spec.id}:{share.name}", "limit_5h": int(values["limit_5h"] * share.fraction),
               "limit_week": int(values["limit_week"] * share.fraction)}
    if not _try_spend(values):
        raise ShareUsed(values["bucket"])
    return Charge(account_id=account.id, bucket=values["bucket"], cost=spec.cost, window_5h=values["w5"],
                  window_week=values["ww"])


def _spend_bucket(account, spec: Bucket) -> Charge:
    """The bucket's one atomic check-and-spend, or its spec 8.5 refusal."""
    plan = _plan(account, account.referrals)
    # A refusal is reported from a read after the UPDATE; a refund landing in between can
    # make that read show room, and then the spend is simply tried again.
    for _attempt in range(3):
        t = clock.time()
        values = spend_values(account, spec, t, plan)
        if _try_spend(values):
            return Charge(account_id=account.id, bucket=spec.id, cost=spec.cost, window_5h=values["w5"],
                          window_week=values["ww"])
        states = _states(account.id, plan, t)
        if not states[spec.id].allowed:
            raise _refusal(states, spec.id, plan)
    raise _refusal(states, spec.id, plan, force=True)


def spend_values(account, spec: Bucket, t: float, plan: Plan | None = None) -> dict:
    """The spend UPDATE's values for an account's plan (id, tier, term_ends_at, referrals) at `t`
    (`plan`: that account's Plan, when the caller has made it already)."""
    limit_5h, limit_week = (plan or _plan(account, account.referrals)).limits(spec)
    return {"account_id": account.id, "bucket": spec.id, "w5": window_index(t, FIVE_HOURS),
            "ww": window_index(t, WEEK), "cost": spec.cost, "limit_5h": limit_5h, "limit_week": limit_week}


def _try_spend(values: dict) -> bool:
    """The one atomic check-and-spend of both windows; True when the credits were spent.

    The conditional UPDATE spends, and its row count alone says allowed. An account's row
    for a bucket is made by its first spend and kept (a new window resets it in place), so
    the UPDATE is tried alone first; when it changes nothing (no row yet, or no room) the row
    is made if missing and the UPDATE tried again, both in one transaction."""
    if _spent(values):
        return True
    with transaction():
        _ensure_row(values).execute()
        return _spent(values)


def _qualified_referrals(account_id):
    """The count of the account's qualified referrals (referrals.qualified_count), as a subquery."""
    return (Referral.select(pw.fn.COUNT(Referral.id)).join(ReferralCode)
            .where(ReferralCode.account == account_id, Referral.qualified_at.is_null(False)))


def _account_plan(account_id: int):
    """The account's id, tier, term's end and qualified referrals (qualified_count), or None
    (every metered call and usage read asks: its SQL text is kept, models/db.KeptSQL)."""
    found = _ACCOUNT_PLAN.run(account_id=account_id).fetchone()
    return None if found is None else AccountPlanRow._make(read_row(_ACCOUNT_PLAN_READERS, found))


def _account_plan_query():
    return Account.select(Account.id, *plan_columns()).where(Account.id == param("account_id"))


AccountPlanRow = namedtuple("AccountPlanRow", "id tier term_ends_at referrals")
_ACCOUNT_PLAN_READERS = (Account.id, Account.tier, Account.term_ends_at, None)
_ACCOUNT_PLAN = KeptSQL(_account_plan_query)


def plan_columns() -> list:
    """What _account_plan reads of an account besides its id, as columns of a statement that
    reads the account's row (tier, term's end, qualified referrals): find and feed read the
    plan with their own state (services/discovery/state.py) and hand it to
    `spend(account=...)`."""
    return [Account.tier, Account.term_ends_at, _qualified_referrals(Account.id)]


def _ensure_row(v: dict):
    return (MeterUsage.insert(account=v["account_id"], bucket=v["bucket"], window_5h=v["w5"], used_5h=0,
                              window_week=v["ww"], used_week=0)
            .on_conflict_ignore())


def _spend_query():
    """The conditional UPDATE that spends `cost` in both windows within their limits (every
    metered call runs it: its SQL text is kept, models/db.KeptSQL)."""
    cost, w5, ww = param("cost"), param("w5"), param("ww")
    # A window counts as current when its index is the caller's or later (a row written by a
    # process whose clock runs slightly ahead is never reset backwards and so never loses spends).
    current_5h = MeterUsage.window_5h >= w5
    current_week = MeterUsage.window_week >= ww
    used_5h = pw.Case(None, [(current_5h, MeterUsage.used_5h)], 0)
    used_week = pw.Case(None, [(current_week, MeterUsage.used_week)], 0)
    # Every SET expression reads the row as it was before this UPDATE (standard SQL, and so
    # in both PostgreSQL and SQLite). PostgreSQL re-evaluates the WHERE against the row a
    # concurrent writer left, so two spends never both pass on the same credits.
    return (MeterUsage.update(
        used_5h=used_5h + cost,
        window_5h=pw.Case(None, [(current_5h, MeterUsage.window_5h)], w5),
        used_week=used_week + cost,
        window_week=pw.Case(None, [(current_week, MeterUsage.window_week)], ww),
    ).where(
        MeterUsage.account == param("account_id"),
        MeterUsage.bucket == param("bucket"),
        used_5h + cost <= param("limit_5h"),
        used_week + cost <= param("limit_week"),
    ))


_SPEND = KeptSQL(_spend_query)


def _spent(values: dict) -> bool:
    """Runs the spend UPDATE with `values` (spend_values); True when it changed the row."""
    return _SPEND.run(**values).rowcount == 1


def _usage_rows_query():
    """An account's counters, every bucket (read by GET /api/usage and a refused spend; its
    SQL text kept: models/db.KeptSQL). Whole numbers and text: read as they come."""
    return (MeterUsage.select(MeterUsage.bucket, MeterUsage.window_5h, MeterUsage.used_5h, MeterUsage.window_week,
                              MeterUsage.used_week)
            .where(MeterUsage.account == param("account_id")))


UsageRow = namedtuple("UsageRow", "bucket window_5h used_5h window_week used_week")
_USAGE_ROWS = KeptSQL(_usage_rows_query)


@contextmanager
def metered(account_id: int | None, bucket: str, *, account=_UNREAD, share: Share | None = None):
    """Spends on entry (raising Refused when over a limit) and refunds when the block raises.

    Put the expensive call, and the writes that depend on it, inside the block; an exception
    out of the block (a Refused or any other) means the call changed nothing, so its
    credits come back. A block that has committed a change and may still raise calls
    `charge.keep()` first. Yields the Charge, or None for an unmetered (anonymous) call.
    """
    charge = spend(account_id, bucket, account=account, share=share)
    try:
        yield charge
    except BaseException:
        if charge is not None:
            try:
                charge.refund()
            except Exception:  # never hide the block's own failure behind the refund's
                log.exception("meter refund failed", extra={"fields": {"account_id": charge.account_id, "bucket": charge.bucket}})
        raise


# --- The refusal (spec 8.5) --------------------------------------------------------------

def _refusal(states: dict[str, BucketState], bucket_id: str, plan: Plan, *, force: bool = False) -> Refused:
    state = states[bucket_id]
    window = state.exhausted_window or WINDOW_5H  # `force`: the UPDATE refused; report the short window
    if window == WINDOW_5H:
        reason = "usage_limit_reached"
        used, limit, until, span = state.used_5h, state.limit_5h, state.resets_at_5h, "five-hour window"
    else:
        reason = "weekly_limit_reached"
        used, limit, until, span = state.used_week, state.limit_week, state.resets_at_week, "week"
    name = state.bucket.name
    ways = ways_up(plan)
    raisers = [{"referral": "sharing your link", "upgrade": "upgrading"}[w["how"]] for w in ways
               if w["how"] == "upgrade" or w["your_multiplier"] < w["cap"]]
    explanation = (f"You have used {used} of your {limit} {name} credits for this {span} "
                   f"(each use costs {state.bucket.cost}). It resets {resets_in_words(until, clock.time())}; "
                   "other features have their own allowances")
    explanation += f", and {' or '.join(raisers)} raises your limits." if raisers else "."
    return Refused(
        reason, explanation,
        feature=name,
        bucket=bucket_id,
        used=used,
        limit=limit,
        resets_at=until,
        tier=plan.tier,
        unaffected=[s.bucket.name for s in states.values() if s.bucket.id != bucket_id and s.allowed],
        ways_up=ways,
    )


def ways_up(plan: Plan) -> list[dict]:
    """How the account can raise its limits: referrals always (up to the cap), and the next
    tier when there is one."""
    current = float(plan.referral_multiplier)
    if current >= REFERRAL_CAP:
        referral = (f"You have {plan.referrals} qualified referrals, which gives the largest referral multiplier "
                    f"({REFERRAL_CAP:g}x).")
    else:
        following = multiplier_for(plan.referrals + 1)
        referral = (f"Share your link: each friend who joins and reaches the dashboard raises your limits on every "
                    f"feature. Your next qualified referral takes your multiplier from {current:g}x to "
                    f"{following:g}x (at most {REFERRAL_CAP:g}x).")
    entries = [{"how": "referral", "detail": referral, "your_referrals": plan.referrals,
                "your_multiplier": current, "cap": float(REFERRAL_CAP)}]
    position = _TIER_ORDER.index(plan.tier)
    if position + 1 < len(_TIER_ORDER):
        following_tier = _TIER_ORDER[position + 1]
        factor = exact_multiplier(TIER_MULTIPLIERS[following_tier]) / plan.tier_multiplier
        entries.append({"how": "upgrade",
                        "detail": f"Upgrade to {tier_label(following_tier)} for {float(factor):g}x your current "
                                  "limits on every feature."})
    return entries


def resets_in_words(until: int, now: float) -> str:
    """When a window resets, as a founder reads it ("in 2 hours and 5 minutes (5 December 2026,
    12:00 UTC)"), not as an ISO timestamp. The server does not know the founder's time zone, so
    the wait comes first (true wherever they are) and the moment follows in UTC, written as
    every text of the service writes one (services/day_words.py)."""
    minutes = max(1, -(-int(until - now) // 60))  # rounded up: "in 0 minutes" would be wrong
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in ((days, "day"), (hours, "hour"), (mins, "minute")) if n]
    return f"in {' and '.join(parts[:2])} ({moment_words(until)})"
