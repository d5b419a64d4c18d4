"""A store led with its proof of demand, in Chromium on a desktop and a phone (issue 47, point 3:
"Lead the home page with" shows what the page really leads with; point 2: shoppers read no
research): a founder whose product's catalog line has a steady demand series, a best-seller rank
and a search count builds the store, chooses "The proof of demand" to lead the home page with on
the Edit screen, which then says the version being edited leads with it, as the Store screen's
picture of the home page draws it; once published, the first thing a shopper reads on the public
home page is "Popular right now" and its line in a shopper's words (services/store/proof.py),
with no figure, rank, source or research word anywhere on the page."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from services.day_words import MONTHS
from services.store.proof import POPULAR
from tests.browser.steps import claimed_and_built, publish_store, screen
from tests.factories import TODAY, load
from tests.store_pages import RESEARCH, researched_item, visible

PRODUCT = "Product p00"  # researched_item's name, said in the shopper line
NEWEST = TODAY - timedelta(days=5)  # the newest readings of researched_item: the line's month
SHOPPER_LINE = re.compile(rf"^(?:More and more shoppers|Shoppers) are looking for {PRODUCT}\. "
                          rf"As of {MONTHS[NEWEST.month - 1]} {NEWEST.year}\.$")


def drawn_sections(page) -> list[str]:
    """The home page's sections, top to bottom, as the Store screen's picture draws them."""
    return page.locator("[data-picture=store-thumbnail]").get_attribute("data-sections").split()


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_store_led_with_its_proof_of_demand_greets_shoppers_with_popular_right_now(open_app, run_jobs, width):
    load(researched_item())
    founder = open_app(width)
    page = claimed_and_built(founder, run_jobs)
    # A new store leads with its headline and photo: the proof comes later, if at all.
    assert drawn_sections(page)[0] == "hero", drawn_sections(page)

    # The Edit screen: the proof of demand leads the home page, and the screen says so.
    page = screen(founder, "/#/app/edit", "edit")
    page.locator("[data-leads=hero]").wait_for()
    lead = page.get_by_label("Lead the home page with")
    lead.select_option(label="The proof of demand")
    page.get_by_role("button", name="Set the leading section").click()
    page.get_by_text("Your home page leads with the proof of demand (version 2).").wait_for()
    summary = page.locator("[data-leads=evidence]")
    summary.wait_for()
    assert summary.inner_text() == "Version 2, the one you are editing, leads with the proof of demand."
    assert lead.input_value() == "evidence"
    founder.shot("lead-with-proof-chosen")

    # The Store screen's picture of the home page leads with it, a section shoppers see.
    page = screen(founder, "/#/app/store", "store")
    picture = page.locator("[data-picture=store-thumbnail]")
    assert drawn_sections(page)[:2] == ["evidence", "hero"], drawn_sections(page)
    caption = picture.locator("figcaption").inner_text()
    assert caption.startswith("Home page of version 2, top to bottom: The proof of demand, The headline and photo, "), \
        caption
    assert "only you see it" not in caption, caption
    founder.shot("lead-with-proof-picture")
    page = publish_store(founder)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")

    # A shopper opens the public home page: "Popular right now" is the first thing they read.
    shopper = open_app("phone" if width == "desktop" else "desktop")
    shop = shopper.page
    shop.goto(shopper.base_url + public_url)
    sections = shop.locator("main > section")
    first = sections.first
    assert first.get_attribute("class") == "section section-evidence"
    assert first.get_by_role("heading").inner_text() == POPULAR == "Popular right now"
    line = first.locator("p.proof").inner_text()
    assert SHOPPER_LINE.match(line), line
    assert shop.locator("main").inner_text().startswith(f"{POPULAR}\n"), shop.locator("main").inner_text()
    # The hero follows, still the page's one h1.
    assert sections.nth(1).get_attribute("class") == "section section-hero"
    assert shop.locator("h1").count() == 1 and sections.nth(1).locator("h1").count() == 1

    # No figure, rank, source or research word: not in what a shopper reads, not hidden in the page.
    for text in (shop.locator("body").inner_text(), visible(shop.content())):
        found = RESEARCH.search(text)
        assert found is None, (found.group(0), text[max(0, found.start() - 80):found.end() + 80])
    shopper.shot("lead-with-proof-public-home")
