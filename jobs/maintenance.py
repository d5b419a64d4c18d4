"""Periodic housekeeping fired by the clock: the prune of idle anonymous sessions, the prune
of uploads nothing names any more, the retention of rows that grow with traffic and the
re-check of payments left open and refunds owed.
(The reaper runs in the clock process itself, workers/reaper.py, and each worker process
beats from a thread of its own: neither waits in the queue behind the work.)"""
import logging

import dramatiq

from config import get_settings
from jobs.send import send_all
from services.commerce.payments import recheck_open_payments, recheck_refunds
from services.own_product import prune_unused_images
from services.retention import apply_retention, backlog
from services.sessions import prune_anonymous_sessions

log = logging.getLogger("jobs.maintenance")


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def prune_sessions():
    """Deletes anonymous sessions older than ANON_SESSION_DAYS that hold, claimed, metered
    and bound nothing (the next hourly run carries on if one run leaves some behind)."""
    removed = prune_anonymous_sessions(older_than_days=get_settings().anon_session_days)
    if removed:
        log.info("idle anonymous sessions pruned", extra={"fields": {"removed": removed}})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def prune_images():
    """Deletes founder uploads that neither their product nor any version of their store
    names, a day after their last use (the next hourly run carries on if one run leaves some)."""
    removed = prune_unused_images()
    if removed:
        log.info("unused uploads pruned", extra={"fields": {"removed": removed}})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def prune_retained():
    """Deletes the rows past their retention (services/retention.py: finished jobs, funnel
    events, presence, Fix runs, lapsed holds, spent sign-in links, expired journey carriers,
    ended sandbox checkouts), batch after batch until none is left or RETENTION_BUDGET_SECONDS
    run out; what is left is recorded for ff_retention_left and carried on by the next run."""
    removed = apply_retention(get_settings())
    left = {kind: count for kind, count in backlog().items() if count}
    if any(removed.values()) or left:
        log.info("rows past their retention pruned", extra={"fields": {**removed, "left": left}})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=300_000)
def recheck_payments():
    """Asks the payment provider about payments still open after ten minutes (a lost
    notification, a closed tab), makes refunds due, asks again for refunds left half-way and
    asks how pending refunds stand."""
    changed, follow_ups = recheck_open_payments()
    send_all(follow_ups)  # the mail of orders this re-check found paid
    if changed:
        log.info("open payments settled by a re-check", extra={"fields": {"changed": changed}})
    refunds = recheck_refunds()
    if refunds:
        log.info("refunds moved by a re-check", extra={"fields": {"changed": refunds}})
