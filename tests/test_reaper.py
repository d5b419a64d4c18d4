"""The reaper (workers/reaper.py), run by the clock: a lost worker's messages go back to the
queue, a job whose lease ran out is sent again, and a queued job whose message Redis lost is
sent again, once, while one waiting behind a backlog is left alone. Each test has a Redis
of its own (tests/redis_server.py) that no worker consumes from, so what the reaper sent
stays there to be counted."""
import time
from pathlib import Path

import dramatiq
import pytest
import redis
from dramatiq.brokers.stub import StubBroker

from config import ROOT
from models.clock import clock
from models.db import transaction
from models.job import Job
from services import jobs as job_rows
from tests.conftest import SETTINGS
from tests.helpers import in_threads
from tests.redis_server import RedisServer
from workers import reaper as reaper_module
from workers.broker import (
    NAMESPACE,
    enqueue_first,
    held_job_ids,
    keep_broker_heartbeat,
    redis_broker,
    requeue_lost_messages,
)
from workers.reaper import SEND_GRACE_SECONDS, reap

KIND = "reaper_probe"  # no actor: nothing here runs the jobs, the test reads what was sent
HEARTBEATS = f"{NAMESPACE}:__heartbeats__"


@pytest.fixture
def server():
    with RedisServer() as started:
        yield started


@pytest.fixture
def r(server):
    return redis.Redis.from_url(server.url())


def _broker(server, lost_seconds=SETTINGS.worker_lost_seconds):
    made = redis_broker(server.url(), lost_seconds=lost_seconds)
    made.declare_queue("default")
    return made


@pytest.fixture
def lone(server):
    """The service's broker layout on the test's Redis; no worker consumes from it."""
    return _broker(server)


def _message(job_id: str) -> dramatiq.Message:
    return dramatiq.Message(queue_name="default", actor_name=KIND, args=(job_id,), kwargs={}, options={})


def _queued_job(subject: str, **fields) -> Job:
    with transaction():
        job, _ = job_rows.create_job(kind=KIND, subject=subject, **fields)
    return job


def _in_line(r, queue="default") -> list[str]:
    """The job ids waiting on `queue`, in the order workers will take them."""
    return [dramatiq.Message.decode(r.hget(f"{NAMESPACE}:{queue}.msgs", mid)).args[0]
            for mid in r.lrange(f"{NAMESPACE}:{queue}", 0, -1)]


def _backlog(broker, count: int) -> list[str]:
    names = [f"backlog-{i}" for i in range(count)]
    for name in names:
        broker.enqueue(_message(name))
    return names


def _sent_ids(r, queue="default") -> list[str]:
    """The job ids of the messages the broker holds on `queue`, one entry per message."""
    return [dramatiq.Message.decode(data).args[0] for data in r.hvals(f"{NAMESPACE}:{queue}.msgs")]


# dramatiq's Redis layout ---------------------------------------------------------------


def test_dramatiq_is_the_version_whose_redis_layout_workers_broker_drives():
    """workers/broker.py calls dramatiq's dispatch script itself (a forced maintenance, a
    heartbeat) and reads its hashes: a new dramatiq must be read before the pin moves."""
    assert dramatiq.__version__ == "2.2.1"
    assert "dramatiq==2.2.1" in (ROOT / "requirements.txt").read_text().split()
    script = (Path(dramatiq.__file__).parent / "brokers" / "redis" / "dispatch.lua").read_text()
    assert ("args=[command, timestamp, queue_name, worker_id, heartbeat_timeout, dead_message_ttl, do_maintenance, "
            "max_unpack_size, ...]") in script
    for layout in ('local acks = namespace .. ":__acks__." .. worker_id',
                   'local heartbeats = namespace .. ":__heartbeats__"',
                   'redis.call("zadd", heartbeats, timestamp, worker_id)',
                   'if do_maintenance == "1" then',
                   'local queue_messages = queue_full_name .. ".msgs"'):
        assert layout in script, layout


def test_one_call_keeps_a_busy_workers_broker_heartbeat(lone, r):
    r.zadd(HEARTBEATS, {lone.broker_id: 1})  # last heard from in 1970
    keep_broker_heartbeat(lone)
    assert abs(r.zscore(HEARTBEATS, lone.broker_id) / 1000 - time.time()) < 5
    assert r.llen(f"{NAMESPACE}:default") == 0 and r.hlen(f"{NAMESPACE}:default.msgs") == 0  # nothing else moved


