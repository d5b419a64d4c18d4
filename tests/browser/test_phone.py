"""Every screen on a phone (390 x 844) in Chromium, as a founder who signed in, claimed a
product and built its store sees it: nothing scrolls sideways, every button in the screen
(and every primary one anywhere) lies within the width and is at least 44 px tall, and
axe-core passes. The navigation is a Menu button there, a disclosure a keyboard can open and
close, which closes on choosing an entry; on the desktop it stays a list."""
from __future__ import annotations

from tests.browser.steps import (
    MEASURE,
    TOUCH_PX,
    catalog,
    claimed_and_built,
    screen,
    sign_in_by_link,
)


def name_of(route: str) -> str:
    """The screen a route opens: "/#/app/find/yours" -> "find", "/#login" -> "login"."""
    path = route.split("#", 1)[1]
    return "login" if path.startswith("login") else path.split("/")[2]


def fits(app, route: str, shot: str, problems: dict) -> None:
    # From a blank page, so the wait is for this route's screen and never the previous one's.
    app.page.goto("about:blank")
    page = screen(app, route, name_of(route))
    found = page.evaluate(MEASURE, [TOUCH_PX])
    if found:
        problems[route] = found
    app.shot(shot)


def test_every_screen_fits_a_phone(open_app, run_jobs):
    catalog(6)
    app = open_app("phone")
    problems: dict[str, list[str]] = {}
    fits(app, "/#login", "login", problems)
    fits(app, "/#/app/account", "account-anonymous", problems)

    sign_in_by_link(app, "phone@example.com", new=True)
    claimed_and_built(app, run_jobs)
    run_jobs()

    # Every entry of the navigation, read from the page: an entry added later is covered too.
    routes = app.page.locator("#nav a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    for href in routes:
        fits(app, f"/{href}", href.strip("#/").replace("/", "-"), problems)
    assert problems == {}, "\n".join(f"{route}: {'; '.join(found)}" for route, found in problems.items())
    assert len(routes) >= 18 and "#/app/account" in routes and "#/app/growth" in routes, routes


def test_the_menu_opens_and_closes_by_keyboard_and_on_choosing_an_entry(open_app):
    app = open_app("phone")
    page = screen(app, "/#/app/home", "home")
    menu = page.get_by_role("button", name="Menu")
    entries = page.locator("#nav-list")
    assert menu.get_attribute("aria-expanded") == "false" and not entries.is_visible()

    menu.focus()
    page.keyboard.press("Enter")
    assert menu.get_attribute("aria-expanded") == "true" and entries.is_visible()
    app.shot("menu-open")
    # Escape closes it and gives the focus back to the button.
    page.keyboard.press("Escape")
    assert menu.get_attribute("aria-expanded") == "false" and not entries.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('nav-toggle')")

    page.keyboard.press("Space")
    account = entries.get_by_role("link", name="Account")
    for _ in range(25):
        page.keyboard.press("Tab")
        if account.evaluate("link => link === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the Account entry")
    page.keyboard.press("Enter")
    page.wait_for_selector("main[data-screen=account][data-state=ready]", state="attached")
    assert menu.get_attribute("aria-expanded") == "false" and not entries.is_visible()
    # A closed menu's entries are hidden, so not found by their role: by their address instead.
    assert entries.locator("a[href='#/app/account']").get_attribute("aria-current") == "page"

    # Choosing the entry already shown closes the menu too (no route change to do it).
    menu.click()
    account.click()
    assert menu.get_attribute("aria-expanded") == "false"


def test_on_the_desktop_the_navigation_is_a_list_with_account(open_app):
    app = open_app("desktop")
    page = screen(app, "/#/app/learn", "learn")
    assert not page.get_by_role("button", name="Menu").is_visible()
    entries = page.locator("#nav-list")
    assert entries.is_visible() and entries.get_by_role("link", name="Account").is_visible()
    assert entries.locator("[aria-current=page]").inner_text() == "Learn"
    app.shot("navigation")
