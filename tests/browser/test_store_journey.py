"""The store in Chromium: a founder builds their store from the Store screen, watches its
stages, previews it, publishes it; visitors open the public store on a phone and a desktop."""
from __future__ import annotations

from tests.browser.steps import catalog, claim_from, screen


def test_a_founder_builds_previews_and_publishes_the_store_and_visitors_open_it(open_app, run_jobs):
    catalog(3)
    founder = open_app("desktop")
    page = screen(founder, "/#/app/find", "find")
    claim_from(page.locator("article.card-yours"))
    page.locator("article.card-yours").get_by_text("Claimed by you").wait_for()

    page = screen(founder, "/#/app/store", "store")
    page.get_by_role("heading", name="No store yet").wait_for()
    founder.shot("store-not-started")
    page.get_by_role("button", name="Build my store").click()
    # The screen follows the build through its stages until it is built.
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    founder.shot("store-built")

    preview_url = page.get_by_role("link", name="Open the preview").get_attribute("href")
    preview = founder.context.new_page()
    preview.goto(founder.base_url + preview_url)
    preview.get_by_text("Preview: not published yet").wait_for()
    assert preview.locator("h1").count() == 1
    preview.close()

    page.get_by_role("button", name="Publish").click()
    page.locator("[data-store-status=published]").wait_for(timeout=60_000)
    founder.shot("store-published")
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")
    # One word for one state: the store is published (a product is live, on Launch, never the store).
    assert page.locator("[data-store-state=published]").inner_text().startswith("Published.")
    assert "live" not in page.locator("#state-title").inner_text()
    # The address, as text a founder can copy, and a Copy button that puts it on the clipboard.
    address = page.get_by_label("Your store's address, to share")
    assert address.input_value() == founder.base_url + public_url
    founder.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=founder.base_url)
    page.get_by_role("button", name="Copy", exact=True).click()
    page.locator("#toast").get_by_text("Copied your store's address.").wait_for()
    assert page.evaluate("() => navigator.clipboard.readText()") == founder.base_url + public_url

    page = screen(founder, "/#/app/launch", "launch")
    assert page.locator("[data-fact=store_built]").get_attribute("data-true") == "true"
    assert page.locator("[data-fact=store_published]").get_attribute("data-true") == "true"

    for viewport in ("phone", "desktop"):
        visitor = open_app(viewport)
        visitor.page.goto(visitor.base_url + public_url)
        assert visitor.page.locator("h1").count() == 1
        assert visitor.page.locator("script[type='application/ld+json']").count() >= 1
        visitor.shot("public-store-home")
        visitor.page.goto(visitor.base_url + public_url + "product")
        assert visitor.page.locator("h1").count() == 1
        visitor.shot("public-store-product")
