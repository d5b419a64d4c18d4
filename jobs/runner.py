"""How a job runs: lock the subject, start an attempt, keep its lease, do the work, record
the outcome.

`@job_actor("kind")` turns `fn(ctx)` into a Dramatiq actor that takes a job id. Dramatiq
delivers at least once, so every run starts from the row: a job that is gone, finished,
or being run by someone else is left alone. The per-subject lock keeps two jobs on one
subject (say a build and an edit of one store) from running side by side; the attempt
number fences every write, so a run that stalled past its lease cannot overwrite the
attempt that replaced it.

A run holds two things that expire after its lease (JOB_LEASE_SECONDS, 15 s unless a
kind sets its own): the subject lock and the lease on its row (`lease_until`; the reaper
takes a running job whose lease ran out for one whose worker died, and sends it again). A
live run renews both, each time it moves a stage and from a heartbeat thread every
lease/3, so a job may run for many leases while a dead worker's job is picked up about
one lease after it stopped. When a renewal finds the row moved on, or the lock held by
someone else, the run learns it: its next stage or fenced write raises Superseded, and
the heartbeat stops.

Every run in progress is registered in this process (`running()`), so a worker that stops
before its runs finish hands them back at once (`release_running`) instead of leaving them
to the reaper.

A job that starts other jobs ends in one transaction (`ctx.ending()`): its last writes, its
done mark with its result and the rows of the jobs it starts commit together, and the
runner sends those jobs after the commit. The rows are the outbox: a worker that dies after
the commit leaves the job done (a rerun finds it so and does nothing) and the jobs it started
queued, and the reaper sends any whose message never reached the broker (workers/reaper.py).
A worker that dies before the commit leaves nothing of the run: the job runs again whole.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager

import dramatiq
from dramatiq.middleware import TimeLimitExceeded

from config import get_settings
from integrations.locks import get_locks, holding
from integrations.processes import stop_programs_of
from models.db import close_connection, transaction
from models.job import Job
from services import jobs as job_rows
from services.errors import JobFailed, TransientError  # noqa: F401  (re-exported for the actors)

log = logging.getLogger("jobs")

# A healthy run renews its lease for as long as it works, so the lease no longer bounds a
# run; Dramatiq's time limit does. Without one, a run stuck in a call that never returns
# would keep its heartbeat beating and hold its job and its subject's lock for good.
# Thirty minutes leaves room for a storefront build's many AI stages (several leases of
# a few minutes each); a kind that needs longer declares its own `time_limit_ms`.
DEFAULT_TIME_LIMIT_MS = 30 * 60 * 1000
BEATS_PER_LEASE = 3  # a lease survives two missed beats (a slow database, a GC pause)

# The runs in progress in this process, by (job id, attempt).
_running: dict[tuple[str, int], Lease] = {}
_running_guard = threading.Lock()


class Lease:
    """A run's hold on its job: the subject lock and the row's `lease_until`, renewed together."""

    def __init__(self, job_id: str, attempt: int, lock, *, lease_seconds: float, run_seconds: float):
        self.job_id = job_id
        self.attempt = attempt
        self.lease_seconds = lease_seconds
        self._lock = lock
        self._lock_mutex = threading.Lock()  # the job's thread and the heartbeat both renew
        self._ends = time.monotonic() + run_seconds
        self._lost = threading.Event()
        self._ended = threading.Event()  # the run's done mark committed: nothing left to renew

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def check(self) -> None:
        """Raises Superseded once a renewal found the job or its lock in other hands."""
        if self._lost.is_set():
            raise job_rows.Superseded(self.job_id)

    def renew(self, stage: str | None = None) -> None:
        """Extends the lock, then the row's lease (recording `stage` in the same UPDATE);
        raises Superseded, and remembers it, when either belongs to someone else."""
        self.check()
        if time.monotonic() > self._ends:
            # Past its time limit the run is being stopped: its lease is left to run out.
            if stage is not None:
                job_rows.set_stage(self.job_id, self.attempt, stage)
            return
        if not self._keep_lock():
            self._lose("subject_lock_taken")
        try:
            job_rows.renew_lease(self.job_id, self.attempt, lease_seconds=self.lease_seconds, stage=stage)
        except job_rows.Superseded:
            self._lose("attempt_superseded")

    def _keep_lock(self) -> bool:
        # The lock can run out with nobody taking it (the run paused for longer than the
        # lease before the reaper noticed): it is then taken again, and the row's fence
        # decides. Only another holder means someone else is working on the subject.
        with self._lock_mutex:
            if self._lost.is_set():  # handed back meanwhile: the lock is someone else's to take
                return False
            try:
                return self._lock.extend() or self._lock.acquire()
            except Exception as exc:
                # Redis did not answer: the lock may well still be ours. The row's lease is
                # renewed regardless (its fence is the guarantee); the next renewal retries.
                # No traceback: an outage would print one at every renewal of every job.
                log.warning("job lock not extended", extra={"fields": {
                    "job_id": self.job_id, "attempt": self.attempt, "error": f"{type(exc).__name__}: {exc}"[:300]}})
                return True

    def hand_back(self) -> bool:
        """Gives the job up while it runs (its worker is stopping): the row goes back to the
        queue, the lock is let go, and this run's next stage or fenced write raises
        Superseded. True when the row was still this attempt's to give back."""
        self._lost.set()
        try:
            returned = job_rows.release(self.job_id, self.attempt)
        finally:
            with self._lock_mutex:
                self._lock.release()
            close_connection()
        return returned

    def end(self) -> None:
        """The run's done mark committed: the heartbeat stops, and a beat that raced the
        commit (its row no longer running) is no lost lease."""
        self._ended.set()

    def _lose(self, why: str) -> None:
        self._lost.set()
        if not self._ended.is_set():
            log.warning("job lease lost", extra={"fields": {"job_id": self.job_id, "attempt": self.attempt,
                                                            "why": why}})
        raise job_rows.Superseded(self.job_id)

    def beat(self) -> bool:
        """One heartbeat: renews the lease; False once the run has lost it."""
        try:
            self.renew()
            return True
        except job_rows.Superseded:
            return False
        except Exception:  # Redis or the database hiccuped: the lease has two more beats
            log.warning("job lease not renewed; trying again at the next beat", exc_info=True,
                        extra={"fields": {"job_id": self.job_id, "attempt": self.attempt}})
            return True
        finally:
            close_connection()  # this thread's connection goes back to the pool between beats

    @contextmanager
    def kept_alive(self):
        """Beats in a background thread while the block runs; stopped and joined on exit."""
        stop = threading.Event()
        interval = self.lease_seconds / BEATS_PER_LEASE
        run_thread = threading.current_thread()

        def beating():
            while (not stop.wait(interval) and not self._ended.is_set() and time.monotonic() < self._ends
                   and self.beat()):
                pass
            if self._lost.is_set() and not self._ended.is_set():
                # The job is another run's now (or handed back): a model program this run is
                # waiting on would answer nobody, so it ends now rather than at its timeout.
                stop_programs_of([run_thread])

        thread = threading.Thread(target=beating, name=f"lease-{self.job_id}-{self.attempt}", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()


class Ending:
    """What a run's last transaction records besides its writes: the job's result and the
    jobs it starts (their rows created in that transaction), sent once it has committed."""

    def __init__(self):
        self.result = None
        self.started: list[Job] = []

    def start(self, job: Job | None) -> None:
        """Sends `job` (created in this transaction; None: nothing new) after the commit."""
        if job is not None:
            self.started.append(job)


class JobContext:
    """What a job function gets: its job, its attempt, and fenced ways to write."""

    def __init__(self, job: Job, attempt: int, lease: Lease):
        self.job_id = job.id
        self.kind = job.kind
        self.subject = job.subject
        self.payload = job.payload or {}
        self.attempt = attempt
        self._lease = lease
        self.ended: Ending | None = None  # set once `ending()` committed

    def stage(self, name: str) -> None:
        """Records the stage the API reports and renews the run's lease and lock; raises
        Superseded if a newer attempt owns the job (or another holder has its lock)."""
        self._lease.renew(stage=name)

    @contextmanager
    def fenced(self):
        """A transaction whose writes land only while this attempt still owns the job."""
        self._lease.check()
        with transaction():
            job_rows.assert_owner(self.job_id, self.attempt)
            yield

    @contextmanager
    def ending(self):
        """The run's last transaction, fenced like `fenced()`: the block's writes, the rows of
        the jobs it starts (`ending.start(job)`) and the job's done mark with `ending.result`
        commit together. The runner sends the started jobs after the commit; what the job
        function returns afterwards is not recorded."""
        ending = Ending()
        with self.fenced():
            yield ending
            job_rows.finish(self.job_id, self.attempt, ending.result)
        self._lease.end()
        self.ended = ending


def job_actor(kind: str, *, queue: str = "default", lease_seconds: float | None = None, retry_delays=(2, 15, 60),
              time_limit_ms: int = DEFAULT_TIME_LIMIT_MS):
    """Declares `fn(ctx)` as the actor for jobs of `kind`. A run keeps its lease (by default
    JOB_LEASE_SECONDS, read when it starts) for as long as it works, and is stopped after
    `time_limit_ms` (see DEFAULT_TIME_LIMIT_MS)."""

    def declare(fn):
        def run(job_id: str):
            run_job(job_id, fn, lease_seconds=lease_seconds, retry_delays=retry_delays, time_limit_ms=time_limit_ms)

        run.__name__ = run.__qualname__ = kind
        run.__doc__ = fn.__doc__
        # Retries are ours (the row records them), so Dramatiq's own are off.
        return dramatiq.actor(run, actor_name=kind, queue_name=queue, max_retries=0, time_limit=time_limit_ms)

    return declare


def run_job(job_id: str, fn, *, lease_seconds: float | None = None, retry_delays,
            time_limit_ms: int = DEFAULT_TIME_LIMIT_MS) -> str:
    """Runs one delivery of a job message; returns what happened (for the log and tests)."""
    from jobs.send import send  # late: send imports the broker, which imports this module's users

    lease_seconds = lease_seconds or get_settings().job_lease_seconds
    job = job_rows.get_job(job_id)
    if job is None or job.status in Job.FINISHED:
        return _log_outcome(job_id, job.kind if job else "?", None, "skipped", 0.0)
    locks = get_locks(get_settings().redis_url)
    with holding(locks, f"subject:{job.subject}", lease_seconds) as lock:
        if lock is None:
            # Another job on this subject is running. A queued job comes back shortly; a
            # running one belongs to whoever holds the lock (the reaper covers a dead holder).
            if job.status == Job.QUEUED:
                send(job, delay_ms=1000)
            return _log_outcome(job_id, job.kind, None, "subject_busy", 0.0)
        attempt = job_rows.start_attempt(job_id, lease_seconds=lease_seconds)
        if attempt is None:
            return _log_outcome(job_id, job.kind, None, "not_ours", 0.0)
        lease = Lease(job_id, attempt, lock, lease_seconds=lease_seconds, run_seconds=time_limit_ms / 1000)
        began = time.monotonic()
        ctx = JobContext(job, attempt, lease)
        with _running_guard:
            _running[(job_id, attempt)] = lease
        try:
            with lease.kept_alive():
                result = fn(ctx)
            if ctx.ended is None:
                lease.check()  # a run that lost its lease on the way records nothing
                job_rows.finish(job_id, attempt, result)
            outcome = "done"
        except job_rows.Superseded:
            outcome = "superseded"
        except TransientError as exc:
            outcome = _retry(job, attempt, str(exc)[:500], retry_delays, lease)
        except JobFailed as exc:
            outcome = _fail(job_id, attempt, exc.reason, lease)
        except TimeLimitExceeded:
            # Dramatiq stopped a run that outlived its time limit: tried again like a
            # transient failure, until the job's attempts are spent.
            outcome = _retry(job, attempt, "ran past its time limit", retry_delays, lease)
        except Exception:
            if lease.lost:  # handed back while it ran: what it raised is of no consequence
                outcome = "superseded"
            else:
                log.exception("job raised", extra={"fields": {"job_id": job_id, "actor": job.kind, "attempt": attempt}})
                outcome = _fail(job_id, attempt, "internal_error", lease)
        finally:
            with _running_guard:
                _running.pop((job_id, attempt), None)
        if ctx.ended is not None:
            # Done and committed, whatever was raised after: the jobs it started go now (a send
            # that fails, or a worker that dies first, leaves them queued for the reaper).
            outcome = "done"
            for started in ctx.ended.started:
                send(started)
        return _log_outcome(job_id, job.kind, attempt, outcome, time.monotonic() - began)


def running() -> list[tuple[str, int]]:
    """The (job id, attempt) of every run in progress in this process."""
    with _running_guard:
        return list(_running)


def release_running() -> list[str]:
    """Hands every run still in progress in this process back to the queue (a stopping
    worker whose shutdown time ran out): each row is queued again and its message sent, so
    another worker starts it at once rather than after its lease and the reaper. The runs
    themselves stop writing (their attempt no longer owns the row). Returns the job ids sent."""
    from jobs.send import send

    with _running_guard:
        leases = list(_running.values())
    sent = []
    for lease in leases:
        try:
            if lease.hand_back():
                job = job_rows.get_job(lease.job_id)
                if job is not None:
                    send(job, first=True)  # it had its turn: ahead of the backlog
                    sent.append(job.id)
        except Exception:  # one job the database or broker would not take back is left to the reaper
            log.warning("running job not handed back; the reaper will send it again after its lease",
                        exc_info=True, extra={"fields": {"job_id": lease.job_id, "attempt": lease.attempt}})
        finally:
            close_connection()
    if sent:
        log.info("running jobs handed back", extra={"fields": {"job_ids": sent}})
    return sent


def _retry(job: Job, attempt: int, error: str, retry_delays, lease: Lease | None = None) -> str:
    from jobs.send import send

    try:
        if lease is not None:
            lease.check()
        if not job_rows.retry_later(job.id, attempt, error=error):
            return "failed"
    except job_rows.Superseded:  # the row moved on (or is gone) while this run worked
        return "superseded"
    send(job, delay_ms=1000 * retry_delays[min(attempt, len(retry_delays)) - 1])
    return "retry"


def _fail(job_id: str, attempt: int, reason: str, lease: Lease | None = None) -> str:
    try:
        if lease is not None:
            lease.check()
        job_rows.fail(job_id, attempt, reason)
        return "failed"
    except job_rows.Superseded:
        return "superseded"


def _log_outcome(job_id, actor, attempt, outcome, seconds) -> str:
    log.info("job", extra={"fields": {"job_id": job_id, "actor": actor, "attempt": attempt,
                                      "outcome": outcome, "duration_ms": round(seconds * 1000, 1)}})
    return outcome
