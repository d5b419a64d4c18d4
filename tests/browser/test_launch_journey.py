"""The launch state in Chromium: a founder claims a product, sees it in draft with "Get ready"
waiting on the store, builds the store, gets ready, tries to launch and is told what it
waits on (the store published, payments ready), publishes (checkout opens with it), launches,
and retires the product; another founder on a phone sees only their own draft."""
from __future__ import annotations

from tests.browser.steps import catalog, claim_from, screen

REFUSED_LAUNCH = r"status of 409 .* at .*/api/product-launch"


def step(page, action):
    return page.locator(f"[data-launch-state] li[data-action={action}]")


def test_a_founder_gets_ready_is_told_what_launching_waits_on_and_retires(open_app, run_jobs):
    catalog(3)
    founder = open_app("desktop").allow_console(REFUSED_LAUNCH)
    page = screen(founder, "/#/app/find", "find")
    claim_from(page.locator("article.card-yours"))
    page.locator("article.card-yours").get_by_text("Claimed by you").wait_for()
    run_jobs()  # the claim's research: the offer is researched

    page = screen(founder, "/#/app/launch", "launch")
    page.locator("[data-launch-state=draft]").get_by_role("heading", name="Your product is a draft").wait_for()
    assert step(page, "prepare").get_attribute("data-blocked") == "true"
    assert step(page, "prepare").locator("[data-waits]").get_attribute("data-waits") == "store_built"
    assert "Store built" in step(page, "prepare").inner_text()
    assert step(page, "retire").get_attribute("data-blocked") == "false"
    assert step(page, "launch").count() == 0 and step(page, "pause").count() == 0
    founder.shot("launch-draft")

    page = screen(founder, "/#/app/store", "store")
    page.get_by_role("button", name="Build my store").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)

    page = screen(founder, "/#/app/launch", "launch")
    assert step(page, "prepare").get_attribute("data-blocked") == "false"
    page.get_by_role("button", name="Get ready").click()
    page.locator("[data-launch-state=ready]").wait_for()
    page.locator("#toast").get_by_text("Get ready: your product is ready now.").wait_for()
    assert step(page, "launch").locator("[data-waits]").get_attribute("data-waits") == "store_published payments_ready"
    founder.shot("launch-ready")

    page.get_by_role("button", name="Launch", exact=True).click()
    notice = page.locator("[data-reason=launch_blocked]")
    notice.wait_for()
    assert "Store published, Payments ready" in notice.inner_text()
    blocked = page.locator("[data-blocked-by]")
    assert blocked.get_attribute("data-blocked-by") == "store_published payments_ready"
    assert [text.split(":")[0] for text in blocked.locator("li").all_inner_texts()] == [
        "Store published", "Payments ready"]
    assert "Publish your store" in blocked.locator("li").nth(1).inner_text()
    assert page.locator("[data-launch-state=ready]").count() == 1  # nothing changed
    founder.shot("launch-blocked")

    page = screen(founder, "/#/app/store", "store")
    page.get_by_role("button", name="Publish").click()
    page.locator("[data-store-status=published]").wait_for(timeout=60_000)

    # Published with checkout open (the sandbox payment provider): payments are ready, so it launches.
    page = screen(founder, "/#/app/launch", "launch")
    assert page.locator("[data-fact=payments_ready]").get_attribute("data-true") == "true"
    assert step(page, "launch").get_attribute("data-blocked") == "false"
    page.get_by_role("button", name="Launch", exact=True).click()
    page.locator("[data-launch-state=live]").wait_for()
    page.locator("#toast").get_by_text("Launch: your product is live now.").wait_for()
    founder.shot("launch-live")

    step(page, "retire").get_by_role("button", name="Retire").click()
    page.get_by_role("button", name="Yes, retire it").click()
    page.locator("[data-launch-state=retired]").wait_for()
    page.get_by_text("No step follows.").wait_for()
    assert page.locator("[data-launch-state] li[data-action]").count() == 0
    founder.shot("launch-retired")

    # Another founder, on a phone, sees their own product in draft, never the first one's.
    other = open_app("phone")
    page = screen(other, "/#/app/find", "find")
    other_id = page.locator("article.card-yours").get_attribute("data-product-id")
    claim_from(page.locator("article.card-yours"))
    page.locator("article.card-yours").get_by_text("Claimed by you").wait_for()
    page = screen(other, "/#/app/launch", "launch")
    page.locator("[data-launch-state=draft]").wait_for()
    # Named by its name, never its id: the other founder's product, never the first one's.
    named = page.locator(f"[data-product-id={other_id}]")
    assert other_id != "p00" and named.inner_text() == f"Demo product {other_id[1:]}"
    other.shot("launch-other-founder-draft")
