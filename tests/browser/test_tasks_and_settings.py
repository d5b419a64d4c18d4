"""Tasks and Settings in Chromium on a phone (390 px): a founder finds the next launch steps
on their list with a way to each, adds and ticks off a task of their own, sees a step ticked
off by the service once they claim; then names their business, is told which field is wrong,
chooses how the support agent answers mail, sees a reply as a customer would, saves where
they are paid, which reads back masked, and states their return policy, read back in their words."""
from __future__ import annotations

from models.business import BusinessSettings, PayoutDestination
from tests.browser.steps import api_answer, catalog, claim_own_card, screen


def test_a_founder_works_through_their_tasks(open_app, run_jobs):
    catalog(3)
    app = open_app("phone")
    page = screen(app, "/#/app/tasks", "tasks")
    steps = page.locator("li.task[data-source=launch]")
    assert steps.count() == 3
    first = steps.first
    assert "Claim a product from your feed." in first.inner_text()
    assert first.get_by_role("link", name="Find a product").get_attribute("href") == "#/app/find"
    app.shot("tasks-first-steps")

    page.get_by_label("A new task").fill("Order packaging samples")
    page.get_by_role("button", name="Add task").click()
    mine = page.locator("li.task[data-source=founder]")
    mine.get_by_text("Order packaging samples").wait_for()
    # A click, not check(): the tick moves the task into the Done list, so the box clicked is
    # replaced before check() could read it back as checked. The Done count is the proof.
    mine.get_by_role("checkbox").click()
    page.locator("details.tasks-done summary").get_by_text("Done (1)").wait_for()
    assert page.locator("li.task[data-source=founder]").count() == 1  # in the closed Done list
    app.shot("tasks-one-done")

    claim_own_card(app)
    page = screen(app, "/#/app/tasks", "tasks")
    assert "Claim a product" not in page.locator("ul.tasks[data-open]").inner_text()
    # The bar and its words agree, and count as Launch counts: the launch facts true today, of all.
    bar = page.locator("progress.launch-bar")
    done, listed = int(bar.get_attribute("value")), int(bar.get_attribute("max"))
    stands = api_answer(app, "/api/launch")["next_step"]
    assert done >= 1 and (done, listed) == (stands["facts_true"], stands["facts_total"])
    assert f"{done} of {listed} launch facts true today" in page.locator("main").inner_text()
    page.locator("details.tasks-done summary").click()
    assert "Product claimed" in page.locator("details.tasks-done").inner_text()
    app.shot("tasks-after-the-claim")


def test_a_founder_sets_up_their_business_and_payout(open_app):
    # The refused save is the browser's 400: the proof, so it is allowed.
    app = open_app("phone").allow_console(r"status of 400 .* at .*/api/settings/business")
    page = screen(app, "/#/app/settings", "settings")
    business = page.locator("form[data-form=business]")
    business.get_by_label("Business name").fill("Acacia & Co")
    business.get_by_label("Support address").fill("help desk")
    business.get_by_label("Draft replies for me").check()
    business.get_by_role("button", name="Save").click()
    error = business.get_by_role("alert")
    error.wait_for()
    assert error.inner_text().startswith("Support address:")
    assert BusinessSettings.select().count() == 0  # one bad field saves nothing
    app.shot("settings-refused")

    business.get_by_label("Support address").fill("Help")
    business.get_by_role("button", name="Save").click()
    page.get_by_text("Last saved").wait_for()
    preview = page.locator("figure[data-picture=reply]")
    assert "Acacia & Co" in preview.inner_text() and "help@ your domain" in preview.inner_text()
    row = BusinessSettings.get()
    assert (row.business_name, row.support_email_local, row.ai_email_mode) == ("Acacia & Co", "help", "draft")

    payout = page.locator("form[data-form=payout]")
    payout.get_by_label("PayPal").check()
    payout.get_by_label("Account holder").fill("Ada Founder")
    payout.get_by_label("Account", exact=True).fill("ada.founder@example.com")
    payout.get_by_role("button", name="Save").click()
    masked = page.locator("dd[data-masked]")
    masked.wait_for()
    assert masked.inner_text() == "a••••@example.com"
    assert "ada.founder" not in page.locator("main").inner_text()
    assert PayoutDestination.get().account_masked == "a••••@example.com"
    app.shot("settings-saved")

    sorting = page.locator("section[aria-labelledby=sorting-title]")
    assert sorting.get_by_role("link", name="Open the Desk").get_attribute("href") == "#/app/desk"

    page = screen(app, "/#/app/settings", "settings")  # as saved, after a reload
    assert page.locator("form[data-form=business]").get_by_label("Business name").input_value() == "Acacia & Co"
    assert page.locator("form[data-form=business]").get_by_label("Draft replies for me").is_checked()

    # The founder states their return policy: read back in their words, saved as their statement.
    business = page.locator("form[data-form=business]")
    policy = business.locator("dl[data-policy]")
    assert "Not stated yet" in policy.inner_text()
    business.get_by_label("How many days customers have to return").fill("30")
    business.get_by_label("Returns are free").check()
    business.get_by_label("Shipping takes at least (business days)").fill("3")
    business.get_by_label("Shipping takes at most (business days)").fill("7")
    business.get_by_label("Where you ship").fill("the United States and Canada")
    business.get_by_role("button", name="Save").click()
    said = page.locator("form[data-form=business] dl[data-policy]")
    said.get_by_text("free, within 30 days").wait_for()
    assert "3 to 7 business days" in said.inner_text() and "the United States and Canada" in said.inner_text()
    row = BusinessSettings.get()
    assert (row.return_days, row.free_returns, row.shipping_days_min, row.shipping_days_max, row.ships_to) == (
        30, True, 3, 7, "the United States and Canada")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # usable at 390 px
    app.shot("settings-policy")
    page = screen(app, "/#/app/settings", "settings")  # as saved, after a reload
    assert page.locator("form[data-form=business]").get_by_label(
        "How many days customers have to return").input_value() == "30"
