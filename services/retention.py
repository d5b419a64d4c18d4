"""Retention: rows that grow with traffic are deleted by the clock once nothing reads them
(the hourly `apply_retention`, jobs/maintenance.py). Each kind has its rule below, and the
README's "Retention" section lists them with their settings.

Every prune works in batches: it selects up to BATCH ids oldest first, deletes those ids
(checking the row's condition again in the DELETE, so a row a request renewed meanwhile is
kept), commits, and stops after MAX_BATCHES, so no table is locked for long and the next
hour carries on where this one stopped. Money (payments, orders, revenue, top-ups, the ad
ledger, billing events) is never pruned, nor is anything a founder made (stores, versions,
research, tickets, pages); idle anonymous sessions and unused uploads have prunes of their
own (services/sessions.py, services/own_product.py).
"""
from __future__ import annotations

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
from models.walkthrough import JourneyCarrier
from services.journey import KEPT_AFTER_EXPIRY as CARRIER_KEPT_AFTER_EXPIRY
from services.store.metrics import MAX_DAYS as FUNNEL_WINDOW_DAYS

BATCH = 500
MAX_BATCHES = 20
# A Fix run carries up to 21 corrected pages of up to 2 MiB each: a smaller batch keeps one
# transaction's delete to a bounded amount of page text.
FIX_BATCH = 10


def _prune(model, key, condition, *, order=(), batch_size: int = BATCH, max_batches: int = MAX_BATCHES,
           before_delete=None, recheck=None) -> int:
    """Deletes the rows of `model` meeting `condition`, `batch_size` ids per transaction and
    at most `max_batches` transactions; returns how many went. The DELETE checks `recheck`
    (by default the condition itself) again on each row."""
    removed = 0
    for _ in range(max_batches):
        with transaction():
            ids = [row_id for (row_id,) in
                   model.select(key).where(condition).order_by(*order).limit(batch_size).tuples()]
            if not ids:
                break
            if before_delete is not None:
                before_delete(ids)
            removed += model.delete().where(key.in_(ids), condition if recheck is None else recheck).execute()
        if len(ids) < batch_size:
            break
    return removed


# --- Jobs ---------------------------------------------------------------------------------------

def prune_jobs(*, days: int, now: datetime | None = None, **batching) -> int:
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
    return sum(_prune(Job, Job.id, (Job.status == status) & (Job.updated_at < cutoff) & has_newer,
                      recheck=Job.status == status, order=(Job.updated_at,), **batching)
               for status in Job.FINISHED)


# --- What the store pages report, and where founders were ---------------------------------------

def prune_funnel_events(*, days: int, now: datetime | None = None, **batching) -> int:
    """Funnel events of days older than `days` (never fewer than the store metrics' longest
    window, MAX_DAYS = 90: GET /api/editor/metrics?days=90 answers as before)."""
    first_kept = (now or utcnow()).date() - timedelta(days=max(days, FUNNEL_WINDOW_DAYS))
    return _prune(FunnelEvent, FunnelEvent.id, FunnelEvent.day < first_kept,
                  order=(FunnelEvent.day, FunnelEvent.id), **batching)


def prune_presence(*, days: int, now: datetime | None = None, **batching) -> int:
    """Sessions' last screens not updated for `days` (a session's next POST /api/presence
    writes its row again)."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    return _prune(Presence, Presence.session, Presence.updated_at < cutoff, **batching)


# --- Fix ----------------------------------------------------------------------------------------

def prune_fix_runs(*, days: int, now: datetime | None = None, **batching) -> int:
    """Fix runs (with their corrected pages and events: ON DELETE CASCADE) `days` after they
    finished, or after their follow-up mail went, whichever is later: the report link in
    that mail keeps working for `days`. A run whose follow-up is still owed is kept."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    last_use = pw.fn.COALESCE(FixRun.followed_up_at, FixRun.finished_at, FixRun.created_at)
    follow_up_owed = ((FixRun.stage == FixRun.DONE) & FixRun.email.is_null(False)
                      & (FixRun.follow_up == True) & FixRun.followed_up_at.is_null())  # noqa: E712
    batching.setdefault("batch_size", FIX_BATCH)
    return _prune(FixRun, FixRun.id, (last_use < cutoff) & ~follow_up_owed, order=(FixRun.id,), **batching)


# --- Short-lived rows past their end ------------------------------------------------------------

def prune_holds(*, days: int, now: datetime | None = None, **batching) -> int:
    """Holds that lapsed more than `days` ago. A lapsed hold still names the founder's product
    for a pass or claim that names none until then; the DELETE re-checks expires_at, so a
    hold taken again meanwhile is kept."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    return _prune(Hold, Hold.product, Hold.expires_at < cutoff, **batching)


def prune_sign_in(*, days: int, now: datetime | None = None, **batching) -> int:
    """Sign-in links spent or expired and made more than `days` ago (the hourly mail bound
    counts only the last hour's), and browser confirmations that expired that long ago. A
    spent, an expired and an unknown link are answered alike, so nobody can tell."""
    now = now or utcnow()
    cutoff = now - timedelta(days=days)
    confirmations = _prune(SignInConfirmation, SignInConfirmation.id, SignInConfirmation.expires_at < cutoff,
                           **batching)
    ended = (SignInToken.created_at < cutoff) & (SignInToken.spent_at.is_null(False) | (SignInToken.expires_at < now))
    return confirmations + _prune(SignInToken, SignInToken.id, ended, order=(SignInToken.id,), **batching)


def prune_journey_carriers(*, now: datetime | None = None, **batching) -> int:
    """Journey carriers a day after they expired (services/journey.py's own rule, which issuing
    a carrier also applies): the clock's pass empties the table when nobody issues any."""
    cutoff = (now or utcnow()) - CARRIER_KEPT_AFTER_EXPIRY
    return _prune(JourneyCarrier, JourneyCarrier.id_hash, JourneyCarrier.expires_at < cutoff, **batching)


def prune_sandbox_checkouts(*, days: int, now: datetime | None = None, **batching) -> int:
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

    return _prune(SandboxCheckout, SandboxCheckout.id, ended, before_delete=notifications, **batching)


# --- All of them ----------------------------------------------------------------------------------

def apply_retention(settings, *, now: datetime | None = None) -> dict[str, int]:
    """Runs every prune once; answers how many rows each deleted (the clock's hourly job)."""
    now = now or utcnow()
    expired = settings.expired_retention_days
    return {
        "jobs": prune_jobs(days=settings.job_retention_days, now=now),
        "funnel_events": prune_funnel_events(days=settings.funnel_retention_days, now=now),
        "presence": prune_presence(days=settings.funnel_retention_days, now=now),
        "fix_runs": prune_fix_runs(days=settings.fix_retention_days, now=now),
        "holds": prune_holds(days=expired, now=now),
        "sign_in": prune_sign_in(days=expired, now=now),
        "journey_carriers": prune_journey_carriers(now=now),
        "sandbox_checkouts": prune_sandbox_checkouts(days=expired, now=now),
    }
