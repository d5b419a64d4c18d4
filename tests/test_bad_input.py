"""Bad input on every POST route (reliability guide): malformed JSON, a JSON array or
number, a wrong content type, a 2 MB body, a NUL: a 4xx JSON refusal with a registered
reason, never HTML or a 500, and nothing stored. The routes come from the live URL map,
so a route added later is covered without touching this file."""
import json

import pytest

from models import ALL_MODELS
from services.reasons import REASONS
from tests.conftest import SETTINGS
from tests.test_registries import EXPLANATION_ONLY_401, EXPLANATION_ONLY_BODY

BAD_BODIES = {
    "malformed": ("{\"email\": ", "application/json"),
    "array": ("[1, 2, 3]", "application/json"),
    "number": ("42", "application/json"),
    "string": ('"hello"', "application/json"),
    "wrong content type": ("email=a%40b.c&action=claim", "application/x-www-form-urlencoded"),
    "text": ('{"email": "a@b.c"}', "text/plain"),
    "whitespace": ("\t\n ", "application/json"),
    "nul": ('{"email": "a\\u0000@b.c", "product_id": "x\\u0000", "action": "claim", "q": "\\u0000"}', "application/json"),
    "two megabytes": (json.dumps({"email": "x" * (2 * 1024 * 1024)}), "application/json"),
}


def _post_routes(app):
    for rule in app.url_map.iter_rules():
        if "POST" in rule.methods and "<" not in rule.rule:
            yield rule.rule


def _row_counts():
    return {model.__name__: model.select().count() for model in ALL_MODELS}


@pytest.fixture(scope="module")
def post_routes(app):
    routes = sorted(_post_routes(app))
    assert len(routes) >= 10  # the map really was read
    return routes


@pytest.mark.parametrize("kind", sorted(BAD_BODIES))
def test_every_post_route_refuses_a_bad_body_with_a_registered_reason(app, founder, post_routes, kind):
    data, content_type = BAD_BODIES[kind]
    client = founder()
    client.get("/api/health")  # the session exists before counting rows
    before = _row_counts()
    for path in post_routes:
        headers = {"Billing-Signature": "t=1,v1=00"} if path == "/api/billing/webhook" else {}
        response = client.post(path, data=data, content_type=content_type, headers=headers)
        assert 400 <= response.status_code < 500, (path, kind, response.status_code, response.get_data()[:200])
        assert response.mimetype == "application/json", (path, kind)
        body = response.get_json()
        if f"POST {path}" in EXPLANATION_ONLY_401 and response.status_code == 401:
            # The research routes answer a session without an account before reading the
            # body, with the one refusal that has no reason (tests/test_registries.py).
            assert body == EXPLANATION_ONLY_BODY, (path, kind, body)
            continue
        assert body["reason"] in REASONS and body["explanation"], (path, kind, body)
    assert _row_counts() == before, kind


def test_the_suite_default_body_limit_is_what_the_two_megabyte_case_exceeds():
    assert SETTINGS.max_body_bytes < len(BAD_BODIES["two megabytes"][0])
