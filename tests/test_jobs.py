"""Jobs: one active job per kind and subject, idempotent actors, sent after commit, a
per-subject lock, and the attempt number fencing out late writes."""
import threading
import time
from collections import Counter

import dramatiq
import pytest

from jobs import SendInsideTransaction, send, start
from jobs.runner import JobFailed, Lease, TransientError, job_actor
from models.clock import clock, utcnow
from models.db import transaction
from models.job import Job
from services import jobs as job_rows
from tests.conftest import SETTINGS
from tests.helpers import in_threads
from workers.broker import broker as BROKER
from workers.reaper import reap

RUNS = Counter()
RUNS_LOCK = threading.Lock()


def _count(key):
    with RUNS_LOCK:
        RUNS[key] += 1
        return RUNS[key]


@job_actor("test_count_work")
def count_work(ctx):
    ctx.stage("working")
    n = _count(ctx.subject)
    time.sleep(0.05)
    return {"runs": n, "attempt": ctx.attempt}


GATE = threading.Event()


@job_actor("test_gated")
def gated(ctx):
    """Counts its run, then holds the job open until the test opens the gate."""
    n = _count(ctx.subject)
    GATE.wait(timeout=20)
    return {"runs": n}


@job_actor("test_flaky", retry_delays=(0,))
def flaky(ctx):
    _count(("flaky", ctx.subject))
    if ctx.attempt == 1:
        raise TransientError("mailer hiccup")
    return {"attempt": ctx.attempt}


@job_actor("test_always_transient", retry_delays=(0,))
def always_transient(ctx):
    raise TransientError("still down")


@job_actor("test_refuses")
def refuses(ctx):
    raise JobFailed("generation_failed")


@job_actor("test_crashes")
def crashes(ctx):
    raise ValueError("secret detail of a bug")


OVERLAP = {"inside": 0, "max": 0}
OVERLAP_LOCK = threading.Lock()


def _enter_exit():
    with OVERLAP_LOCK:
        OVERLAP["inside"] += 1
        OVERLAP["max"] = max(OVERLAP["max"], OVERLAP["inside"])
    time.sleep(0.2)
    with OVERLAP_LOCK:
        OVERLAP["inside"] -= 1


@job_actor("test_subject_a")
def subject_a(ctx):
    _enter_exit()


@job_actor("test_subject_b")
def subject_b(ctx):
    _enter_exit()


STALL = {"release": threading.Event(), "started": threading.Event(), "late_write": None}


@job_actor("test_stalls", lease_seconds=1, time_limit_ms=60_000)
def stalls(ctx):
    if ctx.attempt == 1:
        STALL["started"].set()
        STALL["release"].wait(timeout=30)
        try:
            with ctx.fenced():
                STALL["late_write"] = "written"
        except job_rows.Superseded:
            STALL["late_write"] = "refused"
            raise
        return {"by": 1}
    return {"by": ctx.attempt}


@pytest.fixture(autouse=True)
def reset_counters():
    RUNS.clear()
    OVERLAP.update(inside=0, max=0)


def test_fifty_concurrent_sends_for_one_subject_run_the_work_once(run_jobs):
    GATE.clear()
    try:
        # The job stays running until every send has returned, so all 50 overlap it.
        jobs = in_threads(50, lambda i: start(kind="test_gated", subject="product:1"))
    finally:
        GATE.set()
    assert len({job.id for job in jobs}) == 1
    assert Job.select().where(Job.subject == "product:1").count() == 1
    run_jobs()
    assert RUNS["product:1"] == 1
    job = Job.get(Job.subject == "product:1")
    assert (job.status, job.attempt, job.result) == (Job.DONE, 1, {"runs": 1})


def test_a_job_records_its_stage(run_jobs):
    job = start(kind="test_count_work", subject="product:12")
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.stage, job.attempt, job.result) == (Job.DONE, "working", 1, {"runs": 1, "attempt": 1})


def test_duplicate_deliveries_of_one_job_run_it_once(run_jobs):
    job = start(kind="test_count_work", subject="product:2")
    for _ in range(49):
        send(job)
    run_jobs()
    assert RUNS["product:2"] == 1
    assert Job.get_by_id(job.id).status == Job.DONE


