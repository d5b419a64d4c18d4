"""The life of a job row: created in the caller's transaction, started, fenced, finished.

Every transition is one conditional UPDATE whose row count says whether it happened, so
the database (not a check in Python) decides which attempt owns the job. A run's writes
are conditional on its attempt number: once a newer attempt has started, an older,
stalled run can no longer change the row.
"""
from __future__ import annotations

import secrets
import threading
import time
from datetime import timedelta

import peewee as pw

from config import get_settings
from models.clock import utcnow
from models.db import close_connection, db, transaction
from models.job import Job

# Jobs this process created and could not send (the broker did not answer): the reaper
# sends them once it does, so a request waiting on one of them has nothing to wait for.
# Process-local, as the request that sends a job is the one that waits on it; bounded, as a
# long outage could leave many (the oldest are forgotten first).
_not_sent: dict[str, None] = {}
_not_sent_lock = threading.Lock()
_NOT_SENT_KEPT = 10_000


def note_sent(job_id: str, sent: bool) -> None:
    """Records whether this process could send the job's message (jobs/send.py)."""
    if sent and not _not_sent:
        return  # the usual case: nothing to forget, no lock taken on every send
    with _not_sent_lock:
        if sent:
            _not_sent.pop(job_id, None)
            return
        _not_sent[job_id] = None
        while len(_not_sent) > _NOT_SENT_KEPT:
            del _not_sent[next(iter(_not_sent))]


def _not_sent_here(job_id: str) -> bool:
    with _not_sent_lock:
        return job_id in _not_sent


class Superseded(Exception):
    """A newer attempt owns the job (or it was finished); this run must stop writing."""


def create_job(*, kind: str, subject: str, payload: dict | None = None, max_attempts: int = 3) -> tuple[Job, bool]:
    """Creates the job, or returns the one already queued or running for the same kind and
    subject. Returns (job, created). Runs inside the caller's transaction when there is one."""
    now = utcnow()
    try:
        # A savepoint, so a lost race does not abort the caller's transaction.
        with db.atomic():
            job = Job.create(id=secrets.token_hex(16), kind=kind, subject=subject,
                             payload=payload or {}, max_attempts=max_attempts, created_at=now, updated_at=now)
        return job, True
    except pw.IntegrityError:
        existing = active_job(kind=kind, subject=subject)
        if existing is None:
            # The active job finished between our insert and this read: try once more.
            return create_job(kind=kind, subject=subject, payload=payload, max_attempts=max_attempts)
        return existing, False


def active_job(*, kind: str, subject: str) -> Job | None:
    return Job.get_or_none(Job.kind == kind, Job.subject == subject, Job.status.in_(Job.ACTIVE))


def get_job(job_id: str) -> Job | None:
    return Job.get_or_none(Job.id == job_id)


def start_attempt(job_id: str, *, lease_seconds: int) -> int | None:
    """Starts a new attempt on a queued job, or on a running one whose lease ran out.
    Returns the attempt number, or None when the job is not this caller's to start."""
    now = utcnow()
    with transaction():
        job = Job.get_or_none(Job.id == job_id)
        if job is None or job.status in Job.FINISHED:
            return None
        if job.status == Job.RUNNING and job.lease_until and job.lease_until > now:
            return None
        started = (Job.update(status=Job.RUNNING, attempt=Job.attempt + 1, started_at=now, updated_at=now,
                              lease_until=now + timedelta(seconds=lease_seconds), error=None)
                   .where(Job.id == job_id, Job.attempt == job.attempt, Job.status == job.status)
                   .execute())
        return job.attempt + 1 if started == 1 else None


def _owned(job_id: str, attempt: int):
    return (Job.id == job_id) & (Job.attempt == attempt) & (Job.status == Job.RUNNING)


def assert_owner(job_id: str, attempt: int) -> None:
    """Raises Superseded unless `attempt` still owns the running job. Inside a transaction
    this also locks the row (PostgreSQL) until commit, so no newer attempt can start
    between the check and the writes that follow it."""
    if Job.update(updated_at=utcnow()).where(_owned(job_id, attempt)).execute() != 1:
        raise Superseded(job_id)


def set_stage(job_id: str, attempt: int, stage: str) -> None:
    if Job.update(stage=stage, updated_at=utcnow()).where(_owned(job_id, attempt)).execute() != 1:
        raise Superseded(job_id)


def renew_lease(job_id: str, attempt: int, *, lease_seconds: float, stage: str | None = None) -> None:
    """Moves the lease of a running attempt to `lease_seconds` from now (and records its
    stage, if given), so the reaper leaves a long but live run alone; raises Superseded
    when the attempt no longer owns the job. The lease is renewed even if it just ran out:
    whichever of this UPDATE and the reaper's (fenced on updated_at) lands first wins."""
    now = utcnow()
    changes = {Job.lease_until: now + timedelta(seconds=lease_seconds), Job.updated_at: now}
    if stage is not None:
        changes[Job.stage] = stage
    if Job.update(changes).where(_owned(job_id, attempt)).execute() != 1:
        raise Superseded(job_id)


