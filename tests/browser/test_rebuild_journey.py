"""Edits survive a rebuild, in Chromium on a desktop and a phone (issue 47, point 3): a
founder rewrites the headline and the returns text, applies an evidence-backed change, and
builds a new version from the Store screen, which said beforehand what it keeps; the Store
screen, the preview and the public store still carry every change. "Undo the last applied
change" and Step back / Step forward agree, and "Lead the home page with" always shows what
the page leads with."""
from __future__ import annotations

import pytest

from tests.browser.steps import api_answer, build_store, catalog, claim_own_card, publish_store, screen, sign_in_by_link

HEADLINE = "Knives on the wall, counters clear"
RETURNS = "Send it back unused and we refund you, no questions asked."


def edit_in_words(page, message: str, version: int) -> None:
    page.get_by_label("Your edit").fill(message)
    page.get_by_role("button", name="Make this edit").click()
    page.locator(f"[data-edited='{version}']").wait_for()


def leads(page, section: str) -> None:
    """The edit screen says the version being edited leads with `section`, and its list shows it."""
    page.locator(f"[data-leads={section}]").wait_for()
    assert page.get_by_label("Lead the home page with").input_value() == section


def first_section(preview) -> str:
    """The section the preview's home page leads with (its anchor)."""
    preview.reload()
    return preview.locator("main section").first.get_attribute("id")


def step(page, name: str, version: int) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    page.get_by_text(f"You are now editing version {version}.").wait_for()


def undo_applied(page, version: int) -> None:
    page.get_by_role("button", name="Undo the last applied change").click()
    page.locator("[data-reverted=reverted]").get_by_text(f"you are now editing version {version}.").wait_for()


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_rebuild_keeps_the_founders_edits_and_both_undo_controls_agree(open_app, run_jobs, width):
    catalog(3)
    app = open_app(width)
    sign_in_by_link(app, f"rebuild-{width}@example.com", new=True)
    claim_own_card(app)
    build_store(app)

    # The founder's changes: the headline and the returns text in words, and an applied suggestion.
    page = screen(app, "/#/app/edit", "edit")
    leads(page, "hero")
    edit_in_words(page, f"Change the headline to {HEADLINE}", 2)
    edit_in_words(page, f"Change the returns text to {RETURNS}", 3)
    page.get_by_label("What should your store achieve?").fill("Show shoppers that it is trending")
    page.get_by_role("button", name="Suggest a change").click()
    page.locator("section.proposal").get_by_role("button", name="Apply this change").click()
    page.locator("[data-applied=evidence]").wait_for()
    leads(page, "evidence")

    # The Store screen says what a new version keeps before it is built, and still says so after.
    page = screen(app, "/#/app/store", "store")
    keeps = page.locator("[data-your-changes='3']")
    assert "keeps your changes: the headline, the returns text and the section the home page leads with" in \
        keeps.inner_text()
    app.shot("before-rebuild")
    page.get_by_role("button", name="Build a new version").click()
    page.locator("[data-store-status=built]").wait_for(timeout=60_000)
    page.wait_for_function("() => [...document.querySelectorAll('dt')].some((dt) => dt.textContent === "
                           "'Newest version' && dt.nextElementSibling.textContent === '5')", timeout=60_000)
    page.locator("[data-your-changes='3']").wait_for()
    # The picture of the store drawn from the new version names its headline.
    assert HEADLINE in page.locator("[data-picture=store-thumbnail]").inner_html()
    assert page.locator("[data-not-kept]").count() == 0
    app.shot("rebuilt")

    # The preview of the new version carries every change.
    preview_url = page.get_by_role("link", name="Open the preview").get_attribute("href")
    preview = app.context.new_page()
    preview.goto(app.base_url + preview_url)
    assert HEADLINE in preview.locator("main").inner_text()
    assert first_section(preview) == "evidence"
    preview.goto(app.base_url + preview_url + "shipping")
    assert RETURNS in preview.locator("main").inner_text()
    preview.goto(app.base_url + preview_url)

    # Both undo controls act on the version being edited, and agree.
    page = screen(app, "/#/app/edit", "edit")
    leads(page, "evidence")
    undo_applied(page, 6)  # the suggestion is undone on the rebuilt version; the headline stays
    leads(page, "hero")
    assert first_section(preview) == "hero" and HEADLINE in preview.locator("main").inner_text()
    step(page, "Step back", 5)  # back to the rebuilt version, which leads with the suggestion
    leads(page, "evidence")
    assert first_section(preview) == "evidence"
    step(page, "Step forward", 6)
    leads(page, "hero")
    app.allow_console(r"status of 409 .* at .*/api/intent/revert")
    page.get_by_role("button", name="Undo the last applied change").click()
    page.locator("[data-reason=nothing_to_revert]").get_by_text("Version 6, the one you are editing").wait_for()
    step(page, "Step back", 5)
    undo_applied(page, 7)  # made from version 5, where the suggestion was in force again
    leads(page, "hero")
    app.shot("undo-agrees")
    versions = api_answer(app, "/api/editor/versions")["versions"]
    assert {v["number"]: v["parent"] for v in versions}[7] == 5

    # Published: the public store carries the founder's words too.
    page = screen(app, "/#/app/store", "store")
    publish_store(app)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")
    preview.goto(app.base_url + public_url)
    assert HEADLINE in preview.locator("main").inner_text()
    preview.close()
