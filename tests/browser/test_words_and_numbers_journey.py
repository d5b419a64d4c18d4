"""Words and numbers a founder reads (issue 47, point 6), in Chromium on a desktop and a phone:
a pass says what it did and can be undone for a minute; after the last claim the empty feed
says what unlocks the next one (a share, or at the most claims that nothing does); a series of
one reading is its number with its date in words, not a line of one dot; a link to continue on
another device that can no longer be opened shows the ways to continue anyway."""
from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import urlsplit

import pytest

from models.clock import clock
from models.discovery import Passed
from services.day_words import day_words
from tests.browser.steps import CLAIM, DEMO_PHOTOS, catalog, claim_from, screen
from tests.factories import TODAY, item, load

WIDTHS = ["desktop", "phone"]


def held_card(page):
    return page.locator("section[aria-labelledby=yours-title] article.card-yours")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_pass_says_what_it_did_and_can_be_undone_for_a_minute(open_app, width):
    catalog(4)
    app = open_app(width)
    app.page.clock.install()  # the page's own clock, so the minute can pass without waiting for it
    page = screen(app, "/#/app/find", "find")
    first = held_card(page)
    first_id, first_name = first.get_attribute("data-product-id"), first.locator(".card-name").inner_text()

    # The pass says what it did, with an Undo that names the product.
    first.get_by_role("button", name="Pass for good").click()
    said = page.locator(f"[data-passed='{first_id}']")
    said.wait_for()
    assert f"You passed on {first_name}" in said.inner_text()
    assert "You can undo it for" in said.inner_text()
    page.wait_for_function("first => document.querySelector('article.card-yours').dataset.productId !== first",
                           arg=first_id)
    app.shot("passed-with-undo")

    # Undo: the card is back in the feed, held for the founder again.
    said.get_by_role("button", name=f"Undo: show {first_name} again").click()
    back = page.locator(f"[data-restored='{first_id}']")
    back.wait_for()
    assert f"{first_name} is back in your feed, held for you again." in back.inner_text()
    page.wait_for_function("first => document.querySelector('article.card-yours').dataset.productId === first",
                           arg=first_id)
    assert Passed.select().count() == 0
    app.shot("pass-undone")

    # After the minute the Undo is gone and the notice says the pass is final.
    held_card(page).get_by_role("button", name="Pass for good").click()
    said.wait_for()
    page.clock.fast_forward(61_000)
    said.get_by_text(f"Passing on {first_name} is final now").wait_for()
    assert said.get_by_role("button").count() == 0
    assert [p.product_id for p in Passed.select()] == [first_id]
    app.shot("pass-final")


@pytest.mark.parametrize("width", WIDTHS)
def test_an_undo_the_service_finds_too_late_says_so_in_words(open_app, width):
    catalog(3)
    app = open_app(width)
    page = screen(app, "/#/app/find", "find")
    first = held_card(page)
    first_id = first.get_attribute("data-product-id")
    first.get_by_role("button", name="Pass for good").click()
    said = page.locator(f"[data-passed='{first_id}']")
    said.wait_for()
    clock.advance(seconds=61)  # the service's minute is over before the page's (a slow tap, a sleeping phone)
    said.get_by_role("button", name="Undo: show").click()
    page.get_by_text("that minute is over: the pass is final now").wait_for()
    assert first_id not in [card.get_attribute("data-product-id") for card in page.locator("article.card").all()]
    app.shot("undo-too-late")


# Four shares lift the claim allowance to its most, five (services/discovery/allowance.py).
SHARE_FOUR_TIMES = """async () => { for (let i = 0; i < 4; i++) await fetch("/api/share", { method: "POST" }); }"""


