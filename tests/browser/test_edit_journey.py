"""Editing the store in Chromium: ask in words, read the proposal and its evidence row,
apply it, see the preview lead with it, undo it, and set the leading section by hand."""
from __future__ import annotations

from tests.browser.steps import build_store, catalog, claim_own_card, screen


def test_a_founder_applies_an_evidence_backed_change_undoes_it_and_orders_sections(open_app, run_jobs):
    catalog(3)
    app = open_app("desktop")
    claim_own_card(app)
    build_store(app)

    page = screen(app, "/#/app/edit", "edit")
    page.get_by_label("What should your store achieve?").fill("Make the title 48px")
    page.get_by_role("button", name="Suggest a change").click()
    page.locator("[data-reason=not_an_intent]").wait_for()
    page.get_by_label("What should your store achieve?").fill("Show shoppers that it is trending")
    page.get_by_role("button", name="Suggest a change").click()
    proposal = page.locator("section.proposal")
    proposal.wait_for()
    assert proposal.get_attribute("data-lead") == "evidence"
    assert "Google Trends reports" in proposal.inner_text() and "Evidence of " in proposal.inner_text()
    app.shot("proposal")
    proposal.get_by_role("button", name="Apply this change").click()
    page.locator("[data-applied=evidence]").wait_for()
    app.shot("applied")

    preview_url = page.get_by_role("link", name="Open the preview").first.get_attribute("href")
    preview = app.context.new_page()
    preview.goto(app.base_url + preview_url)
    first_section = preview.locator("main section").first
    assert "Why this product" in first_section.inner_text()

    page.get_by_role("button", name="Undo the last applied change").click()
    page.locator("[data-reverted=reverted]").wait_for()
    preview.reload()
    assert "Why this product" not in preview.locator("main section").first.inner_text()
    app.allow_console(r"status of 409 .* at .*/api/intent/revert")
    page.get_by_role("button", name="Undo the last applied change").click()
    page.locator("[data-reason=nothing_to_revert]").wait_for()

    page.get_by_label("Lead the home page with").select_option("price")
    page.get_by_role("button", name="Set the leading section").click()
    page.get_by_text("Your home page leads with the price").wait_for()
    page.locator("ol.versions li[data-version='4']").wait_for()
    assert page.get_by_text("Sign in to step back and forth between versions.").count() == 1
    app.shot("ordered")
    preview.close()


def test_a_signed_in_founder_edits_in_plain_words_and_steps_through_versions(open_app, run_jobs):
    from tests.browser.steps import sign_in_by_link

    catalog(3)
    app = open_app("phone")
    sign_in_by_link(app, "words@example.com", new=True)
    claim_own_card(app)
    build_store(app)

    page = screen(app, "/#/app/edit", "edit")
    page.get_by_label("Your edit").fill("Change the headline to Knives on the wall, counters clear")
    page.get_by_role("button", name="Make this edit").click()
    page.locator("[data-edited='2']").wait_for()
    page.get_by_label("Your edit").fill("Change the headline to Handmade in Italy")
    page.get_by_role("button", name="Make this edit").click()
    page.locator("[data-reason=unbacked_claim]").wait_for()
    app.shot("plain-edit-refused")
    page.get_by_role("button", name="Step back").click()
    page.get_by_text("You are now editing version 1.").wait_for()
    page.get_by_role("button", name="Step forward").click()
    page.get_by_text("You are now editing version 2.").wait_for()
    app.shot("versions")
