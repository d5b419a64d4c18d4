"""Locks and leases that outlive a long job: a live run renews its subject lock and its
row's lease, so the reaper leaves it alone however long it works; a dead worker's job is
picked up once its lease and lock run out, and the dead attempt can no longer write."""
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from contextlib import contextmanager

import dramatiq
import pytest

from config import ROOT
from integrations.locks import InProcessLocks, RedisLocks, get_locks, holding
from jobs import send, start
from jobs.runner import Lease, job_actor, run_job
from models.db import close_connection, transaction
from models.job import Job
from services import jobs as job_rows
from tests.conftest import SETTINGS, TEST_REDIS_URL
from tests.helpers import wait_for
from tests.lease_worker import KILLED, LEASE_SECONDS, PROBE_QUEUE, counter, killed_body

needs_redis = pytest.mark.servers  # needs Redis (TEST_REDIS_URL): runs in CI's PostgreSQL and Redis pass

STARTS = Counter()  # job id -> how many times a run entered the job's body


@job_actor("lease_test_long", lease_seconds=LEASE_SECONDS)
def long_job(ctx):
    """Three stages that together last three leases; the middle one alone outlasts a lease,
    so only the heartbeat keeps the job through it."""
    STARTS[ctx.job_id] += 1
    for name, seconds in (("one", 0.5), ("two", 1.6), ("three", 0.9)):
        ctx.stage(name)
        time.sleep(seconds)
    return {"attempt": ctx.attempt}


DIES = {"started": threading.Event(), "wake": threading.Event(), "late_write": None, "finished": 0}


@job_actor("lease_test_dies", lease_seconds=LEASE_SECONDS)
def dies(ctx):
    STARTS[ctx.job_id] += 1
    if ctx.attempt == 1:
        ctx.stage("working")
        DIES["started"].set()
        DIES["wake"].wait(timeout=30)  # dead: no beat, no stage, its lock never let go of
        try:
            with ctx.fenced():
                DIES["late_write"] = "written"
        except job_rows.Superseded:
            DIES["late_write"] = "refused"
            raise
    DIES["finished"] += 1
    return {"by": ctx.attempt}


@job_actor("lease_test_overruns", lease_seconds=LEASE_SECONDS, time_limit_ms=1500)
def overruns(ctx):
    ctx.stage("working")
    for _ in range(200):  # 10 s in short sleeps, so Dramatiq's stop lands between them
        time.sleep(0.05)
    return {"finished": True}


# The killed worker's job, run here by the in-process worker once the reaper sends it again.
job_actor(KILLED, lease_seconds=LEASE_SECONDS)(killed_body)


@pytest.fixture(autouse=True)
def reset():
    STARTS.clear()
    DIES["started"].clear()
    DIES["wake"].clear()
    DIES.update(late_write=None, finished=0)


@contextmanager
def reaper_running(every: float = 0.2):
    """The clock's reaper (jobs.maintenance.requeue_stale_jobs: reclaim, then send), run
    every `every` seconds in a thread; yields the ids it reclaimed."""
    reclaimed, errors, stop = [], [], threading.Event()

    def reap():
        while not stop.wait(every):
            try:
                for job in job_rows.reclaim_stale(stale_seconds=SETTINGS.job_stale_seconds):
                    reclaimed.append(job.id)
                    send(job)
            except Exception as exc:  # reported below, so a failing reaper fails the test
                errors.append(exc)
            finally:
                close_connection()

    thread = threading.Thread(target=reap, name="test-reaper", daemon=True)
    thread.start()
    try:
        yield reclaimed
    finally:
        stop.set()
        thread.join()
    if errors:
        raise errors[0]


def job_row(job_id: str) -> Job:
    return Job.get_by_id(job_id)


# Leases -------------------------------------------------------------------------------


def test_a_job_running_three_leases_runs_once_while_the_reaper_runs(run_jobs):
    with reaper_running() as reclaimed:
        job = start(kind="lease_test_long", subject="store:long")
        wait_for(lambda: job_row(job.id).status in Job.FINISHED, 20, "the long job to finish")
    run_jobs()
    job = job_row(job.id)
    assert (job.status, job.attempt, job.stage, job.result) == (Job.DONE, 1, "three", {"attempt": 1})
    assert STARTS[job.id] == 1
    assert reclaimed == []


def test_a_worker_that_dies_mid_job_is_replaced_after_its_lease_and_finishes_once(run_jobs, monkeypatch):
    """In this process: attempt 1 stops beating and never lets go of its lock (as a dead
    worker would), so the reaper re-sends the job once its lease and lock have run out."""
    real_beat = Lease.beat
    monkeypatch.setattr(Lease, "beat", lambda lease: True if lease.attempt == 1 else real_beat(lease))
    with reaper_running() as reclaimed:
        job = start(kind="lease_test_dies", subject="store:dies")
        assert DIES["started"].wait(timeout=10)
        died = time.monotonic()
        wait_for(lambda: job_row(job.id).status in Job.FINISHED, 20, "the job to be finished by attempt 2")
        replaced_after = time.monotonic() - died
    DIES["wake"].set()  # the dead attempt wakes and tries to write
    run_jobs()
    job = job_row(job.id)
    assert (job.status, job.attempt, job.result) == (Job.DONE, 2, {"by": 2})
    assert reclaimed == [job.id]
    assert replaced_after >= LEASE_SECONDS * 0.8  # not before its lease ran out
    assert (STARTS[job.id], DIES["finished"], DIES["late_write"]) == (2, 1, "refused")


