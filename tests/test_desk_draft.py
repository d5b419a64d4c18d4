"""POST /api/helpdesk {action: draft}: the support agent's draft reply, written against the
contract between the two desk parts (desk-contract.md): services.desk.agent.draft_reply
(ticket_id, *, account_id) writes a draft TicketMessage (direction draft, author agent)
through the AI seam, metered `support`, and raises Refused for a 429 or an abstention."""
from __future__ import annotations

import pytest

from models.account import Account, MeterUsage
from models.clock import clock
from models.desk import TicketMessage
from services import meter
from services.desk import inbound
from tests.factories import customer_mail, deliver, desk_founder, refusal
from tests.mailbox import sign_in_here


@pytest.fixture
def desk(founder, run_jobs):
    run_jobs()
    client = desk_founder(founder, run_jobs)
    deliver(customer_mail(subject="Does it hold a heavy chef's knife?"))
    inbound.poll()  # the clock's mail poll (the `mail_poll` job's work) files it
    return client


def ticket_id(client) -> int:
    return client.get("/api/helpdesk").get_json()["tickets"][0]["id"]


def test_a_draft_is_written_by_the_agent_on_the_thread_and_sent_to_nobody(desk):
    response = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(desk)})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "drafted" and isinstance(body["draft"], dict)
    last = body["ticket"]["messages"][-1]
    assert (last["direction"], last["author"]) == ("draft", "agent") and last["text"]
    assert body["ticket"]["status"] == "open"  # a draft is not an answer
    assert TicketMessage.select().where(TicketMessage.direction == "out").count() == 0


def test_a_free_account_whose_support_credits_are_spent_gets_a_429(desk, run_jobs):
    sign_in_here(desk, run_jobs, "desk-draft@example.com")
    account = Account.get(Account.email == "desk-draft@example.com")
    limit_5h, limit_week = meter.plan_for(account).limits(meter.BUCKETS["support"])
    now = clock.time()
    MeterUsage.insert(account=account.id, bucket="support", window_5h=meter.window_index(now, meter.FIVE_HOURS),
                      used_5h=limit_5h, window_week=meter.window_index(now, meter.WEEK), used_week=limit_5h).execute()
    assert limit_5h <= limit_week
    response = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(desk)})
    refusal(response, 429, "usage_limit_reached")
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 0



def test_drafting_twice_makes_one_draft_and_charges_once(desk, run_jobs):
    sign_in_here(desk, run_jobs, "twice@example.com")
    account = Account.get(Account.email == "twice@example.com")
    first = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(desk)}).get_json()
    spent = MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "support").used_5h

    again = desk.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(desk)}).get_json()

    assert again["status"] == "drafted" and again["draft"]["message_id"] == first["draft"]["message_id"]
    assert again["draft"]["text"] == first["draft"]["text"]
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 1
    assert MeterUsage.get(MeterUsage.account == account.id, MeterUsage.bucket == "support").used_5h == spent


def test_in_draft_mode_the_founders_press_finds_the_draft_the_agent_wrote(founder, run_jobs):
    run_jobs()
    client = desk_founder(founder, run_jobs)
    assert client.post("/api/settings/business", json={"ai_email_mode": "draft"}).status_code == 200
    deliver(customer_mail(subject="Does it hold a heavy chef's knife?"))
    inbound.poll()  # the new ticket: "Draft replies for me" drafts a reply at once
    run_jobs()
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 1

    pressed = client.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(client)}).get_json()

    assert pressed["status"] == "drafted"
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 1
    # A new message from the customer is a new question: the next press drafts a reply to it.
    deliver(customer_mail(subject="Re: Does it hold a heavy chef's knife?", text="Hello again. When will it ship?",
                          message_id="<second@example.net>"))
    inbound.poll()
    run_jobs()
    again = client.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id(client)}).get_json()
    assert again["status"] == "drafted", again
    assert again["draft"]["message_id"] != pressed["draft"]["message_id"]
    assert TicketMessage.select().where(TicketMessage.direction == "draft").count() == 2
