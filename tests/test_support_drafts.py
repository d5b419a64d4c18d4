"""The support agent on the desk (issue 25 points 4 and 5; decisions.md ai_email_mode): a
customer's real mail becomes a ticket; with ai_email_mode draft the agent drafts a backed reply,
with auto it mails the ones it can back (threaded, with a rating link the customer uses) and
leaves the rest open, off does nothing; POST /api/helpdesk draft writes a draft or refuses,
metered `support` for the founder's account (a free account's 429 with `unaffected`)."""
from __future__ import annotations

import re

import pytest

from models.account import MeterUsage
from models.clock import clock
from models.desk import Ticket, TicketMessage
from models.satisfaction import SatisfactionRating
from services import meter
from services.desk import agent, inbound
from tests import mailbox
from tests.factories import NOW, customer_mail, deliver, desk_founder, refusal, session_of

CUSTOMER = "ana@example.net"
PRICE = "Hello, I saw the knife strip on your shop. How much does it cost? Thanks, Ana"
CANADA = "Hi! Do you deliver to Canada, and how long does it take? Ana"
RATING = re.compile(r"http://localhost(/rate/\d+\.[0-9a-f]{64})")


@pytest.fixture
def desk(founder, run_jobs):
    """A founder customers write to at support@knife-strip.shop (the worker runs the polls)."""
    run_jobs()
    return desk_founder(founder, run_jobs)


def mode(client, value):
    assert client.post("/api/settings/business", json={"ai_email_mode": value}).status_code == 200


def mail_in(client, text, subject="A question") -> dict:
    """The customer's mail delivered, the clock's mail poll (the `mail_poll` job's work) filing
    it, and the founder opening the desk."""
    deliver(customer_mail(text=text, subject=subject))
    inbound.poll()
    body = client.get("/api/helpdesk").get_json()
    return next(t for t in body["tickets"] if t["subject"] == subject)


def by(ticket, direction, author="agent") -> list[dict]:
    return [m for m in ticket["messages"] if (m["direction"], m["author"]) == (direction, author)]


def used(client) -> int:
    row = MeterUsage.get_or_none(MeterUsage.account == session_of(client).account_id, MeterUsage.bucket == "support")
    return row.used_5h if row else 0


def signed_in_desk(founder, run_jobs):
    client = desk_founder(founder, run_jobs)
    mailbox.sign_in_here(client, run_jobs, "owner@example.com")
    clock.freeze(NOW)
    return client


# --- ai_email_mode ---------------------------------------------------------------------------

def test_with_draft_mode_a_backed_question_gets_a_draft_and_no_mail(desk):
    mode(desk, "draft")
    ticket = mail_in(desk, PRICE)
    [draft] = by(ticket, "draft")
    assert "It costs $30.00." in draft["text"] and draft["text"].startswith("Hello,")
    assert by(ticket, "out") == [] and ticket["status"] == "open"
    assert mailbox.messages_to(CUSTOMER) == []


def test_with_draft_mode_a_question_the_store_cannot_back_gets_no_draft(desk):
    mode(desk, "draft")
    ticket = mail_in(desk, CANADA)
    assert [m["direction"] for m in ticket["messages"]] == ["in"] and ticket["status"] == "open"


def test_with_auto_mode_a_backed_answer_is_mailed_threaded_and_the_customer_rates_it(desk, founder):
    mode(desk, "auto")
    ticket = mail_in(desk, PRICE)
    [out] = by(ticket, "out")
    assert "It costs $30.00." in out["text"] and out["sent"] is True
    assert ticket["status"] == "pending"  # answered, waiting on the customer
    [mail] = mailbox.messages_to(CUSTOMER)
    assert mail["In-Reply-To"] == ticket["messages"][0]["message_id"]
    text = mailbox.text_of(mail)
    assert "It costs $30.00." in text
    [path] = RATING.findall(text)
    customer = founder()
    assert 'data-rating-state="ask"' in customer.get(path).get_data(as_text=True)
    assert customer.post(path, data={"score": "5", "comment": "Fast!"}).status_code == 200
    assert [(r.message_id, r.score) for r in SatisfactionRating.select()] == [(out["id"], 5)]
    rated = desk.get("/api/helpdesk").get_json()["tickets"][0]
    assert rated["satisfaction"]["score"] == 5 and rated["satisfaction"]["comment"] == "Fast!"
    analysis = desk.get("/api/satisfaction").get_json()
    assert (analysis["count"], analysis["score"]["average"], analysis["worst_categories"][0]["category"]) == (
        1, 5.0, "question")


