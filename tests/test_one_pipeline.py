"""Every request passes through Flask once (issue 46, point 1): no layer answers before the
app, so every answer has the app's hooks, handlers and log line, and a feed whose remembered
session turned out stale, or that raised, ran where the app answers it."""
from __future__ import annotations

import flask
import peewee as pw
import pytest

from models.account import MeterUsage
from models.store import Store
from tests.factories import catalog
from tests.metered_accounts import bind, make_account

pytestmark = pytest.mark.usefixtures("frozen_clock")


@pytest.fixture
def flask_requests():
    """The requests Flask's own machinery handled (its request_started signal)."""
    seen = []

    def started(sender, **_extra):
        seen.append(flask.request.path)

    flask.request_started.connect(started)
    yield seen
    flask.request_started.disconnect(started)


def _remembered(founder):
    """A founder whose session this process remembers (the app read it for a feed)."""
    catalog(14)
    client = founder()
    client.get("/api/health")  # the newcomer's session is made here, and read (remembered) next
    assert client.get("/api/feed").status_code == 200
    return client


def test_the_app_is_flask_itself_with_no_layer_in_front(app):
    assert app.wsgi_app.__func__ is flask.Flask.wsgi_app


def test_a_remembered_feed_and_a_held_store_page_each_pass_flask_once(app, shop, flask_requests):
    page = f"/store/{Store.get(Store.product == 'p00').slug}/"
    visitor = app.test_client()
    tag = visitor.get(page).headers["ETag"]
    asked = [visitor.get(page), visitor.get(page, headers={"If-None-Match": tag}), visitor.head(page),
             shop.get("/api/feed"), shop.get("/api/feed")]
    assert [a.status_code for a in asked] == [200, 304, 200, 200, 200]
    assert flask_requests[-5:] == [page, page, page, "/api/feed", "/api/feed"] and len(flask_requests) == 6
    assert all(len(a.headers["X-Request-Id"]) == 16 for a in asked)  # the app's own hooks answered each


def test_a_stale_remembered_session_runs_the_feed_again_once_and_charges_once(founder, monkeypatch):
    """The founder signed in meanwhile (another process, a link): the remembered session is
    stale, its feed statement says so, and the feed runs once more on the session as it is,
    metered under the account, once."""
    from services import discovery

    client = _remembered(founder)
    account = make_account("free")
    bind(client, account)  # the row changed under the remembered copy
    calls = []
    real_feed = discovery.feed

    def counted(**kwargs):
        calls.append("check" in kwargs)
        return real_feed(**kwargs)

    monkeypatch.setattr("services.discovery.feed", counted)
    assert client.get("/api/feed").status_code == 200
    assert calls == [True, False]
    usage = MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "find")
    assert usage.used_5h == 5  # one feed's charge, none refunded and taken again
    calls.clear()
    assert client.get("/api/feed").status_code == 200
    assert calls == [True]  # remembered again, and current


def test_a_meter_refusal_is_answered_by_the_app_and_spends_nothing(founder, flask_requests):
    """A free account's find bucket holds 50 credits a five-hour window, 5 a feed: the eleventh
    feed is refused by the meter, with the app's refusal and nothing spent by it."""
    client = _remembered(founder)
    account = make_account("free")
    bind(client, account)
    answers = [client.get("/api/feed") for _ in range(12)]
    assert [a.status_code for a in answers] == [200] * 10 + [429] * 2
    assert answers[-1].get_json()["reason"] == "usage_limit_reached"
    assert answers[-1].headers["Cache-Control"] == answers[0].headers["Cache-Control"]
    usage = MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "find")
    assert usage.used_5h == 50


def test_a_database_fault_in_the_feed_is_a_503_and_the_feed_runs_once(founder, monkeypatch, flask_requests):
    client = _remembered(founder)
    calls = []

    def failing_feed(**_kwargs):
        calls.append(1)
        raise pw.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("services.discovery.feed", failing_feed)
    flask_requests.clear()
    response = client.get("/api/feed")
    assert response.status_code == 503 and response.get_json()["reason"] == "database_unavailable"
    assert calls == [1] and flask_requests == ["/api/feed"]
