"""A worker process (`python -m workers.worker`) stopped the way a supervisor stops it: one
SIGTERM lets its running job finish and leaves what it did not start to the queue; a job
that outlasts WORKER_SHUTDOWN_SECONDS (or a second signal) is handed back at once and runs
again elsewhere from the start, not after its lease and the reaper. Every line the process
prints is one JSON object.

Each test runs real worker processes (tests/probe_worker.py: workers.worker.main() with a
job kind the test controls) on a Redis of its own and the suite's database."""
import json
import os
import signal
import subprocess
import sys
import time

import dramatiq
import pytest
from dramatiq.brokers.redis import RedisBroker

from config import ROOT
from models.db import close_connection, transaction
from models.job import Job, WorkerBeat
from services import jobs as job_rows
from tests.conftest import SETTINGS
from tests.helpers import wait_for
from tests.probe_worker import PROBE, counter
from tests.redis_server import RedisServer

pytestmark = pytest.mark.faults


@pytest.fixture
def redis_server():
    with RedisServer() as server:
        yield server


@pytest.fixture
def workers(redis_server, tmp_path):
    """Starts probe worker processes (`start(**settings)`); SIGKILLs any still running at the end."""
    started = []

    def start(**settings):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_"))}
        env.update(DATABASE_URL=SETTINGS.database_url, REDIS_URL=redis_server.url(), SECRET_KEY=SETTINGS.secret_key,
                   OUTBOX_DIR=str(tmp_path / "outbox"), WORKER_METRICS_PORT="0", WORKER_THREADS="1",
                   PYTHONUNBUFFERED="1")
        env.update({k: str(v) for k, v in settings.items()})
        log_path = tmp_path / f"worker-{len(started) + 1}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen([sys.executable, "-m", "tests.probe_worker"], cwd=ROOT, env=env, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        process.log_path = log_path
        started.append(process)
        name_prefix = f":{process.pid}"
        wait_for(lambda: _beat_of(name_prefix), 30, "the worker process to boot")
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _beat_of(pid_suffix: str) -> bool:
    try:
        return WorkerBeat.select().where(WorkerBeat.worker.endswith(pid_suffix)).exists()
    finally:
        close_connection()


@pytest.fixture
def probe(redis_server):
    """Creates probe jobs and sends them to the test's Redis, as the web process would."""
    broker = RedisBroker(url=redis_server.url(), namespace="ff-jobs")
    broker.declare_queue("default")

    def send(seconds: float) -> str:
        with transaction():
            job, _ = job_rows.create_job(kind=PROBE, subject=f"probe:{os.urandom(6).hex()}",
                                         payload={"seconds": seconds})
        broker.enqueue(dramatiq.Message(queue_name="default", actor_name=PROBE, args=(job.id,), kwargs={},
                                        options={}))
        close_connection()
        return job.id

    send.redis = broker.client
    yield send
    broker.close()


def row(job_id: str) -> Job:
    try:
        return Job.get_by_id(job_id)
    finally:
        close_connection()


def count(redis, name: str, job_id: str) -> int:
    return int(redis.get(counter(name, job_id)) or 0)


def in_line(redis) -> list[str]:
    """The job ids waiting on the default queue, in the order workers will take them."""
    return [dramatiq.Message.decode(redis.hget("ff-jobs:default.msgs", mid)).args[0]
            for mid in redis.lrange("ff-jobs:default", 0, -1)]


def json_lines(process) -> list[dict]:
    """Every line the process printed, each parsed as one JSON object (fails on any other line)."""
    lines = [line for line in process.log_path.read_text().splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"not one JSON object per line: {line!r}") from None
    return parsed


def test_one_sigterm_lets_the_running_job_finish_and_leaves_the_rest_to_the_queue(workers, probe):
    first = workers(WORKER_SHUTDOWN_SECONDS="30")
    running = probe(seconds=3)
    wait_for(lambda: row(running).stage == "working", 20, "the job to start")
    waiting = probe(seconds=0.5)  # one thread, one message taken: this one stays in Redis
    time.sleep(0.5)
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=30) == 0
    done = row(running)
    assert (done.status, done.attempt, done.result["pid"]) == (Job.DONE, 1, first.pid)
    assert count(probe.redis, "finished", running) == 1
    assert row(waiting).status == Job.QUEUED and count(probe.redis, "starts", waiting) == 0
    # Started again, the worker takes what the stopped one left: nothing waited for the reaper.
    second = workers()
    wait_for(lambda: row(waiting).status == Job.DONE, 20, "the next worker to run the waiting job")
    assert (row(waiting).attempt, row(waiting).result["pid"]) == (1, second.pid)
    events = json_lines(first)
    assert not [e for e in events if e["level"] in ("error", "critical")], events
    stopped = next(e for e in events if e["msg"] == "worker stopped")
    assert stopped["handed_back"] == [] and stopped["drained_in_seconds"] < 10
    assert not WorkerBeat.select().where(WorkerBeat.worker.endswith(f":{first.pid}")).exists()


