"""A meter spend made ahead, inside the statement that reads a find's or a feed's state
(services/discovery/state.py), on PostgreSQL: the founder's most frequent requests spend
their credits without a round trip of their own.

Why: a statement of its own costs a round trip on both sides (the driver, the server's
parse, bind and executor start), and find and feed are sent more than anything else. With the
spend inside, an account's repeat find or feed is one statement (bench/README.md, "Session 15",
has the figures).

How it stays exact. The spend is services/meter.py's one conditional UPDATE (a
data-modifying WITH of the state's statement, so it commits with it), under the limits of the
plan this process read for the account last time. The same statement reads the plan as it
is now, and `meter.spend(..., ahead=...)` keeps the credits only when that is the plan they
were spent under; otherwise it gives them back and spends under the plan read now. A spend
that changed nothing (no counter row yet, or no room) is made the usual way, which makes the
row or answers the refusal. A request that ends up not metered (at the claim allowance, or a
session found stale) gives back what was spent ahead (`give_back`).

SQLite cannot put an UPDATE in a WITH: there, and for an account this process has not read a
plan for yet, nothing is spent ahead and the meter spends on its own as before.
"""
from __future__ import annotations

from dataclasses import dataclass

import peewee as pw

from models.clock import clock
from models.db import db
from services import meter
from services.kept import Kept

# account id -> the plan (id, tier, term_ends_at, referrals) read last by this process.
_PLANS = Kept(10_000)
CTE_NAME = "spent_ahead"


@dataclass
class Ahead:
    """A spend to make inside a statement: the plan its limits come from, the UPDATE's values,
    and (once the statement ran) whether it spent."""

    plan: tuple
    values: dict
    spent: bool = False

    def charge(self) -> meter.Charge:
        v = self.values
        return meter.Charge(account_id=v["account_id"], bucket=v["bucket"], cost=v["cost"], window_5h=v["w5"],
                            window_week=v["ww"])

    def give_back(self) -> None:
        """Returns the credits, once: what it spent is no longer spent."""
        if self.spent:
            self.charge().refund()
            self.spent = False


def prepare(account_id: int | None, bucket: str) -> Ahead | None:
    """The spend to make ahead for this account, or None (anonymous, SQLite, or no plan read
    by this process yet)."""
    if account_id is None or not isinstance(db.obj, pw.PostgresqlDatabase):
        return None
    plan = _PLANS.get(account_id)
    if plan is None:
        return None
    return Ahead(plan, meter.spend_values(plan, meter.BUCKETS[bucket], clock.time()))


def remember(plan) -> None:
    """The plan a statement just read for its account (None: no account, nothing kept)."""
    if plan is not None:
        _PLANS.put(plan.id, plan)


def forget_all() -> None:
    """Forgets every plan (the test suite empties the tables, and account ids start again)."""
    _PLANS.clear()


def give_back(ahead: Ahead | None) -> None:
    """Returns what was spent ahead for a request that is not metered after all."""
    if ahead is not None:
        ahead.give_back()


def spend_cte():
    """The spend as a data-modifying WITH (named CTE_NAME); its parameters are the meter's
    (account_id, bucket, w5, ww, cost, limit_5h, limit_week)."""
    return meter.build_spend().returning(pw.SQL("1")).cte(CTE_NAME)


def spent_column(cte):
    """A column saying whether the WITH spent: 1 or 0."""
    return pw.Select(from_list=[cte], columns=[pw.fn.COUNT(pw.SQL("*"))]).alias("spent")

