"""GET /metrics: Prometheus text for the people who scale worker pools, read as a scraper
reads it; who may read it; and the figures the queues and the job table give."""
from datetime import datetime, timedelta

import dramatiq
import pytest
from prometheus_client.parser import text_string_to_metric_families

from config import use_settings
from models.clock import clock
from models.job import Job, WorkerBeat
from tests.conftest import SETTINGS, TEST_REDIS_URL
from tests.helpers import wait_for

NOW = datetime(2026, 11, 22, 12, 0, 0)
REMOTE = {"REMOTE_ADDR": "203.0.113.7"}


@pytest.fixture
def settings():
    """Changes settings for one test (GET /metrics reads them per request)."""

    def change(**changes):
        use_settings(SETTINGS.but(**changes))

    yield change
    use_settings(SETTINGS)


def scrape(client, **kwargs):
    response = client.get("/metrics", **kwargs)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/plain"
    return _samples(response.get_data(as_text=True))


def _samples(text):
    """Every sample of the exposition, by sample name: [(labels, value)]; the parser fails on
    anything that is not valid Prometheus text."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


def value(samples, name, **labels):
    matching = [v for found, v in samples.get(name, []) if all(found.get(k) == w for k, w in labels.items())]
    assert len(matching) <= 1, (name, labels, matching)
    return matching[0] if matching else None


# --- What a scrape shows ----------------------------------------------------------------

def test_metrics_is_valid_prometheus_text_with_every_figure(client):
    client.get("/api/health")
    samples = scrape(client)
    for name in ("ff_http_requests_total", "ff_http_request_duration_seconds_bucket",
                 "ff_http_request_duration_seconds_count", "ff_http_request_duration_seconds_sum",
                 "ff_job_oldest_queued_age_seconds", "ff_workers_alive", "ff_queue_depth",
                 "ff_database_up", "ff_broker_up"):
        assert name in samples, name
    assert {labels["state"] for labels, _ in samples["ff_queue_depth"]} == {"ready", "delayed", "in_flight"}
    assert {labels["queue"] for labels, _ in samples["ff_queue_depth"]} == {"default"}
    assert value(samples, "ff_database_up") == 1 and value(samples, "ff_broker_up") == 1


def test_a_request_counts_under_its_route_never_its_raw_path(client):
    before = scrape(client)
    for _ in range(3):
        client.get("/api/health")
    client.get("/r/abc123xyz")
    client.get("/no/such/place")
    after = scrape(client)

    def added(name, **labels):  # the figures are the process's own, counted since it started
        return (value(after, name, **labels) or 0) - (value(before, name, **labels) or 0)

    assert added("ff_http_requests_total", route="/api/health", method="GET", status="200") == 3
    assert added("ff_http_requests_total", route="/r/<code>", method="GET", status="303") == 1
    assert added("ff_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert added("ff_http_request_duration_seconds_count", route="/api/health", method="GET") == 3
    assert not any("abc123xyz" in labels["route"] for labels, _ in after["ff_http_requests_total"])


def test_an_odd_method_is_counted_as_other(client):
    client.open("/api/health", method="BREW")
    samples = scrape(client)
    # No rule matched the method either, so it is "unmatched" too.
    assert value(samples, "ff_http_requests_total", route="unmatched", method="other", status="405") >= 1


def _job(kind, status, **fields):
    return Job.create(id=f"{kind}-{status}-{Job.select().count()}", kind=kind, subject=f"s{Job.select().count()}",
                      status=status, **fields)


def test_jobs_by_kind_and_status_reflect_the_job_rows(client):
    clock.freeze(NOW)
    _job("research", Job.QUEUED, created_at=NOW - timedelta(seconds=90))
    _job("research", Job.QUEUED, created_at=NOW - timedelta(seconds=10))
    _job("research", Job.RUNNING)
    _job("sign_in_mail", Job.DONE, started_at=NOW - timedelta(seconds=3), finished_at=NOW - timedelta(seconds=1),
         updated_at=NOW - timedelta(seconds=1))
    _job("sign_in_mail", Job.FAILED, started_at=NOW - timedelta(seconds=40), finished_at=NOW - timedelta(seconds=20),
         updated_at=NOW - timedelta(seconds=20))
    # Finished an hour ago: outside the window, so neither counted nor timed (the scrape
    # never counts the finished rows the job table keeps for JOB_RETENTION_DAYS).
    _job("sign_in_mail", Job.DONE, started_at=NOW - timedelta(hours=1, seconds=5),
         finished_at=NOW - timedelta(hours=1), updated_at=NOW - timedelta(hours=1))
    _job("research", Job.FAILED, started_at=NOW - timedelta(days=3), finished_at=NOW - timedelta(days=3),
         updated_at=NOW - timedelta(days=3))
    samples = scrape(client)
    jobs = {(labels["kind"], labels["status"]): v for labels, v in samples["ff_jobs"]}
    assert jobs == {("research", "queued"): 2, ("research", "running"): 1, ("sign_in_mail", "done"): 1,
                    ("sign_in_mail", "failed"): 1}
    assert value(samples, "ff_job_oldest_queued_age_seconds") == 90
    assert value(samples, "ff_job_duration_seconds_gcount", kind="sign_in_mail") == 2
    assert value(samples, "ff_job_duration_seconds_gsum", kind="sign_in_mail") == 22
    assert value(samples, "ff_job_duration_seconds_bucket", kind="sign_in_mail", le="2.5") == 1
    assert value(samples, "ff_job_duration_seconds_bucket", kind="sign_in_mail", le="30.0") == 2
    assert value(samples, "ff_job_duration_seconds_bucket", kind="research", le="+Inf") is None


def test_workers_alive_counts_a_worker_while_it_beats_and_not_once_its_beats_stopped(client):
    """A worker killed stops counting two heartbeats after its last beat, long before
    WORKER_STALE_SECONDS: a crash-looping worker (a new process, a new row, at each restart)
    lowers the figure instead of leaving its dead rows counted for a minute."""
    beat = SETTINGS.heartbeat_seconds
    assert 2 * beat + 1 < SETTINGS.worker_stale_seconds
    clock.freeze(NOW)
    WorkerBeat.create(worker="host-a:1", seen_at=NOW - timedelta(seconds=1))
    WorkerBeat.create(worker="host-b:2", seen_at=NOW - timedelta(seconds=2 * beat - 1))  # one beat late
    WorkerBeat.create(worker="host-c:3", seen_at=NOW - timedelta(seconds=2 * beat + 1))  # killed
    WorkerBeat.create(worker="host-d:4", seen_at=NOW - timedelta(seconds=SETTINGS.worker_stale_seconds + 5))
    assert value(scrape(client), "ff_workers_alive") == 2
    # Health still says a worker was heard from: it asks whether anyone is there at all.
    assert client.get("/api/health").get_json()["worker"]["heard_from"] is True


def test_a_worker_stopping_cleanly_stops_counting_at_once(client):
    from dramatiq.brokers.stub import StubBroker

    from workers.worker import WorkerPool

    WorkerBeat.delete().execute()
    broker = StubBroker()
    pool = WorkerPool(broker, SETTINGS, threads=1).start()
    try:
        wait_for(lambda: value(scrape(client), "ff_workers_alive") == 1, 10, "the worker's first beat")
    finally:
        pool.stop(timeout_seconds=0)
        broker.close()
    assert value(scrape(client), "ff_workers_alive") == 0


@pytest.fixture
def lone_broker():
    """A broker of the configured kind that no worker consumes from."""
    if TEST_REDIS_URL:
        from dramatiq.brokers.redis import RedisBroker

        broker = RedisBroker(url=TEST_REDIS_URL, namespace="ff-test-queue-depth")
    else:
        from dramatiq.brokers.stub import StubBroker

        broker = StubBroker()
    broker.declare_queue("default")
    yield broker
    broker.flush_all()
    broker.close()


def test_queue_depth_counts_ready_delayed_and_in_flight_messages(lone_broker):
    from workers.broker import queue_depths

    def message():
        return dramatiq.Message(queue_name="default", actor_name="heartbeat", args=(), kwargs={}, options={})

    for _ in range(3):
        lone_broker.enqueue(message())
    lone_broker.enqueue(message(), delay=600_000)
    assert queue_depths(lone_broker) == {"default": {"ready": 3, "delayed": 1, "in_flight": 0}}
    consumer = lone_broker.consume("default", prefetch=1, timeout=1000)
    taken = next(consumer)
    assert taken is not None
    assert queue_depths(lone_broker) == {"default": {"ready": 2, "delayed": 1, "in_flight": 1}}
    consumer.ack(taken)
    assert queue_depths(lone_broker) == {"default": {"ready": 2, "delayed": 1, "in_flight": 0}}
    consumer.close()


# --- Who may read it --------------------------------------------------------------------

def refused(response, status, reason):
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["reason"] == reason and body["status"] == "refused" and body["explanation"]
    return response


def test_loopback_reads_the_figures_and_gets_no_session(client):
    for address in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
        response = client.get("/metrics", environ_base={"REMOTE_ADDR": address})
        assert response.status_code == 200, address
        assert "Set-Cookie" not in response.headers


def test_another_host_is_refused_when_no_admin_password_is_set(client):
    refused(client.get("/metrics", environ_base=REMOTE), 403, "metrics_not_public")


def test_a_request_relayed_by_a_proxy_on_this_host_is_not_loopback(client):
    refused(client.get("/metrics", headers={"X-Forwarded-For": "198.51.100.4"}), 403, "metrics_not_public")
    refused(client.get("/metrics", headers={"Forwarded": "for=198.51.100.4"}), 403, "metrics_not_public")


def test_public_flag_serves_everyone(client, settings):
    settings(metrics_public=True)
    assert client.get("/metrics", environ_base=REMOTE).status_code == 200


def test_basic_auth_with_the_admin_password(client, settings):
    settings(admin_password="correct horse battery")
    assert client.get("/metrics", environ_base=REMOTE, auth=("prometheus", "correct horse battery")).status_code == 200
    for auth in (("prometheus", "wrong"), None):
        response = refused(client.get("/metrics", environ_base=REMOTE, auth=auth), 401, "metrics_credentials_required")
        assert response.headers["WWW-Authenticate"].startswith("Basic ")


def test_the_document_says_metrics_answers_prometheus_text(client):
    operation = client.get("/api/openapi.json").get_json()["paths"]["/metrics"]["get"]
    assert set(operation["responses"]["200"]["content"]) == {"text/plain"}
    assert "metrics_credentials_required" in operation["responses"]["401"]["description"]
    assert "metrics_not_public" in operation["responses"]["403"]["description"]
