"""The clock process: each periodic job fires once per slot, however many clocks run."""
import logging
from datetime import UTC, datetime

import dramatiq
import pytest
import redis
from dramatiq.brokers.stub import StubBroker

from integrations.locks import InProcessLocks, RedisLocks
from models.clock import clock
from models.db import transaction
from models.job import Job
from services import jobs as job_rows
from tests.conftest import SETTINGS
from tests.redis_server import RedisServer
from workers.broker import NAMESPACE, redis_broker
from workers.broker import broker as BROKER
from workers.clock import DailyAt, Every, InClock, Scheduler, schedule


def _broker():
    broker = StubBroker()
    broker.declare_queue("default")
    return broker


def test_each_entry_fires_once_per_slot():
    broker = _broker()
    scheduler = Scheduler(broker, [Every("recheck_payments", 10), Every("prune_images", 30)], InProcessLocks())
    assert sorted(scheduler.tick(1000.0)) == ["prune_images", "recheck_payments"]
    assert scheduler.tick(1005.0) == []
    assert scheduler.tick(1010.0) == ["recheck_payments"]
    assert broker.queues["default"].qsize() == 3


def test_two_clocks_sharing_locks_fire_a_slot_once():
    broker, locks = _broker(), InProcessLocks()
    first = Scheduler(broker, [Every("recheck_payments", 10)], locks)
    second = Scheduler(broker, [Every("recheck_payments", 10)], locks)
    assert first.tick(2000.0) + second.tick(2001.0) == ["recheck_payments"]
    assert first.tick(2010.0) + second.tick(2011.0) == ["recheck_payments"]


def test_the_schedule_runs_the_reaper_in_the_clock_and_fires_the_prunes_and_the_nightly_brief():
    entries = {entry.name: entry for entry in schedule(SETTINGS)}
    assert set(entries) == {"reaper", "prune_sessions", "prune_images", "prune_retained", "recheck_payments",
                            "expire_sandbox_checkouts", "nightly_brief", "poll_mail", "fix_follow_ups",
                            "deliver_ads"}
    assert entries["prune_retained"] == Every("prune_retained", 3600) and "prune_retained" in BROKER.actors
    assert entries["poll_mail"] == Every("poll_mail", 60) and "poll_mail" in BROKER.actors
    assert entries["fix_follow_ups"] == Every("fix_follow_ups", 3600) and "fix_follow_ups" in BROKER.actors
    # Ads (jobs/growth.py): launch, pull each ended day's delivery and pay it, hourly.
    assert entries["deliver_ads"] == Every("deliver_ads", 3600) and "deliver_ads" in BROKER.actors
    assert {e.name: e for e in schedule(SETTINGS.but(mail_poll_seconds=15))}["poll_mail"].seconds == 15
    assert isinstance(entries["reaper"], InClock) and entries["reaper"].seconds == SETTINGS.reaper_seconds == 5
    assert entries["prune_images"] == Every("prune_images", 3600)
    assert entries["nightly_brief"] == DailyAt("nightly_brief", 3)
    assert {e.name: e for e in schedule(SETTINGS.but(brief_hour_utc=22))}["nightly_brief"].hour == 22
    assert {e.name: e for e in schedule(SETTINGS.but(reaper_seconds=2))}["reaper"].seconds == 2
    # Nothing the clock sends is the reaper or a heartbeat: those no longer wait in the queue.
    assert "requeue_stale_jobs" not in BROKER.actors and "heartbeat" not in BROKER.actors


def test_an_in_clock_entry_runs_in_the_clock_once_per_slot_however_many_clocks_run():
    broker, locks, runs = _broker(), InProcessLocks(), []
    entry = InClock("reaper", 5, lambda the_broker: runs.append(the_broker))
    first, second = Scheduler(broker, [entry], locks), Scheduler(broker, [entry], locks)
    assert first.tick(3000.0) + second.tick(3001.0) == ["reaper"]
    assert second.tick(3005.0) + first.tick(3006.0) == ["reaper"]
    assert first.tick(3007.0) + second.tick(3009.0) == []
    assert runs == [broker, broker]
    assert broker.queues["default"].qsize() == 0  # run here, not sent


