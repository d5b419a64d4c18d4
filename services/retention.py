"""Retention: rows that grow with traffic are deleted by the clock once nothing reads them
(the hourly `apply_retention`, jobs/maintenance.py). Each kind has its rule below, and the
README's "Retention" section lists them with their settings.

Every prune works in batches: it selects up to BATCH ids oldest first, deletes those ids
(checking the row's condition again in the DELETE, so a row a request renewed meanwhile is
kept) and commits, so no table is locked for long. A run goes on until nothing aged is left
or its time budget (RETENTION_BUDGET_SECONDS) is spent, taking one batch of each kind in
turn so that a large backlog of one kind never starves the others; every kind gets at least
one batch a run. What a run leaves aged is counted per kind and kept in retention_backlog,
which the metrics report (ff_retention_left{kind}): a number that grows from run to run says
the prune falls behind the write rate (bench/retention_bench.py measures the rate it keeps
up with). Money (payments, orders, revenue, top-ups, the ad
ledger, billing events) is never pruned, nor is anything a founder made (stores, versions,
research, tickets, pages); idle anonymous sessions and unused uploads have prunes of their
own (services/sessions.py, services/own_product.py).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import peewee as pw

from models.account import SignInConfirmation, SignInToken
from models.clock import utcnow
from models.db import transaction
from models.discovery import Hold
from models.fix import FixRun
from models.funnel import FunnelEvent, Presence
from models.job import Job
from models.payment import SandboxCheckout, SandboxNotification
from models.retention import RetentionBacklog
from models.walkthrough import JourneyCarrier
from services.journey import KEPT_AFTER_EXPIRY as CARRIER_KEPT_AFTER_EXPIRY
from services.store.metrics import MAX_DAYS as FUNNEL_WINDOW_DAYS

BATCH = 500
# A Fix run carries up to 21 corrected pages of up to 2 MiB each: a smaller batch keeps one
# transaction's delete to a bounded amount of page text.
FIX_BATCH = 10


@dataclass(frozen=True)
class Prune:
    """One rule: the rows of `model` meeting `condition`, deleted by `key` in batches of
    `batch_size` ids, oldest first by `order`. The DELETE checks `recheck` (by default the
    condition itself) again on each row; `before_delete(ids)` runs first in the same
    transaction (rows that must go before them)."""

    model: type
    key: pw.Field
    condition: pw.Node
    order: tuple = ()
    batch_size: int = BATCH
    before_delete: Callable[[list], None] | None = None
    recheck: pw.Node | None = None

    def batch(self) -> tuple[int, bool]:
        """Deletes one batch; answers how many rows went and whether aged rows may be left."""
        with transaction():
            ids = [row_id for (row_id,) in
                   self.model.select(self.key).where(self.condition).order_by(*self.order)
                   .limit(self.batch_size).tuples()]
            if not ids:
                return 0, False
            if self.before_delete is not None:
                self.before_delete(ids)
            check = self.condition if self.recheck is None else self.recheck
            removed = self.model.delete().where(self.key.in_(ids), check).execute()
        return removed, len(ids) == self.batch_size

    def left(self) -> int:
        """How many rows meet the condition now."""
        return self.model.select().where(self.condition).count()


def drain(rules: dict[str, list[Prune]], *, seconds: float) -> dict[str, int]:
    """Runs every kind's rules, one batch of each in turn, until none has aged rows left or
    `seconds` have passed (every rule gets its first batch regardless); answers how many
    rows each kind deleted."""
    deadline = time.monotonic() + seconds
    removed = dict.fromkeys(rules, 0)
    pending = [(kind, rule) for kind, kind_rules in rules.items() for rule in kind_rules]
    first_turn = True
    while pending:
        still = []
        for kind, rule in pending:
            if not first_turn and time.monotonic() >= deadline:
                return removed
            count, more = rule.batch()
            removed[kind] += count
            if more:
                still.append((kind, rule))
        pending, first_turn = still, False
    return removed


def prune(rules: list[Prune], *, seconds: float = 60.0) -> int:
    """Drains one kind's rules alone; answers how many rows went."""
    return drain({"kind": rules}, seconds=seconds)["kind"]


# --- Jobs ---------------------------------------------------------------------------------------

