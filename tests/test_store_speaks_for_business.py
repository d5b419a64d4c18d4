"""The store speaks for the business, to shoppers (issue 47, point 2), through HTTP as clients
do: a store built after the founder saved a business name and a support address (on a
connected domain) is named after the business and shows the address on its Contact page;
public pages show no seller research (no evidence rows, no search counts or ranks, no "we
chose it for the demand", no "Your own product" eyebrow), while the founder's preview still
shows the rows, said to be theirs only; a receipt comes from the business's name with a
Reply-To that reaches the desk, the store's support address or, without one, the order's own
reply address, and a customer's reply to it becomes a ticket on the founder's desk."""
from __future__ import annotations

import email.utils

from services.desk import inbound
from services.store.render import PAGE_IDS, page_path
from tests.factories import (
    ADDRESS,
    DESK_DOMAIN,
    built,
    choose,
    claimed_founder,
    customer_mail,
    deliver,
    desk_founder,
    follow,
    published_store,
    started,
)
from tests.mailbox import messages_to, text_of
from tests.store_pages import RESEARCH, publish, researched_item, visible

BUSINESS = "Acacia & Co"
CUSTOMER = "buyer@example.com"


def public_pages(client, base: str) -> dict[str, str]:
    pages = {}
    for page_id in PAGE_IDS:
        answer = client.get(base + page_path(page_id))
        assert answer.status_code == 200, (page_id, answer.status_code)
        pages[page_id] = answer.get_data(as_text=True)
    return pages


def paid_order(customer) -> dict:
    order = started(customer, quantity=1, email=CUSTOMER)
    follow(customer, choose(customer, order["checkout_url"], "pay", ADDRESS))
    return order


def receipt() -> object:
    [mail] = [m for m in messages_to(CUSTOMER) if m["Subject"].startswith("Your receipt from")]
    return mail


def desk_tickets(client) -> list[dict]:
    inbound.poll()  # the clock's mail poll
    body = client.get("/api/helpdesk").get_json()
    return body.get("tickets", [])


# --- The store carries the business ---------------------------------------------------------

def test_a_store_rebuilt_after_the_settings_is_named_for_the_business_and_shows_its_support_address(
        founder, run_jobs):
    client = desk_founder(founder, run_jobs)  # support@knife-strip.shop: saved and the domain connected
    assert client.post("/api/settings/business", json={"business_name": BUSINESS}).status_code == 200
    built(client, run_jobs)  # the rebuild the founder asks for
    base = publish(client)

    contact = client.get(base + "contact").get_data(as_text=True)
    assert f'href="mailto:support@{DESK_DOMAIN}"' in contact and "coming soon" not in contact
    assert "Contact Acacia &amp; Co" in contact
    home = client.get(base).get_data(as_text=True)
    assert 'class="brand-name">Acacia &amp; Co</span>' in home and "© Acacia &amp; Co" in home
    # The copy tells the shopper how to reach the shop, never "through this store".
    assert "through this store" not in home and "our Contact page" in home


def test_without_a_support_address_the_contact_page_says_the_receipt_reaches_the_business(founder, run_jobs):
    client = published_store(founder, run_jobs)
    base = client.get("/api/store").get_json()["public_url"]
    contact = client.get(base + "contact").get_data(as_text=True)
    assert "coming soon" not in contact and "Reply to the receipt we emailed you" in contact


# --- No seller research on public pages -------------------------------------------------------

def test_public_pages_show_no_seller_research_and_the_preview_shows_it_as_the_founders(founder, run_jobs):
    client = claimed_founder(founder, researched_item())
    state = built(client, run_jobs)
    base = publish(client)
    for page_id, html in public_pages(founder(), base).items():
        found = RESEARCH.search(visible(html))
        assert found is None, (page_id, found and visible(html)[max(0, found.start() - 80):found.end() + 80])
    preview = client.get(state["preview_url"]).get_data(as_text=True)
    assert "Why this product" in preview and "Only you see this section" in preview


def test_a_founders_own_product_has_no_your_own_product_eyebrow(client, run_jobs):
    made = client.post("/api/product", json={"name": "Hand-thrown Espresso Cups", "price": 38.0,
                                             "description": "Two stoneware cups, glazed by hand in our studio."})
    assert made.status_code == 200 and made.get_json()["status"] == "created", made.get_data(as_text=True)
    run_jobs()  # the offer's research
    state = built(client, run_jobs)
    for page_id in PAGE_IDS:
        html = client.get(state["preview_url"].rstrip("/") + "/" + page_path(page_id)).get_data(as_text=True)
        assert "your own product" not in visible(html).lower(), page_id
        assert 'class="kicker"' not in html, page_id


# --- Receipts come from the business and a reply reaches the desk ----------------------------------

def test_a_receipt_comes_from_the_business_and_a_reply_to_it_becomes_a_ticket(founder, run_jobs):
    client = desk_founder(founder, run_jobs)
    assert client.post("/api/settings/business", json={"business_name": BUSINESS}).status_code == 200
    built(client, run_jobs)
    publish(client)
    paid_order(founder())
    run_jobs()  # the order's mail

    mail = receipt()
    name, address = email.utils.parseaddr(mail["From"])
    assert name == BUSINESS and address.startswith("no-reply@")
    assert mail["Reply-To"] == f"support@{DESK_DOMAIN}"
    assert f"Write to support@{DESK_DOMAIN}" in text_of(mail)

    deliver(customer_mail(to=mail["Reply-To"], sender=f"Bea Buyer <{CUSTOMER}>", subject=f"Re: {mail['Subject']}",
                          text="Can it ship to my office instead?", in_reply_to=mail["Message-ID"]))
    [ticket] = desk_tickets(client)
    assert (ticket["customer_email"], ticket["subject"]) == (CUSTOMER, f"Re: {mail['Subject']}")


def test_without_a_support_address_the_receipt_replies_to_the_orders_address_which_reaches_the_desk(
        founder, run_jobs):
    client = published_store(founder, run_jobs)
    order = paid_order(founder())
    run_jobs()

    mail = receipt()
    name, _address = email.utils.parseaddr(mail["From"])
    assert name == "Product p00"  # the store goes by its product's name until the business has one
    reply_to = f"order+{order['order_id']}@localhost"  # the service's mail domain: the host of BASE_URL
    assert mail["Reply-To"] == reply_to

    # Mail to another order's address, or to an address of the service that is no order's, reaches nobody.
    deliver(customer_mail(to="order+00000000000000000000000000000000@localhost", sender=f"<{CUSTOMER}>"))
    deliver(customer_mail(to="someone@localhost", sender=f"<{CUSTOMER}>"))
    deliver(customer_mail(to=reply_to, sender=f"Bea Buyer <{CUSTOMER}>", subject=f"Re: {mail['Subject']}",
                          text="Where is it now?", in_reply_to=mail["Message-ID"]))
    [ticket] = desk_tickets(client)
    assert ticket["customer_email"] == CUSTOMER and ticket["support_address"] == reply_to

    # The founder's answer goes back with the same Reply-To, so the customer's next mail joins the ticket.
    answer = client.post("/api/helpdesk", json={"action": "reply", "ticket_id": ticket["id"],
                                                "text": "It left today."})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    [reply] = [m for m in messages_to(CUSTOMER) if "It left today." in text_of(m)]
    assert reply["Reply-To"] == reply_to
    deliver(customer_mail(to=reply_to, sender=f"<{CUSTOMER}>", subject="Re: thanks", text="Thanks!",
                          in_reply_to=reply["Message-ID"]))
    [ticket] = desk_tickets(client)
    assert ticket["status"] == "open"
