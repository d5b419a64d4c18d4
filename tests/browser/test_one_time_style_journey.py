"""Every time on a screen in the one style (issue 47, point 6), in Chromium on a desktop and a
phone: the screens that write a moment through dom.js `when()` (Offer's research, Settings' last
save, Insights' brief), Insights' days and Home's link to another device write "5 December 2026,
13:00 CET" and "5 December 2026" (words.js, the style services/day_words.py writes on the
server), never the browser's locale style ("Dec 5, 2026, 1:00 PM")."""
from __future__ import annotations

import re

import pytest

from services import brief
from tests.browser.steps import catalog, claim_own_card, screen

MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DAY = rf"\d{{1,2}} {MONTH} \d{{4}}"
# "5 December 2026, 13:00 CET": a day in words, a 24-hour time, the zone's short name.
MOMENT = rf"{DAY}, \d{{2}}:\d{{2}} [A-Z][A-Za-z0-9+\-:]*"
# The browser's locale style: a month cut short before the day ("Dec 5, 2026"), a 12-hour clock.
LOCALE_STYLE = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}|\b[AP]M\b")
VISIBLE_TEXT = "() => document.querySelector('main').innerText"


def in_one_style(page) -> str:
    """The screen's visible text, once it holds no time in the browser's locale style."""
    text = page.evaluate(VISIBLE_TEXT)
    assert not LOCALE_STYLE.search(text), text
    return text


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_every_time_on_a_screen_is_written_in_the_one_style(open_app, run_jobs, width):
    catalog(3)
    app = open_app(width)
    # The browser's own locale style is the one refused below: were it another here, the
    # refusal would prove nothing (the words asserted still would).
    old = app.page.evaluate("""() => new Date(Date.UTC(2026, 11, 5, 12)).toLocaleString(undefined,
      { dateStyle: "medium", timeStyle: "short" })""")
    assert LOCALE_STYLE.search(old), old
    claim_own_card(app)
    run_jobs()  # the claim's research

    page = screen(app, "/#/app/offer", "offer")
    assert re.search(rf"· researched {MOMENT}\b", in_one_style(page)), in_one_style(page)
    app.shot("time-style-offer")

    page = screen(app, "/#/app/settings", "settings")
    business = page.locator("form[data-form=business]")
    business.get_by_label("Business name").fill("Acacia & Co")
    business.get_by_label("Support address").fill("help")
    business.get_by_role("button", name="Save").click()
    page.get_by_text("Last saved").wait_for()
    assert re.search(rf"Last saved {MOMENT}\.", in_one_style(page)), in_one_style(page)
    app.shot("time-style-settings")

    brief.generate()  # the nightly brief: when it was made and the days it covers
    page = screen(app, "/#/app/insights", "insights")
    assert re.search(rf"Made {MOMENT}, covering {DAY} up to {DAY}\.", in_one_style(page)), in_one_style(page)
    app.shot("time-style-insights")

    page = screen(app, "/#/app/home", "home")
    handoff = page.locator("#handoff")
    handoff.get_by_role("button", name="Make a link").click()
    handoff.get_by_label("Your link to continue").wait_for()
    hint = handoff.locator(".hint").inner_text()
    assert re.fullmatch(rf"It works once, until {MOMENT}\. Open it on your other device\.", hint), hint
    in_one_style(page)
    app.shot("time-style-handoff")
