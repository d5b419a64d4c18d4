"""The support desk (GET, POST /api/helpdesk): a customer's mail becomes a ticket (filed by
the clock's mail poll; opening the desk reads what it filed), the founder replies (threaded, through the mailer), notes and sets fields, the customer's answer
joins the same ticket, every desk refusal, and another founder's tickets never visible."""
from __future__ import annotations

import email.utils

import pytest

from models.desk import Ticket, TicketMessage
from services.desk import inbound
from tests import mailbox
from tests.factories import DESK_DOMAIN, customer_mail, deliver, desk_founder, refusal

SUPPORT = f"support@{DESK_DOMAIN}"


@pytest.fixture
def desk(founder, run_jobs):
    """A founder customers write to at support@knife-strip.shop (the worker runs the polls)."""
    run_jobs()
    return desk_founder(founder, run_jobs)


def helpdesk(client) -> dict:
    """The desk as the founder sees it once the clock's next mail poll has run (inbound.poll is
    the `mail_poll` job's work; tests/test_helpdesk_poll.py fires the clock's own entry)."""
    inbound.poll()
    response = client.get("/api/helpdesk")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def act(client, **body):
    return client.post("/api/helpdesk", json=body)


def only_ticket(client) -> dict:
    body = helpdesk(client)
    assert body["status"] == "ok" and len(body["tickets"]) == 1, body
    return body["tickets"][0]


def test_an_empty_desk_says_no_tickets_yet_and_where_customers_write(desk):
    body = helpdesk(desk)
    assert body["status"] == "no_tickets_yet" and body["reason"] == "no_tickets_yet"
    assert body["tickets"] == [] and body["total"] == 0
    assert body["counts"] == {"open": 0, "pending": 0, "solved": 0, "closed": 0}
    assert body["support_email"] == SUPPORT and SUPPORT in body["explanation"]
    assert body["mail"]["every_seconds"] == 60 and body["rules"] == []


def test_a_founder_without_a_store_gets_a_200_too(client, run_jobs):
    run_jobs()
    body = helpdesk(client)
    assert body["status"] == "no_tickets_yet" and body["support_email"] is None


def test_a_customers_mail_becomes_a_ticket_once_the_mail_is_polled(desk):
    raw = customer_mail(message_id="<first@example.net>")
    deliver(raw)
    ticket = only_ticket(desk)
    assert ticket["subject"] == "Where is my order?"
    assert (ticket["customer_email"], ticket["customer_name"]) == ("ana@example.net", "Ana Lima")
    assert (ticket["status"], ticket["priority"], ticket["category"]) == ("open", "normal", "question")
    assert ticket["product_id"] == "p00" and ticket["support_address"] == SUPPORT
    assert ticket["resolution"] is None and ticket["satisfaction"] is None
    [message] = ticket["messages"]
    assert (message["direction"], message["author"], message["from"], message["to"]) == (
        "in", "customer", "ana@example.net", SUPPORT)
    assert message["message_id"] == "<first@example.net>" and "When will it ship?" in message["text"]
    assert helpdesk(desk)["counts"] == {"open": 1, "pending": 0, "solved": 0, "closed": 0}
    # Opening the desk again reads nothing twice.
    assert TicketMessage.select().count() == 1 and Ticket.select().count() == 1


def test_the_same_mail_delivered_twice_is_one_message(desk):
    raw = customer_mail(message_id="<twice@example.net>")
    deliver(raw)
    deliver(raw)
    ticket = only_ticket(desk)
    assert len(ticket["messages"]) == 1


def test_a_message_id_another_sender_used_first_does_not_drop_a_customers_mail(desk):
    """A stranger who sends a Message-ID first (guessed, or copied from a customer's mail)
    keeps nobody's mail off the desk: the duplicate key names the sender."""
    deliver(customer_mail(sender="Mallory <mallory@example.org>", subject="First!", message_id="<taken@example.net>"))
    deliver(customer_mail(message_id="<taken@example.net>"))
    deliver(customer_mail(message_id="<taken@example.net>"))  # Ana's own mail again: still one
    tickets = {t["customer_email"]: t for t in helpdesk(desk)["tickets"]}
    assert set(tickets) == {"mallory@example.org", "ana@example.net"}
    [message] = tickets["ana@example.net"]["messages"]
    assert message["message_id"] == "<taken@example.net>" and "When will it ship?" in message["text"]
    assert TicketMessage.select().count() == 2


