"""Redis going away, and what it loses, on a Redis of the test's own (tests/redis_server.py):
a job that succeeded is done however its lock fared; the clock process lives through an
outage and fires each slot once; and how long the reaper takes to get a lost message or a
lost worker's message going again, measured against the real clock process."""
import json
import logging
import os
import signal
import subprocess
import sys
import time

import dramatiq
import pytest
import redis

from config import ROOT
from integrations.locks import RedisLocks
from jobs import runner
from models.db import transaction
from models.job import Job
from services import jobs as job_rows
from tests.conftest import SETTINGS
from tests.helpers import wait_for
from tests.redis_server import RedisServer
from workers.broker import NAMESPACE, redis_broker
from workers.clock import schedule
from workers.reaper import SEND_GRACE_SECONDS

KIND = "outage_probe"  # no actor: nothing here runs the job; the test reads what was sent
MESSAGE_ENTRIES = [entry for entry in schedule(SETTINGS) if hasattr(entry, "actor_name")]


@pytest.fixture
def server():
    with RedisServer(keep=True) as started:  # an operator's restart keeps what was saved
        yield started


def _queued_job(subject: str) -> Job:
    with transaction():
        job, _ = job_rows.create_job(kind=KIND, subject=subject)
    return job


# A job whose lock could not be let go --------------------------------------------------


def test_a_job_that_succeeded_while_redis_went_away_is_done_and_no_error_is_logged(server, monkeypatch, caplog):
    locks = RedisLocks(redis.Redis.from_url(server.url(), socket_timeout=1, socket_connect_timeout=1))
    monkeypatch.setattr(runner, "get_locks", lambda url: locks)
    job = _queued_job("store:outage")

    def work(ctx):
        ctx.stage("working")
        server.stop()  # Redis goes away mid-job, holding the job's subject lock
        time.sleep(1.2)  # a heartbeat (every lease/3) meets the outage too
        return {"built": True}

    with caplog.at_level(logging.INFO):
        outcome = runner.run_job(job.id, work, lease_seconds=3, retry_delays=(1,))
    assert outcome == "done"
    assert (Job.get_by_id(job.id).status, Job.get_by_id(job.id).result) == (Job.DONE, {"built": True})
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    let_go = [r for r in caplog.records if r.name == "locks" and r.fields["action"] == "release"]
    assert len(let_go) == 1 and let_go[0].levelname == "WARNING" and let_go[0].exc_info is None


# The clock process --------------------------------------------------------------------


