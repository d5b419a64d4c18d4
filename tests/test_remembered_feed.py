"""GET /api/feed of a founder this process remembers is answered before Flask
(api/remembered_feed.py): exactly as the app answers it, and anything unusual, or anything the
feed raises, is the app's own answer, with the feed run once."""
from __future__ import annotations

import logging

import flask
import peewee as pw
import pytest

from models.account import MeterUsage
from tests.factories import catalog
from tests.metered_accounts import bind, make_account

pytestmark = pytest.mark.usefixtures("frozen_clock")


@pytest.fixture
def flask_requests():
    """The requests Flask's own machinery handled (its request_started signal)."""
    seen = []

    def started(sender, **_extra):
        seen.append(flask.request.full_path)

    flask.request_started.connect(started)
    yield seen
    flask.request_started.disconnect(started)


def _request_lines(caplog) -> list[dict]:
    return [r.fields for r in caplog.records if r.name == "api.request" and r.getMessage() == "request"]


def _remembered(founder):
    """A founder whose session this process remembers (the app read it for a feed)."""
    catalog(14)
    client = founder()
    client.get("/api/health")  # the newcomer's session is made here, and read (remembered) next
    assert client.get("/api/feed").status_code == 200
    return client


def test_a_remembered_feed_is_answered_before_flask_exactly_as_flask_answers_it(founder, flask_requests, caplog):
    client = _remembered(founder)
    caplog.set_level(logging.INFO, logger="api.request")
    caplog.clear()
    flask_requests.clear()
    fast = client.get("/api/feed")
    assert flask_requests == []  # Flask never saw it
    by_flask = client.get("/api/feed?from=app")  # a query string goes to the app (the route ignores it)
    assert flask_requests == ["/api/feed?from=app"]
    assert fast.status_code == by_flask.status_code == 200
    assert fast.get_data() == by_flask.get_data() and len(fast.get_json()) == 12
    without_id = [[(k, v) for k, v in r.headers.to_wsgi_list() if k != "X-Request-Id"] for r in (fast, by_flask)]
    assert without_id[0] == without_id[1]
    assert "Set-Cookie" not in fast.headers and len(fast.headers["X-Request-Id"]) == 16
    lines = _request_lines(caplog)
    assert len(lines) == 2 and lines[0]["request_id"] == fast.headers["X-Request-Id"]
    same = ("method", "route", "path", "status")
    assert [lines[0][k] for k in same] == ["GET", "/api/feed", "/api/feed", 200]
    assert [lines[1][k] for k in same] == ["GET", "/api/feed", "/api/feed", 200]  # the path, without its query


def test_the_feeds_answers_count_in_the_metrics_by_route(founder, client):
    founder_client = _remembered(founder)
    before = _feed_count(client)
    for _ in range(3):
        assert founder_client.get("/api/feed").status_code == 200
    assert _feed_count(client) == before + 3


def _feed_count(client) -> float:
    text = client.get("/metrics").get_data(as_text=True)
    found = [line for line in text.splitlines()
             if line.startswith("ff_http_requests_total{") and 'route="/api/feed"' in line and 'status="200"' in line]
    return sum(float(line.rsplit(" ", 1)[1]) for line in found)


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://elsewhere.example"}])
def test_a_cross_site_feed_goes_to_the_apps_guard(founder, flask_requests, headers):
    client = _remembered(founder)
    flask_requests.clear()
    response = client.get("/api/feed", headers=headers)
    assert response.status_code == 403 and response.get_json()["reason"] == "cross_site_request"
    assert flask_requests == ["/api/feed?"]


def test_another_host_goes_to_the_app(founder, flask_requests):
    client = _remembered(founder)
    flask_requests.clear()
    response = client.get("/api/feed", headers={"Host": "shop.example.com"})
    assert response.status_code == 200 and flask_requests == ["/api/feed?"]


def test_a_meter_refusal_is_the_apps_answer_and_spends_nothing_twice(founder, flask_requests):
    """A free account's find bucket holds 50 credits a five-hour window, 5 a feed: the eleventh
    feed is refused by the meter. The remembered path ran it and raised; the app answers."""
    client = _remembered(founder)
    account = make_account("free")
    bind(client, account)
    answers = [client.get("/api/feed") for _ in range(12)]
    assert [a.status_code for a in answers] == [200] * 10 + [429] * 2
    refused = answers[-1]
    assert refused.get_json()["reason"] == "usage_limit_reached"
    assert refused.headers["Cache-Control"] == answers[0].headers["Cache-Control"]
    flask_requests.clear()
    assert client.get("/api/feed").status_code == 429
    assert flask_requests == ["/api/feed?"]  # answered by the app's handlers
    usage = MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "find")
    assert usage.used_5h == 50


def test_a_database_fault_in_the_feed_is_the_apps_answer_and_the_feed_runs_once(founder, monkeypatch, flask_requests):
    client = _remembered(founder)
    calls = []

    def failing_feed(**_kwargs):
        calls.append(1)
        raise pw.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("services.discovery.feed", failing_feed)
    flask_requests.clear()
    response = client.get("/api/feed")
    assert response.status_code == 503 and response.get_json()["reason"] == "database_unavailable"
    assert calls == [1] and flask_requests == ["/api/feed?"]


def test_a_remembered_feed_waits_on_the_database_within_db_wait_seconds(founder, monkeypatch, flask_requests):
    from models.db import current_bound
    from services import discovery
    from tests.conftest import SETTINGS

    client = _remembered(founder)
    bounds = []
    real_feed = discovery.feed

    def observed_feed(**kwargs):
        bounds.append(current_bound())
        return real_feed(**kwargs)

    monkeypatch.setattr("services.discovery.feed", observed_feed)
    flask_requests.clear()
    assert client.get("/api/feed").status_code == 200
    assert flask_requests == [] and bounds == [SETTINGS.db_wait_seconds]
