"""The support desk in Chromium (issue 25), on a phone (390 px) and a desktop: a customer's
mail, delivered into the desk's Maildir as a mail server would, becomes a ticket when the
founder opens the Desk; the founder answers it (the reply is mailed to the customer, threaded),
the customer rates the answer from the reply's link, and the founder closes the ticket with a
resolution (closing without one asks for it first) and sees the rating on the Desk. Screenshots are
saved at each step; no screen shows a route, a setting's name or a field name."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from jobs import desk as desk_jobs
from models.desk import Ticket
from services import business, domains
from services.sessions import find_session
from tests import mailbox
from tests.browser.steps import catalog, claimed_and_built, screen
from tests.factories import customer_mail, deliver

NOT_FOUNDER_WORDS = re.compile(r"/api/|ticket_id|customer_email|support_email_local|INBOUND_MAILDIR|IMAP_URL|"
                               r"\bpending\b|resolution_required|Message-ID")


def founder_words_only(page) -> None:
    text = page.locator("main").inner_text()
    assert not NOT_FOUNDER_WORDS.search(text), NOT_FOUNDER_WORDS.search(text).group(0)


def support_address_set_up(app, domain: str) -> None:
    """The founder's support address: its name saved in their settings and a domain connected
    to their store (what the Settings and Domains screens do; those screens have tests of their own)."""
    cookie = next(c["value"] for c in app.context.cookies() if c["name"] == "ff_session")
    session = find_session(cookie)
    business.save(session=session, values={"support_email_local": "help", "business_name": "Knife Co"})
    assert domains.connect_paid_domain(domain_order_id=domains.start_domain_order(session=session, domain=domain).id)


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_a_customers_mail_becomes_a_ticket_the_founder_answers_and_closes(open_app, run_jobs, viewport):
    catalog(1)
    app = open_app(viewport)
    claimed_and_built(app, run_jobs)
    support_address_set_up(app, "knife-co.shop")

    page = screen(app, "/#/app/desk", "desk")
    empty = page.locator("main [data-reason=no_tickets_yet]")
    assert "help@knife-co.shop" in empty.inner_text()
    # How customers rate the answers has its place on the desk, empty until a first rating.
    rated = page.locator("section[aria-labelledby=rated-title] [data-picture=satisfaction]")
    assert "No customer has rated an answer yet" in rated.inner_text()
    founder_words_only(page)
    app.shot("desk-empty")

    deliver(customer_mail(to="help@knife-co.shop", sender="Ana Lima <ana@example.net>",
                          subject="Does it hold a chef's knife?",
                          text="Hello,\nwill the strip hold a 25 cm chef's knife?\nThanks, Ana",
                          message_id="<ana-1@example.net>"))
    desk_jobs.poll_mail.send()  # what the clock sends every MAIL_POLL_SECONDS; a worker files the mail
    run_jobs()
    app.page.goto("about:blank")  # opened anew: the wait is for this rendering, not the last one
    page = screen(app, "/#/app/desk", "desk")
    tickets = page.locator("main .desk-list li")
    assert tickets.count() == 1 and page.locator("a[data-status=open]").get_attribute("data-count") == "1"
    assert "Ana Lima" in tickets.first.inner_text()
    said = page.locator("main [data-support-email]").inner_text()
    assert "Customers write to help@knife-co.shop" in said and "New mail shows here within a minute" in said
    founder_words_only(page)
    app.shot("desk-new-ticket")

    page.get_by_role("link", name="Does it hold a chef's knife?").click()
    page.wait_for_selector("main[data-screen=desk][data-state=ready] section[data-ticket-id]", state="attached")
    assert "will the strip hold a 25 cm chef's knife?" in page.locator("main .thread").inner_text()
    app.shot("desk-ticket")

    page.get_by_label("Your reply").fill("Hello Ana,\nyes: it holds blades up to 30 cm.\nJo at Knife Co")
    page.get_by_role("button", name="Send reply").click()
    page.locator("main .thread li[data-direction=out]").wait_for()
    assert page.locator("section[data-ticket-id]").get_attribute("data-status") == "pending"
    [mail] = mailbox.messages_to("ana@example.net")
    assert mail["In-Reply-To"] == "<ana-1@example.net>" and mail["Reply-To"] == "help@knife-co.shop"
    assert "it holds blades up to 30 cm" in mailbox.text_of(mail)
    founder_words_only(page)
    app.shot("desk-replied")

    # Ana rates the answer from the link at the end of the reply, in one click on her phone.
    rating = re.search(r"https?://\S+/rate/\S+", mailbox.text_of(mail)).group(0)
    customer = open_app("phone")
    customer.page.goto(customer.base_url + urlsplit(rating).path)
    customer.page.get_by_role("button", name="5 · Very happy").click()
    customer.page.locator("main[data-rating-state=recorded]").wait_for()
    customer.shot("customer-rated")

    # Closing asks for how it was resolved first.
    app.allow_console(r"status of 400 .* at .*/api/helpdesk")
    page.get_by_role("button", name="Close ticket").click()
    page.locator("main [data-reason=resolution_required]").wait_for()
    app.shot("desk-close-needs-a-resolution")
    page.get_by_label("How was it resolved?").fill("Told her the strip holds blades up to 30 cm.")
    page.get_by_role("button", name="Close ticket").click()
    page.locator("main section[data-ticket-id][data-status=closed]").wait_for()
    assert "Told her the strip holds blades up to 30 cm." in page.locator("main [data-resolution]").inner_text()
    ticket = Ticket.get()
    assert (ticket.status, ticket.resolution) == ("closed", "Told her the strip holds blades up to 30 cm.")
    founder_words_only(page)
    app.shot("desk-closed")

    page = screen(app, "/#/app/desk?status=closed", "desk")
    assert page.locator("a[data-status=closed]").get_attribute("data-count") == "1"
    assert page.locator("main .desk-list li[data-status=closed]").count() == 1
    rated = page.locator("section[aria-labelledby=rated-title] figure[data-picture=satisfaction]")
    assert rated.get_attribute("data-count") == "1" and "on average 5 out of 5" in rated.inner_text()
    app.shot("desk-closed-list")
