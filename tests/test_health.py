"""GET /api/health: build, database, broker and worker, and honest answers when the
database is unreachable."""
from jobs.maintenance import heartbeat
from models.clock import clock
from models.db import init_db
from models.job import WorkerBeat
from tests.conftest import SETTINGS, TEST_REDIS_URL, reconnect

UNREACHABLE = "postgresql://postgres@127.0.0.1:1/nothing_listens_here"


def test_health_answers_every_field(client):
    body = client.get("/api/health").get_json()
    assert set(body) == {"status", "build", "database", "broker", "worker"}
    assert body["status"] == "ok"
    assert body["build"] == "test"
    assert body["database"] == {"backend": SETTINGS.database_backend, "ok": True}
    assert body["broker"] == {"backend": "redis" if TEST_REDIS_URL else "embedded", "ok": True}


def test_worker_is_heard_from_after_a_heartbeat_and_not_once_silent(client, run_jobs):
    run_jobs()
    WorkerBeat.delete().execute()
    assert client.get("/api/health").get_json()["worker"] == {"heard_from": False, "last_seen": None, "age_seconds": None}
    heartbeat.send()
    run_jobs()
    worker = client.get("/api/health").get_json()["worker"]
    assert worker["heard_from"] is True and worker["last_seen"].endswith("Z") and worker["age_seconds"] < 5
    clock.advance(SETTINGS.worker_stale_seconds + 1)
    assert client.get("/api/health").get_json()["worker"]["heard_from"] is False


def test_unreachable_database_reads_degraded_and_recovers_without_restart(client):
    try:
        init_db(UNREACHABLE)
        response = client.get("/api/health")
        assert response.status_code == 200
        body = response.get_json()
        assert body["status"] == "degraded"
        assert body["database"]["ok"] is False
        assert body["worker"]["heard_from"] is False
    finally:
        reconnect()
    assert client.get("/api/health").get_json()["status"] == "ok"