def test_the_clock_reaper_sends_again_a_job_whose_worker_died_without_a_worker_running_it():
    with transaction():
        job, _ = job_rows.create_job(kind="test_clock_reaped", subject="product:clock")
    job_rows.start_attempt(job.id, lease_seconds=60)  # the worker that then died
    clock.advance(61)
    broker = _broker()
    reaper = [e for e in schedule(SETTINGS) if e.name == "reaper"]
    assert Scheduler(broker, reaper, InProcessLocks()).tick(4000.0) == ["reaper"]
    assert Job.get_by_id(job.id).status == Job.QUEUED
    (sent,) = broker.queues["default"].queue
    assert dramatiq.Message.decode(sent).args == (job.id,) and dramatiq.Message.decode(sent).actor_name == "test_clock_reaped"


def _at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC).timestamp()


def test_a_daily_entry_fires_at_its_hour_once_a_day():
    broker = _broker()
    scheduler = Scheduler(broker, [DailyAt("nightly_brief", 3)], InProcessLocks())
    assert scheduler.tick(_at(22, 3, 0)) == ["nightly_brief"]
    assert [scheduler.tick(_at(22, h, 30)) for h in (3, 9, 23)] == [[], [], []]
    assert scheduler.tick(_at(23, 0, 0)) == []  # midnight is not the hour
    assert scheduler.tick(_at(23, 2, 59)) == []
    assert scheduler.tick(_at(23, 3, 0)) == ["nightly_brief"]
    assert broker.queues["default"].qsize() == 2


def test_a_clock_started_before_the_hour_fires_the_missed_night_then_waits_for_the_hour():
    scheduler = Scheduler(_broker(), [DailyAt("nightly_brief", 3)], InProcessLocks())
    assert scheduler.tick(_at(22, 1, 0)) == ["nightly_brief"]  # the slot of the 21st, 03:00
    assert scheduler.tick(_at(22, 2, 0)) == []
    assert scheduler.tick(_at(22, 3, 0)) == ["nightly_brief"]


def test_several_clocks_fire_a_day_once_even_when_one_starts_later():
    broker, locks = _broker(), InProcessLocks()
    first = Scheduler(broker, [DailyAt("nightly_brief", 3)], locks)
    second = Scheduler(broker, [DailyAt("nightly_brief", 3)], locks)
    assert first.tick(_at(22, 3, 0)) + second.tick(_at(22, 3, 0)) == ["nightly_brief"]
    # The slot's lock outlives the day, so a clock started (or restarted) at noon sees it fired.
    assert DailyAt("nightly_brief", 3).lock_seconds > 86400
    late = Scheduler(broker, [DailyAt("nightly_brief", 3)], locks)
    assert late.tick(_at(22, 12, 0)) == []
    assert second.tick(_at(23, 3, 0)) + first.tick(_at(23, 3, 1)) + late.tick(_at(23, 3, 2)) == ["nightly_brief"]
    assert broker.queues["default"].qsize() == 2


@pytest.mark.parametrize("hour", [-1, 24])
def test_a_daily_hour_outside_the_day_is_refused(hour):
    with pytest.raises(ValueError):
        DailyAt("nightly_brief", hour)


# Redis out of reach ------------------------------------------------------------------


