"""The reaper: gets every job that no worker is moving going again. The clock calls it
every REAPER_SECONDS in its own process (workers/clock.py), so it never waits in the queue
behind the builds it is there to rescue.

One pass, on Redis (whatever it sends goes to the head of the queue: these jobs already had
their turn once):
1. Messages taken by a worker whose broker heartbeat is older than WORKER_LOST_SECONDS
   (a worker killed, or its host gone) go back to their queue.
2. Running jobs whose lease ran out are queued again and sent (failed once their attempts
   are spent).
3. Queued jobs are compared with what the broker holds: one left alone for SEND_GRACE_SECONDS
   whose message the broker no longer holds (a Redis flushed or restarted empty, a send
   that failed, a process that died between the commit of the job's row and its send) is
   sent again. One whose message waits behind a backlog is left alone, so a long queue
   never doubles itself.

This is what makes the job rows an outbox: a row committed is a job that will run, the
message only a nudge. A job that starts others commits their rows with its own done mark
(jobs/runner.py, `ending`): whatever moment its worker dies at, each is sent, by the runner
after the commit or else here, and runs once (an actor finds a finished job and returns).

With the in-process broker, whose messages cannot be looked at, a queued job is sent again
once it has waited JOB_STALE_SECONDS, as before.
"""
from __future__ import annotations

import logging

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from models.db import close_connection
from models.job import Job
from services import jobs as job_rows
from workers.broker import enqueue_first, held_job_ids, requeue_lost_messages

log = logging.getLogger("reaper")

# A job row commits before its message is sent (jobs/send.py): a queued job younger than
# this may simply not have been sent yet.
SEND_GRACE_SECONDS = 5
# The queue of every job actor (jobs.runner.job_actor's default). The clock process declares
# no actors, so it cannot ask one; a process that has declared the job's actor uses its queue.
JOB_QUEUE = "default"


def reap(broker: dramatiq.Broker, settings) -> dict[str, int]:
    """One pass of the reaper; returns how many jobs it sent again, by cause. Raises when
    Redis or the database does not answer (the clock tries again at its next tick)."""
    try:
        if not isinstance(broker, RedisBroker):
            stale = job_rows.reclaim_stale(stale_seconds=settings.job_stale_seconds)
            _send_all(broker, stale)
            return _counts([job for job in stale if job.status == Job.RUNNING],
                           [job for job in stale if job.status == Job.QUEUED])
        requeue_lost_messages(broker)
        lost_leases = job_rows.reclaim_lost_leases()
        _send_all(broker, lost_leases)
        return _counts(lost_leases, _resend_unheld(broker))
    finally:
        close_connection()  # the clock's thread holds no pooled connection between passes


def _resend_unheld(broker: RedisBroker) -> list[Job]:
    waiting = job_rows.queued_before(seconds=SEND_GRACE_SECONDS)
    if not waiting:
        return []  # the common case: nothing to compare, so the broker's messages are not read
    # Read after the rows: a message sent since then is a job the rows show as younger or
    # running; take_back's conditional update leaves a job that moved on alone.
    held = held_job_ids(broker)
    unheld = job_rows.take_back([job for job in waiting if job.id not in held])
    _send_all(broker, unheld)
    return unheld


def _send_all(broker: dramatiq.Broker, jobs: list[Job]) -> None:
    for job in jobs:
        queue = broker.actors[job.kind].queue_name if job.kind in broker.actors else JOB_QUEUE
        # At the head of the queue: a job that was already running, or waited its turn
        # once, does not wait behind the backlog a second time.
        enqueue_first(broker, dramatiq.Message(queue_name=queue, actor_name=job.kind, args=(job.id,), kwargs={}, options={}))


def _counts(leases: list[Job], unheld: list[Job]) -> dict[str, int]:
    """By cause: a running job whose lease ran out, a queued job whose message was lost."""
    counts = {"lease_expired": len(leases), "message_lost": len(unheld)}
    if leases or unheld:
        log.info("jobs sent again", extra={"fields": {
            **counts, "job_ids": [job.id for job in [*leases, *unheld]]}})
    return counts
