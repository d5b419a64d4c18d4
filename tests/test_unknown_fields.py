"""No body is silently dropped (issue 51): a client's JSON body naming a field its route does
not take answers 400 `unknown_field` naming each, at every level the body declares, and the
document says `additionalProperties: false` there; a provider's callback, a form and a query
string keep ignoring what they do not read."""
from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from api import create_app
from config import use_settings
from models.account import Account, BillingEvent
from models.business import BusinessSettings
from models.clock import clock
from tests.conftest import SETTINGS
from tests.factories import refusal

SECRET = "whsec_unknown_fields"


@pytest.fixture(scope="module")
def billing_app():
    app = create_app(SETTINGS.but(billing_webhook_secret=SECRET))
    use_settings(SETTINGS)
    return app


@pytest.fixture
def provider(billing_app):
    """A client standing in for the billing provider (as in tests/test_billing.py)."""
    use_settings(SETTINGS.but(billing_webhook_secret=SECRET))
    try:
        yield billing_app.test_client()
    finally:
        use_settings(SETTINGS)


def deliver(client, body: dict):
    payload = json.dumps(body).encode()
    t = int(clock.time())
    digest = hmac.new(SECRET.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return client.post("/api/billing/webhook", data=payload,
                       headers={"Content-Type": "application/json", "Billing-Signature": f"t={t},v1={digest}"})


def unknown(response, *fields):
    body = refusal(response, 400, "unknown_field")
    assert body["field"] == fields[0] and body["fields"] == list(fields)
    for name in fields:
        assert repr(name) in body["explanation"]
    assert "Nothing was changed" in body["explanation"]
    return body


def saved_book(client) -> dict:
    return client.get("/api/ads-manager").get_json()


# --- Refused, and nothing saved ------------------------------------------------------------

def test_a_typo_in_the_campaign_books_field_is_400_unknown_field_and_saves_nothing(client):
    before = saved_book(client)
    body = unknown(client.post("/api/ads-manager", json={"setings": {"daily_budget_minor": 2500}}), "setings")
    assert "did you mean 'settings'?" in body["explanation"]
    assert saved_book(client) == before and "updated_at" not in before


def test_an_unknown_field_inside_the_books_settings_or_a_campaign_is_refused_by_its_path(client):
    unknown(client.post("/api/ads-manager", json={"settings": {"curency": "EUR"}}), "settings.curency")
    body = unknown(client.post("/api/ads-manager", json={"campaigns": [
        {"name": "Spring", "platform": "meta", "status": "draft", "daily_budget_minor": 2500},
        {"nmae": "Summer", "platform": "meta", "status": "draft", "daily_budget_minor": 2500, "colour": "red"}]}),
        "campaigns[1].nmae", "campaigns[1].colour")
    assert "'campaigns[1].nmae' (did you mean 'name'?)" in body["explanation"]
    assert saved_book(client)["book"]["campaigns"] == []


def test_an_unknown_business_setting_is_refused_and_saves_nothing(client):
    unknown(client.post("/api/settings/business", json={"business_name": "Acacia", "favourite_colour": "blue"}),
            "favourite_colour")
    assert BusinessSettings.select().count() == 0


def test_a_typo_in_a_store_edit_is_400_not_the_editors_own_200(signed_in):
    client = signed_in("typo@example.com")
    body = unknown(client.post("/api/ai/edit", json={"direction": "undo", "fild": "headline"}), "fild")
    assert "did you mean 'field'?" in body["explanation"]


def test_unknown_fields_are_checked_before_the_others(client):
    # A typo is the likelier cause of a missing field: it is named first.
    unknown(client.post("/api/settings/business", json={"business_nmae": 5}), "business_nmae")


def test_a_route_that_takes_no_body_refuses_any_field_but_takes_an_empty_object(client):
    unknown(client.post("/api/store", json={"product_id": "p1"}), "product_id")
    assert client.post("/api/store", json={}).get_json()["status"] == "not_claimed"
    assert client.post("/api/store").get_json()["status"] == "not_claimed"


# --- Still ignored -----------------------------------------------------------------------

def test_a_billing_webhook_with_fields_the_service_does_not_read_is_still_applied(provider):
    account = Account.create(email="founder@example.com")
    payload = {"id": "evt_1", "type": "plan.changed", "object": "event", "livemode": False, "api_version": "2030-01-01",
               "data": {"email": "founder@example.com", "tier": "max5", "term_ends_at": "2030-02-01T00:00:00Z",
                        "customer": "cus_1", "metadata": {"anything": "at all"}}}
    response = deliver(provider, payload)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["status"] == "applied"
    assert [(e.account_id, e.tier) for e in BillingEvent.select()] == [(account.id, "max5")]


def test_a_query_string_with_extra_parameters_is_still_answered(client):
    assert client.get("/api/ads-manager?_=1733500000&utm_source=mail").status_code == 200


def test_a_free_object_takes_any_key(client):
    response = client.post("/api/journey", json={"route": "#/app/home", "data": {"any": "key", "nested": {"x": 1}}})
    assert response.status_code == 200, response.get_data(as_text=True)


# --- The document --------------------------------------------------------------------------

def document(client) -> dict:
    return client.get("/api/openapi.json").get_json()


def component(doc, node):
    while "$ref" in node or (len(node.get("allOf", ())) == 1 and "properties" not in node):
        node = doc["components"]["schemas"][node["$ref"].rpartition("/")[2]] if "$ref" in node else node["allOf"][0]
    return node


def test_every_client_json_body_says_additional_properties_false(client):
    doc = document(client)
    checked = 0
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue  # the path's own parameters
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            members = body["schema"].get("anyOf") or [body["schema"]]
            for member in members:
                closed = component(doc, member).get("additionalProperties")
                if path == "/api/billing/webhook":
                    assert closed is not False, "a provider's callback keeps ignoring fields it does not read"
                else:
                    assert closed is False, f"{method.upper()} {path}"
                    checked += 1
    assert checked >= 40


def body_of(doc, path) -> dict:
    return component(doc, doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"])


def test_nested_objects_of_a_body_are_closed_and_free_objects_stay_open(client):
    doc = document(client)
    book = body_of(doc, "/api/ads-manager")
    assert component(doc, book["properties"]["settings"])["additionalProperties"] is False
    assert component(doc, book["properties"]["campaigns"]["items"])["additionalProperties"] is False
    journey = body_of(doc, "/api/journey")
    assert journey["additionalProperties"] is False
    assert journey["properties"]["data"].get("additionalProperties") is not False


def test_every_route_a_client_posts_to_documents_400_unknown_field(client):
    doc = document(client)
    for path, method in [("/api/ads-manager", "post"), ("/api/settings/business", "post"), ("/api/ai/edit", "post"),
                         ("/api/store", "post")]:
        refusal_schema = doc["paths"][path][method]["responses"]["400"]["content"]["application/json"]["schema"]
        assert "unknown_field" in refusal_schema["properties"]["reason"]["enum"], path
    webhook = doc["paths"]["/api/billing/webhook"]["post"]["responses"]["400"]["content"]["application/json"]["schema"]
    assert "unknown_field" not in webhook["properties"]["reason"]["enum"]


def test_the_decision_is_recorded(client):
    decisions = " ".join(document(client)["info"]["x-decisions"])
    assert "400 {status: refused, reason: unknown_field" in decisions and "additionalProperties: false" in decisions
    assert "Unknown fields are ignored." not in decisions
    assert json.dumps(client.get("/api/reasons").get_json()["reasons"]["unknown_field"])


def test_a_body_of_many_unknown_fields_is_refused_with_an_answer_of_bounded_size(client):
    unknown_many = client.post("/api/settings/business", json={f"k{i}" + "x" * 200: i for i in range(500)})
    body = refusal(unknown_many, 400, "unknown_field")
    assert body["field"] == "k0" + "x" * 200 and len(body["fields"]) == 50
    assert "500 fields" in body["explanation"] and "and 490 more" in body["explanation"]
    assert len(body["explanation"]) < 2000
