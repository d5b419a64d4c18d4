"""The order a customer writes about, on the Desk's ticket screen (issue 50 point 4), in
Chromium on a desktop and a phone: a customer pays for an order in the founder's published
store and then writes to the store's support address; the ticket shows that order (its
number, what it is, its total, the day and its state, in the founder's words), and the
assistant's draft answers its status."""
from __future__ import annotations

import re

import pytest

from jobs import desk as desk_jobs
from services import business, domains
from services.sessions import find_session
from tests.browser.steps import PAY, ask_for_one, catalog, claimed_and_built, publish_store, screen
from tests.factories import customer_mail, deliver

pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

CUSTOMER = "ana@example.net"
SHIP_TO = {"Full name": "Ana Lima", "Address": "12 Analytical Row", "City": "London", "Postal code": "N1 7AA"}
DAY = re.compile(r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|"
                 r"December) \d{4}\b")


def support_address(app, domain: str) -> None:
    """The founder's support address and the agent drafting replies (what the Settings and
    Domains screens do; they have tests of their own)."""
    cookie = next(c["value"] for c in app.context.cookies() if c["name"] == "ff_session")
    session = find_session(cookie)
    business.save(session=session, values={"support_email_local": "help", "business_name": "Knife Co",
                                           "ai_email_mode": "draft"})
    assert domains.connect_paid_domain(domain_order_id=domains.start_domain_order(session=session, domain=domain).id)


def paid_order(app, public_url: str) -> str:
    """The customer buys one from the public product page and pays; answers the order's number."""
    shop = ask_for_one(app, public_url, CUSTOMER)
    shipping = shop.get_by_role("group", name="Shipping address")
    for label, value in SHIP_TO.items():
        shipping.get_by_label(label, exact=True).fill(value)
    shipping.get_by_label("Country").select_option("GB")
    shop.get_by_role("button", name=PAY).click()
    shop.wait_for_url(re.compile(r"/store/[^/]+/thanks\?order="))
    return shop.locator(".order-id").inner_text()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_ticket_shows_the_order_its_customer_wrote_about(open_app, run_jobs, viewport):
    catalog(1)
    app = open_app(viewport)
    claimed_and_built(app, run_jobs)
    support_address(app, "knife-co.shop")
    public_url = publish_store(app).get_by_role("link", name="Open the public store").get_attribute("href")
    number = paid_order(open_app("phone"), public_url)
    run_jobs()

    deliver(customer_mail(to="help@knife-co.shop", sender=f"Ana Lima <{CUSTOMER}>", subject="My order",
                          text="Hello,\nhas my order shipped yet?\nThanks, Ana"))
    desk_jobs.poll_mail.send()
    run_jobs()
    page = screen(app, "/#/app/desk", "desk")
    page.get_by_role("link", name="My order").click()
    page.wait_for_selector("main[data-screen=desk][data-state=ready] section[data-ticket-id]", state="attached")
    shown = page.locator(f"main dd[data-order-number='{number}']")
    text = shown.inner_text()
    assert f"Order {number}: 1 ×" in text and "$" in text and DAY.search(text), text
    assert shown.get_attribute("data-order-state") == "paid" and "Paid" in text
    assert "Their latest order from the address they wrote from." in text
    draft = page.locator("main .thread li[data-direction=draft]").inner_text()
    assert f"Your order {number}" in draft and "paid on" in draft
    app.shot("desk-ticket-with-order")
