"""The desk agent on multi-question messages and order lookup (issue 50 point 4): a message is
cut into the questions it asks and answered part by part; the parts the store's facts cannot
back are left for the founder in a visible note (a ticket) or to the shop by mail (a visitor's
POST /api/support), never guessed; the words that only shape a question (how long, how much,
take, can, will) never block an answer, while a content word the facts do not cover still
leaves its part; shipping and returns are answered from the business's stated policies; and
a ticket whose mail names one of the founder's orders, or comes from the address an order
was placed with, shows that order and is answered its status, never another founder's."""
from __future__ import annotations

import json

import pytest

from models.desk import TicketMessage
from models.payment import CustomerOrder
from services.desk import inbound
from services.desk.parts import parts_of
from tests import mailbox
from tests.ai_factories import completion, openai_settings
from tests.factories import choose, customer_mail, deliver, desk_founder, follow, refusal, started

CUSTOMER = "ana@example.net"
RETURNS_COPY = "Returns are accepted on unused items in their original condition."
POLICIES = {"return_days": 30, "free_returns": True, "shipping_days_min": 3, "shipping_days_max": 7,
            "ships_to": "the United States and Canada"}

# --- Cutting a message into its questions ----------------------------------------------------

PARTS = [
    ("How much does it cost?", ["How much does it cost?"]),
    ("Hello, I saw the knife strip on your shop. How much does it cost? Thanks, Ana", ["How much does it cost?"]),
    ("Hi! Do you deliver to Canada, and how long does it take? Ana",
     ["Do you deliver to Canada?", "how long does it take?"]),
    ("does it fit a small kitchen and what is your return policy?",
     ["does it fit a small kitchen?", "what is your return policy?"]),
    ("Quick question: does it fit a small kitchen, and what is your return policy?",
     ["does it fit a small kitchen?", "what is your return policy?"]),
    ("Is it black and white?", ["Is it black and white?"]),
    ("Can I return it and get a refund?", ["Can I return it and get a refund?"]),
    ("What colours and sizes do you have?", ["What colours and sizes do you have?"]),
    ("Is it in stock and can I return it and how long does shipping take?",
     ["Is it in stock?", "can I return it?", "how long does shipping take?"]),
    ("How big is it; is it waterproof?", ["How big is it?", "is it waterproof?"]),
    ("Do you sell mugs & do they come in blue?", ["Do you sell mugs?", "do they come in blue?"]),
    ("Hi Ana, do you ship to Canada and also how much is it?", ["do you ship to Canada?", "how much is it?"]),
    ("How much is it? How much is it?", ["How much is it?"]),
    ("Where is my order 3f9a0c1b? I paid on Monday. When will it arrive?",
     ["Where is my order 3f9a0c1b?", "When will it arrive?"]),
    ("I would like a refund please.", ["I would like a refund please."]),
    ("Thanks, that helps, but is it waterproof?", ["but is it waterproof?"]),
    ("Hi, do you ship to Canada, the US, or Mexico?", ["do you ship to Canada, the US, or Mexico?"]),
    ("   ", []),
    # Past six questions, the rest stay together in the sixth part: none is dropped unread.
    ("Is it oak? Is it teak? Is it ash? Is it elm? Is it fir? Is it yew? Is it box?",
     ["Is it oak?", "Is it teak?", "Is it ash?", "Is it elm?", "Is it fir?", "Is it yew? Is it box?"]),
]


@pytest.mark.parametrize("message, parts", PARTS)
def test_a_message_is_cut_into_the_questions_it_asks(message, parts):
    assert parts_of(message) == parts


# --- POST /api/support: the backed parts answered, the rest left to the shop -----------------------

@pytest.fixture
def desk(founder, run_jobs):
    """A founder customers write to at support@knife-strip.shop, their store of p00 published."""
    run_jobs()
    client = desk_founder(founder, run_jobs)
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    return client


