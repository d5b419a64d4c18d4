"""Store metrics in Chromium: a founder publishes the store; two visitors (their own browsers,
no founder cookie) open the public store, one presses the buy button; the founder's Store
screen then shows 2 visitor sessions and 1 added to cart, with paid said to be unverified.

The store does not take payments yet, so its buy box is closed (the document's `checkout` is
false). This test opens it the way payments will: it sets `checkout: true` on the published
document in the test database, so the real form can be used by a real visitor. Pressing the
button with no email address leaves the form unsent (the field is required; checkout is not
built), which is the add_to_cart step and nothing more."""
from __future__ import annotations

import json

from models.funnel import FunnelEvent
from models.store import Store, StoreVersion
from tests.browser.steps import catalog, claim_from, screen


def _track_event(response, event: str) -> bool:
    if not response.url.endswith("/api/track") or response.request.method != "POST":
        return False
    return json.loads(response.request.post_data or "{}").get("event") == event


def _open_buy_box(product_id: str) -> None:
    store = Store.get(Store.product == product_id)
    row = StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == store.published_version)
    StoreVersion.update(document=row.document | {"checkout": True}).where(
        StoreVersion.store == product_id, StoreVersion.number == row.number).execute()


def test_visitors_of_the_public_store_show_on_the_founders_store_screen(open_app):
    catalog(3)
    founder = open_app("desktop")
    page = screen(founder, "/#/app/find", "find")
    claim_from(page.locator("article.card-yours"))
    page.locator("article.card-yours").get_by_text("Claimed by you").wait_for()

    page = screen(founder, "/#/app/store", "store")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    page.get_by_role("button", name="Publish").click()
    page.locator("[data-store-status=published]").wait_for(timeout=60_000)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")
    preview_url = page.get_by_role("link", name="Open the preview").get_attribute("href")
    # Published, nobody has come yet.
    page.locator("[data-metrics=ready]").wait_for()
    assert page.locator("#metrics-title ~ figure [data-metric=sessions]").inner_text() == "0"
    founder.shot("store-metrics-empty")

    # The founder's own preview carries no tracking script: it never counts.
    preview = founder.context.new_page()
    preview.goto(founder.base_url + preview_url + "product")
    preview.get_by_text("Preview: not published yet").wait_for()
    assert preview.locator("script[src$='track.js']").count() == 0
    preview.close()

    _open_buy_box("p00")

    # The first visitor reads the home page, then the product page, and presses the buy button.
    first = open_app("phone")
    with first.page.expect_response(lambda r: _track_event(r, "page_view")) as viewed:
        first.page.goto(first.base_url + public_url)
    assert viewed.value.status == 200  # (a keepalive request's body cannot be read back here)
    first.shot("visitor-store-home")
    with first.page.expect_response(lambda r: _track_event(r, "page_view")):
        first.page.goto(first.base_url + public_url + "product")
    buy = first.page.locator("form.buy-form button[type=submit]")
    assert buy.is_enabled()
    with first.page.expect_response(lambda r: _track_event(r, "add_to_cart")) as carted:
        buy.click()  # the email address is required: the form is not sent, the step is recorded
    assert carted.value.status == 200
    first.shot("visitor-pressed-buy")

    # The second visitor only looks.
    second = open_app("desktop")
    with second.page.expect_response(lambda r: _track_event(r, "page_view")):
        second.page.goto(second.base_url + public_url + "product")
    second.shot("visitor-store-product")

    # Store visitors are never given a founder's cookie.
    for visitor in (first, second):
        assert [c for c in visitor.context.cookies() if c["name"] == "ff_session"] == []
    assert FunnelEvent.select().where(FunnelEvent.event == "page_view").count() == 2

    screen(founder, "/#/app/home", "home")  # leave the Store screen, then come back to it
    page = screen(founder, "/#/app/store", "store")
    page.locator("[data-metrics=ready]").wait_for()
    figures = {key: page.locator(f"#metrics-title ~ figure [data-metric={key}]").inner_text()
               for key in ("sessions", "cart", "checkout", "paid")}
    assert figures == {"sessions": "2", "cart": "1", "checkout": "0", "paid": "0"}
    # Each count is said once: by the funnel's caption, not again in a list beside it.
    assert page.locator("[data-metric=sessions]").count() == 1
    assert page.get_by_text("Paid: unverified browser events").is_visible()
    founder.shot("store-metrics")
