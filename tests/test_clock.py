"""The clock process: each periodic job fires once per slot, however many clocks run."""
from dramatiq.brokers.stub import StubBroker

from integrations.locks import InProcessLocks
from workers.clock import Every, Scheduler, schedule
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


def test_the_schedule_fires_the_heartbeat_the_reaper_and_the_session_prune():
    names = {entry.actor_name for entry in schedule(SETTINGS)}
    assert names == {"heartbeat", "requeue_stale_jobs", "prune_sessions"}
