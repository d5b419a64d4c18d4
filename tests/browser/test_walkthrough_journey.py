"""The walkthrough and the journey hand-off in Chromium, on a phone (390 px): a founder moves
through the walkthrough on Home, reloads and is still at that step, goes back, makes a link to
continue on another device, which another browser opens once and lands on the step's screen
(a second opening is refused), then dismisses the walkthrough, which stays dismissed after a
reload."""
from __future__ import annotations

from urllib.parse import urlsplit

from models.walkthrough import JourneyCarrier, Walkthrough
from tests.browser.steps import api_answer, screen


def home(app):
    return screen(app, "/#/app/home", "home")


def reload_home(app):
    app.page.reload()
    app.page.wait_for_function("() => document.documentElement.dataset.ready === 'true'")
    app.page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    return app.page


def at_step(page, number: int, total: int = 10):
    page.locator("#walkthrough .walkthrough-count").get_by_text(f"Step {number} of {total}").wait_for()
    return page.locator("#walkthrough")


def test_the_walkthrough_survives_a_reload_and_a_link_continues_on_another_device(open_app,
                                                                                  base_url_is_the_live_server):
    phone = open_app("phone")
    page = home(phone)
    panel = at_step(page, 1)
    assert "Pick a product and claim it" in panel.inner_text()
    assert panel.get_by_role("link", name="Do this step").get_attribute("href") == "#/app/find"
    assert panel.get_by_role("button", name="Back").is_disabled()
    phone.shot("walkthrough-first-step")

    panel.get_by_role("button", name="Next").click()
    at_step(page, 2)
    panel.get_by_role("button", name="Next").click()
    panel = at_step(page, 3)
    assert "Build your store" in panel.inner_text()
    phone.shot("walkthrough-third-step")

    page = reload_home(phone)
    panel = at_step(page, 3)  # the server kept the place
    assert Walkthrough.get().position == 2
    panel.get_by_role("button", name="Back").click()
    panel = at_step(page, 2)
    assert panel.get_by_role("link", name="Do this step").get_attribute("href") == "#/app/offer"

    # The hand-off: a link made here carries the step shown (the offer) to another browser.
    handoff = page.locator("#handoff")
    handoff.get_by_role("button", name="Make a link").click()
    link = handoff.get_by_label("Your link to continue")
    link.wait_for()
    url = link.input_value()
    assert "/#/app/continue?c=" in url and url.startswith(phone.base_url)
    phone.shot("walkthrough-handoff-link")
    assert JourneyCarrier.get().route == "#/app/offer"

    laptop = open_app("desktop")
    parts = urlsplit(url)
    laptop.goto(f"{parts.path}#{parts.fragment}")
    laptop.page.wait_for_selector("main[data-screen=offer][data-state=ready]", state="attached", timeout=30_000)
    assert laptop.page.evaluate("() => location.hash") == "#/app/offer"
    assert JourneyCarrier.get().consumed_at is not None
    laptop.shot("handoff-landed")

    # The link works once: a third browser opening it is told so, and stays put.
    late = open_app("phone").allow_console(r"status of 409 .* at .*/api/journey/")
    page_late = screen(late, f"{parts.path}#{parts.fragment}", "continue")
    page_late.get_by_role("alert").get_by_text("This link was used already").wait_for()
    late.shot("handoff-used-already")

    panel.get_by_role("button", name="Dismiss").click()
    page.locator("#walkthrough").wait_for(state="detached")
    page = reload_home(phone)
    assert page.locator("#walkthrough").count() == 0
    assert api_answer(phone, "/api/walkthrough")["dismissed"] is True
    phone.shot("walkthrough-dismissed")