def test_what_a_lost_worker_took_goes_back_to_its_queue_and_a_live_workers_stays(server, lone, r):
    for name in ("ready-1", "ready-2"):
        lone.enqueue(_message(name))
    lone.enqueue(_message("delayed"), delay=600_000)
    dead, live = _broker(server), _broker(server)
    (taken_by_dead,) = dead.do_fetch("default", 1)
    (delayed_by_dead,) = dead.do_fetch("default.DQ", 1)
    (taken_by_live,) = live.do_fetch("default", 1)
    # The dead worker's last dispatch call was longer ago than WORKER_LOST_SECONDS; the live one's just now.
    r.zadd(HEARTBEATS, {dead.broker_id: int((time.time() - SETTINGS.worker_lost_seconds - 1) * 1000)})
    assert r.llen(f"{NAMESPACE}:default") == 0 and r.llen(f"{NAMESPACE}:default.DQ") == 0

    assert requeue_lost_messages(lone) == ["default", "default.DQ"]

    back = {dramatiq.Message.decode(r.hget(f"{NAMESPACE}:default.msgs", mid)).args[0]
            for mid in r.lrange(f"{NAMESPACE}:default", 0, -1)}
    delayed_back = {dramatiq.Message.decode(r.hget(f"{NAMESPACE}:default.DQ.msgs", mid)).args[0]
                    for mid in r.lrange(f"{NAMESPACE}:default.DQ", 0, -1)}
    assert back == {dramatiq.Message.decode(taken_by_dead).args[0]}
    assert delayed_back == {"delayed"} == {dramatiq.Message.decode(delayed_by_dead).args[0]}
    assert dramatiq.Message.decode(taken_by_live).args[0] not in back
    assert r.scard(f"{NAMESPACE}:__acks__.{live.broker_id}.default") == 1
    assert not r.exists(f"{NAMESPACE}:__acks__.{dead.broker_id}.default")
    assert r.zscore(HEARTBEATS, dead.broker_id) is None  # forgotten once nothing of it is left


def test_a_quiet_worker_not_yet_lost_keeps_what_it_took(server, lone, r):
    lone.enqueue(_message("taken"))
    quiet = _broker(server)
    quiet.do_fetch("default", 1)
    r.zadd(HEARTBEATS, {quiet.broker_id: int((time.time() - SETTINGS.worker_lost_seconds + 3) * 1000)})
    requeue_lost_messages(lone)
    assert r.llen(f"{NAMESPACE}:default") == 0
    assert r.scard(f"{NAMESPACE}:__acks__.{quiet.broker_id}.default") == 1


# Jobs that already had their turn go ahead of the backlog -----------------------------------


def test_what_a_lost_worker_took_goes_back_ahead_of_the_backlog(server, lone, r):
    dead = _broker(server)
    for name in ("taken-1", "taken-2"):
        lone.enqueue(_message(name))
    dead.do_fetch("default", 2)
    backlog = _backlog(lone, 30)
    r.zadd(HEARTBEATS, {dead.broker_id: int((time.time() - SETTINGS.worker_lost_seconds - 1) * 1000)})
    requeue_lost_messages(lone)
    line = _in_line(r)
    assert sorted(line[:2]) == ["taken-1", "taken-2"] and line[2:] == backlog


def test_a_stopping_worker_returns_what_it_took_to_the_head_in_its_order(server, lone, r):
    for name in ("first", "second", "third"):
        lone.enqueue(_message(name))
    stopping = _broker(server)
    consumer = stopping.consume("default", prefetch=3, timeout=100)
    taken = [next(consumer) for _ in range(3)]
    backlog = _backlog(lone, 10)
    consumer.requeue(taken)  # what dramatiq's worker does with what it prefetched, on stop
    assert _in_line(r) == ["first", "second", "third", *backlog]
    assert not r.exists(f"{NAMESPACE}:__acks__.{stopping.broker_id}.default")


def test_the_reaper_sends_a_job_whose_lease_ran_out_ahead_of_the_backlog(lone, r):
    job = _queued_job("product:lease-ahead")
    job_rows.start_attempt(job.id, lease_seconds=60)
    backlog = _backlog(lone, 20)
    clock.advance(61)
    assert reap(lone, SETTINGS)["lease_expired"] == 1
    assert _in_line(r) == [job.id, *backlog]


def test_a_message_sent_first_lands_at_the_head_and_a_taken_one_is_left_alone(lone, r):
    backlog = _backlog(lone, 5)
    enqueue_first(lone, _message("handed-back"))
    assert _in_line(r) == ["handed-back", *backlog]
    # A message a worker took before it could be moved is not put back.
    sent = lone.enqueue(_message("taken-at-once"))
    lone.do_fetch("default", 7)
    lone.to_front(keys=[f"{NAMESPACE}:default"], args=[sent.options["redis_message_id"]])
    assert r.llen(f"{NAMESPACE}:default") == 0


# Queued jobs compared with what Redis holds --------------------------------------------


