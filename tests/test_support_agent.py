"""The support agent (issue 25 point 4; spec 4.7 POST /api/support, 7.2, 8.1 `support`, 8.5):
answers from a real published store's own facts with cites a customer can find on the store's
pages, abstains on what the store cannot back (never guessing), every refusal, the customer
asking on the storefront, the meter (charged only for an answer; a free account's 429 with
`unaffected`) and a model's answer held to the same facts."""
from __future__ import annotations

import html
import json

import pytest

from models.account import MeterUsage
from models.clock import clock
from models.store import Store
from services import meter
from tests.ai_factories import completion, openai_settings
from tests.factories import (
    NOW,
    built,
    claimed_founder,
    published_store,
    refusal,
    session_of,
    signed_in_founder_with_store,
)

CANNOT_BACK = [
    "Is it dishwasher safe?",
    "Do you ship to Canada?",
    "How long does delivery take?",
    "What is it made of?",
    "Is there a two year warranty?",
    "Do you offer gift wrapping?",
    "Can I pay with PayPal?",
    "Is the price going down next week?",
]


def ask(client, question=..., **body):
    if question is not ...:
        body["question"] = question
    return client.post("/api/support", json=body)


def answered(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def abstained(response, reason="not_in_store_facts") -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert (body["status"], body["reason"], body["answer"], body["cites"]) == ("abstained", reason, None, []), body
    assert body["explanation"]
    return body


def store_pages(client) -> str:
    """Every public page of the founder's published store, as a customer reads them."""
    slug = Store.get().slug
    pages = [client.get(f"/store/{slug}/{name}") for name in ("", "product", "faq", "shipping")]
    assert all(page.status_code == 200 for page in pages)
    return " ".join(" ".join(html.unescape(page.get_data(as_text=True)).split()) for page in pages)


def used(account_id: int) -> int:
    row = MeterUsage.get_or_none(MeterUsage.account == account_id, MeterUsage.bucket == "support")
    return row.used_5h if row else 0


# --- Answers -------------------------------------------------------------------------------

@pytest.mark.parametrize("question, kind, field", [
    ("How much does it cost?", "offer", "price"),
    ("Can I return it?", "returns", "returns"),
    ("How is my order shipped?", "shipping", "shipping"),
    ("Does it hold knives?", "product", "description"),
    ("How do I get in touch with you?", "faq", "How do I get in touch?"),
])
def test_the_agent_answers_from_the_store_and_cites_facts_its_pages_show(founder, run_jobs, question, kind, field):
    client = published_store(founder, run_jobs)
    body = answered(ask(client, question))
    assert body["question"] == question and body["product_id"] == "p00"
    assert [(c["kind"], c["field"]) for c in body["cites"]][:1] == [(kind, field)]
    pages = store_pages(founder())
    for cite in body["cites"]:
        assert cite["value"] in pages  # a cite is a fact of the store, word for word
        assert cite["value"].split(".")[0].rstrip() in body["answer"] or cite["kind"] in ("offer", "product")


def test_the_price_is_the_offer_price_the_store_charges(founder, run_jobs):
    client = published_store(founder, run_jobs)
    body = answered(ask(client, "What is the price?"))
    assert body["cites"] == [{"kind": "offer", "field": "price", "value": "$30.00"}]
    assert body["answer"] == "It costs $30.00."
    assert "$30.00" in store_pages(founder())


@pytest.mark.parametrize("question", CANNOT_BACK)
def test_a_question_the_store_cannot_back_is_abstained_on_never_guessed(founder, run_jobs, question):
    client = published_store(founder, run_jobs)
    body = abstained(ask(client, question))
    assert body["question"] == question
    assert "does not guess" in body["explanation"]


def test_an_abstention_names_the_words_the_facts_do_not_cover(founder, run_jobs):
    client = published_store(founder, run_jobs)
    body = abstained(ask(client, "Do you ship to Canada?"))
    assert "canada" in body["explanation"] and "ship" not in body["explanation"].split("“")[1]


def test_a_greeting_around_a_backed_question_is_no_reason_to_abstain(founder, run_jobs):
    client = published_store(founder, run_jobs)
    body = answered(ask(client, "Hi there, quick question: how much does it cost? Thanks!"))
    assert body["cites"][0]["kind"] == "offer"


# --- Refusals ------------------------------------------------------------------------------

def test_no_question_empty_question_and_no_query_terms(founder, run_jobs):
    client = published_store(founder, run_jobs)
    refusal(ask(client), 200, "no_question")
    refusal(ask(client, None), 200, "no_question")
    refusal(ask(client, "   \n "), 200, "empty_question")
    abstained(ask(client, "Hello? Is it?"), "no_query_terms")


def test_a_question_too_long_or_not_a_string_is_400(founder, run_jobs):
    client = published_store(founder, run_jobs)
    refusal(ask(client, "price " * 200), 400, "question_too_long")
    refusal(ask(client, 42), 400, "invalid_request")


def test_without_a_product_or_a_built_store_the_agent_has_nothing_to_answer_for(founder, run_jobs):
    refusal(ask(founder(), "How much is it?"), 200, "no_product")
    claimed = claimed_founder(founder)
    refusal(ask(claimed, "How much is it?"), 409, "not_started")


# --- A customer on the storefront -------------------------------------------------------------

def test_a_customer_asks_a_published_store_by_its_product_id(founder, run_jobs):
    published_store(founder, run_jobs)
    customer = founder()
    body = answered(ask(customer, "Can I return it?", product_id="p00"))
    assert body["cites"][0]["kind"] == "returns"
    assert customer.get_cookie("ff_session") is not None  # a spec endpoint: the cookie rule holds


def test_a_customer_is_answered_the_price_the_published_store_charges(founder, run_jobs):
    owner = published_store(founder, run_jobs)
    assert owner.post("/api/product", json={"price": 45}).status_code == 200  # not republished yet
    body = answered(ask(founder(), "What is the price?", product_id="p00"))
    assert body["cites"] == [{"kind": "offer", "field": "price", "value": "$30.00"}]
    assert "$30.00" in store_pages(founder()) and "$45.00" not in store_pages(founder())


def test_a_store_not_published_answers_only_its_own_founder(founder, run_jobs):
    owner = claimed_founder(founder)
    built(owner, run_jobs)
    refusal(ask(founder(), "How much is it?", product_id="p00"), 404, "not_found")
    refusal(ask(founder(), "How much is it?", product_id="no-such-product"), 404, "not_found")
    answered(ask(owner, "How much is it?", product_id="p00"))  # the founder tries their draft


# --- The meter -------------------------------------------------------------------------------

def test_only_an_answer_is_charged_to_the_store_founders_account(founder, run_jobs):
    owner = signed_in_founder_with_store(founder, run_jobs)
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    account_id = session_of(owner).account_id
    clock.freeze(NOW)
    answered(ask(owner, "How much does it cost?"))
    assert used(account_id) == 1
    abstained(ask(owner, "Is it dishwasher safe?"))
    abstained(ask(owner, "Hello?"), "no_query_terms")
    refusal(ask(owner, ""), 200, "empty_question")
    assert used(account_id) == 1
    answered(ask(founder(), "Can I return it?", product_id="p00"))  # a customer spends the founder's credits
    assert used(account_id) == 2


def test_a_free_account_past_its_support_allowance_gets_the_429_with_unaffected(founder, run_jobs):
    owner = signed_in_founder_with_store(founder, run_jobs)
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    account_id = session_of(owner).account_id
    clock.freeze(NOW)
    for _ in range(50):  # the free tier's five-hour support allowance, at 1 credit an answer
        meter.spend(account_id, "support")
    response = ask(owner, "How much does it cost?")
    refused = refusal(response, 429, "usage_limit_reached")
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert (refused["feature"], refused["used"], refused["limit"], refused["tier"]) == ("Support agent", 50, 50, "free")
    assert refused["unaffected"] == ["AI website editor", "AI Growth ad editor", "Product find engine",
                                     "Ad generation"]
    assert {way["how"] for way in refused["ways_up"]} == {"referral", "upgrade"}
    # A customer is told the assistant is busy, and nothing of the founder's meter
    # (tests/test_support_public_budget.py).
    refusal(ask(founder(), "How much does it cost?", product_id="p00"), 429, "support_busy")
    assert used(account_id) == 50
    abstained(ask(owner, "Hello?"), "no_query_terms")  # nothing to answer: the gate is never reached


def test_an_anonymous_founders_store_is_not_metered(founder, run_jobs):
    client = published_store(founder, run_jobs)
    for _ in range(3):
        answered(ask(client, "How much does it cost?"))
    assert MeterUsage.select().count() == 0


# --- Whatever writes the answer is held to the store's facts -----------------------------------

def model_answer(chat, settings_with, copy: dict) -> None:
    chat.reply(completion(json.dumps(copy)))
    settings_with(**{k: getattr(openai_settings(chat), k) for k in ("ai_backend", "ai_base_url", "ai_model",
                                                                     "ai_timeout_seconds")})


def test_a_model_citing_what_the_store_does_not_hold_abstains(founder, run_jobs, chat, settings_with):
    client = published_store(founder, run_jobs)
    model_answer(chat, settings_with, {
        "status": "answered", "answer": "Yes, we ship to Canada in 3 days.", "abstain_reason": "",
        "cites": [{"kind": "shipping", "field": "shipping", "value": "We ship to Canada in 3 days."}]})
    abstained(ask(client, "Do you ship to Canada?"))
    assert "Do you ship to Canada?" in chat.received[0]["body"]["messages"][-1]["content"]


def test_a_model_sentence_with_a_number_no_cited_fact_holds_is_dropped(founder, run_jobs, chat, settings_with):
    client = published_store(founder, run_jobs)
    model_answer(chat, settings_with, {
        "status": "answered", "answer": "It costs $30.00. It is 20% off this week.", "abstain_reason": "",
        "cites": [{"kind": "offer", "field": "price", "value": "$30.00"}]})
    body = answered(ask(client, "How much is it?"))
    assert body["answer"] == "It costs $30.00."
    assert body["cites"] == [{"kind": "offer", "field": "price", "value": "$30.00"}]


def test_an_unreachable_backend_refuses_and_charges_nothing(founder, run_jobs, settings_with):
    owner = signed_in_founder_with_store(founder, run_jobs)
    account_id = session_of(owner).account_id
    settings_with(ai_backend="openai", ai_base_url="http://127.0.0.1:9/v1", ai_model="m", ai_timeout_seconds=2)
    refusal(ask(owner, "How much does it cost?"), 200, "cli_unavailable")
    assert used(account_id) == 0