HANDED = {"started": threading.Event(), "second_stage": None}


@job_actor("lease_test_handed_back")
def handed_back(ctx):
    """Attempt 1 works until its worker hands it back; a later attempt finishes at once."""
    STARTS[ctx.job_id] += 1
    if ctx.attempt == 1:
        ctx.stage("working")
        HANDED["started"].set()
        for _ in range(200):  # its worker stops meanwhile: the next stage learns it
            time.sleep(0.05)
            try:
                ctx.stage("still working")
            except job_rows.Superseded:
                HANDED["second_stage"] = "refused"
                raise
    return {"by": ctx.attempt}


def test_a_stopping_worker_hands_its_running_job_back_and_it_runs_again_at_once(run_jobs, broker):
    """What a worker process does when its shutdown time runs out (workers/worker.py): the
    row is queued again and its message sent, the lock let go, and the run still going can
    write nothing more; the next delivery starts attempt 2 without waiting for the lease."""
    from integrations.locks import get_locks
    from jobs.runner import release_running, running

    HANDED["started"].clear()
    HANDED["second_stage"] = None
    job = start(kind="lease_test_handed_back", subject="store:handed")
    assert HANDED["started"].wait(timeout=10)
    assert (job.id, 1) in running()
    released_at = time.monotonic()
    assert release_running() == [job.id]
    wait_for(lambda: job_row(job.id).status in Job.FINISHED, 10, "the job to be run again and finish")
    assert time.monotonic() - released_at < 5  # the next delivery, not the lease and the reaper
    run_jobs()
    job = job_row(job.id)
    assert (job.status, job.attempt, job.result) == (Job.DONE, 2, {"by": 2})
    assert (STARTS[job.id], HANDED["second_stage"]) == (2, "refused")
    assert running() == []
    assert get_locks(SETTINGS.redis_url).acquire("subject:store:handed", 1) is not None  # let go


def _run_here(subject: str, body) -> tuple[str, Job]:
    """Runs a job of `body` in this thread, as a worker would; returns the outcome and the row."""
    with transaction():
        job, _ = job_rows.create_job(kind="lease_test_direct", subject=subject)
    outcome = run_job(job.id, body, lease_seconds=LEASE_SECONDS, retry_delays=(0,))
    return outcome, job_row(job.id)


def _take_when_free(name: str, timeout: float):
    """Another holder's lock on `name`, taken as soon as it is free."""
    other = get_locks(SETTINGS.redis_url).lock(name, 5)
    assert wait_for(other.acquire, timeout, f"the lock {name} to be free")
    return other


def test_a_run_whose_row_moved_on_stops_beating_and_its_next_stage_is_refused():
    seen = {}

    def body(ctx):
        ctx.stage("one")
        Job.update(attempt=2).where(Job.id == ctx.job_id).execute()  # a newer attempt took the job
        # The next beat finds the row moved on and stops renewing, so the lock runs out.
        seen["lock"] = _take_when_free(f"subject:{ctx.subject}", 3 * LEASE_SECONDS)
        ctx.stage("two")

    outcome, job = _run_here("store:moved-on", body)
    assert outcome == "superseded"
    assert (job.status, job.attempt, job.stage) == (Job.RUNNING, 2, "one")
    assert seen["lock"].release() is True  # the run's own release left the new holder alone


def test_a_run_whose_lock_another_holder_took_stops_at_its_next_stage(monkeypatch):
    monkeypatch.setattr(Lease, "beat", lambda lease: True)  # paused: its lock runs out meanwhile

    def body(ctx):
        ctx.stage("one")
        other = _take_when_free(f"subject:{ctx.subject}", 3 * LEASE_SECONDS)  # another job on the subject
        try:
            ctx.stage("two")
        finally:
            other.release()

    outcome, job = _run_here("store:lock-taken", body)
    assert outcome == "superseded"
    assert (job.status, job.attempt, job.stage) == (Job.RUNNING, 1, "one")  # nothing written; the reaper will see it


@pytest.fixture
def time_limits_enforced(broker):
    """The `dramatiq` command starts Dramatiq's time-limit watcher when a worker process
    boots; the suite's worker is started in-process, which skips that, so start it here."""
    from dramatiq.middleware import TimeLimit

    manager = next(m for m in broker.middleware if isinstance(m, TimeLimit)).manager
    if not manager.is_alive():
        manager.start()