def test_a_finished_subject_can_get_a_new_job(run_jobs):
    first = start(kind="test_count_work", subject="product:3")
    run_jobs()
    second = start(kind="test_count_work", subject="product:3")
    assert second.id != first.id
    run_jobs()
    assert RUNS["product:3"] == 2


def test_send_inside_an_open_transaction_is_refused():
    with transaction():
        job, created = job_rows.create_job(kind="test_count_work", subject="product:4")
        assert created
        with pytest.raises(SendInsideTransaction):
            send(job)


def test_a_job_created_in_a_rolled_back_transaction_leaves_nothing():
    with pytest.raises(RuntimeError):
        with transaction():
            job_rows.create_job(kind="test_count_work", subject="product:5")
            raise RuntimeError("the request failed")
    assert Job.select().count() == 0


def test_a_transient_failure_is_retried_and_then_done(run_jobs):
    job = start(kind="test_flaky", subject="mail:1")
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.attempt, job.result) == (Job.DONE, 2, {"attempt": 2})
    assert RUNS[("flaky", "mail:1")] == 2


def test_transient_failures_stop_after_max_attempts(run_jobs):
    job = start(kind="test_always_transient", subject="mail:2", max_attempts=3)
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.attempt, job.error) == (Job.FAILED, 3, "still down")


def test_a_job_that_cannot_succeed_records_its_reason(run_jobs):
    job = start(kind="test_refuses", subject="store:1")
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.error) == (Job.FAILED, "generation_failed")


def test_an_unexpected_exception_fails_the_job_without_leaking_detail(run_jobs, caplog):
    job = start(kind="test_crashes", subject="store:2")
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.error) == (Job.FAILED, "internal_error")
    assert any(r.exc_info and getattr(r, "fields", {}).get("job_id") == job.id for r in caplog.records)


def test_two_jobs_on_one_subject_never_run_side_by_side(run_jobs):
    start(kind="test_subject_a", subject="store:9")
    start(kind="test_subject_b", subject="store:9")
    run_jobs()
    assert OVERLAP["max"] == 1
    assert Job.select().where(Job.status == Job.DONE).count() == 2


def test_jobs_on_different_subjects_do_run_side_by_side(run_jobs):
    start(kind="test_subject_a", subject="store:10")
    start(kind="test_subject_b", subject="store:11")
    run_jobs()
    assert OVERLAP["max"] == 2


def test_a_stalled_attempt_cannot_overwrite_the_newer_one():
    job, _ = job_rows.create_job(kind="test_count_work", subject="product:6")
    first = job_rows.start_attempt(job.id, lease_seconds=10)
    assert job_rows.start_attempt(job.id, lease_seconds=10) is None  # its lease still runs
    clock.advance(11)
    second = job_rows.start_attempt(job.id, lease_seconds=10)
    assert (first, second) == (1, 2)
    job_rows.finish(job.id, second, {"by": 2})
    for late_write in (lambda: job_rows.set_stage(job.id, first, "late"),
                       lambda: job_rows.finish(job.id, first, {"by": 1}),
                       lambda: job_rows.fail(job.id, first, "internal_error"),
                       lambda: job_rows.assert_owner(job.id, first)):
        with pytest.raises(job_rows.Superseded):
            late_write()
    job = Job.get_by_id(job.id)
    assert (job.status, job.attempt, job.result, job.stage) == (Job.DONE, 2, {"by": 2}, None)


def test_a_stalled_worker_waking_after_its_lease_is_fenced_out(run_jobs, monkeypatch):
    """End to end: attempt 1 stalls past its lease, the reaper hands the job to attempt 2,
    which finishes; when attempt 1 wakes its fenced write is refused."""
    real_beat = Lease.beat
    # A stalled worker process stalls its heartbeat thread too: attempt 1's renews nothing.
    monkeypatch.setattr(Lease, "beat", lambda lease: True if lease.attempt == 1 else real_beat(lease))
    STALL["release"].clear()
    STALL["started"].clear()
    job = start(kind="test_stalls", subject="store:stall")
    assert STALL["started"].wait(timeout=10)
    time.sleep(1.2)  # the in-process or Redis lock (1 s) expires
    clock.advance(5)  # and so does the lease in the row
    reap(BROKER, SETTINGS)  # the clock's reaper, one pass
    deadline = time.monotonic() + 20
    while Job.get_by_id(job.id).status != Job.DONE and time.monotonic() < deadline:
        time.sleep(0.05)
    STALL["release"].set()
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.attempt, job.result) == (Job.DONE, 2, {"by": 2})
    assert STALL["late_write"] == "refused"