def test_a_reply_is_mailed_threaded_and_the_customers_answer_joins_the_ticket(desk):
    deliver(customer_mail(message_id="<q1@example.net>"))
    ticket = only_ticket(desk)
    desk.post("/api/settings/business", json={"business_name": "Acacia & Co"})

    answer = act(desk, action="reply", ticket_id=ticket["id"], text="It ships on Monday.\n\nBest, Jo")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["status"] == "replied" and body["message"]["sent"] is True
    assert body["ticket"]["status"] == "pending"  # waiting on the customer
    reply = body["message"]
    assert (reply["direction"], reply["author"], reply["to"]) == ("out", "founder", "ana@example.net")

    [mail] = mailbox.messages_to("ana@example.net")
    assert mail["Subject"] == "Re: Where is my order?"
    assert mail["In-Reply-To"] == "<q1@example.net>" and mail["References"] == "<q1@example.net>"
    assert mail["Reply-To"] == SUPPORT
    assert mail["Message-ID"] == reply["message_id"] and mail["Message-ID"].endswith(f"@{DESK_DOMAIN}>")
    assert mail["From"].addresses[0].display_name == "Acacia & Co"
    assert "Auto-Submitted" not in mail  # a person wrote it
    assert "It ships on Monday." in mailbox.text_of(mail) and "Best, Jo" in mailbox.html_of(mail)

    # The customer answers our reply, with a subject of their own: the same ticket, open again.
    deliver(customer_mail(subject="Thanks!", text="Great, thank you.", message_id="<q2@example.net>",
                          in_reply_to=mail["Message-ID"], references=f"<q1@example.net> {mail['Message-ID']}"))
    ticket = only_ticket(desk)
    assert [m["direction"] for m in ticket["messages"]] == ["in", "out", "in"]
    assert ticket["status"] == "open" and ticket["messages"][-1]["text"] == "Great, thank you."

    # A second reply threads on the customer's latest message and carries the whole thread.
    act(desk, action="reply", ticket_id=ticket["id"], text="You are welcome.")
    second = mailbox.messages_to("ana@example.net")[-1]
    assert second["In-Reply-To"] == "<q2@example.net>"
    assert second["References"].split() == ["<q1@example.net>", reply["message_id"], "<q2@example.net>"]


def test_mail_answering_only_by_references_joins_its_ticket(desk):
    deliver(customer_mail(message_id="<root@example.net>"))
    first = only_ticket(desk)
    deliver(customer_mail(subject="More", message_id="<more@example.net>", references="<root@example.net>"))
    assert only_ticket(desk)["id"] == first["id"]


def test_a_reply_the_mailer_cannot_take_is_kept_and_reported_unsent(desk, settings_with, tmp_path):
    deliver(customer_mail())
    ticket = only_ticket(desk)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the outbox folder should be")
    settings_with(outbox_dir=str(blocked / "outbox"))
    body = act(desk, action="reply", ticket_id=ticket["id"], text="Hello").get_json()
    assert body["status"] == "replied" and body["message"]["sent"] is False
    assert body["ticket"]["messages"][-1]["sent"] is False


def test_notes_stay_on_the_desk(desk):
    deliver(customer_mail())
    ticket = only_ticket(desk)
    body = act(desk, action="note", ticket_id=ticket["id"], text="  Check the tracking number.  ").get_json()
    assert body["status"] == "noted"
    note = body["message"]
    assert (note["direction"], note["author"], note["text"], note["message_id"]) == (
        "note", "founder", "Check the tracking number.", None)
    assert mailbox.messages_to("ana@example.net") == []


def test_setting_priority_and_category_and_closing_with_a_resolution(desk):
    deliver(customer_mail())
    ticket_id = only_ticket(desk)["id"]
    assert act(desk, action="set", ticket_id=ticket_id, field="priority", value="urgent").get_json()[
        "ticket"]["priority"] == "urgent"
    assert act(desk, action="set", ticket_id=ticket_id, field="category", value="shipping").get_json()[
        "ticket"]["category"] == "shipping"
    body = act(desk, action="set", ticket_id=ticket_id, field="status", value="closed",
               resolution="  Shipped with tracking 123.  ").get_json()
    assert body["status"] == "updated"
    assert (body["ticket"]["status"], body["ticket"]["resolution"]) == ("closed", "Shipped with tracking 123.")
    assert helpdesk(desk)["counts"] == {"open": 0, "pending": 0, "solved": 0, "closed": 1}
    assert act(desk, action="set", ticket_id=ticket_id, field="status", value="pending").get_json()[
        "ticket"]["status"] == "pending"


