"""Decisions that cannot be undone, in Chromium on a phone: holding another card names the
product it released; the claim button says what it spends and asks once, in the page; a
claim at the allowance leaves the claimed product in view, and so does a share, whose new
hold takes the feed; the menu's "Your products" shows it whatever the feed shows. The card's
margin says it is before shipping and fees."""
from __future__ import annotations

from models.discovery import Claim
from tests.browser.steps import CLAIM, catalog, claim_from, screen


def test_a_claim_says_what_it_spends_asks_once_and_stays_in_view(open_app):
    catalog(5)
    app = open_app("phone")
    page = screen(app, "/#/app/find", "find")
    first = page.locator("article.card-yours")
    first_id, first_name = first.get_attribute("data-product-id"), first.locator(".card-name").inner_text()
    assert "Margin before shipping and fees" in first.inner_text()

    # Holding another card says which product it let go.
    other = page.locator("article.card:not(.card-yours)").first
    other_id = other.get_attribute("data-product-id")
    other.get_by_role("button", name="Hold this one").click()
    released = page.locator(f"[data-released='{first_id}']")
    released.wait_for()
    assert f"{first_name} is no longer held for you" in released.inner_text()
    app.shot("hold-moved-and-said")

    # The claim button names what it spends, and asks before spending it.
    held = page.locator("article.card-yours")
    assert held.get_attribute("data-product-id") == other_id
    claim = held.get_by_role("button", name=CLAIM)
    assert claim.inner_text() == "Claim it: uses your 1 claim"
    claim.click()
    question = held.locator("[data-confirm=claim]")
    assert "uses your 1 claim" in question.inner_text()
    assert "feed stays empty until you share your link" in question.inner_text()
    app.shot("claim-asks")
    question.get_by_role("button", name="Not now").click()
    assert question.count() == 0 and Claim.select().count() == 0
    assert page.evaluate("document.activeElement.dataset.action") == "claim"

    claim_from(held)
    page.get_by_text("Claimed", exact=True).wait_for()
    assert [c.product_id for c in Claim.select()] == [other_id]
    # At the allowance the feed is empty, and the claimed product is still here.
    page.locator("[data-reason=claim_limit_reached]").wait_for()
    # ...said once: the claim's notice calls it the last, the feed says what that means.
    text = page.locator("main").inner_text()
    assert "That was your last claim for now." in text and text.count("You have used") == 1, text
    claimed = page.locator("section[data-claimed] article.card-yours")
    assert claimed.get_attribute("data-product-id") == other_id and "Claimed by you" in claimed.inner_text()
    app.shot("claimed-at-the-allowance")

    # A share unlocks one more claim: the feed holds a new card, the claim stays first.
    page.get_by_role("button", name="Share to unlock one more").click()
    page.get_by_text("Your link is ready", exact=True).wait_for()
    fresh = page.locator("section[aria-labelledby=yours-title] article.card-yours")
    fresh.wait_for()
    assert fresh.get_attribute("data-product-id") != other_id
    assert fresh.get_by_role("button", name=CLAIM).inner_text() == "Claim it: uses your last claim"
    assert claimed.get_attribute("data-product-id") == other_id
    app.shot("after-a-share")

    # The menu's "Your products" shows the claim, whatever the feed shows.
    page.get_by_role("button", name="Menu").click()
    page.locator("#nav-list").get_by_role("link", name="Your products").click()
    page.wait_for_selector("main[data-screen=find][data-state=ready]", state="attached")
    page.get_by_role("heading", name="Your products", level=1).wait_for()
    yours = page.locator("main article.card")
    assert yours.count() == 1 and yours.get_attribute("data-product-id") == other_id
    assert "You have used 1 of your 2 claims: 1 left" in page.locator("main").inner_text()
    assert page.locator("#nav-list [aria-current=page]").inner_text() == "Your products"
    app.shot("your-products")
