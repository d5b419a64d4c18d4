"""A store build is done once, whatever moment its worker dies at (issue 45, point 3).

One POST /api/store; a real worker process (tests/once_worker.py: `python -m workers.worker`)
takes the build and is killed with SIGKILL at one moment between the model's answer and the
send of the ad job it starts; the reaper (workers/reaper.py, run here every half second) and
a fresh worker process carry on. Afterwards the store has exactly one version and the
product one ad job, and the model was asked for the store's copy once when the worker died
after the commit (twice when it died before: nothing of that run was kept).

Before the build committed its done mark with its version and its ad job's row, a worker
killed after the version's commit left the build running: it ran again, asked the model
again and wrote a second version (and, past the send, a second ad job).

Each test with worker processes has a Redis of its own (tests/redis_server.py) that only
they read; the test process's sends (POST /api/store's build) go there too, as the web's
would. They run in the PostgreSQL and Redis pass (`faults`). The same moments are watched in
this process too, on either backend: there the build's run dies by an exception nothing of
the service catches, and the clock is moved past its lease and the reaper's grace.
"""
import importlib
import os
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager

import dramatiq
import pytest

from config import ROOT
from jobs.runner import JobFailed, job_actor
from jobs.send import start
from models.clock import clock
from models.db import close_connection
from models.job import Job
from models.store import StoreVersion
from services import jobs as job_rows
from services.growth.ads import AD_BUILD
from services.store.builds import BUILD
from tests.conftest import SETTINGS
from tests.factories import claimed_founder
from tests.helpers import wait_for
from tests.once_worker import watch
from tests.redis_server import RedisServer
from workers.broker import redis_broker
from workers.reaper import reap

LEASE_SECONDS = 3  # the least JOB_LEASE_SECONDS takes: a killed build is reclaimed soon
LOST_SECONDS = 3  # the least WORKER_LOST_SECONDS takes: what the killed worker took goes back soon
# Between the model's answer and the send of the ad job the build starts (tests/once_worker.py).
MOMENTS = ("answered", "committed", "sending", "sent")


@pytest.fixture
def redis_server():
    with RedisServer() as server:
        yield server


@pytest.fixture
def test_broker(redis_server):
    """The service's broker layout on the test's Redis, for the test process's sends and its reaper."""
    broker = redis_broker(redis_server.url(), lost_seconds=LOST_SECONDS)
    broker.declare_queue("default")
    yield broker
    broker.close()


@pytest.fixture
def web_sends_to_the_test_redis(test_broker, monkeypatch):
    """What the test process sends (the build of POST /api/store, the research of the claim)
    goes to the test's Redis, where the worker processes take it."""

    def send(job, *, delay_ms=None, first=False):
        test_broker.enqueue(dramatiq.Message(queue_name="default", actor_name=job.kind, args=(job.id,), kwargs={},
                                             options={}), delay=delay_ms)
        return True

    # The module, not the function jobs/__init__.py exports under the same name.
    monkeypatch.setattr(importlib.import_module("jobs.send"), "send", send)


@pytest.fixture
def workers(redis_server, tmp_path):
    """Starts worker processes (`start(stop_at=moment)`); SIGKILLs any still running at the end."""
    started = []

    def start(stop_at: str = ""):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_"))}
        env.update(DATABASE_URL=SETTINGS.database_url, REDIS_URL=redis_server.url(), SECRET_KEY=SETTINGS.secret_key,
                   OUTBOX_DIR=str(tmp_path / "outbox"), WORKER_METRICS_PORT="0", WORKER_THREADS="1",
                   JOB_LEASE_SECONDS=str(LEASE_SECONDS), WORKER_LOST_SECONDS=str(LOST_SECONDS),
                   STOP_AT=stop_at, STOPPED_AT=str(tmp_path / "stopped_at"), AI_CALLS=str(tmp_path / "ai_calls"),
                   PYTHONUNBUFFERED="1")
        log_path = tmp_path / f"worker-{len(started) + 1}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen([sys.executable, "-m", "tests.once_worker"], cwd=ROOT, env=env, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        started.append(process)
        # Logged once its consumers run: from then on it takes what is sent.
        wait_for(lambda: '"worker started"' in log_path.read_text(), 30, "the worker process to take jobs")
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@contextmanager
def reaper_running(broker):
    """The clock's reaper pass, every half second in a thread (errors fail the test)."""
    stop, errors = threading.Event(), []

    def run():
        while not stop.wait(0.5):
            try:
                reap(broker, SETTINGS)
            except Exception as exc:
                errors.append(exc)

    thread = threading.Thread(target=run, name="test-reaper", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    if errors:
        raise errors[0]


def _settled() -> bool:
    """The build finished, its ad job made, and no job left queued or running."""
    try:
        build = Job.get_or_none(Job.kind == BUILD)
        return (build is not None and build.status in Job.FINISHED
                and Job.select().where(Job.kind == AD_BUILD).exists()
                and not Job.select().where(Job.status.in_(Job.ACTIVE)).exists())
    finally:
        close_connection()


@pytest.mark.faults
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.usefixtures("web_sends_to_the_test_redis")
def test_a_worker_killed_at_any_moment_of_a_build_leaves_one_version_and_one_ad_job(
        moment, founder, workers, test_broker, tmp_path):
    """Killed after the model answered (nothing committed: the build runs again, the model is
    asked again), after the commit of the version, before the ad job's send, after it."""
    client = claimed_founder(founder)
    killed = workers(stop_at=moment)
    assert client.post("/api/store").get_json()["status"] == "building"
    stopped_at = tmp_path / "stopped_at"
    wait_for(lambda: stopped_at.exists() and stopped_at.read_text() == moment, 60, f"the build to reach {moment}")
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=10)

    fresh = workers()
    with reaper_running(test_broker):
        wait_for(_settled, 60, "the build and its ad job to finish")

    build = Job.get(Job.kind == BUILD)
    versions = _versions(build)
    asked_by = [int(pid) for pid in (tmp_path / "ai_calls").read_text().split()]
    # Killed after the commit, the build is done by the killed worker's attempt, the model
    # asked once; killed before, nothing of it was kept and the fresh worker built it whole.
    after_the_commit = moment != "answered"
    assert (versions, _ad_jobs(), asked_by, build.status, build.attempt) == (
        [1], 1, [killed.pid] if after_the_commit else [killed.pid, fresh.pid], Job.DONE, 1 if after_the_commit else 2)
    _built_once(client, build)


