"""The clock process: each periodic job fires once per slot, however many clocks run."""
from datetime import datetime, timezone

import pytest
from dramatiq.brokers.stub import StubBroker

from integrations.locks import InProcessLocks
from workers.clock import DailyAt, Every, Scheduler, schedule
from tests.conftest import SETTINGS


def _broker():
    broker = StubBroker()
    broker.declare_queue("default")
    return broker


def test_each_entry_fires_once_per_slot():
    broker = _broker()
    scheduler = Scheduler(broker, [Every("heartbeat", 10), Every("requeue_stale_jobs", 30)], InProcessLocks())
    assert sorted(scheduler.tick(1000.0)) == ["heartbeat", "requeue_stale_jobs"]
    assert scheduler.tick(1005.0) == []
    assert scheduler.tick(1010.0) == ["heartbeat"]
    assert broker.queues["default"].qsize() == 3


def test_two_clocks_sharing_locks_fire_a_slot_once():
    broker, locks = _broker(), InProcessLocks()
    first = Scheduler(broker, [Every("heartbeat", 10)], locks)
    second = Scheduler(broker, [Every("heartbeat", 10)], locks)
    assert first.tick(2000.0) + second.tick(2001.0) == ["heartbeat"]
    assert first.tick(2010.0) + second.tick(2011.0) == ["heartbeat"]


def test_the_schedule_fires_the_heartbeat_the_reaper_the_prunes_and_the_nightly_brief():
    entries = {entry.actor_name: entry for entry in schedule(SETTINGS)}
    assert set(entries) == {"heartbeat", "requeue_stale_jobs", "prune_sessions", "prune_images", "recheck_payments",
                            "nightly_brief"}
    assert entries["prune_images"] == Every("prune_images", 3600)
    assert entries["nightly_brief"] == DailyAt("nightly_brief", 3)
    assert {e.actor_name: e for e in schedule(SETTINGS.but(brief_hour_utc=22))}["nightly_brief"].hour == 22


def _at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2026, 11, day, hour, minute, tzinfo=timezone.utc).timestamp()


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