def test_a_lost_message_is_sent_again_by_the_reaper(run_jobs):
    with transaction():  # created, but its message never sent (say Redis restarted)
        job, _ = job_rows.create_job(kind="test_count_work", subject="product:7")
    run_jobs()
    assert Job.get_by_id(job.id).status == Job.QUEUED
    clock.advance(31)
    reap(BROKER, SETTINGS)  # the clock's reaper, one pass
    run_jobs()
    assert Job.get_by_id(job.id).status == Job.DONE
    assert RUNS["product:7"] == 1


def test_a_job_whose_worker_died_is_picked_up_again_and_finishes_once(run_jobs):
    with transaction():
        job, _ = job_rows.create_job(kind="test_count_work", subject="product:8")
    assert job_rows.start_attempt(job.id, lease_seconds=60) == 1  # the worker that then died
    clock.advance(61)
    reap(BROKER, SETTINGS)  # the clock's reaper, one pass
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.attempt) == (Job.DONE, 2)
    assert RUNS["product:8"] == 1


def test_a_dead_job_out_of_attempts_fails_instead_of_looping(run_jobs):
    with transaction():
        job, _ = job_rows.create_job(kind="test_count_work", subject="product:9", max_attempts=1)
    job_rows.start_attempt(job.id, lease_seconds=60)
    clock.advance(61)
    reap(BROKER, SETTINGS)  # the clock's reaper, one pass
    run_jobs()
    job = Job.get_by_id(job.id)
    assert (job.status, job.error) == (Job.FAILED, "worker lost")
    assert RUNS["product:9"] == 0


def test_two_reapers_at_once_resend_a_stale_job_once():
    with transaction():
        job_rows.create_job(kind="test_count_work", subject="product:10")
    clock.advance(31)
    found = in_threads(2, lambda i: job_rows.reclaim_stale(stale_seconds=30))
    assert sum(len(f) for f in found) == 1


def test_finished_jobs_are_not_touched_by_the_reaper():
    with transaction():
        job, _ = job_rows.create_job(kind="test_count_work", subject="product:11")
    attempt = job_rows.start_attempt(job.id, lease_seconds=60)
    job_rows.finish(job.id, attempt, {"ok": True})
    clock.advance(3600)
    assert job_rows.reclaim_stale(stale_seconds=30) == []
    assert Job.get_by_id(job.id).updated_at < utcnow()


def test_a_retry_of_a_job_whose_row_vanished_ends_quietly(run_jobs):
    """A transient failure after the row is gone (or taken over) must not escape the actor."""
    job, _ = job_rows.create_job(kind="test_flaky", subject="mail:vanished")
    attempt = job_rows.start_attempt(job.id, lease_seconds=60)
    Job.delete().where(Job.id == job.id).execute()
    from jobs.runner import _retry

    assert _retry(job, attempt, "mailer hiccup", (0,)) == "superseded"


def test_a_job_this_process_could_not_send_is_not_waited_for(monkeypatch):
    """A request that waits on its job (a discovery run, a mail check) answers at once when
    the broker did not take the job's message: nothing runs it until the reaper sends it
    again. Once sent, the job is waited for as before."""
    def unreachable(message, *, delay=None):
        raise dramatiq.errors.BrokerConnectionError("Redis did not answer")

    monkeypatch.setattr(BROKER, "enqueue", unreachable)
    job = start(kind="test_count_work", subject="not-sent")
    began = time.monotonic()
    row = job_rows.wait_for_job(job.id, seconds=10, no_worker_grace=10)
    assert row.status == Job.QUEUED and time.monotonic() - began < 1
    monkeypatch.undo()
    assert send(job)
    began = time.monotonic()
    row = job_rows.wait_for_job(job.id, seconds=0.5, no_worker_grace=10)
    # Waited for: run by a worker of this suite (on Redis, one may be consuming), or queued still
    # when the half second ran out.
    assert row.status == Job.DONE or (row.status == Job.QUEUED and time.monotonic() - began >= 0.5), row.status
