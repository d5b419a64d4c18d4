"""GET /api/health: build, database, broker and worker, and honest answers when the
database or the broker is unreachable or no worker has been heard from: `status` is `ok`
only when all three answer, and the answer is 200 either way."""
import os
import signal
import time

import pytest

import workers.broker
from models.clock import clock
from models.db import init_db
from models.job import WorkerBeat
from services.health import record_worker_beat, worker_name
from tests.conftest import SETTINGS, TEST_REDIS_URL, reconnect
from tests.redis_server import RedisServer
from workers.broker import redis_broker

UNREACHABLE = "postgresql://postgres@127.0.0.1:1/nothing_listens_here"


def health(client) -> dict:
    response = client.get("/api/health")
    assert response.status_code == 200
    return response.get_json()


def test_health_answers_every_field(client):
    record_worker_beat(worker_name())
    body = health(client)
    assert set(body) == {"status", "build", "database", "broker", "worker", "mail"}
    assert body["status"] == "ok"
    assert body["build"] == "test"
    assert body["database"] == {"backend": SETTINGS.database_backend, "ok": True}
    assert body["broker"] == {"backend": "redis" if TEST_REDIS_URL else "embedded", "ok": True}
    assert body["worker"]["heard_from"] is True
    assert body["mail"] == {"source": "folder", "folder": SETTINGS.inbound_maildir, "folder_shared": False,
                            "local_folder_hosts": 1, "warning": None}


def test_worker_is_heard_from_after_a_beat_and_not_once_silent(client):
    WorkerBeat.delete().execute()
    body = health(client)
    assert body["worker"] == {"heard_from": False, "last_seen": None, "age_seconds": None}
    assert body["status"] == "degraded"  # nothing would run a job
    record_worker_beat(worker_name())
    body = health(client)
    worker = body["worker"]
    assert worker["heard_from"] is True and worker["last_seen"].endswith("Z") and worker["age_seconds"] < 5
    assert body["status"] == "ok"
    clock.advance(SETTINGS.worker_stale_seconds + 1)
    body = health(client)
    assert body["worker"]["heard_from"] is False and body["status"] == "degraded"


def test_unreachable_database_reads_degraded_and_recovers_without_restart(client):
    record_worker_beat(worker_name())
    try:
        init_db(UNREACHABLE)
        body = health(client)
        assert body["status"] == "degraded"
        assert body["database"]["ok"] is False
        assert body["worker"]["heard_from"] is False
    finally:
        reconnect()
    assert health(client)["status"] == "ok"


@pytest.fixture
def redis_of_its_own(monkeypatch):
    """The process's broker swapped for a Redis broker on a Redis the test starts and stops."""
    server = RedisServer().start()
    monkeypatch.setattr(workers.broker, "broker", redis_broker(server.url(), lost_seconds=10))
    yield server
    server.close()


def _timed(client):
    began = time.monotonic()
    body = health(client)
    return body, time.monotonic() - began


def test_broker_down_reads_degraded_at_once_and_recovers_without_restart(client, redis_of_its_own):
    record_worker_beat(worker_name())
    assert health(client)["broker"] == {"backend": "redis", "ok": True}
    assert health(client)["status"] == "ok"
    redis_of_its_own.stop()
    body, took = _timed(client)
    assert body["status"] == "degraded" and body["broker"] == {"backend": "redis", "ok": False}
    assert body["database"]["ok"] is True and body["worker"]["heard_from"] is True
    assert took < 1.5
    redis_of_its_own.start()
    body = health(client)
    assert body["status"] == "ok" and body["broker"]["ok"] is True


def test_a_broker_that_stops_answering_reads_degraded_within_the_ping_timeout(client, redis_of_its_own):
    """A Redis that accepts connections but never answers (hung, or its host overloaded)."""
    record_worker_beat(worker_name())
    assert health(client)["status"] == "ok"
    os.kill(redis_of_its_own.process.pid, signal.SIGSTOP)
    try:
        body, took = _timed(client)
    finally:
        os.kill(redis_of_its_own.process.pid, signal.SIGCONT)
    assert body["status"] == "degraded" and body["broker"]["ok"] is False
    assert workers.broker.PING_TIMEOUT_SECONDS <= took < 1.5
    assert health(client)["status"] == "ok"
