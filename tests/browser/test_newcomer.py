"""A new founder signs in for the first time (issue 23, point 3), in a new browser on a phone
and on a desktop. A sign-in link goes only to an address that saved its work (the answer is the
same for any address), so the Sign in screen says what a newcomer does and holds the save
form itself; once saved, the screen and the top bar say so at once, and the link from the
outbox signs the founder in."""
from __future__ import annotations

import pytest

from tests.browser.steps import catalog, screen

NEWCOMER = "newcomer@example.com"


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_a_new_founder_saves_their_work_from_the_sign_in_screen_and_signs_in(open_app, viewport):
    catalog(2)
    app = open_app(viewport)
    page = screen(app, "/#/app/home", "home")
    page.locator("#who").get_by_role("link", name="Sign in").click()
    page.wait_for_selector("main[data-screen=login][data-state=ready]", state="attached")

    # What to do when new, in a founder's words, with the save form right there.
    new_here = page.get_by_role("form", name="New here?")
    new_here.get_by_text("Save your work with your email first: we send you a link to confirm it.").wait_for()
    assert page.get_by_role("list", name="How signing in works").locator("li").count() == 3
    app.shot("sign-in-new-here")

    new_here.get_by_label("Email address").fill(NEWCOMER)
    new_here.get_by_role("button", name="Save and email me a link").click()
    # Saved, at once: on this screen (the form gives way to where the address stands) and in the top bar.
    page.locator(f"[data-saved='{NEWCOMER}']").get_by_text("Check your inbox", exact=True).wait_for()
    assert page.get_by_role("form", name="New here?").count() == 0
    page.locator("#who").get_by_text(NEWCOMER).wait_for()
    page.locator("#who .who-note").wait_for()  # "not confirmed"
    app.shot("sign-in-saved")

    # The Account screen says the same: saved to the address, not confirmed yet.
    page = screen(app, "/#/app/account", "account")
    assert page.locator("[data-account]").inner_text() == NEWCOMER
    assert page.locator("[data-verified]").get_attribute("data-verified") == "false"
    assert page.get_by_role("button", name="Save and email me a link").count() == 0

    # The link from the outbox signs this browser in.
    page.goto(app.outbox_link(NEWCOMER))
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    page.locator("#who").get_by_text(NEWCOMER).wait_for()
    assert page.locator("#who .who-note").count() == 0
    page = screen(app, "/#login", "login")
    page.get_by_text(f"You are signed in as {NEWCOMER}.").wait_for()
    app.shot("sign-in-signed-in")
    page = screen(app, "/#/app/account", "account")
    assert page.locator("[data-verified]").get_attribute("data-verified") == "true"


def test_saving_on_the_account_screen_shows_the_saved_state_at_once(open_app):
    app = open_app("desktop")
    page = screen(app, "/#/app/account", "account")
    page.get_by_label("Email address").fill(NEWCOMER)
    page.get_by_role("button", name="Save and email me a link").click()
    page.get_by_text("Check your inbox", exact=True).wait_for()
    # Beside "Check your inbox", the screen no longer speaks of a browser without an address
    # nor offers the form again: it shows the saved address, not confirmed yet.
    main = page.locator("main").inner_text()
    assert "without an account" not in main and "Your work is kept in this browser only" not in main
    assert page.get_by_role("button", name="Save and email me a link").count() == 0
    assert page.locator("[data-account]").inner_text() == NEWCOMER
    assert page.locator("[data-verified]").get_attribute("data-verified") == "false"
    page.locator("#who").get_by_text(NEWCOMER).wait_for()
    app.shot("account-saved")