class WorkerDied(BaseException):
    """The run stops where it is. The service catches Exception, never this: nothing of the
    run goes on (no retry, no failure recorded, no send), as after a kill -9."""


@pytest.mark.parametrize("moment", MOMENTS)
def test_a_run_that_dies_at_any_moment_of_a_build_leaves_one_version_and_one_ad_job_in_process(
        moment, founder, broker, run_jobs, monkeypatch):
    client = claimed_founder(founder)
    run_jobs()  # the claim's research: the build is then the only job in flight
    sending = importlib.import_module("jobs.send")
    taken = []
    with monkeypatch.context() as taking:
        taking.setattr(sending, "send", taken.append)  # the build's message, taken by the run that dies
        assert client.post("/api/store").get_json()["status"] == "building"
    asked, died = [], []

    def reached(at: str):
        if at == moment and not died:
            died.append(at)
            raise WorkerDied(at)

    watch(reached, lambda: asked.append(moment), put=monkeypatch.setattr)
    with pytest.raises(WorkerDied):
        broker.get_actor(BUILD).fn(taken[0].id)
    close_connection()

    # Past the dead run's lease and the reaper's grace for a job whose message never went.
    clock.advance(max(SETTINGS.job_lease_seconds, SETTINGS.job_stale_seconds) + 1)
    reap(broker, SETTINGS)
    run_jobs()

    build = Job.get(Job.kind == BUILD)
    after_the_commit = moment != "answered"
    assert (_versions(build), _ad_jobs(), len(asked), build.status, build.attempt) == (
        [1], 1, 1 if after_the_commit else 2, Job.DONE, 1 if after_the_commit else 2)
    assert Job.get(Job.kind == AD_BUILD).status in Job.FINISHED
    _built_once(client, build)


def _versions(build: Job) -> list[int]:
    return [row.number for row in StoreVersion.select().where(StoreVersion.store == build.payload["product_id"])]


def _ad_jobs() -> int:
    return Job.select().where(Job.kind == AD_BUILD).count()


def _built_once(client, build: Job) -> None:
    assert build.result["version"] == 1
    state = client.get("/api/store").get_json()
    assert (state["status"], state["version"]) == ("built", 1)


# Any job that starts others: ctx.ending() ------------------------------------------------------

FOLLOW_UP = "once_follow_up"
job_actor(FOLLOW_UP)(lambda ctx: {"ran": True})


@job_actor("once_starts_a_follow_up")
def starts_a_follow_up(ctx):
    with ctx.ending() as ending:
        follow_up, _ = job_rows.create_job(kind=FOLLOW_UP, subject=f"follow-up:{ctx.subject}")
        ending.start(follow_up)
        ending.result = {"started": follow_up.id}
        if ctx.payload.get("refuse"):
            raise JobFailed("generation_failed")
    return {"not": "recorded"}


def test_a_job_ends_with_the_row_of_the_job_it_starts_which_is_sent_after_the_commit(run_jobs):
    job = start(kind="once_starts_a_follow_up", subject="once:sent")
    run_jobs()
    job, follow_up = Job.get_by_id(job.id), Job.get(Job.kind == FOLLOW_UP)
    assert (job.status, job.result) == (Job.DONE, {"started": follow_up.id})
    assert (follow_up.status, follow_up.result) == (Job.DONE, {"ran": True})


def test_a_job_whose_last_transaction_fails_starts_nothing(run_jobs):
    job = start(kind="once_starts_a_follow_up", subject="once:refused", payload={"refuse": True})
    run_jobs()
    assert (Job.get_by_id(job.id).status, Job.get_by_id(job.id).error) == (Job.FAILED, "generation_failed")
    assert not Job.select().where(Job.kind == FOLLOW_UP).exists()


def test_a_started_job_whose_message_never_went_is_sent_by_the_reaper_after_its_grace(broker, run_jobs, monkeypatch):
    """The broker refuses the follow-up's message: the job is done all the same, its
    follow-up's row waits queued, and the reaper sends it once its grace has passed."""

    def unreachable(*args, **kwargs):
        raise ConnectionError("the broker went away")

    with monkeypatch.context() as away:
        away.setattr(broker.get_actor(FOLLOW_UP), "send_with_options", unreachable)
        job = start(kind="once_starts_a_follow_up", subject="once:unsent")
        run_jobs()
    follow_up = Job.get(Job.kind == FOLLOW_UP)
    assert (Job.get_by_id(job.id).status, follow_up.status) == (Job.DONE, Job.QUEUED)
    reap(broker, SETTINGS)
    run_jobs()
    assert Job.get_by_id(follow_up.id).status == Job.QUEUED  # within its grace: maybe on its way
    clock.advance(max(SETTINGS.job_stale_seconds, SETTINGS.job_lease_seconds) + 1)
    reap(broker, SETTINGS)
    run_jobs()
    assert Job.get_by_id(follow_up.id).status == Job.DONE