def test_auto_mode_answers_who_wrote_never_the_reply_to_a_stranger_names(desk):
    """A stranger's first mail naming someone else in Reply-To: the store answers the From
    address (the one who wrote), and the third party is sent nothing."""
    mode(desk, "auto")
    deliver(customer_mail(text=PRICE, subject="A question", headers={"Reply-To": "victim@elsewhere.example"}))
    inbound.poll()
    ticket = next(t for t in desk.get("/api/helpdesk").get_json()["tickets"] if t["subject"] == "A question")
    assert ticket["customer_email"] == CUSTOMER and ticket["messages"][0]["from"] == CUSTOMER
    [out] = by(ticket, "out")
    assert out["to"] == CUSTOMER and out["sent"] is True
    assert mailbox.messages_to("victim@elsewhere.example") == []
    [mail] = mailbox.messages_to(CUSTOMER)
    assert "It costs $30.00." in mailbox.text_of(mail)


def test_with_auto_mode_an_unbacked_question_is_left_open_for_the_founder(desk):
    mode(desk, "auto")
    ticket = mail_in(desk, CANADA)
    assert [m["direction"] for m in ticket["messages"]] == ["in"] and ticket["status"] == "open"
    assert mailbox.messages_to(CUSTOMER) == []


def test_with_mode_off_the_agent_does_nothing(desk):
    ticket = mail_in(desk, PRICE)
    assert [m["direction"] for m in ticket["messages"]] == ["in"]


def test_the_hook_acts_at_most_once_a_ticket(desk):
    mode(desk, "auto")
    ticket = mail_in(desk, PRICE)
    agent.on_new_ticket(ticket["id"])
    agent.on_new_ticket(ticket["id"])
    assert TicketMessage.select().where(TicketMessage.author == "agent").count() == 1
    assert len(mailbox.messages_to(CUSTOMER)) == 1


# --- POST /api/helpdesk draft ----------------------------------------------------------------

def test_a_founder_asks_for_a_draft_of_a_backed_answer(desk):
    ticket = mail_in(desk, "Hello, can I return it? Best, Ana")
    response = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket["id"]})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "drafted"
    assert body["draft"]["cites"][0]["kind"] == "returns"
    [draft] = by(body["ticket"], "draft")
    assert "Returns are accepted on unused items" in draft["text"] and draft["id"] == body["draft"]["message_id"]


def test_a_draft_the_store_cannot_back_is_refused_and_writes_nothing(desk):
    ticket = mail_in(desk, CANADA)
    response = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket["id"]})
    body = response.get_json()
    assert (body["status"], body["reason"]) == ("refused", "not_in_store_facts"), body
    assert "canada" in body["explanation"]
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 0


def test_another_founders_ticket_cannot_be_drafted(desk, founder, run_jobs):
    ticket = mail_in(desk, PRICE)
    refusal(founder().post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket["id"]}), 400,
            "ticket_not_found")


# --- The meter -------------------------------------------------------------------------------

def test_drafts_are_charged_to_the_founders_account_only_when_written(founder, run_jobs):
    client = signed_in_desk(founder, run_jobs)
    backed, unbacked = mail_in(client, PRICE), mail_in(client, CANADA, subject="Shipping abroad")
    assert Ticket.get_by_id(backed["id"]).owner == f"account:{session_of(client).account_id}"
    assert client.post("/api/helpdesk", json={"action": "draft", "ticket_id": backed["id"]}).status_code == 200
    assert used(client) == 1
    client.post("/api/helpdesk", json={"action": "draft", "ticket_id": unbacked["id"]})
    assert used(client) == 1


def test_a_free_account_past_its_support_allowance_gets_the_429_and_auto_leaves_the_ticket(founder, run_jobs):
    client = signed_in_desk(founder, run_jobs)
    first = mail_in(client, PRICE)
    for _ in range(50):
        meter.spend(session_of(client).account_id, "support")
    response = client.post("/api/helpdesk", json={"action": "draft", "ticket_id": first["id"]})
    refused = refusal(response, 429, "usage_limit_reached")
    assert refused["feature"] == "Support agent" and "Support agent" not in refused["unaffected"]
    assert set(refused["unaffected"]) == {"AI website editor", "AI Growth ad editor", "Product find engine",
                                          "Ad generation"}
    mode(client, "auto")
    second = mail_in(client, PRICE, subject="Price again")
    assert [m["direction"] for m in second["messages"]] == ["in"] and second["status"] == "open"
    assert mailbox.messages_to(CUSTOMER) == [] and used(client) == 50
