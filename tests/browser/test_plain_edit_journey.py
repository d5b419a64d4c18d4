"""Editing in plain words in Chromium, on a desktop and on a phone: a signed-in founder with
the knife strip's store built (and its ad written) sees what the store editor understands, with
example chips that fill the box without sending it; asks "make the headline shorter and mention
free returns within 30 days", reads what changed in words (never a path), opens the preview and
finds the shorter headline and the free returns; asks the same of the ad on Growth and its text
ends with the free returns; and asks "make it pop", which neither editor understands: each
answers with three requests it does understand, as chips that put their words in the box. Nothing
is wider than the phone."""
from __future__ import annotations

import pytest

from tests.ad_factories import knife_line
from tests.browser.founder_words import FORBIDDEN
from tests.browser.steps import claimed_and_built, screen, sign_in_by_link
from tests.factories import load

FIRST_REQUEST = "make the headline shorter and mention free returns within 30 days"
SHORTER_HEADLINE = "Acacia Wood Magnetic Knife Strip"  # from "Acacia Wood Magnetic Knife Strip, 16 in"
FREE_RETURNS = "Free returns within 30 days"

# Besides what no screen shows (test_founder_words): the parts' names as the service knows them.
MACHINE_WORDS = ("/copy", "/business", "subheadline", "seo_title", "primary_text")

# The page wider than the phone, or a chip that sticks out of it.
OVERFLOW = """() => {
  const width = window.innerWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const chip of document.querySelectorAll(".example-chip")) {
    const box = chip.getBoundingClientRect();
    if (box.left < 0 || box.right > width) problems.push(`"${chip.textContent}" lies at ${Math.round(box.left)}-${Math.round(box.right)} px`);
  }
  return problems;
}"""


def a_signed_in_founder_with_the_knife_strip_store(app, run_jobs, address: str) -> None:
    load(knife_line())
    sign_in_by_link(app, address, new=True)
    claimed_and_built(app, run_jobs)
    run_jobs()  # the ad the build sent: Growth shows the ad rather than its progress


def fits(app) -> None:
    if app.viewport == "phone":
        assert app.page.evaluate(OVERFLOW) == []


def says_no_machine_words(text: str) -> None:
    for word in MACHINE_WORDS:
        assert word not in text, f"{word!r} on screen: {text}"
    for what, pattern in FORBIDDEN.items():
        assert not pattern.search(text), f"{what} on screen: {text}"


def example_chip_fills_the_box_without_sending(form, box, label: str, words: str) -> None:
    form.get_by_role("button", name=label, exact=True).click()
    assert box.input_value() == words


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_founder_edits_the_store_and_the_ad_in_plain_words(open_app, run_jobs, viewport):
    app = open_app(viewport)
    a_signed_in_founder_with_the_knife_strip_store(app, run_jobs, f"plain-{viewport}@example.com")

    # The store editor says what it understands, with chips that start a request.
    page = screen(app, "/#/app/edit", "edit")
    form = page.locator("form", has=page.get_by_role("heading", name="Rewrite it yourself"))
    box = form.get_by_label("Your edit")
    chips = form.get_by_role("list", name="Example edits").get_by_role("button")
    assert 4 <= chips.count() <= 5
    assert "lead with a section" in form.inner_text() and "joining them with" in form.inner_text()
    says_no_machine_words(form.inner_text())
    example_chip_fills_the_box_without_sending(form, box, "Lead with the price", "Lead with the price")
    example_chip_fills_the_box_without_sending(form, box, "Add a question: …", "Add a question: ")
    assert page.locator("[data-edited]").count() == 0  # a chip never sends
    fits(app)
    app.shot("plain-edit-examples")

    # The first request: the change said in words, and the preview shows it.
    box.fill(FIRST_REQUEST)
    form.get_by_role("button", name="Make this edit").click()
    done = page.locator("[data-edited='2']")
    done.wait_for()
    said = done.inner_text()
    assert "the headline" in said and "the line under the headline" in said, said
    assert f"The headline now reads \u201c{SHORTER_HEADLINE}\u201d" in said, said
    assert FREE_RETURNS in said, said
    says_no_machine_words(said)
    fits(app)
    app.shot("plain-edit-made")
    with app.context.expect_page() as opened:
        done.get_by_role("link", name="Open the preview").click()
    preview = opened.value
    preview.wait_for_load_state()
    assert preview.locator(".hero-title").first.inner_text().strip() == SHORTER_HEADLINE
    assert FREE_RETURNS in preview.locator("body").inner_text()
    preview.close()

    # Words outside the grammar: three requests it does understand, as chips that fill the box.
    box.fill("make it pop")
    form.get_by_role("button", name="Make this edit").click()
    refused = form.locator("[data-reason=editor_unavailable]")
    refused.wait_for()
    says_no_machine_words(refused.inner_text())
    offered = refused.get_by_role("list", name="Requests the editor understands").get_by_role("button")
    assert offered.count() == 3
    first = offered.first.inner_text().strip()
    offered.first.click()
    assert box.input_value() == first
    fits(app)
    app.shot("plain-edit-examples-offered")

    # The same request of the ad on Growth: its text ends with the free returns.
    page = screen(app, "/#/app/growth", "growth")
    change = page.locator("form.ad-change")
    ad_box = change.get_by_label("Ask for a change in your own words")
    ad_chips = change.get_by_role("list", name="Example changes").get_by_role("button")
    assert [chip.inner_text().strip() for chip in ad_chips.all()] == [
        "Make the headline shorter", "Mention free returns within 30 days", "Lead with the price", "Use a Buy Now button"]
    says_no_machine_words(change.inner_text())
    example_chip_fills_the_box_without_sending(change, ad_box, "Use a Buy Now button", "Use a Buy Now button")
    ad_box.fill(FIRST_REQUEST)
    change.get_by_role("button", name="Change my ad").click()
    page.locator("[data-changed-field=primary_text]").wait_for()
    text = page.locator("[data-frame=meta] [data-ad-field=primary_text]").inner_text().strip()
    assert text.endswith(f"{FREE_RETURNS}."), text
    fits(app)
    app.shot("plain-edit-ad-changed")

    ad_box.fill("make it pop")
    change.get_by_role("button", name="Change my ad").click()
    refused = change.locator("[data-reason=editor_unavailable]")
    refused.wait_for()
    says_no_machine_words(refused.inner_text())
    offered = refused.get_by_role("list", name="Requests the editor understands").get_by_role("button")
    assert offered.count() == 3
    last = offered.last.inner_text().strip()
    offered.last.click()
    assert ad_box.input_value() == last
    fits(app)
    app.shot("plain-edit-ad-examples-offered")
