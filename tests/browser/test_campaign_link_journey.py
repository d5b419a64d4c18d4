"""A customer who arrives by an ad's link (issue 49.5), in Chromium. A founder's campaign runs
on the sandbox platform for half a day ($7.22 spent). A customer on a phone opens the store's
home page from the ad's landing address, goes on to the product page by its link (the address
no longer carries the campaign), buys from the buy box and pays on the sandbox provider's page.
The store's script kept the campaign for the visit: the funnel's page view and the paid order
are counted to it, and the founder's Orders screen (on a desktop and a phone) says what the
campaign's spend bought: one paid order, $7.22 of ads for it, and what came back for each
dollar."""
from __future__ import annotations

import re

import pytest

from jobs.growth import deliver_ads
from models.clock import clock
from models.funnel import FunnelEvent
from models.payment import CustomerOrder
from models.store import Store
from tests.ad_factories import ad_founder
from tests.browser.steps import HOSTED_PAGE, PAY, screen
from tests.factories import cookie_of
from tests.growth_factories import campaign, funded, saved_book
from tests.store_pages import publish

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server", "frozen_clock")

SPENT = "$7.22"  # "Knife strip launch" delivers half its first day (tests/test_ads_delivery.py)


@pytest.fixture
def advertiser(founder, run_jobs):
    """A founder whose campaign ran half a day on the sandbox platform; answers (client, its key)."""
    client = ad_founder(founder, run_jobs)
    publish(client)
    funded(client, 10_000)
    book = saved_book(client, campaigns=[campaign("Knife strip launch", status="active")])
    deliver_ads()
    clock.advance(86400)
    deliver_ads()
    return client, book["book"]["campaigns"][0]["key"]


def bought_by_way_of_the_ad(customer, key: str) -> None:
    page = customer.page
    page.goto(f"{customer.base_url}/store/{Store.get().slug}/?utm_source=meta&utm_medium=paid&utm_campaign={key}")
    page.locator("a[href$='product']").first.click()
    page.wait_for_url(re.compile(r"/product$"))
    assert "utm_campaign" not in page.url
    buy_box = page.locator("form.buy-form").first
    buy_box.get_by_label("Email for your receipt").fill("from-an-ad@example.com")
    customer.shot("buy-box-after-the-ads-link")
    buy_box.locator("button[type=submit]").click()
    page.wait_for_url(HOSTED_PAGE)
    page.get_by_role("heading", name=PAY).wait_for()
    shipping = page.get_by_role("group", name="Shipping address")
    for label, value in {"Full name": "Ada Lovelace", "Address": "12 Analytical Row", "City": "London",
                         "Postal code": "N1 7AA"}.items():
        shipping.get_by_label(label, exact=True).fill(value)
    shipping.get_by_label("Country").select_option("GB")
    page.get_by_role("button", name=PAY).click()
    page.get_by_role("heading", name="Thank you for your order").wait_for()


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_an_order_from_an_ads_link_is_counted_to_its_campaign_and_orders_says_what_the_ad_bought(
        advertiser, open_app, run_jobs, width):
    client, key = advertiser
    bought_by_way_of_the_ad(open_app("phone"), key)
    run_jobs()
    [order] = CustomerOrder.select()
    assert (order.state, order.campaign) == ("paid", key)
    views = FunnelEvent.select().where(FunnelEvent.event == FunnelEvent.PAGE_VIEW)
    assert views.count() >= 1 and {view.campaign for view in views} == {key}

    founder = open_app(width)
    founder.context.add_cookies([{"name": "ff_session", "value": cookie_of(client), "url": founder.base_url}])
    page = screen(founder, "/#/app/orders", "orders")
    row = page.locator("tr[data-campaign='Knife strip launch']")
    assert row.get_attribute("data-paid-orders") == "1"
    cells = [cell.inner_text().strip() for cell in row.locator("th, td").all()]
    price = order.amount_minor / 100
    assert cells == ["Knife strip launch", SPENT, "1", SPENT, f"${round(price / 7.22, 2):.2f}"]
    founder.shot(f"orders-from-your-ads-{width}")
    if width == "phone":
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
