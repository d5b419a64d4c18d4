"""Strangers cannot spend a founder's credits (issue 44 point 4): visitors' questions on a
published store (POST /api/support with its product_id, no cookie) use only the share of the
founder's `support` allowance the founder set, so the founder's own agent and drafts keep
room; a visitor turned away is told the assistant is busy and nothing of the founder's meter;
a question answered before is answered again without a model call or a spend; and the
founder is shown how many were answered and turned away."""
from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

import pytest

from models.account import MeterUsage
from models.clock import clock
from models.desk import PublicQuestionDay
from services import meter
from services.desk import inbound
from tests import mailbox
from tests.ai_factories import completion, openai_settings
from tests.factories import NOW, customer_mail, deliver, desk_founder, refusal, session_of
from tests.helpers import in_threads

PRICE_MAIL = "Hello, I saw the knife strip on your shop. How much does it cost? Thanks, Ana"
SHARE = "public_support_share"


def distinct_questions(count: int, start: int = 0) -> list[str]:
    """Questions the store's facts answer (its price), each in other words than the rest."""
    return [f"{'Hello, ' * n}how much does it cost?" for n in range(start, start + count)]


@pytest.fixture
def shop(founder, run_jobs):
    """A signed-in founder on the free tier (50 support credits a five-hour window) whose store
    of p00 is published and whom customers can write to; the clock stands still."""
    run_jobs()
    client = desk_founder(founder, run_jobs)
    mailbox.sign_in_here(client, run_jobs, "owner@example.com")
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    clock.freeze(NOW)
    return client


@pytest.fixture
def visitor(app):
    """A visitor of the store: no cookie is ever sent (each request is a stranger's)."""
    client = app.test_client(use_cookies=False)

    def ask(question: str, product_id: str = "p00"):
        return client.post("/api/support", json={"question": question, "product_id": product_id})

    return ask


def used(client) -> int:
    row = MeterUsage.get_or_none(MeterUsage.account == session_of(client).account_id, MeterUsage.bucket == "support")
    return row.used_5h if row else 0


def answered(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def outcomes(responses) -> Counter:
    return Counter((r.status_code, r.get_json().get("reason") or r.get_json()["status"]) for r in responses)


def set_share(client, percent):
    return client.post("/api/settings/business", json={SHARE: percent})


def public_questions(client) -> dict:
    return client.get("/api/helpdesk").get_json()["public_questions"]


# --- The founder's own agent keeps its room ---------------------------------------------------

def test_sixty_cookieless_questions_leave_the_founders_own_agent_and_drafts_working(shop, visitor):
    answers = [visitor(question) for question in distinct_questions(60)]
    # Half of the free tier's 50 credits by default: 25 answered, the rest turned away.
    assert outcomes(answers) == {(200, "ok"): 25, (429, "support_busy"): 35}
    assert used(shop) == 25
    answered(shop.post("/api/support", json={"question": "How much does it cost?"}))  # the founder's own agent
    deliver(customer_mail(text=PRICE_MAIL, subject="The price"))
    inbound.poll()  # the clock's mail poll files it
    ticket = next(t for t in shop.get("/api/helpdesk").get_json()["tickets"] if t["subject"] == "The price")
    draft = shop.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket["id"]})
    assert draft.status_code == 200 and draft.get_json()["status"] == "drafted", draft.get_json()
    assert used(shop) == 27


def test_sixty_concurrent_visitors_get_exactly_the_share_through(shop, app):
    def ask(i):
        client = app.test_client(use_cookies=False)
        return client.post("/api/support", json={"question": distinct_questions(1, start=i)[0], "product_id": "p00"})

    assert outcomes(in_threads(60, ask)) == {(200, "ok"): 25, (429, "support_busy"): 35}
    share = MeterUsage.get(MeterUsage.account == session_of(shop).account_id, MeterUsage.bucket == "support:public")
    assert (used(shop), share.used_5h, share.used_week) == (25, 25, 25)


# --- What a visitor turned away is told -------------------------------------------------------

def test_a_visitor_turned_away_is_told_the_assistant_is_busy_and_nothing_of_the_founders_meter(shop, visitor):
    assert set_share(shop, 0).status_code == 200
    turned = [visitor("How much does it cost?")]
    assert used(shop) == 0
    assert set_share(shop, 50).status_code == 200
    for _ in range(50):  # the founder's own use takes the whole allowance
        meter.spend(session_of(shop).account_id, "support")
    turned.append(visitor("Can I return it?"))
    for response in turned:
        body = refusal(response, 429, "support_busy")
        assert set(body) == {"status", "reason", "explanation"}  # no used, limit, resets_at, tier, unaffected
        assert "Retry-After" not in response.headers
        assert not any(ch.isdigit() for ch in body["explanation"])  # no count, limit or time of the founder's
        assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    # The founder asking is still told their own meter.
    own = refusal(shop.post("/api/support", json={"question": "Can I return it?"}), 429, "usage_limit_reached")
    assert (own["used"], own["limit"]) == (50, 50)