@pytest.mark.parametrize("body, status, reason", [
    ({"action": "delete"}, 400, "unknown_action"),
    ({}, 400, "unknown_action"),
    ({"action": 5}, 400, "unknown_action"),
    ({"action": "set", "ticket_id": 999999, "field": "status", "value": "open"}, 400, "ticket_not_found"),
    ({"action": "note", "text": "x"}, 400, "ticket_not_found"),
    ({"action": "note", "ticket_id": "1", "text": "x"}, 400, "ticket_not_found"),
    ({"action": "set", "field": "subject", "value": "Hi"}, 400, "bad_field"),
    ({"action": "set", "field": "resolution", "value": "Done"}, 400, "bad_field"),
    ({"action": "set"}, 400, "bad_field"),
    ({"action": "set", "field": "status", "value": "archived"}, 400, "invalid_ticket_value"),
    ({"action": "set", "field": "priority", "value": "critical"}, 400, "invalid_ticket_value"),
    ({"action": "set", "field": "category", "value": 3}, 400, "invalid_ticket_value"),
    ({"action": "set", "field": "status", "value": "closed"}, 400, "resolution_required"),
    ({"action": "set", "field": "status", "value": "solved", "resolution": "   "}, 400, "resolution_required"),
    ({"action": "set", "field": "status", "value": "solved", "resolution": None}, 400, "resolution_required"),
    ({"action": "set", "field": "status", "value": "solved", "resolution": "x" * 2001}, 400, "text_too_long"),
    ({"action": "reply", "text": " \n "}, 400, "empty_reply"),
    ({"action": "reply"}, 400, "empty_reply"),
    ({"action": "reply", "text": "x" * 20_001}, 400, "text_too_long"),
    ({"action": "note", "text": ""}, 400, "empty_note"),
    ({"action": "note", "text": None}, 400, "empty_note"),
])
def test_every_desk_refusal_changes_nothing(desk, body, status, reason):
    deliver(customer_mail())
    ticket = only_ticket(desk)
    if "ticket_id" not in body and reason != "ticket_not_found":
        body = {**body, "ticket_id": ticket["id"]}
    response = act(desk, **body)
    refusal(response, status, reason)
    assert response.get_json()["explanation"]
    assert only_ticket(desk) == {**ticket, "updated_at": only_ticket(desk)["updated_at"]}
    assert TicketMessage.select().count() == 1 and mailbox.messages_to("ana@example.net") == []


def test_another_founders_tickets_are_never_visible_or_changed(desk, founder, run_jobs):
    deliver(customer_mail())
    ticket = only_ticket(desk)
    bob = desk_founder(founder, run_jobs, pid="p01", domain="bobs-bowls.shop")
    deliver(customer_mail(to="support@bobs-bowls.shop", sender="cy@example.org", subject="Bowl size?"))
    [bobs] = helpdesk(bob)["tickets"]
    assert bobs["subject"] == "Bowl size?" and bobs["customer_email"] == "cy@example.org"
    assert [t["subject"] for t in helpdesk(desk)["tickets"]] == ["Where is my order?"]
    for body in ({"action": "set", "field": "status", "value": "pending"}, {"action": "reply", "text": "Hi"},
                 {"action": "note", "text": "mine now"}, {"action": "draft"}):
        refusal(act(bob, ticket_id=ticket["id"], **body), 400, "ticket_not_found")
    assert only_ticket(desk) == ticket
    # A visitor with no store sees nothing of either.
    assert helpdesk(founder())["status"] == "no_tickets_yet"


def test_mail_to_no_founders_address_reaches_nobody(desk):
    deliver(customer_mail(to=f"sales@{DESK_DOMAIN}"))  # not the local part the founder chose
    deliver(customer_mail(to="support@nobody-here.shop"))  # a domain no store has
    deliver(customer_mail(to="support@knife-strip.shop.evil.example"))
    result = inbound.poll()
    assert (result["read"], result["unrouted"], result["new_tickets"]) == (3, 3, 0)
    assert Ticket.select().count() == 0 and helpdesk(desk)["status"] == "no_tickets_yet"
    assert inbound.poll()["read"] == 0  # read once: moved to cur/


def test_mail_copied_to_the_support_address_or_delivered_to_it_counts(desk):
    deliver(customer_mail(to="someone@example.com", headers={"Cc": f"Support <{SUPPORT.upper()}>"}))
    deliver(customer_mail(to="undisclosed-recipients:;", headers={"Delivered-To": SUPPORT}))
    assert helpdesk(desk)["total"] == 2


def test_a_reply_to_a_message_id_of_ours_with_a_foreign_owner_makes_a_new_ticket(desk, founder, run_jobs):
    """Threading is per founder: naming another founder's Message-ID does not join their ticket."""
    deliver(customer_mail(message_id="<alices@example.net>"))
    only_ticket(desk)
    bob = desk_founder(founder, run_jobs, pid="p01", domain="bobs-bowls.shop")
    deliver(customer_mail(to="support@bobs-bowls.shop", in_reply_to="<alices@example.net>",
                          message_id="<bobs@example.net>"))
    assert helpdesk(bob)["total"] == 1 and len(only_ticket(desk)["messages"]) == 1


def test_mail_without_a_message_id_is_still_taken_once():
    from services.desk.inbound import parse

    raw = customer_mail().replace(b"Message-ID:", b"X-Old-ID:")
    first, again = parse(raw), parse(raw)
    assert first.message_id == again.message_id and first.message_id.endswith("@inbound.invalid>")


def test_html_only_mail_is_read_as_text_and_a_missing_sender_is_skipped():
    from services.desk.inbound import parse

    raw = customer_mail(text="unused").replace(b"Content-Type: text/plain", b"Content-Type: text/html")
    raw = raw.replace(b"unused", b"<p>Hello <b>there</b></p><script>alert(1)</script><p>Bye</p>")
    parsed = parse(raw)
    assert "Hello there" in parsed.text and "Bye" in parsed.text and "alert" not in parsed.text
    assert parse(customer_mail().replace(b"From:", b"X-From:")) is None
    assert email.utils.parseaddr(parse(customer_mail()).sender)[1] == "ana@example.net"
