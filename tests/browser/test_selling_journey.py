"""When a store sells, said once and kept, in Chromium on a desktop and a phone (issue 47,
point 1): Home, Launch, Store and Tasks read where the product stands from one answer (GET
/api/launch `next_step`) and say the same of it. A founder publishes (the store sells), launches,
then pauses: every screen says it does not sell now, and a customer who had the product page
open before the pause and then tries to buy is refused in a customer's words, with no order
opened; the product page, opened again, says it is not on sale instead of the buy box."""
from __future__ import annotations

import pytest

from models.payment import CustomerOrder
from services.store.render import NOT_ON_SALE
from tests.browser.steps import (
    api_answer,
    catalog,
    claimed_and_built,
    publish_store,
    screen,
)

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

# The customer's refused buy: the browser logs the 409 of the form it posted.
REFUSED_BUY = r"status of 409 .* at .*/store/[^/]+/checkout"


def home_step(app) -> tuple[str, str, str]:
    """(step, selling, sentence) of Home's "Your next step"."""
    said = screen(app, "/#/app/home", "home").locator("[aria-labelledby=next-title] [data-step]")
    return said.get_attribute("data-step"), said.get_attribute("data-selling"), said.inner_text()


def launch_step(app) -> tuple[str, str, str]:
    said = screen(app, "/#/app/launch", "launch").locator("[role=status][data-step]")
    return said.get_attribute("data-step"), said.get_attribute("data-selling"), said.inner_text()


def store_sells(app) -> tuple[str, str]:
    said = screen(app, "/#/app/store", "store").locator("dd[data-selling]")
    return said.get_attribute("data-selling"), said.inner_text()


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_paused_product_stops_selling_and_every_screen_says_so(open_app, run_jobs, width):
    catalog(3)
    founder = open_app(width)
    claimed_and_built(founder, run_jobs)
    assert store_sells(founder)[0] == "false"
    step, selling, says = home_step(founder)
    assert (step, selling) == ("publish", "false") and "publish it" in says

    # Published: the store sells (the one rule), before any launch; every screen says so.
    screen(founder, "/#/app/store", "store")
    page = publish_store(founder)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")
    assert store_sells(founder) == ("true", "Yes: customers can buy from it.")
    step, selling, says = home_step(founder)
    assert (step, selling) == ("launch", "true") and "customers can buy" in says
    assert launch_step(founder)[:2] == ("launch", "true")
    founder.shot("selling-published")

    # Tasks counts the launch as Launch counts it: its facts true today, of all.
    stands = api_answer(founder, "/api/launch")["next_step"]
    page = screen(founder, "/#/app/tasks", "tasks")
    bar = page.locator("progress.launch-bar")
    assert (int(bar.get_attribute("value")), int(bar.get_attribute("max"))) == (stands["facts_true"],
                                                                                stands["facts_total"])
    assert f"{stands['facts_true']} of {stands['facts_total']} launch facts true today" in page.locator("main").inner_text()
    checklist = screen(founder, "/#/app/launch", "launch").locator("ul.checklist li[data-true=true]")
    assert checklist.count() == stands["facts_true"]

    # Launched, the customer opens the product page; then the founder pauses.
    page = screen(founder, "/#/app/launch", "launch")
    page.get_by_role("button", name="Get ready").click()
    page.locator("[data-launch-state=ready]").wait_for()
    page.get_by_role("button", name="Launch", exact=True).click()
    page.locator("[data-launch-state=live]").wait_for()
    assert home_step(founder)[:2] == ("live", "true")
    customer = open_app("phone").allow_console(REFUSED_BUY)
    shop = customer.page
    shop.goto(customer.base_url + public_url + "product")
    buy_box = shop.locator("form.buy-form").first
    buy_box.get_by_label("Email for your receipt").fill("late@example.com")

    page = screen(founder, "/#/app/launch", "launch")
    page.get_by_role("button", name="Pause").click()
    page.locator("[data-launch-state=paused]").wait_for()
    step, selling, says = launch_step(founder)
    assert (step, selling) == ("paused", "false") and "cannot order" in says
    founder.shot("selling-paused-launch")
    step, selling, says = home_step(founder)
    assert (step, selling) == ("paused", "false") and "cannot order" in says
    selling, says = store_sells(founder)
    assert selling == "false" and "cannot order" in says
    founder.shot("selling-paused-store")

    # The customer's open page tries to buy: refused in a customer's words, nothing ordered.
    buy_box.locator("button[type=submit]").click()
    shop.get_by_text("not on sale right now").first.wait_for()
    assert CustomerOrder.select().count() == 0
    shop.goto(customer.base_url + public_url + "product")
    shop.get_by_text(NOT_ON_SALE).wait_for()
    assert shop.locator("form.buy-form").count() == 0
    customer.shot("selling-paused-product-page")
