"""Answers' JSON (api/json_out.py): orjson writes the plain answers, meaning exactly what
Flask's own provider wrote; anything else (a Decimal, a date, an int past 64 bits, a subclass)
is written by Flask's provider as before, byte for byte."""
from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from api.json_out import JSONProvider, plain


class Word(str):
    pass


@pytest.fixture()
def providers():
    app = Flask(__name__)
    ours, flasks = JSONProvider(app), DefaultJSONProvider(app)
    flasks.sort_keys = False
    app.json = ours
    with app.app_context():
        yield app, ours, flasks


PLAIN = [
    {"status": "ok", "cards": [{"name": "Café crème ☕ 𝄞", "price": 19.99, "margin_pct": 66.5, "rank": 5,
                                "image": None, "yours": False, "trends": [{"points": [{"value": 1e16}]}]}]},
    [1, -2, 2**63 - 1, -(2**63), 0.1, 1.5e-7, True, None, "line\nbreak \"quoted\" \\ </script>"],
    {"z": 1, "a": 2, "m": {"y": [], "b": {}}},  # key order kept, not sorted
    "text", 3, None,
]


@pytest.mark.parametrize("value", PLAIN)
def test_plain_answers_mean_what_flasks_provider_wrote(providers, value):
    app, ours, flasks = providers
    written = ours.response(value)
    body = written.get_data()
    assert written.mimetype == "application/json" and body.endswith(b"\n")
    assert body == plain(value) + b"\n"  # orjson wrote it
    assert json.loads(body) == json.loads(flasks.response(value).get_data()) == value
    if isinstance(value, dict):
        assert list(json.loads(body)) == list(value)  # the keys in their order, not sorted
    assert json.loads(ours.dumps(value)) == value


NOT_PLAIN = [
    {"amount": Decimal("12.30")},
    {"when": datetime(2026, 11, 27, 9, 30, tzinfo=UTC), "day": date(2026, 11, 27)},
    {"big": 2**70},
    {"word": Word("subclass")},
    [1, {"nested": Decimal("1.5")}],
]


@pytest.mark.parametrize("value", NOT_PLAIN)
def test_anything_else_is_written_by_flasks_provider_byte_for_byte(providers, value):
    app, ours, flasks = providers
    assert plain(value) is None
    assert ours.response(value).get_data() == flasks.response(value).get_data()
    assert ours.dumps(value) == flasks.dumps(value)


def test_the_answers_of_the_service_go_through_it(client):
    response = client.get("/api/health")
    assert response.status_code == 200
    assert response.get_data() == plain(response.get_json()) + b"\n"


def test_debug_answers_stay_indented_for_a_person(providers):
    app, ours, flasks = providers
    app.debug = True
    assert ours.response({"a": [1]}).get_data() == flasks.response({"a": [1]}).get_data()
    assert b"\n  " in ours.response({"a": [1]}).get_data()
