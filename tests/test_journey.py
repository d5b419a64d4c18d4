"""Journey carriers (POST /api/journey, POST /api/journey/<id>/consume): issued for 15
minutes, consumed once, refused after, unknown and expired alike not found; 20 consumes at
once, one success (runs on PostgreSQL in that pass too)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from models.clock import clock
from models.walkthrough import JourneyCarrier
from services.journey import CARRIER_MINUTES, MAX_DATA_BYTES
from services.tokens import hash_token
from tests.factories import NOW, refusal
from tests.helpers import in_threads


def issue(client, **body):
    return client.post("/api/journey", json=body)


def consume(client, carrier_id):
    return client.post(f"/api/journey/{carrier_id}/consume")


def test_a_carrier_is_issued_and_consumed_once_on_another_device(founder, frozen_clock):
    laptop, phone = founder(), founder()
    response = issue(laptop, route="#/app/store", data={"tab": "preview"})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"status", "id", "expires_at", "url"} and body["status"] == "ok"
    assert re.fullmatch(r"[0-9a-f]{32}", body["id"])  # 128 bits in lowercase hex, as the document says
    assert body["expires_at"] == (NOW + timedelta(minutes=CARRIER_MINUTES)).replace(microsecond=0).isoformat() + "Z"
    assert body["url"].endswith(f"/#/app/continue?c={body['id']}")
    # Only the id's hash is stored.
    row = JourneyCarrier.get()
    assert row.id_hash == hash_token(body["id"]) and body["id"] not in row.id_hash

    opened = consume(phone, body["id"])
    assert opened.status_code == 200, opened.get_data(as_text=True)
    assert opened.get_json() == {"status": "ok", "route": "#/app/store", "data": {"tab": "preview"}}
    refusal(consume(phone, body["id"]), 409, "already_consumed")
    refusal(consume(laptop, body["id"]), 409, "already_consumed")


def test_ids_are_random_and_data_is_optional(client):
    first, second = (issue(client, route="#/app/home").get_json() for _ in range(2))
    assert first["id"] != second["id"]
    assert consume(client, first["id"]).get_json() == {"status": "ok", "route": "#/app/home", "data": None}


def test_an_unknown_or_malformed_id_is_not_found(client):
    refusal(consume(client, "0" * 32), 404, "not_found")
    refusal(consume(client, "not-an-id"), 404, "not_found")


def test_an_expired_carrier_is_not_found_consumed_or_not(founder, frozen_clock):
    client = founder()
    late = issue(client, route="#/app/find").get_json()["id"]
    spent = issue(client, route="#/app/find").get_json()["id"]
    clock.advance(minutes=CARRIER_MINUTES - 1)
    assert consume(client, spent).status_code == 200
    clock.advance(minutes=1)  # exactly at expiry: no longer valid
    refusal(consume(client, late), 404, "not_found")
    refusal(consume(client, spent), 404, "not_found")
    assert JourneyCarrier.get(JourneyCarrier.id_hash == hash_token(late)).consumed_at is None


def test_old_carriers_are_deleted_when_the_next_is_issued(client, frozen_clock):
    issue(client, route="#/app/find")
    clock.advance(days=2)
    issue(client, route="#/app/find")
    assert JourneyCarrier.select().count() == 1


@pytest.mark.parametrize("body, reason", [
    ({}, "invalid_route"),
    ({"route": ""}, "invalid_route"),
    ({"route": 5}, "invalid_route"),
    ({"route": "https://evil.example/#/app/home"}, "invalid_route"),
    ({"route": "//evil.example"}, "invalid_route"),
    ({"route": "#//evil.example"}, "invalid_route"),
    ({"route": "#/app//evil.example"}, "invalid_route"),
    ({"route": "#/app/../x"}, "invalid_route"),
    ({"route": "javascript:alert(1)"}, "invalid_route"),
    ({"route": "#/app/home\\evil"}, "invalid_route"),
    ({"route": "#/app/" + "a" * 300}, "invalid_route"),
    ({"route": "#/app/home", "data": [1, 2]}, "invalid_journey_data"),
    ({"route": "#/app/home", "data": "text"}, "invalid_journey_data"),
    ({"route": "#/app/home", "data": {"big": "x" * MAX_DATA_BYTES}}, "invalid_journey_data"),
])
def test_bad_carriers_are_refused_and_nothing_is_issued(client, body, reason):
    refusal(issue(client, **body), 400, reason)
    assert JourneyCarrier.select().count() == 0


def test_app_routes_with_parts_and_a_query_are_carried(client):
    for route in ("#/app/find/yours", "#/app/learn/ads?x=1&y=two"):
        carrier = issue(client, route=route).get_json()["id"]
        assert consume(client, carrier).get_json()["route"] == route


def test_twenty_consumes_at_once_one_succeeds(founder):
    carrier = issue(founder(), route="#/app/launch").get_json()["id"]
    devices = [founder() for _ in range(20)]
    for device in devices:  # each has its session before the race
        assert device.get("/api/walkthrough").status_code == 200
    statuses = in_threads(20, lambda i: consume(devices[i], carrier).status_code)
    assert sorted(statuses) == [200] + [409] * 19
    assert JourneyCarrier.get().consumed_at is not None
