"""Store metrics through HTTP (issue 12, point 4; spec 2.12, 4.4): funnel events from a
published store's visitors, one per visitor, event and day however often or concurrently
sent; refusals; no cookie for visitors; the founder's figures over a window of days, never
another founder's; and where the founder is (presence)."""
from __future__ import annotations

import pytest

from models.clock import clock
from models.funnel import FunnelEvent, Presence
from models.session import Session
from tests.factories import built, claim, claimed_founder, find, item, load, refusal
from tests.factories import published_store as published
from tests.helpers import in_threads

EVENTS = ("page_view", "add_to_cart", "checkout", "paid")


def track(client, event="page_view", session_id="visitor-0001", product_id="p00"):
    return client.post("/api/track", json={"product_id": product_id, "event": event, "session_id": session_id})


def figures(client, query=""):
    response = client.get("/api/editor/metrics" + query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def counts(body):
    return {key: body[key] for key in ("sessions", "cart", "checkout", "paid")}


# --- POST /api/track ---------------------------------------------------------------------------

def test_each_event_is_recorded_once_per_visitor_and_the_founder_sees_it(founder, run_jobs):
    owner = published(founder, run_jobs)
    visitor = founder()
    for event in EVENTS:
        for _ in range(2):  # the same visitor sends each event twice: one count
            answer = track(visitor, event)
            assert (answer.status_code, answer.get_json()) == (200, {"status": "recorded"}), event
    assert FunnelEvent.select().count() == 4
    track(founder(), "page_view", session_id="visitor-0002")
    body = figures(owner)
    assert counts(body) == {"sessions": 2, "cart": 1, "checkout": 1, "paid": 1}
    assert (body["status"], body["product_id"], body["days"]) == ("ok", "p00", 14)
    assert body["paid_unverified"] is True
    assert "unverified" in body["explanation"] and "ledger" in body["explanation"]


def test_a_visitor_counts_once_in_the_window_though_an_event_is_kept_per_day(founder, run_jobs):
    owner = published(founder, run_jobs)
    visitor = founder()
    track(visitor)
    clock.advance(days=1)
    track(visitor)
    track(visitor)
    assert FunnelEvent.select().count() == 2  # one per day
    assert figures(owner)["sessions"] == 1  # distinct visitors, not days


def test_fifty_identical_events_racing_leave_one_row(founder, run_jobs):
    published(founder, run_jobs)

    def send(_):
        response = track(founder(), "add_to_cart", session_id="racing-visitor")
        return response.status_code, response.get_json()

    answers = in_threads(50, send)
    assert set(map(str, answers)) == {str((200, {"status": "recorded"}))}
    assert FunnelEvent.select().count() == 1


@pytest.mark.parametrize("body, status, reason", [
    ({"event": "purchase"}, 400, "invalid_event"),
    ({"event": "PAGE_VIEW"}, 400, "invalid_event"),
    ({"event": None}, 400, "invalid_event"),
    ({"event": 1}, 400, "invalid_event"),
    ({"event": "_drop"}, 400, "invalid_event"),
    ({"session_id": "_drop"}, 400, "invalid_session_id"),
    ({"session_id": "short"}, 400, "invalid_session_id"),
    ({"session_id": "x" * 65}, 400, "invalid_session_id"),
    ({"session_id": "visitor 0001"}, 400, "invalid_session_id"),
    ({"session_id": "visitor-0001\n"}, 400, "invalid_session_id"),
    ({"session_id": "visitör-0001"}, 400, "invalid_session_id"),
    ({"session_id": 12345678}, 400, "invalid_session_id"),
    ({"product_id": "_drop"}, 400, "no_product_id"),
    ({"product_id": ""}, 400, "no_product_id"),
    ({"product_id": "p" * 121}, 400, "no_product_id"),
])
def test_bad_events_are_refused_by_name_and_nothing_is_stored(founder, run_jobs, body, status, reason):
    published(founder, run_jobs)
    sent = {"product_id": "p00", "event": "page_view", "session_id": "visitor-0001"} | body
    sent = {key: value for key, value in sent.items() if value != "_drop"}
    refusal(founder().post("/api/track", json=sent), status, reason)
    assert FunnelEvent.select().count() == 0


def test_a_body_padded_past_a_kilobyte_is_refused(founder, run_jobs):
    published(founder, run_jobs)
    # Padded with a field it does not take, it is refused for that field (tests/test_unknown_fields.py);
    # padded with whitespace (or \u escapes), for its size.
    body = {"product_id": "p00", "event": "page_view", "session_id": "visitor-0001", "padding": "x" * 2000}
    refusal(founder().post("/api/track", json=body), 400, "unknown_field")
    padded = '{"product_id": "p00", "event": "page_view",' + " " * 2000 + '"session_id": "visitor-0001"}'
    refusal(founder().post("/api/track", data=padded, content_type="application/json"), 413, "payload_too_large")
    assert FunnelEvent.select().count() == 0


def test_a_visitor_is_given_no_cookie_and_no_session(founder, run_jobs):
    published(founder, run_jobs)
    sessions = Session.select().count()
    visitor = founder()
    answer = track(visitor)
    assert answer.status_code == 200
    assert not [h for h in answer.headers.getlist("Set-Cookie") if h.startswith("ff_session=")]
    assert visitor.get_cookie("ff_session") is None
    assert Session.select().count() == sessions


def test_events_for_a_store_that_is_not_published_or_a_product_that_does_not_exist_are_ignored(founder, run_jobs):
    load(item("p01", rank=10))
    client = claimed_founder(founder)
    built(client, run_jobs)  # built, not published
    for product_id in ("p00", "p01", "no-such-product"):
        answer = track(founder(), product_id=product_id)
        body = answer.get_json()
        assert answer.status_code == 200 and (body["status"], body["reason"]) == ("ignored", "not_published")
        assert body["explanation"]
    assert FunnelEvent.select().count() == 0
    assert counts(figures(client)) == {"sessions": 0, "cart": 0, "checkout": 0, "paid": 0}


def test_events_from_another_site_are_refused(founder, run_jobs):
    published(founder, run_jobs)
    answer = founder().post("/api/track", json={"product_id": "p00", "event": "paid", "session_id": "visitor-0001"},
                            headers={"Sec-Fetch-Site": "cross-site"})
    refusal(answer, 403, "cross_site_request")
    assert FunnelEvent.select().count() == 0


# --- GET /api/editor/metrics ---------------------------------------------------------------------

def test_the_window_holds_the_last_days_today_included(founder, run_jobs):
    owner = published(founder, run_jobs)
    track(founder(), session_id="visitor-old")
    clock.advance(days=10)
    track(founder(), session_id="visitor-new")
    clock.advance(days=5)  # the first event is 15 days old, the second 5
    body = figures(owner)
    assert (body["days"], body["sessions"]) == (14, 1)
    assert body["until"] == clock.now().date().isoformat()
    assert figures(owner, "?days=15")["sessions"] == 1  # 15 days back is outside a 15-day window
    assert figures(owner, "?days=16")["sessions"] == 2
    assert figures(owner, "?days=90")["sessions"] == 2
    assert figures(owner, "?days=6")["sessions"] == 1
    five = figures(owner, "?days=5")
    assert five["sessions"] == 0 and five["days"] == 5
    assert figures(owner, "?days=1")["sessions"] == 0
    assert figures(owner, "?product_id=p00&days=16")["sessions"] == 2


@pytest.mark.parametrize("days", ["0", "91", "-1", "abc", "1.5", "", "14days"])
def test_days_outside_one_to_ninety_are_refused(founder, run_jobs, days):
    owner = published(founder, run_jobs)
    refusal(owner.get(f"/api/editor/metrics?days={days}"), 400, "invalid_days")


def test_without_a_product_there_are_no_figures_and_a_hold_has_its_own(founder):
    load(item("p00", rank=10))
    client = founder()
    refusal(client.get("/api/editor/metrics"), 200, "not_claimed")
    find(client)  # a held product's store counts its visitors too
    assert counts(figures(client)) == {"sessions": 0, "cart": 0, "checkout": 0, "paid": 0}


def test_a_claimed_product_without_visitors_has_zeros(founder, run_jobs):
    client = claimed_founder(founder)
    assert counts(figures(client)) == {"sessions": 0, "cart": 0, "checkout": 0, "paid": 0}


def test_another_founder_never_sees_your_figures(founder, run_jobs):
    load(item("p01", rank=10))
    owner = published(founder, run_jobs)
    track(founder())
    other = founder()
    refusal(other.get("/api/editor/metrics"), 200, "not_claimed")
    yours = refusal(other.get("/api/editor/metrics?product_id=p00"), 404, "not_found")
    nothing = refusal(other.get("/api/editor/metrics?product_id=no-such-product"), 404, "not_found")
    assert yours == nothing  # whether the product has figures, or exists, is not told
    find(other)
    assert claim(other).get_json()["status"] == "claimed"
    mine = figures(other)
    assert (mine["product_id"], mine["sessions"]) == ("p01", 0)
    refusal(other.get("/api/editor/metrics?product_id=p00"), 404, "not_found")
    assert figures(owner)["sessions"] == 1
    refusal(owner.get("/api/editor/metrics?product_id=p01"), 404, "not_found")


# --- POST /api/presence --------------------------------------------------------------------------

def test_presence_keeps_the_latest_screen_of_each_session(founder):
    first, second = founder(), founder()
    for screen in ("home", "find", "store"):
        answer = first.post("/api/presence", json={"area": "app", "screen": screen})
        assert (answer.status_code, answer.get_json()) == (200, {"status": "recorded"})
    second.post("/api/presence", json={"area": "app", "screen": "learn"})
    rows = {row.session_id: (row.area, row.screen) for row in Presence.select()}
    assert sorted(rows.values()) == [("app", "learn"), ("app", "store")]
    before = Presence.get(Presence.screen == "store").updated_at
    clock.advance(minutes=3)
    first.post("/api/presence", json={"area": "app", "screen": "store"})
    assert Presence.select().count() == 2
    assert (Presence.get(Presence.screen == "store").updated_at - before).total_seconds() >= 180


@pytest.mark.parametrize("body", [
    {}, {"area": "app"}, {"screen": "store"}, {"area": "", "screen": "store"}, {"area": "app", "screen": "Store"},
    {"area": "app", "screen": "x" * 41}, {"area": "app", "screen": "a/b"}, {"area": 1, "screen": "store"},
    {"area": "app", "screen": "store\n"},
])
def test_presence_refuses_what_is_not_a_short_name(client, body):
    refusal(client.post("/api/presence", json=body), 400, "invalid_presence")
    assert Presence.select().count() == 0