def test_a_run_past_its_time_limit_is_stopped_and_lets_go_of_its_lease(run_jobs, time_limits_enforced):
    """Beating does not keep a run forever: Dramatiq stops it at its time limit, and the
    job is retried like a transient failure (here it has no attempt left, so it fails)."""
    job = start(kind="lease_test_overruns", subject="store:overruns", max_attempts=1)
    wait_for(lambda: job_row(job.id).status in Job.FINISHED, 10, "the run to be stopped")
    run_jobs()
    job = job_row(job.id)
    assert (job.status, job.attempt, job.error, job.lease_until) == (Job.FAILED, 1, "ran past its time limit", None)
    assert get_locks(SETTINGS.redis_url).acquire("subject:store:overruns", 1) is not None


@needs_redis
def test_a_worker_process_killed_mid_job_is_replaced_after_its_lease_and_finishes_once(run_jobs, broker, tmp_path):
    """A real worker process takes the job and is killed (SIGKILL) mid-job: its lock stays
    in Redis and its lease on the row until both run out; then the reaper re-sends the job,
    this process's worker finishes it, and the dead attempt's writes are refused."""
    from integrations.redis_client import get_redis

    redis = get_redis(TEST_REDIS_URL)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_"))}
    env.update(DATABASE_URL=SETTINGS.database_url, REDIS_URL=TEST_REDIS_URL, SECRET_KEY=SETTINGS.secret_key,
               OUTBOX_DIR=str(tmp_path / "outbox"), LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    log = open(tmp_path / "worker.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "tests.lease_worker"], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with transaction():
            job, _ = job_rows.create_job(kind=KILLED, subject="store:killed")
        broker.enqueue(dramatiq.Message(queue_name=PROBE_QUEUE, actor_name=KILLED, args=(job.id,), kwargs={},
                                        options={}))
        wait_for(lambda: job_row(job.id).stage == "working", 30, "the worker process to start the job")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        killed = time.monotonic()
        assert redis.exists("ff:lock:subject:store:killed")  # the dead worker's lock, never released
        with reaper_running() as reclaimed:
            wait_for(lambda: job_row(job.id).status in Job.FINISHED, 20, "the job to be finished here")
            replaced_after = time.monotonic() - killed
        run_jobs()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        log.close()
        _forget_probe_queue(redis)
    job = job_row(job.id)
    assert (job.status, job.attempt, job.result) == (Job.DONE, 2, {"by": 2, "pid": os.getpid()})
    assert reclaimed == [job.id]
    assert replaced_after <= 10 * LEASE_SECONDS
    assert int(redis.get(counter("starts", job.id))) == 2
    assert int(redis.get(counter("finished", job.id))) == 1
    for late_write in (lambda: job_rows.set_stage(job.id, 1, "late"),
                       lambda: job_rows.renew_lease(job.id, 1, lease_seconds=60),
                       lambda: job_rows.finish(job.id, 1, {"by": 1}),
                       lambda: job_rows.assert_owner(job.id, 1)):
        with pytest.raises(job_rows.Superseded):
            late_write()
    assert "Traceback" not in (tmp_path / "worker.log").read_text()


def _forget_probe_queue(redis):
    """Drops the probe queue and the killed worker's unacknowledged message (Dramatiq would
    hand it back only after its 60 s heartbeat timeout; the job is finished by then)."""
    for key in redis.scan_iter("ff-jobs:*"):
        if PROBE_QUEUE in key.decode():
            redis.delete(key)


# Locks --------------------------------------------------------------------------------


@pytest.fixture(params=["in_process", pytest.param("redis", marks=needs_redis)])
def locks(request):
    if request.param == "in_process":
        return InProcessLocks()
    from integrations.redis_client import get_redis

    return RedisLocks(get_redis(TEST_REDIS_URL), prefix=f"ff:test-lock:{uuid.uuid4().hex}:")


def test_an_expired_and_retaken_lock_is_not_released_by_its_old_holder(locks):
    old = locks.lock("subject", 0.2)
    assert old.acquire()
    time.sleep(0.3)
    new = locks.lock("subject", 5)
    assert new.acquire()
    assert old.release() is False
    assert new.owned() and not old.owned()
    assert locks.acquire("subject", 5) is None  # still held by the new holder
    assert new.release() is True
    assert locks.acquire("subject", 5) is not None


def test_only_the_holder_extends_a_lock(locks):
    holder = locks.lock("subject", 0.3)
    assert holder.acquire()
    other = locks.lock("subject", 0.3)
    assert not other.acquire()
    assert other.extend(5) is False
    assert holder.extend(1.0) is True
    time.sleep(0.5)  # past the first TTL, within the extended one
    assert holder.owned() and not other.acquire()
    time.sleep(0.6)
    assert other.acquire()  # the extension ran out too
    assert holder.extend() is False and not holder.owned()
    assert other.owned()


def test_a_waiting_holder_gets_the_lock_when_it_is_let_go(locks):
    first = locks.acquire("mail", 5)
    threading.Timer(0.2, first.release).start()
    with holding(locks, "mail", 5, wait_seconds=0) as lock:
        assert lock is None
    with holding(locks, "mail", 5, wait_seconds=3) as lock:
        assert lock is not None and lock.owned()
    assert locks.acquire("mail", 5) is not None  # let go on leaving the block
