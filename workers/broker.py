"""The Dramatiq broker of this process: Redis when REDIS_URL is set, in-process otherwise.

Importing this module sets the broker (jobs/__init__.py imports it before declaring any
actor; Dramatiq would otherwise quietly make a default one) and, in a worker process,
opens the database and the logs.
"""
import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker

from config import configure_logging, settings_or_exit
from models.db import init_db
from workers.middleware import BeatOnBoot, DatabaseConnection

QUEUES = ("default",)


def build_broker(settings) -> dramatiq.Broker:
    if settings.embedded:
        broker = StubBroker()
    else:
        broker = RedisBroker(url=settings.redis_url, namespace="ff-jobs")
    broker.add_middleware(DatabaseConnection())
    broker.add_middleware(BeatOnBoot())
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
