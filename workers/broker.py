"""The Dramatiq broker of this process: Redis when REDIS_URL is set, in-process otherwise.

Importing this module sets the broker (jobs/__init__.py imports it before declaring any
actor; Dramatiq would otherwise quietly make a default one) and, in a worker process,
opens the database and the logs.
"""
import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import dq_name

from config import configure_logging, settings_or_exit
from models.db import init_db
from workers.metrics import WorkerMetricsOnBoot
from workers.middleware import BeatOnBoot, DatabaseConnection

QUEUES = ("default",)


def build_broker(settings) -> dramatiq.Broker:
    if settings.embedded:
        broker = StubBroker()
    else:
        broker = RedisBroker(url=settings.redis_url, namespace="ff-jobs")
    broker.add_middleware(DatabaseConnection())
    broker.add_middleware(BeatOnBoot())
    broker.add_middleware(WorkerMetricsOnBoot(settings))
    for queue in QUEUES:
        broker.declare_queue(queue)
    return broker


settings = settings_or_exit()
configure_logging(settings)
init_db(settings.database_url, pool_size=settings.db_pool_size, pool_timeout=settings.db_pool_timeout)
broker = build_broker(settings)
dramatiq.set_broker(broker)


def broker_status() -> dict:
    """The broker's backend and whether it answers."""
    if isinstance(broker, StubBroker):
        return {"backend": "embedded", "ok": True}
    try:
        broker.client.ping()
        return {"backend": "redis", "ok": True}
    except Exception:  # any failure to reach Redis reads as "not ok"
        return {"backend": "redis", "ok": False}


def queue_depths(of: dramatiq.Broker | None = None, queues=QUEUES) -> dict[str, dict[str, int]]:
    """Messages per queue of this process's broker (or `of`): ready (waiting for a worker),
    delayed (waiting for their time) and in_flight (taken by a worker, running or
    prefetched, not yet acknowledged)."""
    of = of or broker
    depths = {}
    for queue in queues:
        if isinstance(of, StubBroker):
            ready_queue, delay_queue = of.queues[queue], of.queues[dq_name(queue)]
            ready = ready_queue.qsize()
            # A message stays unfinished from its enqueue until a worker acknowledges it.
            depths[queue] = {"ready": ready, "delayed": delay_queue.unfinished_tasks,
                             "in_flight": max(0, ready_queue.unfinished_tasks - ready)}
        else:
            # dramatiq's Redis layout: "<ns>:<queue>" lists the ids not yet taken,
            # "<ns>:<queue>.msgs" holds every message not yet acknowledged, and the
            # delay queue "<queue>.DQ" the same for delayed ones. One MULTI reads all three.
            prefix = f"{of.namespace}:"
            with of.client.pipeline(transaction=True) as pipe:
                pipe.llen(prefix + queue)
                pipe.hlen(f"{prefix}{queue}.msgs")
                pipe.hlen(f"{prefix}{dq_name(queue)}.msgs")
                ready, stored, delayed = pipe.execute()
            depths[queue] = {"ready": ready, "delayed": delayed, "in_flight": max(0, stored - ready)}
    return depths


def keep_broker_heartbeat(of: dramatiq.Broker) -> None:
    """Refreshes this process's heartbeat in the broker (any dispatch call records it): a
    worker whose threads all run long jobs does not fetch, and would otherwise be taken for
    lost. Nothing to do in-process."""
    if isinstance(of, RedisBroker):
        of.do_qsize(QUEUES[0])
