"""Days, order numbers and checkout words as a founder and a customer read them (issue 47,
point 6), in Chromium on a desktop and a phone: the Store screen says what a queued build is
doing ("In the queue"), never that it waits for a worker; a customer's thank-you page gives the
order's short number, the one the founder's Orders screen shows; a checkout its customer
cancelled says "cancelled" on the thank-you page and on Orders, never "expired"; and every day
and time on those screens is written in the one style (words.js: "5 December 2026",
"5 December 2026, 12:00 UTC")."""
from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from services.day_words import day_words
from tests.browser.steps import PAY, ask_for_one, catalog, claim_own_card, publish_store, screen

pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

CUSTOMER = "shopper@example.com"
SHIP_TO = {"Full name": "Ada Lovelace", "Address": "12 Analytical Row", "City": "London", "Postal code": "N1 7AA"}
MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
# "5 December 2026, 12:00 UTC": a day in words, a 24-hour time, the zone's short name.
MOMENT = re.compile(rf"^\d{{1,2}} {MONTH} \d{{4}}, \d{{2}}:\d{{2}} [A-Z][A-Za-z0-9+\-:]*$")
ISO_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
WHOLE_ID = re.compile(r"\b[0-9a-f]{32}\b")
VISIBLE_TEXT = "() => document.body.innerText"


def buy(app, public_url: str):
    """A customer opens the public product page, asks for one, and is on the hosted page."""
    shop = ask_for_one(app, public_url, CUSTOMER)
    shop.get_by_role("heading", name=PAY).wait_for()
    return shop


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_queued_builds_order_numbers_cancelled_checkouts_and_days_read_in_a_founders_words(open_app, run_jobs,
                                                                                          worker, width):
    catalog(3)
    founder = open_app(width)
    # The customers shop at the other width: the thank-you page is read on both too.
    shopper_width = "phone" if width == "desktop" else "desktop"
    claim_own_card(founder)
    run_jobs()  # the claim's research

    # The build waits its turn: the screen says so in the founder's words.
    page = screen(founder, "/#/app/store", "store")
    worker.pause()
    try:
        page.get_by_role("button", name="Build my store").click()
        waiting = page.locator(".progress-text")
        waiting.get_by_text("In the queue, starting in a moment").wait_for()
        said = page.locator("main").inner_text()
        assert "worker" not in said.lower(), said
        founder.shot("store-build-queued")
    finally:
        worker.resume()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    updated = page.locator("dt", has_text="Updated").locator("xpath=following-sibling::dd[1]").inner_text()
    assert MOMENT.match(updated), updated
    page = publish_store(founder)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")

    # A customer pays: the thank-you page gives the order's short number.
    customer = open_app(shopper_width)
    shop = buy(customer, public_url)
    shipping = shop.get_by_role("group", name="Shipping address")
    for label, value in SHIP_TO.items():
        shipping.get_by_label(label, exact=True).fill(value)
    shipping.get_by_label("Country").select_option("GB")
    shop.get_by_role("button", name=PAY).click()
    shop.wait_for_url(re.compile(r"/store/[^/]+/thanks\?order="))
    shop.get_by_role("heading", name="Thank you for your order").wait_for()
    paid_id = re.search(r"order=([0-9a-f]+)", shop.url).group(1)
    number = shop.locator(".order-id").inner_text()
    assert number == paid_id[:8]
    text = shop.evaluate(VISIBLE_TEXT)
    assert f"Your order number is {number}." in text and not WHOLE_ID.search(text), text
    customer.shot("thank-you-short-number")

    # Another customer cancels on the payment page: cancelled, not expired.
    leaver = open_app(shopper_width)
    shop = buy(leaver, public_url)
    shop.get_by_role("button", name="Cancel and go back").click()
    shop.wait_for_url(re.compile(r"/store/[^/]+/thanks\?order=.*cancelled=1"))
    shop.get_by_role("heading", name="You cancelled this order").wait_for()
    cancelled_id = re.search(r"order=([0-9a-f]+)", shop.url).group(1)
    text = shop.evaluate(VISIBLE_TEXT)
    assert "nothing was charged" in text and "expired" not in text.lower(), text
    leaver.shot("thank-you-cancelled")
    run_jobs()  # the receipt and the provider's notifications

    # Orders: the same number, the cancelled checkout said so, every time in the one style.
    page = screen(founder, "/#/app/orders", "orders")
    row = page.locator(f"tr[data-order-id='{paid_id}']")
    assert row.locator("th span").first.inner_text() == number
    placed, paid = row.locator("td").nth(-2).inner_text(), row.locator("td").nth(-1).inner_text()
    assert MOMENT.match(placed) and MOMENT.match(paid), (placed, paid)
    gone = page.locator(f"tr[data-order-id='{cancelled_id}']")
    assert gone.locator("[data-expired-because=cancelled]").inner_text() == "Cancelled by the customer"
    assert gone.locator("th span").first.inner_text() == cancelled_id[:8]
    text = page.evaluate(VISIBLE_TEXT)
    assert "Expired" not in text and not ISO_MOMENT.search(text) and not WHOLE_ID.search(text), text
    founder.shot("orders-numbers-and-cancelled")

    # words.js writes what services/day_words.py writes, in the founder's own zone.
    zone, said_day, said_moment = page.evaluate("""async () => {
      const words = await import("/static/app/words.js");
      return [Intl.DateTimeFormat().resolvedOptions().timeZone, words.dayWords("2026-12-05"),
        words.momentWords(1796472000)];
    }""")
    assert said_day == day_words("2026-12-05") == "5 December 2026"
    local = datetime.fromtimestamp(1_796_472_000, ZoneInfo(zone))
    assert said_moment.startswith(f"{day_words(local.date())}, {local:%H:%M} "), said_moment
    assert MOMENT.match(said_moment), said_moment