class _Outage:
    """Wraps a broker (or a lock) so its calls fail as they do with Redis gone, while `down`."""

    def __init__(self, wrapped, down=True):
        self.wrapped, self.down = wrapped, down

    def __getattr__(self, name):
        attr = getattr(self.wrapped, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            if self.down:
                raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
            return attr(*args, **kwargs)

        return call


def test_a_slot_whose_send_failed_is_let_go_and_fired_once_by_whichever_clock_reaches_redis():
    broker, locks = _broker(), InProcessLocks()
    cut_off = _Outage(broker)
    first = Scheduler(cut_off, [Every("recheck_payments", 600)], locks)
    second = Scheduler(broker, [Every("recheck_payments", 600)], locks)
    assert first.tick(6000.0) == []  # its send failed: the slot's lock was let go
    assert second.tick(6001.0) == ["recheck_payments"]
    cut_off.down = False
    assert first.tick(6002.0) == []  # the other clock fired it
    assert broker.queues["default"].qsize() == 1


def test_a_slot_whose_lock_could_not_be_let_go_is_fired_later_with_the_same_hold():
    broker, locks = _broker(), InProcessLocks()
    cut_off = _Outage(broker)
    held = []

    class Sticky:
        """The clock's locks, but a release fails as with Redis gone (the hold stays)."""

        def acquire(self, name, ttl):
            lock = locks.acquire(name, ttl)
            if lock is not None:
                lock.release = lambda: False
                held.append(lock)
            return lock

    first = Scheduler(cut_off, [Every("recheck_payments", 600)], Sticky())
    second = Scheduler(broker, [Every("recheck_payments", 600)], locks)
    assert first.tick(6000.0) == []
    assert second.tick(6001.0) == []  # the slot's lock is still held: another clock has it
    assert first.tick(6002.0) == []  # still cut off: still holding
    cut_off.down = False
    assert first.tick(6003.0) == ["recheck_payments"]
    assert len(held) == 1  # fired with the hold it took, not a second one
    assert first.tick(6004.0) == [] and broker.queues["default"].qsize() == 1


def test_an_entry_that_fails_for_another_reason_spends_its_slot_and_says_so(caplog):
    runs = []

    def broken(_broker):
        runs.append(1)
        raise ValueError("a bug, not an outage")

    scheduler = Scheduler(_broker(), [InClock("reaper", 5, broken), Every("prune_images", 3600)], InProcessLocks())
    with caplog.at_level(logging.INFO, logger="clock"):
        assert scheduler.tick(7000.0) == ["prune_images"]  # the entries after it still fire
        assert scheduler.tick(7001.0) == []
    assert runs == [1]
    assert [r.levelname for r in caplog.records if r.name == "clock"] == ["ERROR"]


@pytest.fixture
def stopped_redis():
    server = RedisServer()  # its port is free: nothing answers there until start()
    yield server
    server.close()


def test_with_redis_out_of_reach_the_clock_warns_once_goes_on_and_fires_each_slot_once_after(stopped_redis, caplog):
    runs = []
    broker = redis_broker(stopped_redis.url(), lost_seconds=SETTINGS.worker_lost_seconds)
    broker.declare_queue("default")
    locks = RedisLocks(redis.Redis.from_url(stopped_redis.url(), socket_timeout=1, socket_connect_timeout=1))
    entries = [InClock("reaper", 5, runs.append), Every("recheck_payments", 600), DailyAt("nightly_brief", 3)]
    scheduler = Scheduler(broker, entries, locks)
    start = 600 * 100_000.0
    with caplog.at_level(logging.INFO, logger="clock"):
        for second in range(12):  # twelve ticks, a second apart, with nothing listening
            assert scheduler.tick(start + second) == []
        outage = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "clock"]
        stopped_redis.start()
        assert sorted(scheduler.tick(start + 12)) == ["nightly_brief", "reaper", "recheck_payments"]
        assert scheduler.tick(start + 13) == []
    assert [level for level, _ in outage] == ["WARNING"]
    assert [r.levelname for r in caplog.records if r.name == "clock"] == ["WARNING", "INFO"]
    assert runs == [broker]  # the reaper slot current when Redis answered; the two before it passed unrun
    sent = sorted(dramatiq.Message.decode(m).actor_name
                  for m in redis.Redis.from_url(stopped_redis.url()).hvals(f"{NAMESPACE}:default.msgs"))
    assert sent == ["nightly_brief", "recheck_payments"]
