"""When the ad balance cannot pay another day (issue 49.3), in Chromium on a desktop and a phone:
a founder's campaign ran three days on the sandbox platform and the service paused it. Home
says which campaign stopped and why, and leads to Growth to top up; Tasks holds the task the
service added, with the way to Growth. Nothing here is on screen before the pause."""
from __future__ import annotations

import pytest

from jobs.growth import deliver_ads
from models.clock import clock
from tests.ad_factories import ad_founder
from tests.browser.steps import screen
from tests.factories import cookie_of
from tests.growth_factories import campaign, funded, saved_book
from tests.store_pages import publish

pytestmark = pytest.mark.usefixtures("frozen_clock")


@pytest.fixture
def advertiser(founder, run_jobs):
    """A founder whose $15.00-a-day campaign started with $50.00 in the balance."""
    client = ad_founder(founder, run_jobs)
    publish(client)
    funded(client, 5_000)
    saved_book(client, campaigns=[campaign("Knife strip launch", status="active")])
    deliver_ads()
    return client


def as_founder(open_app, client, width):
    app = open_app(width)
    app.context.add_cookies([{"name": "ff_session", "value": cookie_of(client), "url": app.base_url}])
    return app


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_home_and_tasks_say_the_ads_stopped_and_lead_to_growth(advertiser, open_app, width):
    app = as_founder(open_app, advertiser, width)
    page = screen(app, "/#/app/home", "home")
    assert page.locator("[data-ads-stopped]").count() == 0  # running: nothing to say

    for _ in range(3):  # three days pass; the clock's job pays each and then cannot pay a fourth
        clock.advance(86400)
        deliver_ads()

    page.reload()  # the same address: a reload shows Home as it is now
    page.wait_for_selector("main[data-screen=home][data-state=ready]", state="attached")
    stopped = page.locator("[data-ads-stopped]")
    stopped.wait_for()
    assert stopped.get_by_role("heading").inner_text() == "An ad campaign stopped"
    assert stopped.locator("li[data-because=balance]").inner_text() == (
        "Knife strip launch: your ad balance can't pay for another day of it.")
    link = stopped.get_by_role("link", name="Top up and start again")
    assert link.get_attribute("href") == "#/app/growth"
    app.shot(f"home-ads-stopped-{width}")

    page = screen(app, "/#/app/tasks", "tasks")
    task = page.locator("li[data-source=ads]")
    assert task.count() == 1 and "Your ads stopped: your ad balance cannot pay for another day" in task.inner_text()
    assert task.get_by_role("link", name="Open Growth").get_attribute("href") == "#/app/growth"
    app.shot(f"tasks-ads-stopped-{width}")
    if width == "phone":
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