def finish(job_id: str, attempt: int, result=None) -> None:
    now = utcnow()
    done = (Job.update(status=Job.DONE, result=result, finished_at=now, updated_at=now, lease_until=None)
            .where(_owned(job_id, attempt)).execute())
    if done != 1:
        raise Superseded(job_id)


def fail(job_id: str, attempt: int, error: str) -> None:
    now = utcnow()
    failed = (Job.update(status=Job.FAILED, error=error, finished_at=now, updated_at=now, lease_until=None)
              .where(_owned(job_id, attempt)).execute())
    if failed != 1:
        raise Superseded(job_id)


def retry_later(job_id: str, attempt: int, error: str) -> bool:
    """Puts the job back in the queue after a transient failure. Returns False (and fails
    the job) when its attempts are used up."""
    job = get_job(job_id)
    if job is None:
        raise Superseded(job_id)
    if attempt >= job.max_attempts:
        fail(job_id, attempt, error)
        return False
    back = (Job.update(status=Job.QUEUED, error=error, updated_at=utcnow(), lease_until=None)
            .where(_owned(job_id, attempt)).execute())
    if back != 1:
        raise Superseded(job_id)
    return True


def reclaim_stale(*, stale_seconds: int, limit: int = 200) -> list[Job]:
    """Finds jobs that no worker is moving: queued for too long (their message was lost,
    say when Redis restarted) or running past their lease (their worker died). Returns the
    ones to send again; a stale job whose attempts are spent is failed instead. (The rule of
    the in-process broker, whose messages cannot be looked at; on Redis the reaper asks the
    broker instead of guessing from a queued job's age: see workers/reaper.py.)"""
    now = utcnow()
    cutoff = now - timedelta(seconds=stale_seconds)
    stale = list(Job.select().where(
        ((Job.status == Job.QUEUED) & (Job.updated_at < cutoff))
        | ((Job.status == Job.RUNNING) & (Job.lease_until < now))
    ).order_by(Job.updated_at).limit(limit))
    return take_back(stale)


def reclaim_lost_leases(*, limit: int = 200) -> list[Job]:
    """Takes back the running jobs whose lease ran out (their worker died or stalled):
    queued again and returned, to be sent; one whose attempts are spent is failed instead."""
    now = utcnow()
    lost = list(Job.select().where((Job.status == Job.RUNNING) & (Job.lease_until < now))
                .order_by(Job.updated_at).limit(limit))
    return take_back(lost)


def queued_before(*, seconds: float, limit: int = 500) -> list[Job]:
    """The queued jobs nothing has touched for `seconds` (oldest first)."""
    cutoff = utcnow() - timedelta(seconds=seconds)
    return list(Job.select().where((Job.status == Job.QUEUED) & (Job.updated_at < cutoff))
                .order_by(Job.updated_at).limit(limit))


def take_back(jobs: list[Job]) -> list[Job]:
    """Queues each job again as read (its updated_at moved to now), if it is still as read;
    returns the ones taken, which the caller sends. A running one whose attempts are spent
    is failed ("worker lost") instead."""
    now = utcnow()
    to_send = []
    for job in jobs:
        still = (Job.id == job.id) & (Job.status == job.status) & (Job.attempt == job.attempt) & (Job.updated_at == job.updated_at)
        if job.status == Job.RUNNING and job.attempt >= job.max_attempts:
            Job.update(status=Job.FAILED, error="worker lost", finished_at=now, updated_at=now,
                       lease_until=None).where(still).execute()
            continue
        # The conditional update makes two reapers running at once send a job only once.
        if Job.update(status=Job.QUEUED, updated_at=now, lease_until=None).where(still).execute() == 1:
            to_send.append(job)
    return to_send


def wait_for_job(job_id: str, *, seconds: float, no_worker_grace: float = 1.0) -> Job:
    """Waits (real time) until the job has finished or `seconds` have passed; returns
    the job row as last read. Gives up early when nothing would run the job: at once when
    it is queued and this process could not send it (the broker did not answer), and when
    it is still queued after `no_worker_grace` seconds and no worker has been heard from."""
    from services.health import worker_status

    started = time.monotonic()
    while True:
        job = get_job(job_id)
        close_connection()  # the wait holds no pooled connection between polls
        waited = time.monotonic() - started
        if job is None or job.status in Job.FINISHED or waited >= seconds:
            return job
        if job.status == Job.QUEUED and _not_sent_here(job_id):
            return job
        if job.status == Job.QUEUED and waited >= no_worker_grace:
            settings = get_settings()
            if not worker_status(stale_seconds=settings.worker_stale_seconds)["heard_from"]:
                close_connection()
                return job
        time.sleep(0.05 if waited < 2 else 0.2)


def release(job_id: str, attempt: int) -> bool:
    """Puts a running attempt's job back in the queue without counting it as failed (its
    worker is stopping before the run could finish); False when the attempt no longer
    owns the job. The next start is a new attempt, so the stopped run can write nothing."""
    back = (Job.update(status=Job.QUEUED, updated_at=utcnow(), lease_until=None)
            .where(_owned(job_id, attempt)).execute())
    return back == 1