def ask(client, question, **body):
    response = client.post("/api/support", json={"question": question, **body})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def state(client, **settings):
    assert client.post("/api/settings/business", json=settings).status_code == 200


def test_a_question_with_a_part_the_store_cannot_back_is_answered_in_the_part_it_can(desk):
    body = ask(desk, "Does it fit a small kitchen and what is your return policy?")
    assert body["status"] == "ok", body
    assert [c["kind"] for c in body["cites"]] == ["returns"] and RETURNS_COPY in body["answer"]
    assert body["unanswered"] == ["Does it fit a small kitchen?"]
    assert "kitchen" not in body["answer"].split("(")[0]  # never answered, only named as left
    assert "(“Does it fit a small kitchen?”) the shop answers itself" in body["answer"]
    assert "by mail" in body["answer"]


def test_a_visitor_is_told_the_shop_answers_the_rest_by_mail(desk, app):
    visitor = app.test_client(use_cookies=False)
    response = visitor.post("/api/support", json={"question": "Is it waterproof? Can I return it?",
                                                  "product_id": "p00"})
    body = response.get_json()
    assert (body["status"], body["unanswered"]) == ("ok", ["Is it waterproof?"]), body
    assert RETURNS_COPY in body["answer"] and "the shop answers itself" in body["answer"]


def test_no_part_backed_is_still_an_abstention(desk):
    body = ask(desk, "Is it waterproof and does it fit a small kitchen?")
    assert (body["status"], body["reason"], body["answer"], body["cites"]) == (
        "abstained", "not_in_store_facts", None, []), body
    assert "waterproof" in body["explanation"] and "does not guess" in body["explanation"]


@pytest.mark.parametrize("question, cited", [
    ("How much is it?", ("offer", "price")),
    ("Can I return it?", ("policy", "returns")),
    ("When will it arrive?", ("policy", "shipping")),
    ("How long does shipping take?", ("policy", "shipping")),
    ("Do you ship to Canada?", ("policy", "ships_to")),
    ("How long do I have to return it?", ("policy", "returns")),
    ("What is your return policy?", ("policy", "returns")),
])
def test_the_words_that_only_shape_a_question_never_block_its_answer(desk, question, cited):
    state(desk, **POLICIES)
    body = ask(desk, question)
    assert body["status"] == "ok" and body["unanswered"] == [], body
    assert (body["cites"][0]["kind"], body["cites"][0]["field"]) == cited


def test_a_content_word_the_facts_do_not_cover_still_leaves_its_part(desk):
    state(desk, **POLICIES)
    for question in ("Is it waterproof?", "Does it fit a small kitchen?", "Do you ship to Mexico?"):
        body = ask(desk, question)
        assert body["status"] == "abstained", body


def test_how_long_is_answered_only_by_a_stated_time_never_by_the_copys_general_words(desk):
    before = ask(desk, "How long does shipping take?")
    assert before["status"] == "abstained" and "“how long”" in before["explanation"], before
    state(desk, shipping_days_min=3, shipping_days_max=7)
    after = ask(desk, "How long does shipping take?")
    assert after["status"] == "ok", after
    assert after["answer"] == "Orders arrive in 3 to 7 business days."
    assert after["cites"] == [{"kind": "policy", "field": "shipping", "value": "Orders arrive in 3 to 7 business days."}]


def test_how_much_is_answered_only_by_an_amount_in_what_it_cites(desk):
    state(desk, **POLICIES)
    assert ask(desk, "How much is it?")["answer"] == "It costs $30.00."
    assert ask(desk, "How much are returns?")["answer"] == "Free returns within 30 days of delivery."
    # Neither the product's price nor a delivery time says what shipping costs.
    for question in ("How much is shipping?", "How much does shipping cost?"):
        body = ask(desk, question)
        assert body["status"] == "abstained" and "“how much”" in body["explanation"], body