def test_a_queued_job_whose_message_was_lost_is_sent_again_once_after_the_grace(lone, r):
    job = _queued_job("product:lost")
    lone.enqueue(_message(job.id))
    r.flushall()  # Redis restarted empty
    assert reap(lone, SETTINGS)["message_lost"] == 0  # within the grace: its send may still be coming
    clock.advance(SEND_GRACE_SECONDS + 1)
    assert reap(lone, SETTINGS) == {"lease_expired": 0, "message_lost": 1}
    assert _sent_ids(r) == [job.id]
    clock.advance(SEND_GRACE_SECONDS + 1)
    assert reap(lone, SETTINGS)["message_lost"] == 0  # its message is held now
    assert _sent_ids(r) == [job.id]
    assert Job.get_by_id(job.id).status == Job.QUEUED


def test_queued_jobs_waiting_behind_a_backlog_are_never_sent_twice(lone, r):
    jobs = [_queued_job(f"product:backlog-{i}") for i in range(40)]
    for job in jobs[:-1]:
        lone.enqueue(_message(job.id))
    lone.enqueue(_message(jobs[-1].id), delay=60_000)  # a retry waiting for its time
    r.hset(f"{NAMESPACE}:default.msgs", "not-a-message", b"\xff garbage")  # read past, not fatal
    clock.advance(SETTINGS.job_stale_seconds * 100)
    for _ in range(3):
        assert reap(lone, SETTINGS) == {"lease_expired": 0, "message_lost": 0}
    assert sorted(_sent_ids_lenient(r, "default")) == sorted(job.id for job in jobs[:-1])
    assert _sent_ids(r, "default.DQ") == [jobs[-1].id]


def _sent_ids_lenient(r, queue):
    found = []
    for data in r.hvals(f"{NAMESPACE}:{queue}.msgs"):
        try:
            found.append(dramatiq.Message.decode(data).args[0])
        except dramatiq.errors.DecodeError:
            pass
    return found


def test_two_reapers_at_once_send_a_lost_job_once(lone, r):
    job = _queued_job("product:two-reapers")
    clock.advance(SEND_GRACE_SECONDS + 1)
    counts = in_threads(2, lambda i: reap(lone, SETTINGS))
    assert sum(c["message_lost"] for c in counts) == 1
    assert _sent_ids(r) == [job.id]


def test_the_broker_is_read_only_when_a_queued_job_is_old_enough_to_be_lost(lone, monkeypatch):
    def no_reading(of):
        raise AssertionError("the broker's messages were read with no queued job past the grace")

    monkeypatch.setattr(reaper_module, "held_job_ids", no_reading)
    _queued_job("product:young")
    assert reap(lone, SETTINGS) == {"lease_expired": 0, "message_lost": 0}
    clock.advance(SEND_GRACE_SECONDS + 1)
    with pytest.raises(AssertionError):
        reap(lone, SETTINGS)


def test_held_job_ids_reads_waiting_delayed_and_taken_messages(server, lone):
    lone.enqueue(_message("waiting"))
    lone.enqueue(_message("delayed"), delay=60_000)
    lone.enqueue(_message("taken"))
    lone.enqueue(dramatiq.Message(queue_name="default", actor_name="prune_images", args=(), kwargs={}, options={}))
    _broker(server).do_fetch("default", 1)  # "waiting" is taken by a worker, not yet acknowledged
    assert held_job_ids(lone) == {"waiting", "delayed", "taken"}


# Leases -------------------------------------------------------------------------------


def test_a_running_job_whose_lease_ran_out_is_sent_again_and_one_out_of_attempts_fails(lone, r):
    again = _queued_job("product:lease")
    spent = _queued_job("product:spent", max_attempts=1)
    for job in (again, spent):
        assert job_rows.start_attempt(job.id, lease_seconds=60) == 1  # the worker that then died
    live = _queued_job("product:live")
    job_rows.start_attempt(live.id, lease_seconds=600)
    clock.advance(61)
    assert reap(lone, SETTINGS) == {"lease_expired": 1, "message_lost": 0}
    assert _sent_ids(r) == [again.id]
    assert Job.get_by_id(again.id).status == Job.QUEUED
    assert (Job.get_by_id(spent.id).status, Job.get_by_id(spent.id).error) == (Job.FAILED, "worker lost")
    assert Job.get_by_id(live.id).status == Job.RUNNING
    assert reap(lone, SETTINGS) == {"lease_expired": 0, "message_lost": 0}  # sent once


# The in-process broker ----------------------------------------------------------------


def test_with_the_in_process_broker_a_queued_job_is_sent_again_after_job_stale_seconds():
    stub = StubBroker()
    stub.declare_queue("default")
    job = _queued_job("product:stub")
    clock.advance(SEND_GRACE_SECONDS + 1)
    assert reap(stub, SETTINGS)["message_lost"] == 0  # its messages cannot be looked at: time decides
    clock.advance(SETTINGS.job_stale_seconds)
    assert reap(stub, SETTINGS) == {"lease_expired": 0, "message_lost": 1}
    (sent,) = stub.queues["default"].queue
    assert dramatiq.Message.decode(sent).args == (job.id,)
    assert requeue_lost_messages(stub) == []
