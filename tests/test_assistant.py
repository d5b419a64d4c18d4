"""The commerce assistant through HTTP (spec 4.7 POST /api/intent with `message`; decisions.md
"Commerce assistant"): a sentence goes to a screen of the app, an answer from the founder's
own rows with what it read cited, or a generated page; the engine's body on the same path is
unchanged (tests/test_intents.py), and every refusal is reached."""
from __future__ import annotations

import pytest

from integrations import ai
from models.job import Job
from models.page import Page
from models.payment import CustomerOrder, RevenueTotal
from services import assistant
from tests.ai_factories import unreachable_once
from tests.factories import TRENDING, catalog, claimed_founder, find, refusal

# Pages and the assistant's reading of a sentence are written in jobs the routes wait on.
pytestmark = pytest.mark.usefixtures("worker")


def ask(client, message) -> dict:
    response = client.post("/api/intent", json={"message": message})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def app_routes() -> set[str]:
    with open("api/static/app/main.js", encoding="utf-8") as main:
        source = main.read()
    return {line.split('"')[1] for line in source.splitlines() if line.strip().startswith('"/app/')}


def test_every_screen_the_assistant_names_is_a_route_of_the_app():
    assert set(assistant.ROUTES) <= app_routes()


@pytest.mark.parametrize(("message", "route"), [
    ("show my orders", "#/app/orders"),
    ("Open the support desk", "#/app/desk"),
    ("take me to my tasks", "#/app/tasks"),
    ("go to settings", "#/app/settings"),
    ("I want to run some ads", "#/app/growth"),
    ("find a new product", "#/app/find"),
    ("my store", "#/app/store"),
    ("where is my credit usage", "#/app/meter"),
])
def test_a_sentence_naming_a_screen_navigates_there(client, message, route):
    assert ask(client, message) == {"status": "ok", "kind": "navigate", "route": route}


def _order(product_id, number, state, amount=3499):
    CustomerOrder.create(id=f"o{number:031d}", product=product_id, email=f"c{number}@example.com", quantity=1,
                         unit_price_minor=amount, amount_minor=amount, currency="USD", store_version=1, state=state)


def test_how_many_orders_is_answered_from_the_founders_own_orders_and_cited(founder):
    catalog(2)
    client = founder()
    find(client)
    assert client.post("/api/pass", json={"action": "claim"}).get_json()["status"] == "claimed"
    other = founder()
    find(other)
    other.post("/api/pass", json={"action": "claim"})
    mine = client.get("/api/find").get_json()["product_id"]
    theirs = other.get("/api/find").get_json()["product_id"]
    assert mine != theirs
    body = ask(client, "how many orders do I have")
    assert body["kind"] == "answer" and body["cites"] == [{"kind": "orders", "count": 0, "open_checkouts": 0,
                                                            "route": "#/app/orders"}]
    for number, state in enumerate([CustomerOrder.PAID, CustomerOrder.PAID, CustomerOrder.OPEN]):
        _order(mine, number, state)
    _order(theirs, 9, CustomerOrder.PAID)  # another founder's order is not counted
    body = ask(client, "How many orders do I have?")
    # Only paid orders are orders; the checkout awaiting payment is said apart (issue 47).
    assert body["answer"] == ("You have 2 paid orders. 1 checkout is open, awaiting payment: it is not an order "
                              "until paid.")
    assert body["cites"] == [{"kind": "orders", "count": 2, "open_checkouts": 1, "route": "#/app/orders"}]
    assert ask(other, "how many orders do I have")["cites"][0]["count"] == 1


def test_revenue_is_answered_from_the_confirmed_totals(founder):
    client = claimed_founder(founder)
    product_id = client.get("/api/find").get_json()["product_id"]
    assert ask(client, "what revenue have I made?")["cites"] == [{"kind": "revenue", "stores": 0,
                                                                   "route": "#/app/orders"}]
    RevenueTotal.create(product=product_id, currency="USD", confirmed_minor=6998, orders=2)
    body = ask(client, "what revenue have I made?")
    assert "$69.98 from 2 paid orders" in body["answer"]
    assert body["cites"] == [{"kind": "revenue", "product_id": product_id, "currency": "USD", "confirmed_minor": 6998,
                              "orders": 2, "route": "#/app/orders"}]


def test_what_is_my_price_cites_the_offer_or_the_catalog(founder):
    catalog(1)
    nobody = founder()
    body = ask(nobody, "what is my price")
    assert body["kind"] == "answer" and body["cites"][0]["kind"] == "product" and body["cites"][0]["product_id"] is None
    client = founder()
    find(client)
    body = ask(client, "what is my price")
    cite = body["cites"][0]
    assert cite["kind"] in ("offer", "catalog") and cite["product_id"] == "p00" and cite["currency"] == "USD"
    assert f"{cite['price']:.2f}" in body["answer"]
    product = ask(client, "what product am I selling?")
    assert product["cites"] == [{"kind": "product", "product_id": "p00", "name": "Product p00",
                                 "route": "#/app/product"}]