def _start_clock(tmp_path, server, **env_changes) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_", "REAPER_", "JOB_"))}
    # The suite's database, so the clock's reaper sees the job rows this test makes.
    env.update(DATABASE_URL=SETTINGS.database_url, REDIS_URL=server.url(0), SECRET_KEY=SETTINGS.secret_key,
               LOG_LEVEL="INFO", PYTHONUNBUFFERED="1", **env_changes)
    log = open(tmp_path / "clock.log", "w")
    return subprocess.Popen([sys.executable, "-m", "workers.clock"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _stop_clock(process) -> int:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise AssertionError("the clock did not stop on SIGTERM") from None


def _log_lines(tmp_path) -> list[dict]:
    lines = (tmp_path / "clock.log").read_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]


def _sent(r) -> list[dramatiq.Message]:
    return [dramatiq.Message.decode(data) for data in r.hvals(f"{NAMESPACE}:default.msgs")]


def _reaper_slots(r) -> set[int]:
    """The reaper slots fired (their locks, "ff:lock:clock:reaper:<slot>", expire after two periods)."""
    return {int(key.rsplit(b":", 1)[1]) for key in r.scan_iter(b"ff:lock:clock:reaper:*")}


@pytest.mark.faults
def test_the_clock_process_lives_through_a_redis_outage_and_fires_each_slot_once(tmp_path, server):
    r = redis.Redis.from_url(server.url())
    began = time.time()
    process = _start_clock(tmp_path, server, REAPER_SECONDS="1")
    try:
        wait_for(lambda: len(_sent(r)) == len(MESSAGE_ENTRIES), 30, "the clock's first slots")
        server.stop()
        outage_ends = time.monotonic() + 10
        while time.monotonic() < outage_ends:
            assert process.poll() is None, "the clock exited while Redis was away"
            time.sleep(0.2)
        server.start()
        back = time.time()
        # The reaper comes last in a tick: once it ran again, the entries before it were tried.
        wait_for(lambda: any(s > back for s in _reaper_slots(r)), 20, "the reaper to run again")
        assert process.poll() is None
        ended = time.time()
        sent = [m.actor_name for m in _sent(r)]
    finally:
        code = _stop_clock(process)
    for entry in MESSAGE_ENTRIES:  # once per slot: once, or twice if the test straddled a slot's end
        assert sent.count(entry.actor_name) == len({entry.slot(began), entry.slot(ended)}), (entry, sent)
    lines = _log_lines(tmp_path)
    clock_lines = [(line["level"], line["msg"]) for line in lines if line["logger"] == "clock"]
    assert [level for level, _ in clock_lines if level == "warning"] == ["warning"], clock_lines
    assert [msg for _, msg in clock_lines if "again" in msg] == ["clock reaches Redis and the database again"]
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines
    assert "Traceback" not in (tmp_path / "clock.log").read_text()
    assert code == 0


@pytest.mark.faults
def test_a_queued_job_whose_message_was_flushed_is_sent_again_within_the_reaper_period_and_grace(tmp_path, server):
    r = redis.Redis.from_url(server.url())
    process = _start_clock(tmp_path, server)  # REAPER_SECONDS and the grace as shipped
    try:
        wait_for(lambda: len(_sent(r)) == len(MESSAGE_ENTRIES), 30, "the clock to start")
        job = _queued_job("store:flushed")
        redis_broker(server.url(), lost_seconds=SETTINGS.worker_lost_seconds).enqueue(
            dramatiq.Message(queue_name="default", actor_name=KIND, args=(job.id,), kwargs={}, options={}))
        r.flushall()  # the message is lost; the row still says queued
        lost = time.monotonic()
        wait_for(lambda: [m for m in _sent(r) if m.args == (job.id,)], 30, "the job to be sent again")
        took = time.monotonic() - lost
        # One more reaper pass: the message it holds now is not sent a second time.
        resent_in = max(_reaper_slots(r), default=0)
        wait_for(lambda: max(_reaper_slots(r), default=0) > resent_in + 1, 20, "two more reaper passes")
        copies = [m for m in _sent(r) if m.args == (job.id,)]
    finally:
        _stop_clock(process)
    print(f"\nlost message sent again after {took:.1f} s")
    assert len(copies) == 1
    assert Job.get_by_id(job.id).status == Job.QUEUED
    assert took <= SETTINGS.reaper_seconds + SEND_GRACE_SECONDS + 2, took


@pytest.mark.faults
def test_what_a_silent_worker_took_is_back_in_the_queue_within_worker_lost_and_reaper_seconds(tmp_path, server):
    r = redis.Redis.from_url(server.url())
    process = _start_clock(tmp_path, server)  # WORKER_LOST_SECONDS and REAPER_SECONDS as shipped
    try:
        wait_for(lambda: len(_sent(r)) == len(MESSAGE_ENTRIES), 30, "the clock to start")
        r.delete(f"{NAMESPACE}:default", f"{NAMESPACE}:default.msgs")  # only the probe's message from here on
        producer = redis_broker(server.url(), lost_seconds=SETTINGS.worker_lost_seconds)
        message = producer.enqueue(dramatiq.Message(queue_name="default", actor_name=KIND, args=("silent",),
                                                    kwargs={}, options={}))
        # A consumer takes it, and is never heard from again (killed, its host gone).
        dead = redis_broker(server.url(), lost_seconds=SETTINGS.worker_lost_seconds)
        assert len(dead.do_fetch("default", 1)) == 1
        taken = time.monotonic()
        redis_id = message.options["redis_message_id"].encode()
        wait_for(lambda: redis_id in r.lrange(f"{NAMESPACE}:default", 0, -1), 40, "the message back in the queue")
        took = time.monotonic() - taken
    finally:
        _stop_clock(process)
    print(f"\nlost worker's message back in the queue after {took:.1f} s")
    assert SETTINGS.worker_lost_seconds - 0.5 <= took <= SETTINGS.worker_lost_seconds + SETTINGS.reaper_seconds + 2, took