def test_the_stated_returns_policy_is_preferred_to_the_store_copys_returns(desk):
    state(desk, return_days=30, free_returns=True)
    body = ask(desk, "Can I return it?")
    assert body["cites"] == [{"kind": "policy", "field": "returns", "value": "Free returns within 30 days of delivery."}]
    assert RETURNS_COPY not in body["answer"]


# --- Tickets: a draft of the backed parts, a note of the rest ------------------------------------

def mail_in(client, text, *, subject="A question", sender=f"Ana Lima <{CUSTOMER}>", to="support@knife-strip.shop"):
    """The customer's mail delivered, the mail poll filing it, the founder opening the desk."""
    deliver(customer_mail(text=text, subject=subject, sender=sender, to=to))
    inbound.poll()
    return ticket_of(client, subject)


def ticket_of(client, subject="A question") -> dict:
    return next(t for t in client.get("/api/helpdesk").get_json()["tickets"] if t["subject"] == subject)


def by(ticket, direction, author="agent") -> list[dict]:
    return [m for m in ticket["messages"] if (m["direction"], m["author"]) == (direction, author)]


def draft(client, ticket_id):
    return client.post("/api/helpdesk", json={"action": "draft", "ticket_id": ticket_id})


def test_a_draft_answers_the_backed_parts_and_a_note_leaves_the_rest_for_the_founder(desk):
    state(desk, ai_email_mode="draft")
    ticket = mail_in(desk, "Hi! Does it fit a small kitchen? And can I return it?\n\nThanks, Ana")
    [reply] = by(ticket, "draft")
    assert RETURNS_COPY in reply["text"] and "kitchen" not in reply["text"]
    [note] = by(ticket, "note")
    assert note["text"] == "Left for you: Does it fit a small kitchen?"
    # Pressing "Draft a reply" again shows that draft and what it left; nothing more is written.
    again = draft(desk, ticket["id"]).get_json()
    assert (again["draft"]["message_id"], again["draft"]["left"]) == (reply["id"], ["Does it fit a small kitchen?"])
    assert TicketMessage.select().where(TicketMessage.author == "agent").count() == 2


def test_a_ticket_draft_answers_how_long_shipping_takes_with_the_stated_days(desk):
    state(desk, shipping_days_min=3, shipping_days_max=7)
    ticket = mail_in(desk, "Hello, how long does shipping take? Ana")
    body = draft(desk, ticket["id"]).get_json()
    assert body["status"] == "drafted", body
    assert "Orders arrive in 3 to 7 business days." in body["draft"]["text"]
    assert body["draft"]["left"] == [] and by(body["ticket"], "note") == []


def test_without_a_stated_time_the_draft_is_refused_not_guessed(desk):
    ticket = mail_in(desk, "Hello, how long does shipping take? Ana")
    refusal(draft(desk, ticket["id"]), 200, "not_in_store_facts")
    assert [m["direction"] for m in ticket_of(desk)["messages"]] == ["in"]


def test_auto_mode_mails_the_backed_parts_says_the_rest_follows_and_keeps_the_ticket_open(desk):
    state(desk, ai_email_mode="auto")
    ticket = mail_in(desk, "Is it waterproof? Also, can I return it?")
    [out] = by(ticket, "out")
    assert RETURNS_COPY in out["text"] and "We will answer your other question (“Is it waterproof?”)" in out["text"]
    assert [n["text"] for n in by(ticket, "note")] == ["Left for you: Is it waterproof?"]
    assert ticket["status"] == "open"
    [mail] = mailbox.messages_to(CUSTOMER)
    assert "Is it waterproof?" in mailbox.text_of(mail)