def test_a_sentence_it_cannot_place_is_answered_with_what_it_can_do(client):
    body = ask(client, "good morning")
    assert body["kind"] == "answer" and body["cites"][0]["kind"] == "screens"
    assert "#/app/orders" in body["cites"][0]["routes"]


def test_make_a_page_generates_one_and_answers_its_id_and_url(founder):
    catalog(1)
    client = founder()
    find(client)
    body = ask(client, "make a returns policy page")
    assert body["kind"] == "page" and body["url"] == f"/store/p/{body['page_id']}" and body["title"] == \
        "Returns and refunds"
    page = Page.get_by_id(body["page_id"])
    assert page.kind == "returns" and page.guest_id == body["guest_id"]
    assert client.get(body["url"]).status_code == 200
    assert client.get("/api/pages").get_json()["pages"][0]["page_id"] == body["page_id"]
    # Nothing held: a draft to fill, not a refusal (issue 51; tests/test_pages_draft.py).
    drafted = founder().post("/api/intent", json={"message": "make a returns policy page"}).get_json()
    assert drafted["kind"] == "page" and drafted["title"] == "Returns and refunds (draft)"


def test_bad_messages_are_refused(client, monkeypatch):
    refusal(client.post("/api/intent", json={"message": ""}), 400, "no_message")
    refusal(client.post("/api/intent", json={"message": "  \n "}), 400, "no_message")
    refusal(client.post("/api/intent", json={"message": None}), 400, "no_message")
    refusal(client.post("/api/intent", json={"message": "x" * 2001}), 400, "message_too_long")
    refusal(client.post("/api/intent", json={"message": 5}), 400, "invalid_request")
    body = refusal(client.post("/api/intent", json={}), 400, "invalid_request")
    assert set(body["fields"]) == {"surface", "requested"}

    def failing(task, **kwargs):
        raise ai.AIError(ai.errors.FAILED, "broken")

    monkeypatch.setattr(ai, "complete", failing)
    refusal(client.post("/api/intent", json={"message": "show my orders"}), 200, "cli_failed")


def test_a_sentence_is_read_in_a_job_and_an_unreachable_backend_is_tried_again(client, monkeypatch):
    calls = unreachable_once(monkeypatch)
    assert ask(client, "show my orders")["route"] == "#/app/orders"
    assert calls == ["assistant_route", "assistant_route"]
    [job] = Job.select().where(Job.kind == "assistant_route")
    assert job.status == Job.DONE and job.attempt == 2 and job.payload == {"message": "show my orders"}
    assert job.result == {"choice": {"kind": "navigate", "route": "/app/orders", "question": ""}}


def test_both_bodies_at_once_are_refused_not_half_read(client):
    # `message` beside surface/requested: neither body, so nothing is silently dropped (issue 51).
    body = refusal(client.post("/api/intent", json={**TRENDING, "message": "show my orders"}), 400, "invalid_request")
    assert "not both" in body["explanation"] or "not both" in str(body.get("fields"))
    refusal(client.post("/api/intent", json={"surface": "home", "message": "show my orders"}), 400, "invalid_request")


def test_the_document_describes_both_bodies_and_both_answers(client):
    operation = client.get("/api/openapi.json").get_json()["paths"]["/api/intent"]["post"]
    bodies = operation["requestBody"]["content"]["application/json"]["schema"]["anyOf"]
    assert [b["$ref"].rsplit("/", 1)[1] for b in bodies] == ["EngineIntentBody", "AssistantBody"]
    answers = operation["responses"]["200"]["content"]["application/json"]["schema"]["anyOf"][0]["anyOf"]
    assert [a["$ref"].rsplit("/", 1)[1] for a in answers] == ["IntentAnswer", "AssistantAnswer"]
    assert {"no_message", "message_too_long"} <= set(
        operation["responses"]["400"]["content"]["application/json"]["schema"]["properties"]["reason"]["enum"])


@pytest.mark.parametrize("message", ["\t", " \n ", "\u3000", "\x1c", "ok", " a ", "x" * assistant.MAX_MESSAGE])
def test_the_documented_message_is_the_one_the_assistant_takes(client, message):
    """The document's assistant body (a message with a character that is not a space, at most
    MAX_MESSAGE long) allows exactly the messages checked_message takes among these: whitespace
    alone, of any kind, is blank (the fuzzer once sent a lone tab as a valid message)."""
    import jsonschema
    import jsonschema_rs

    from services.errors import Refused

    document = client.get("/api/openapi.json").get_json()
    declared = document["components"]["schemas"]["AssistantBody"]["properties"]["message"]
    try:
        assistant.checked_message(message)
        taken = True
    except Refused:
        taken = False
    assert jsonschema.Draft4Validator(declared).is_valid(message) is taken
    assert jsonschema_rs.validator_for(declared).is_valid(message) is taken