@pytest.mark.parametrize("width", WIDTHS)
def test_after_the_last_claim_the_feed_says_what_unlocks_the_next_one(open_app, width):
    catalog(7)
    app = open_app(width)
    page = screen(app, "/#/app/find", "find")
    # The last free claim: the feed is empty, and says a share unlocks the next one.
    claim_from(held_card(page))
    at_allowance = page.locator("[data-reason=claim_limit_reached]")
    at_allowance.wait_for()
    assert at_allowance.get_attribute("data-unlock") == "share"
    assert "Share your link to unlock your next claim" in at_allowance.inner_text()
    assert at_allowance.get_by_role("button", name="Share to unlock one more").is_visible()

    # Shared up to the most claims, and each claimed: the feed says nothing unlocks another,
    # and offers no share that would unlock nothing.
    page.evaluate(SHARE_FOUR_TIMES)
    for claimed in (2, 3, 4):
        page.reload()
        page.wait_for_selector("main[data-screen=find][data-state=ready]", state="attached")
        claim_from(held_card(page))
        page.locator(f"section[data-claimed='{claimed}']").wait_for()
    # The last claim's question says it is the last one for good.
    page.reload()
    page.wait_for_selector("main[data-screen=find][data-state=ready]", state="attached")
    card = held_card(page)
    card.get_by_role("button", name=CLAIM).click()
    assert "no share unlocks another" in card.locator("[data-confirm=claim]").inner_text()
    card.get_by_role("button", name="Yes, claim it").click()
    at_most = page.locator("[data-reason=claim_limit_reached][data-unlock=none]")
    at_most.wait_for()
    assert "the most one founder can claim, so sharing unlocks no more" in at_most.inner_text()
    assert at_most.get_by_role("button").count() == 0
    app.shot("at-the-most-claims")


def in_words(day: date) -> str:
    """A calendar day as the app says it: "12 November 2026" (services/day_words.py, words.js)."""
    return day_words(day)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_series_of_one_reading_is_a_number_with_its_date(open_app, width):
    product = item("p00", name="Demo product 00")
    product["images"] = [f"/static/demo/{DEMO_PHOTOS[0]}"]
    rank_day = TODAY - timedelta(days=5)
    product["evidence"].append({"date": rank_day.isoformat(), "source": "amazon_bestsellers",
                                "metric": "bsr_rank", "value": 1800, "note": "one reading"})
    load(product)
    app = open_app(width)
    page = screen(app, "/#/app/find", "find")
    card = held_card(page)

    one = card.locator("li.trend[data-metric=bsr_rank]")
    assert one.locator("svg").count() == 0  # no line of one dot
    assert one.locator("[data-reading=one]").inner_text() == f"1,800 on {in_words(rank_day)}"
    several = card.locator("li.trend[data-metric=interest_index]")
    assert several.locator("svg[data-chart=spark]").count() == 1
    # The evidence figure names its newest day in words, not as 2026-11-17.
    assert f"latest {in_words(rank_day)}" in card.locator("dl.figures").inner_text()
    assert rank_day.isoformat() not in card.inner_text()
    app.shot("one-reading-in-words")


MAKE_A_LINK = """async () => (await (await fetch("/api/journey", { method: "POST",
  headers: { "Content-Type": "application/json" }, body: JSON.stringify({ route: "#/app/offer" }) })).json()).url"""


@pytest.mark.parametrize("width", WIDTHS)
def test_a_used_continue_link_shows_a_way_to_continue(open_app, width):
    first = open_app("desktop")
    first.goto("/#/app/home")
    url = urlsplit(first.page.evaluate(MAKE_A_LINK))
    route = f"{url.path}#{url.fragment}"
    other = open_app("desktop")
    other.goto(route)  # the link's one use
    other.page.wait_for_selector("main[data-screen=offer][data-state=ready]", state="attached")

    late = open_app(width).allow_console(r"status of 409 .* at .*/api/journey/")
    page = screen(late, route, "continue")
    page.get_by_role("alert").get_by_text("This link was used already").wait_for()
    ways = page.locator("[data-ways=continue]")
    assert "sign in with it on this device: everything you did comes with you" in ways.inner_text()
    assert "make a new link on the device you came from" in ways.inner_text()
    late.shot("continue-link-used-ways-on")
    ways.get_by_role("link", name="Sign in to continue").click()
    page.wait_for_selector("main[data-screen=login][data-state=ready]", state="attached")