def test_a_models_draft_goes_through_the_same_finish_with_the_parts_in_its_task(desk, chat, settings_with):
    chat.reply(completion(json.dumps({
        "status": "answered", "abstain_reason": "", "unanswered": ["Does it fit a small kitchen?"],
        "text": f"Hello,\n\n{RETURNS_COPY} Delivery takes 2 days.\n\nBest wishes,\nThe team",
        "cites": [{"kind": "returns", "field": "returns", "value": RETURNS_COPY}]})))
    settings_with(**{k: getattr(openai_settings(chat), k) for k in ("ai_backend", "ai_base_url", "ai_model",
                                                                     "ai_timeout_seconds")})
    ticket = mail_in(desk, "Does it fit a small kitchen and can I return it?")
    body = draft(desk, ticket["id"]).get_json()
    assert body["status"] == "drafted", body
    assert RETURNS_COPY in body["draft"]["text"] and "2 days" not in body["draft"]["text"]  # unbacked number
    assert [n["text"] for n in by(body["ticket"], "note")] == ["Left for you: Does it fit a small kitchen?"]
    asked = chat.received[0]["body"]["messages"][-1]["content"]
    assert '"parts"' in asked and "does it fit a small kitchen?" in asked.lower()


# --- Order lookup -------------------------------------------------------------------------------

def paid_order(customer, *, email=CUSTOMER, product_id="p00") -> dict:
    order = started(customer, email=email, product_id=product_id)
    follow(customer, choose(customer, order["checkout_url"], "pay"))
    assert CustomerOrder.get_by_id(order["order_id"]).state == CustomerOrder.PAID
    return order


def test_an_order_number_in_the_mail_shows_that_order_and_the_draft_answers_its_status(desk, founder):
    order = paid_order(founder(), email="someone-else@example.org")
    number = order["order_id"][:8]
    ticket = mail_in(desk, f"Hello, where is my order #{number.upper()}? Ana")
    shown = ticket["order"]
    assert (shown["number"], shown["order_id"], shown["matched_by"], shown["status"]) == (
        number, order["order_id"], "number", "paid")
    assert (shown["total"], shown["quantity"], shown["status_words"]) == ("$30.00", 1, "paid")
    assert shown["created_at"].endswith("Z") and shown["paid_at"]
    body = draft(desk, ticket["id"]).get_json()
    assert body["status"] == "drafted", body
    assert f"Your order {number} (1 × " in body["draft"]["text"] and "was placed and paid on" in body["draft"]["text"]
    assert body["draft"]["cites"][0]["kind"] == "order"


def test_the_senders_address_matches_their_order(desk, founder):
    order = paid_order(founder(), email=CUSTOMER.upper())
    ticket = mail_in(desk, "Hi, has my order shipped yet?")
    assert (ticket["order"]["order_id"], ticket["order"]["matched_by"]) == (order["order_id"], "sender")
    body = draft(desk, ticket["id"]).get_json()
    assert f"Your order {order['order_id'][:8]}" in body["draft"]["text"]


def test_a_ticket_with_no_order_of_the_founders_shows_none(desk):
    ticket = mail_in(desk, "Is order 0badc0de on its way?")
    assert ticket["order"] is None


def test_another_founders_order_is_never_matched_by_number_or_address(desk, founder, run_jobs):
    bob = desk_founder(founder, run_jobs, pid="p01", domain="bobs-bowls.shop")
    assert bob.post("/api/store/publish").get_json()["status"] == "published"
    bobs = paid_order(founder(), email=CUSTOMER, product_id="p01")  # Ana bought from Bob, not from Alice
    number = bobs["order_id"][:8]
    ticket = mail_in(desk, f"Where is my order {number}?")
    assert ticket["order"] is None
    body = refusal(draft(desk, ticket["id"]), 200, "not_in_store_facts")  # nothing of Bob's order to tell
    assert "paid" not in body["explanation"] and "$" not in body["explanation"]
    # Bob's desk, written to about the same order, shows it.
    theirs = mail_in(bob, f"Where is my order {number}?", subject="Bowl order", to="support@bobs-bowls.shop")
    assert theirs["order"]["order_id"] == bobs["order_id"]
