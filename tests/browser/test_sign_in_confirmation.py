"""A planted sign-in link in Chromium: someone mails a founder a link to their own account.
Opened in the founder's browser, which holds a product, it signs in to nothing and moves
nothing: the app's confirmation screen names the account (masked) and lists, kind by kind,
what would move (here the held product and a payout destination), and only its button
signs in. Shots on a phone and a desktop."""
from __future__ import annotations

from tests.browser.steps import catalog, screen
from tests.mailbox import sign_in_here

ATTACKER = "attacker@example.com"
MASKED = "at••••••@ex•••••.com"
CONFIRM_SCREEN = "main[data-screen=confirm-sign-in][data-state=ready]"


def plant(founder, run_jobs) -> None:
    """The attacker has an account and asks for a link to it (read from the outbox below)."""
    attacker = founder()
    sign_in_here(attacker, run_jobs, ATTACKER)
    attacker.post("/api/login/request", json={"email": ATTACKER})


def test_a_planted_link_waits_for_the_founders_confirmation(open_app, founder, run_jobs):
    catalog(3)
    plant(founder, run_jobs)
    victim = open_app("phone")
    page = screen(victim, "/#/app/find", "find")
    held = page.locator("article.card-yours").get_attribute("data-product-id")
    # The founder also set where payouts go (as the Settings screen does), before any sign-in.
    saved = victim.context.request.post(f"{victim.base_url}/api/settings/payout",
                                        data={"method": "paypal", "holder": "Vic", "account": "vic@example.com"})
    assert saved.status == 200, saved.text()

    # The link lands on the confirmation screen; nothing has switched.
    page.goto(victim.outbox_link(ATTACKER))
    page.wait_for_selector(CONFIRM_SCREEN, state="attached")
    page.get_by_role("heading", name="Is this your sign-in?").wait_for()
    assert page.locator("[data-account]").inner_text() == MASKED
    assert ATTACKER not in page.locator("main").inner_text()
    # Every kind of work that would move is listed, in words: the hold and the payout.
    page.locator("[data-kind=discovery]").get_by_text("the product you are holding, Demo product 00").wait_for()
    assert page.locator("[data-kind=business]").inner_text() == "your payout destination"
    page.locator("#who").get_by_role("link", name="Sign in").wait_for()
    victim.shot("confirm-sign-in")

    # Keeping to oneself: still anonymous, still holding the product.
    page.get_by_role("link", name="No, keep working as I am").click()
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    page = screen(victim, "/#/app/find", "find")
    assert page.locator("article.card-yours").get_attribute("data-product-id") == held
    page.locator("#who").get_by_role("link", name="Sign in").wait_for()

    # The link still works (it was not spent); this time the founder confirms on purpose.
    page.goto(victim.outbox_link(ATTACKER))
    page.wait_for_selector(CONFIRM_SCREEN, state="attached")
    page.get_by_role("button", name=f"Sign in as {MASKED}").click()
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    page.locator("#who").get_by_text(ATTACKER).wait_for()
    victim.shot("signed-in-after-confirming")


def test_the_confirmation_screen_on_a_desktop_and_once_spent(open_app, founder, run_jobs):
    catalog(2)
    plant(founder, run_jobs)
    victim = open_app("desktop")
    screen(victim, "/#/app/find", "find")
    page = victim.page
    page.goto(victim.outbox_link(ATTACKER))
    page.wait_for_selector(CONFIRM_SCREEN, state="attached")
    confirm_url = page.url
    victim.shot("confirm-sign-in")
    page.get_by_role("button", name=f"Sign in as {MASKED}").click()
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    # The same confirmation a second time: spent, explained, with the way on.
    victim.allow_console(r"status of 400 .* at .*/api/login/confirm")
    page.goto(confirm_url)
    page.wait_for_selector(CONFIRM_SCREEN, state="attached")
    page.locator("[data-reason=invalid_confirmation]").wait_for()
    page.get_by_role("link", name="Ask for a new link").wait_for()
    victim.shot("confirmation-spent")