@pytest.mark.parametrize("cut_short", [False, True], ids=["shutdown_timeout", "second_signal"])
def test_a_job_outlasting_the_stop_is_handed_back_and_runs_again_at_once(workers, probe, cut_short):
    first = workers(WORKER_SHUTDOWN_SECONDS="300" if cut_short else "1")
    job_id = probe(seconds=6)
    wait_for(lambda: row(job_id).stage == "working", 20, "the job to start")
    backlog = [probe(seconds=0.1) for _ in range(3)]  # sent while it ran; its one thread is busy
    signalled = time.monotonic()
    first.send_signal(signal.SIGTERM)
    if cut_short:
        time.sleep(0.5)
        first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=30) == 0
    assert time.monotonic() - signalled < 4  # the timeout (or the second signal), not the job's 6 s
    handed_back = row(job_id)
    assert (handed_back.status, handed_back.attempt) == (Job.QUEUED, 1)
    assert count(probe.redis, "finished", job_id) == 0
    # It had its turn: it goes back ahead of what was sent after it.
    assert in_line(probe.redis) == [job_id, *backlog]
    # Its message is back in the queue and its lock let go: the next worker starts it at once
    # (a new attempt), long before its lease (JOB_LEASE_SECONDS) would have let the reaper act.
    restarted = time.monotonic()
    second = workers()
    wait_for(lambda: row(job_id).attempt == 2, 10, "the job to start again")
    assert time.monotonic() - restarted < 10
    # The stopped run can no longer write: its attempt does not own the row.
    for late_write in (lambda: job_rows.set_stage(job_id, 1, "late"), lambda: job_rows.finish(job_id, 1, {})):
        with pytest.raises(job_rows.Superseded):
            late_write()
    close_connection()
    wait_for(lambda: row(job_id).status == Job.DONE, 20, "the job to finish")
    assert row(job_id).result == {"by": 2, "pid": second.pid}
    assert (count(probe.redis, "starts", job_id), count(probe.redis, "finished", job_id)) == (2, 1)
    events = json_lines(first)
    stopped = next(e for e in events if e["msg"] == "worker stopped")
    assert stopped["handed_back"] == [job_id]
    assert not [e for e in events if e["level"] in ("error", "critical")], events


def test_one_worker_of_a_host_serves_the_figures_and_another_takes_over_when_it_stops(workers, probe):
    """Worker processes side by side share WORKER_METRICS_PORT: the first serves the figures
    of all of them, the others take the port over when it stops. No process is forked for it
    (nothing left to reap)."""
    import urllib.request

    from tests.redis_server import free_port

    port = free_port()

    def figures() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            return response.read().decode()

    first = workers(WORKER_METRICS_PORT=str(port), WORKER_THREADS="2")
    wait_for(lambda: _try(figures) is not None, 20, "the first worker to serve the figures")
    second = workers(WORKER_METRICS_PORT=str(port), WORKER_THREADS="2")
    job_id = probe(seconds=0.2)
    wait_for(lambda: row(job_id).status == Job.DONE, 20, "the probe job")
    wait_for(lambda: f'actor_name="{PROBE}"' in figures(), 20, "the probe job in the figures")
    for process in (first, second):
        assert not _children(process.pid), "a worker process forks nothing"
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=30) == 0
    text = wait_for(lambda: _try(figures), 30, "the second worker to take the port over")  # within PORT_RETRY_SECONDS
    assert f'actor_name="{PROBE}"' in text  # the figures of the stopped process are still summed in
    server_lines = [e for e in json_lines(second) if e["logger"] == "workers.metrics"]
    assert any("served on" in e["msg"] for e in server_lines), server_lines


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _try(read):
    try:
        return read()
    except OSError:
        return None


def test_a_worker_killed_stops_counting_alive_within_two_heartbeats_and_one_stopped_at_once(client, workers):
    """ff_workers_alive from real worker processes beating every second (issue 45, point 8):
    one killed with SIGKILL stops counting two heartbeats after its last beat (a crash-looping
    worker lowers the figure), one stopped with SIGTERM at once (it removes its row)."""
    from prometheus_client.parser import text_string_to_metric_families

    from config import use_settings

    def alive() -> float:
        text = client.get("/metrics").get_data(as_text=True)
        return next(sample.value for family in text_string_to_metric_families(text) for sample in family.samples
                    if sample.name == "ff_workers_alive")

    WorkerBeat.delete().execute()
    use_settings(SETTINGS.but(heartbeat_seconds=1))
    try:
        killed, stopped = workers(HEARTBEAT_SECONDS="1"), workers(HEARTBEAT_SECONDS="1")
        wait_for(lambda: alive() == 2, 10, "both workers to beat")
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=10)
        began = time.monotonic()
        wait_for(lambda: alive() == 1, 10, "the killed worker to stop counting")
        assert time.monotonic() - began <= 3
        stopped.send_signal(signal.SIGTERM)
        assert stopped.wait(timeout=30) == 0
        assert alive() == 0
    finally:
        use_settings(SETTINGS)
