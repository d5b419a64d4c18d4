"""How a job runs: lock the subject, start an attempt, do the work, record the outcome.

`@job_actor("kind")` turns `fn(ctx)` into a Dramatiq actor that takes a job id. Dramatiq
delivers at least once, so every run starts from the row: a job that is gone, finished,
or being run by someone else is left alone. The per-subject lock keeps two jobs on one
subject (say a build and an edit of one store) from running side by side; the attempt
number fences every write, so a run that stalled past its lease cannot overwrite the
attempt that replaced it.
"""
from __future__ import annotations

import logging
import time
from contextlib import contextmanager

import dramatiq

from config import get_settings
from integrations.locks import get_locks, holding
from models.db import transaction
from models.job import Job
from services import jobs as job_rows
from services.errors import JobFailed, TransientError  # noqa: F401  (re-exported for the actors)

log = logging.getLogger("jobs")


class JobContext:
    """What a job function gets: its job, its attempt, and fenced ways to write."""

    def __init__(self, job: Job, attempt: int):
        self.job_id = job.id
        self.kind = job.kind
        self.subject = job.subject
        self.payload = job.payload or {}
        self.attempt = attempt

    def stage(self, name: str) -> None:
        """Records the stage the API reports; raises Superseded if a newer attempt owns the job."""
        job_rows.set_stage(self.job_id, self.attempt, name)

    @contextmanager
    def fenced(self):
        """A transaction whose writes land only while this attempt still owns the job."""
        with transaction():
            job_rows.assert_owner(self.job_id, self.attempt)
            yield


def job_actor(kind: str, *, queue: str = "default", lease_seconds: int = 300, retry_delays=(2, 15, 60),
              time_limit_ms: int | None = None):
    """Declares `fn(ctx)` as the actor for jobs of `kind`. A run is stopped after
    `time_limit_ms` (default: its lease), since past its lease another attempt may start."""

    def declare(fn):
        def run(job_id: str):
            run_job(job_id, fn, lease_seconds=lease_seconds, retry_delays=retry_delays)

        run.__name__ = run.__qualname__ = kind
        run.__doc__ = fn.__doc__
        # Retries are ours (the row records them), so Dramatiq's own are off.
        return dramatiq.actor(run, actor_name=kind, queue_name=queue, max_retries=0,
                              time_limit=time_limit_ms or lease_seconds * 1000)

    return declare


def run_job(job_id: str, fn, *, lease_seconds: int, retry_delays) -> str:
    """Runs one delivery of a job message; returns what happened (for the log and tests)."""
    from jobs.send import send  # late: send imports the broker, which imports this module's users

    job = job_rows.get_job(job_id)
    if job is None or job.status in Job.FINISHED:
        return _log_outcome(job_id, job.kind if job else "?", None, "skipped", 0.0)
    locks = get_locks(get_settings().redis_url)
    with holding(locks, f"subject:{job.subject}", lease_seconds) as held:
        if not held:
            # Another job on this subject is running. A queued job comes back shortly; a
            # running one belongs to whoever holds the lock (the reaper covers a dead holder).
            if job.status == Job.QUEUED:
                send(job, delay_ms=1000)
            return _log_outcome(job_id, job.kind, None, "subject_busy", 0.0)
        attempt = job_rows.start_attempt(job_id, lease_seconds=lease_seconds)
        if attempt is None:
            return _log_outcome(job_id, job.kind, None, "not_ours", 0.0)
        began = time.monotonic()
        try:
            result = fn(JobContext(job, attempt))
            job_rows.finish(job_id, attempt, result)
            outcome = "done"
        except job_rows.Superseded:
            outcome = "superseded"
        except TransientError as exc:
            outcome = _retry(job, attempt, str(exc)[:500], retry_delays)
        except JobFailed as exc:
            outcome = _fail(job_id, attempt, exc.reason)
        except Exception:
            log.exception("job raised", extra={"fields": {"job_id": job_id, "actor": job.kind, "attempt": attempt}})
            outcome = _fail(job_id, attempt, "internal_error")
        return _log_outcome(job_id, job.kind, attempt, outcome, time.monotonic() - began)


def _retry(job: Job, attempt: int, error: str, retry_delays) -> str:
    from jobs.send import send

    try:
        if not job_rows.retry_later(job.id, attempt, error=error):
            return "failed"
    except job_rows.Superseded:  # the row moved on (or is gone) while this run worked
        return "superseded"
    send(job, delay_ms=1000 * retry_delays[min(attempt, len(retry_delays)) - 1])
    return "retry"


def _fail(job_id: str, attempt: int, reason: str) -> str:
    try:
        job_rows.fail(job_id, attempt, reason)
        return "failed"
    except job_rows.Superseded:
        return "superseded"


def _log_outcome(job_id, actor, attempt, outcome, seconds) -> str:
    log.info("job", extra={"fields": {"job_id": job_id, "actor": actor, "attempt": attempt,
                                      "outcome": outcome, "duration_ms": round(seconds * 1000, 1)}})
    return outcome