def job_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Finished jobs whose last change is older than `days`, unless the job is the newest of
    its kind and subject: that one is what a route answers as the subject's latest run,
    build or publish (GET /api/discover, the store's build state), so it stays however old.
    A finished job never becomes active again (a retry is a new start of a queued job), so
    the DELETE re-checks only its status."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    newer = Job.alias("newer")
    has_newer = pw.fn.EXISTS(newer.select(pw.SQL("1")).where(
        (newer.kind == Job.kind) & (newer.subject == Job.subject)
        & ((newer.created_at > Job.created_at) | ((newer.created_at == Job.created_at) & (newer.id > Job.id)))))
    # One status at a time: the (status, updated_at) index then yields the old rows in
    # order (with both statuses at once SQLite sorts every old row for each batch), and the
    # job_subject_latest index answers "is there a newer one" per row.
    return [Prune(Job, Job.id, (Job.status == status) & (Job.updated_at < cutoff) & has_newer,
                  recheck=Job.status == status, order=(Job.updated_at,), batch_size=batch_size)
            for status in Job.FINISHED]


# --- What the store pages report, and where founders were ---------------------------------------

def funnel_event_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Funnel events of days older than `days` (never fewer than the store metrics' longest
    window, MAX_DAYS = 90: GET /api/editor/metrics?days=90 answers as before)."""
    first_kept = (now or utcnow()).date() - timedelta(days=max(days, FUNNEL_WINDOW_DAYS))
    return [Prune(FunnelEvent, FunnelEvent.id, FunnelEvent.day < first_kept, order=(FunnelEvent.day, FunnelEvent.id),
                  batch_size=batch_size)]


def presence_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Sessions' last screens not updated for `days` (a session's next POST /api/presence
    writes its row again)."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    return [Prune(Presence, Presence.session, Presence.updated_at < cutoff, batch_size=batch_size)]


# --- Fix ----------------------------------------------------------------------------------------

def fix_run_rules(*, days: int, now: datetime | None = None, batch_size: int = FIX_BATCH) -> list[Prune]:
    """Fix runs (with their corrected pages and events: ON DELETE CASCADE) `days` after they
    finished, or after their follow-up mail went, whichever is later: the report link in
    that mail keeps working for `days`. A run whose follow-up is still owed is kept."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    last_use = pw.fn.COALESCE(FixRun.followed_up_at, FixRun.finished_at, FixRun.created_at)
    # Only a report that was mailed (to an address that asked for it) owes a follow-up.
    follow_up_owed = ((FixRun.stage == FixRun.DONE) & FixRun.report_mailed_at.is_null(False)
                      & (FixRun.follow_up == True) & FixRun.followed_up_at.is_null())  # noqa: E712
    return [Prune(FixRun, FixRun.id, (last_use < cutoff) & ~follow_up_owed, order=(FixRun.id,), batch_size=batch_size)]


# --- Short-lived rows past their end ------------------------------------------------------------

def hold_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Holds that lapsed more than `days` ago. A lapsed hold still names the founder's product
    for a pass or claim that names none until then; the DELETE re-checks expires_at, so a
    hold taken again meanwhile is kept."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    return [Prune(Hold, Hold.product, Hold.expires_at < cutoff, batch_size=batch_size)]


def sign_in_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Sign-in links spent or expired and made more than `days` ago (the hourly mail bound
    counts only the last hour's), and browser confirmations that expired that long ago. A
    spent, an expired and an unknown link are answered alike, so nobody can tell."""
    now = now or utcnow()
    cutoff = now - timedelta(days=days)
    ended = (SignInToken.created_at < cutoff) & (SignInToken.spent_at.is_null(False) | (SignInToken.expires_at < now))
    return [Prune(SignInConfirmation, SignInConfirmation.id, SignInConfirmation.expires_at < cutoff,
                  batch_size=batch_size),
            Prune(SignInToken, SignInToken.id, ended, order=(SignInToken.id,), batch_size=batch_size)]


def journey_carrier_rules(*, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """Journey carriers a day after they expired (services/journey.py's own rule, which issuing
    a carrier also applies): the clock's pass empties the table when nobody issues any."""
    cutoff = (now or utcnow()) - CARRIER_KEPT_AFTER_EXPIRY
    return [Prune(JourneyCarrier, JourneyCarrier.id_hash, JourneyCarrier.expires_at < cutoff, batch_size=batch_size)]


def sandbox_checkout_rules(*, days: int, now: datetime | None = None, batch_size: int = BATCH) -> list[Prune]:
    """The sandbox provider's checkouts that ended unpaid (expired or failed) more than `days`
    after their day ended, once every notification about them was delivered, with those
    notifications. Paid checkouts stay: a refund asks for them."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    undelivered = SandboxNotification.select(pw.SQL("1")).where(
        (SandboxNotification.checkout == SandboxCheckout.id) & SandboxNotification.delivered_at.is_null())
    ended = (SandboxCheckout.state.in_((SandboxCheckout.EXPIRED, SandboxCheckout.FAILED))
             & (SandboxCheckout.expires_at < cutoff) & ~pw.fn.EXISTS(undelivered))

    def notifications(ids):
        SandboxNotification.delete().where(SandboxNotification.checkout.in_(ids),
                                           SandboxNotification.delivered_at.is_null(False)).execute()

    return [Prune(SandboxCheckout, SandboxCheckout.id, ended, before_delete=notifications, batch_size=batch_size)]


# --- All of them ----------------------------------------------------------------------------------

def rules_of(settings, now: datetime) -> dict[str, list[Prune]]:
    """Every kind's rules under the settings, as of `now`."""
    expired = settings.expired_retention_days
    return {
        "jobs": job_rules(days=settings.job_retention_days, now=now),
        "funnel_events": funnel_event_rules(days=settings.funnel_retention_days, now=now),
        "presence": presence_rules(days=settings.funnel_retention_days, now=now),
        "fix_runs": fix_run_rules(days=settings.fix_retention_days, now=now),
        "holds": hold_rules(days=expired, now=now),
        "sign_in": sign_in_rules(days=expired, now=now),
        "journey_carriers": journey_carrier_rules(now=now),
        "sandbox_checkouts": sandbox_checkout_rules(days=expired, now=now),
    }


def apply_retention(settings, *, now: datetime | None = None, seconds: float | None = None) -> dict[str, int]:
    """One run (the clock's hourly job): drains every kind within the time budget, then
    records what each left aged (retention_backlog); answers how many rows each deleted."""
    now = now or utcnow()
    rules = rules_of(settings, now)
    removed = drain(rules, seconds=settings.retention_budget_seconds if seconds is None else seconds)
    finished = utcnow()
    with transaction():
        for kind, kind_rules in rules.items():
            left = sum(rule.left() for rule in kind_rules)
            (RetentionBacklog.insert(kind=kind, left=left, removed=removed[kind], ran_at=finished)
             .on_conflict(conflict_target=[RetentionBacklog.kind],
                          update={RetentionBacklog.left: left, RetentionBacklog.removed: removed[kind],
                                  RetentionBacklog.ran_at: finished})
             .execute())
    return removed


def backlog() -> dict[str, int]:
    """What the last run left aged, per kind (the figure ff_retention_left reports)."""
    return {row.kind: row.left for row in RetentionBacklog.select()}
