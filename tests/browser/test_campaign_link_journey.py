"""A customer who arrives by an ad's link (issue 49.5), in Chromium on a phone: they open the
store's home page from an address carrying the campaign's utm_campaign, go on to the product
page by its link (the address no longer carries it), buy from the buy box and pay on the
sandbox provider's page. The store's script kept the campaign for the visit: the funnel's page
view and the paid order are both counted to that campaign."""
from __future__ import annotations

import re

import pytest

from models.funnel import FunnelEvent
from models.payment import CustomerOrder
from models.store import Store
from tests.browser.steps import HOSTED_PAGE, PAY

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

TAG = "a1b2c3d4e5f60718"  # a campaign's key, as its ad's landing address carries it


def test_an_order_from_an_ads_link_is_counted_to_its_campaign(shop, open_app, run_jobs):
    customer = open_app("phone")
    page = customer.page
    page.goto(f"{customer.base_url}/store/{Store.get().slug}/?utm_source=meta&utm_medium=paid&utm_campaign={TAG}")
    page.locator("form.buy-form, a[href$='product']").first.wait_for()
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
    run_jobs()

    [order] = CustomerOrder.select()
    assert (order.state, order.campaign, order.email) == ("paid", TAG, "from-an-ad@example.com")
    views = FunnelEvent.select().where(FunnelEvent.event == FunnelEvent.PAGE_VIEW)
    assert views.count() >= 1 and {view.campaign for view in views} == {TAG}
