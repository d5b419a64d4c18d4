"""Two ways into a store in Chromium: a founder with a product of their own makes it on the
Product screen and builds its store; a founder who only holds a catalog product builds and
previews its store, and is told to claim it when publishing. Shots on a phone."""
from __future__ import annotations

from tests.browser.steps import catalog, screen


def test_a_founder_sells_a_product_of_their_own(open_app):
    app = open_app("phone")
    page = screen(app, "/#/app/product", "product")
    page.get_by_role("heading", name="Sell something of your own").wait_for()
    app.shot("product-own-empty")
    page.get_by_label("Name").fill("Hand-thrown Espresso Cups")
    page.get_by_label("Description").fill("Two stoneware cups, glazed by hand in our studio.")
    page.get_by_label("Price (USD)").fill("38")
    page.get_by_label("What one costs you (USD, optional)").fill("11.50")
    page.get_by_role("button", name="Start selling it").click()
    page.locator("[data-created=true]").wait_for()
    page.get_by_text("Hand-thrown Espresso Cups is yours").wait_for()
    app.shot("product-own-created")

    page.get_by_role("link", name="Build its store").click()
    page.wait_for_selector("main[data-screen=store][data-state=ready]", state="attached")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    app.shot("store-of-own-product")

    page = screen(app, "/#/app/offer", "offer")
    assert page.locator("[data-figure=price]").first.inner_text().startswith("$38")


def test_a_held_product_gets_its_store_and_publishing_asks_for_the_claim(open_app):
    catalog(2)
    app = open_app("phone")
    page = screen(app, "/#/app/find", "find")
    assert page.locator("article.card-yours").count() == 1  # held, not claimed
    page = screen(app, "/#/app/store", "store")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    app.shot("store-built-on-a-hold")
    app.allow_console(r"status of 409 .* at .*/api/store/publish")
    page.get_by_role("button", name="Publish").click()
    page.locator("[data-reason=claim_required]").wait_for()
    page.get_by_role("link", name="Claim it from your feed").wait_for()
    app.shot("publish-needs-the-claim")