# --- A question answered before ---------------------------------------------------------------

def test_a_question_answered_before_is_answered_again_without_a_model_call_or_a_spend(shop, visitor, chat,
                                                                                     settings_with):
    chat.reply(completion(json.dumps({"status": "answered", "answer": "It costs $30.00.", "abstain_reason": "",
                                      "cites": [{"kind": "offer", "field": "price", "value": "$30.00"}]})))
    settings_with(**{k: getattr(openai_settings(chat), k) for k in ("ai_backend", "ai_base_url", "ai_model",
                                                                     "ai_timeout_seconds")})
    first = answered(visitor("How much does it cost?"))
    assert (len(chat.received), used(shop)) == (1, 1)
    # The same words, in another case and punctuation: the kept answer, no model call, no credit.
    again = answered(visitor("  how much does it COST "))
    assert (again["answer"], again["cites"]) == (first["answer"], first["cites"]) == (
        "It costs $30.00.", [{"kind": "offer", "field": "price", "value": "$30.00"}])
    assert (len(chat.received), used(shop)) == (1, 1)
    # It costs nothing, so it is answered even when the visitors' share is used up.
    assert set_share(shop, 0).status_code == 200
    answered(visitor("How much does it cost?"))
    assert (len(chat.received), used(shop)) == (1, 1)


def test_a_kept_answer_is_never_given_once_the_store_facts_change(shop, visitor):
    assert answered(visitor("What is the price?"))["cites"][0]["value"] == "$30.00"
    assert shop.post("/api/product", json={"price": 45}).status_code == 200
    assert shop.post("/api/store/publish").get_json()["status"] == "published"
    assert answered(visitor("What is the price?"))["cites"][0]["value"] == "$45.00"
    assert used(shop) == 2


# --- The founder's share ----------------------------------------------------------------------

def test_the_founders_share_sets_how_many_visitors_questions_get_through(shop, visitor):
    assert set_share(shop, 20).get_json()["settings"][SHARE] == 20  # 10 of the free tier's 50
    assert outcomes(visitor(q) for q in distinct_questions(15)) == {(200, "ok"): 10, (429, "support_busy"): 5}
    assert set_share(shop, 40).status_code == 200  # 20: ten more
    assert outcomes(visitor(q) for q in distinct_questions(12, start=15)) == {(200, "ok"): 10,
                                                                             (429, "support_busy"): 2}
    assert used(shop) == 20


def test_the_share_reads_as_half_until_saved_and_takes_a_whole_percent_from_0_to_90(shop, client):
    assert shop.get("/api/settings/business").get_json()["settings"][SHARE] == 50
    for percent in (0, 90, 35):
        assert set_share(shop, percent).get_json()["settings"][SHARE] == percent
    assert shop.get("/api/settings/business").get_json()["settings"][SHARE] == 35
    document = client.get("/api/openapi.json").get_json()
    declared = document["components"]["schemas"]["SettingsFields"]["properties"][SHARE]
    assert (declared["type"], declared["minimum"], declared["maximum"]) == ("integer", 0, 90)


@pytest.mark.parametrize("value", [-1, 91, 100, "50", 50.5, True, None])
def test_a_share_out_of_bounds_or_not_a_whole_number_is_refused_and_saves_nothing(shop, value):
    assert set_share(shop, 35).status_code == 200
    body = refusal(set_share(shop, value), 400, "invalid_setting")
    assert body.get("field") == SHARE or SHARE in body.get("fields", {}), body
    assert shop.get("/api/settings/business").get_json()["settings"][SHARE] == 35


# --- What the founder is shown ----------------------------------------------------------------

def test_the_founder_is_shown_how_many_visitors_questions_were_answered_and_turned_away(shop, visitor, founder):
    assert public_questions(shop) == {"share": 50, "days": 7, "answered": 0, "from_earlier": 0, "turned_away": 0}
    assert set_share(shop, 10).status_code == 200  # 5 of the free tier's 50
    # Abstained on (its credit given back), and a question without words: neither answered nor turned away.
    assert outcomes([visitor("Is it dishwasher safe?"), visitor("Hello?")]) == {(200, "not_in_store_facts"): 1,
                                                                               (200, "no_query_terms"): 1}
    questions = distinct_questions(7)
    assert outcomes(visitor(q) for q in questions) == {(200, "ok"): 5, (429, "support_busy"): 2}
    for question in questions[:3]:
        answered(visitor(question))  # kept answers
    shop.post("/api/support", json={"question": "Can I return it?"})  # the founder's own question is not a visitor's
    assert public_questions(shop) == {"share": 10, "days": 7, "answered": 8, "from_earlier": 3, "turned_away": 2}
    assert PublicQuestionDay.select().count() == 1
    # Another founder is shown none of them, and a week later they have left the count.
    assert public_questions(founder())["answered"] == 0
    clock.freeze(NOW + timedelta(days=7))
    assert public_questions(shop) == {"share": 10, "days": 7, "answered": 0, "from_earlier": 0, "turned_away": 0}
