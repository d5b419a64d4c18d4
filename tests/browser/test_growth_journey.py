"""Growth in Chromium: a founder claims a product and builds its store, opens Growth and sees
the ad as Meta's feed and Google's results show it (its picture rendered, every field's length
against its platform's limit) with the pass bars drawn as gauges beside their figures and the
benchmark they come from; changes the headline in place (too long is refused, the frame shows
the new words), puts the written copy back, asks for a change in plain words; plans a campaign
as a draft and, starting it with an empty ad balance, reads beside it why it cannot start; tops
up the ad balance on the sandbox provider's page and comes back to the balance credited (and the
launch fact that reads it true); publishes the store and starts the campaign, which says it goes
live within the hour; researches organic posts, approves one and finds it in the log. While the ad is still being written the screen shows its progress
and then the ad. A founder on a phone without an account sees the same ad, is told in a
founder's words that the plain-language change and the research need an account, with a link
to saving their address, and the screen fits the phone."""
from __future__ import annotations

import re

import pytest

from tests.browser.steps import (
    MEASURE,
    TOUCH_PX,
    api_answer,
    catalog,
    claimed_and_built,
    pay_on_the_hosted_page,
    publish_store,
    screen,
    sign_in_by_link,
)

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

FOUNDER = "grower@example.com"
PICTURE_LOADED = "img => img.complete && img.naturalWidth > 0 ? [img.naturalWidth, img.naturalHeight] : null"


def a_founder_with_a_built_store(app, run_jobs, *, address: str | None = None):
    if address:
        sign_in_by_link(app, address, new=True)
    claimed_and_built(app, run_jobs)
    run_jobs()  # the ad the build sent: the screen shows the ad rather than its progress


def shows_the_ad_in_its_frame(page, ad: dict, platform: str) -> None:
    frame = page.locator(f"[data-frame={platform}]")
    frame.wait_for()
    for field in ("headline", "primary_text", "description", "call_to_action"):
        assert frame.locator(f"[data-ad-field={field}]").inner_text().strip() == ad[field], field
        row = page.locator(f"li.ad-field[data-field={field}]")
        assert row.locator(".ad-count").inner_text() == f"{len(ad[field])} of {ad['limits'][field]}", field
        assert len(ad[field]) <= ad["limits"][field], field
    picture = frame.locator("img.ad-image")
    assert picture.get_attribute("src").startswith("/media/ad/")
    picture.scroll_into_view_if_needed()
    page.wait_for_function(f"() => {{ const img = document.querySelector('[data-frame={platform}] img.ad-image'); "
                           "return img && img.complete && img.naturalWidth > 0; }")
    size = picture.evaluate(PICTURE_LOADED)
    assert size == ([1080, 1080] if platform == "meta" else [1200, 628]), size
    assert frame.get_by_text("Sponsored", exact=True).count() == 1


def shows_the_pass_bars(page, ad: dict) -> None:
    bars = ad["pass_criteria"]
    gauges = page.locator(f"[data-pass-bars={ad['platform']}]")
    assert gauges.locator("[data-picture=pass-gauge]").count() == 2
    ctr = gauges.locator("[data-bar=ctr]")
    assert ctr.locator("[data-picture=pass-gauge]").get_attribute("data-kind") == "floor"
    assert float(ctr.locator("[data-picture=pass-gauge]").get_attribute("data-bar")) == bars["ctr_min_pct"]
    assert f"At least {bars['ctr_min_pct']:g}%" in ctr.inner_text()
    cpc = gauges.locator("[data-bar=cpc]")
    assert cpc.locator("[data-picture=pass-gauge]").get_attribute("data-kind") == "ceiling"
    assert f"At most ${bars['cpc_max']:.2f}" in cpc.inner_text()
    # Each bar names the published benchmark it comes from.
    for bar in (ctr, cpc):
        named = bar.locator("[data-benchmark] cite").inner_text()
        assert "WordStream" in named and named in bars["source"], named
    # The gauge's words state the bar, for a screen reader.
    assert "at least" in ctr.locator("svg[role=img]").get_attribute("aria-label")


def test_a_founder_sees_and_edits_the_ad_plans_a_campaign_tops_up_and_approves_a_post(open_app, run_jobs):
    catalog(3)
    founder = open_app("desktop")
    a_founder_with_a_built_store(founder, run_jobs, address=FOUNDER)

    # The ad on Meta, in its feed frame, and the bars it must beat.
    page = screen(founder, "/#/app/growth", "growth")
    meta = api_answer(founder, "/api/ad?platform=meta")
    shows_the_ad_in_its_frame(page, meta, "meta")
    shows_the_pass_bars(page, meta)
    founder.shot("growth-ad-meta")

    # The same ad on Google, as a search result.
    page.get_by_role("group", name="Platform").get_by_role("button", name="Google").click()
    google = api_answer(founder, "/api/ad?platform=google")
    shows_the_ad_in_its_frame(page, google, "google")
    shows_the_pass_bars(page, google)
    founder.shot("growth-ad-google")

    # The headline changed in place: too long for Meta is refused, then new words show in the frame.
    page.get_by_role("group", name="Platform").get_by_role("button", name="Meta").click()
    page.locator("[data-frame=meta]").wait_for()
    headline = page.locator("li.ad-field[data-field=headline]")
    headline.get_by_role("button", name="Change the headline").click()
    headline.get_by_label("Headline").fill("A" * 41)
    assert headline.locator(".ad-count").inner_text() == "41 of 40"
    headline.get_by_role("button", name="Save the headline").click()
    headline.locator("[data-reason=too_long]").wait_for()
    founder.shot("growth-headline-too-long")
    mine = "Folds flat, fits any flat"
    headline.get_by_label("Headline").fill(mine)
    headline.get_by_role("button", name="Save the headline").click()
    page.locator("[data-frame=meta] [data-ad-field=headline]", has_text=mine).wait_for()
    assert headline.locator(".ad-count").inner_text() == f"{len(mine)} of 40"
    assert headline.locator("[data-changed=true]").count() == 1
    after = api_answer(founder, "/api/ad?platform=meta")
    assert after["headline"] == mine and after["overridden"] == ["headline"]
    # A new headline is a new picture.
    assert after["image"] != meta["image"]
    assert page.locator("[data-frame=meta] img.ad-image").get_attribute("src") == after["image"]
    founder.shot("growth-headline-edited")

    # The written copy back.
    page.get_by_role("button", name="Put the written copy back").click()
    page.locator("[data-frame=meta] [data-ad-field=headline]", has_text=meta["headline"]).wait_for()
    assert api_answer(founder, "/api/ad?platform=meta")["overridden"] == []

    # A change in plain words (signed in): another button.
    page.get_by_label("Ask for a change in your own words").fill("Use the Order Now button")
    page.get_by_role("button", name="Change my ad").click()
    page.locator("[data-changed-field=call_to_action]").wait_for()
    page.locator("[data-frame=meta] [data-ad-field=call_to_action]", has_text="Order Now").wait_for()
    founder.shot("growth-changed-in-words")

    # A campaign, planned as a draft; started with an empty ad balance it is refused, and says why.
    form = page.locator("form[data-form=campaign]")
    form.get_by_label("Campaign name").fill("Spring launch")
    form.get_by_label("Runs on").select_option("google")
    form.get_by_label("Daily budget").fill("12.50")
    form.get_by_role("button", name="Save the campaign").click()
    card = page.locator("article.campaign-card", has_text="Spring launch")
    card.wait_for()
    assert card.get_attribute("data-status") == "draft"
    assert "$12.50" in card.inner_text() and "Google search" in card.inner_text()
    assert card.locator(".tag").inner_text() == "Draft"
    # The refusal is the browser's 409: the proof, so it is allowed.
    founder.allow_console(r"status of 409 .* at .*/api/ads-manager")
    card.get_by_role("button", name="Start it: Spring launch").click()
    refused = card.locator("[role=alert]")
    refused.wait_for()
    assert "Your ad balance can't pay for a day of it yet" in refused.inner_text()
    assert "\u201cSpring launch\u201d spends up to $12.50 a day and your ad balance holds $0.00" in refused.inner_text()
    book = api_answer(founder, "/api/ads-manager")["book"]
    assert [(c["name"], c["platform"], c["status"], c["daily_budget_minor"]) for c in book["campaigns"]] == [
        ("Spring launch", "google", "draft", 1250)]
    founder.shot("growth-campaign-refused")

    # The ad balance, topped up on the provider's page; back on Growth it is credited.
    balance = page.locator("[data-section=balance]")
    assert balance.locator("[data-balance-minor]").get_attribute("data-balance-minor") == "0"
    assert "Between $5.00 and $5,000.00" in balance.inner_text()
    topup = balance.locator("form[data-form=topup]")
    topup.get_by_label("Amount to add").fill("2")
    topup.get_by_role("button", name="Top up").click()
    balance.get_by_text("Choose an amount between $5.00 and $5,000.00.").wait_for()
    topup.get_by_label("Amount to add").fill("25")
    topup.get_by_role("button", name="Top up").click()
    pay_on_the_hosted_page(founder, "hosted-checkout-ad-topup")
    page.wait_for_url(re.compile(r"#/app/growth\?topup="))
    page.wait_for_selector("main[data-screen=growth][data-state=ready]", state="attached", timeout=30_000)
    topup_id = re.search(r"topup=([0-9a-f]+)", page.url).group(1)
    page.locator(f"[data-payment-state=paid][data-payment='{topup_id}']").wait_for()
    page.locator(f"[data-credited='{topup_id}']").wait_for()
    assert balance.locator("[data-balance-minor]").get_attribute("data-balance-minor") == "2500"
    assert "$25.00" in balance.locator("[data-balance-minor]").inner_text()
    line = balance.locator(f"table.ledger tr[data-topup-id='{topup_id}']")
    assert line.get_attribute("data-kind") == "topup" and "$25.00" in line.inner_text()
    assert api_answer(founder, "/api/adbalance")["balance_minor"] == 2500
    founder.shot("growth-topped-up")

    # With a day of its budget in the balance and the store published (the ad sends people
    # there), the campaign starts: it says it goes live within the hour.
    screen(founder, "/#/app/store", "store")
    publish_store(founder)
    page = screen(founder, "/#/app/growth", "growth")
    card = page.locator("article.campaign-card", has_text="Spring launch")
    card.get_by_role("button", name="Start it: Spring launch").click()
    card = page.locator("article.campaign-card[data-status=active]", has_text="Spring launch")
    card.locator(".tag", has_text="Starting \u2014 it goes live within the hour").wait_for()
    assert card.locator("[role=alert]").count() == 0
    book = api_answer(founder, "/api/ads-manager")["book"]
    assert [(c["name"], c["status"], c["delivery"]["state"]) for c in book["campaigns"]] == [
        ("Spring launch", "active", "starting")]
    founder.shot("growth-campaign")

    # Organic research for two platforms, one post approved and found in the log.
    page.get_by_label("What do you want to find out?").fill("gift ideas for the holidays")
    page.get_by_role("group", name="Where you post").get_by_label("Pinterest").check()
    page.get_by_role("group", name="Where you post").get_by_label("Instagram").uncheck()
    page.get_by_role("button", name="Research post ideas").click()
    campaigns = page.locator("article.organic-campaign")
    campaigns.first.wait_for()
    assert sorted(campaigns.evaluate_all("nodes => nodes.map(n => n.dataset.platform)")) == ["pinterest", "tiktok"]
    first = campaigns.first.locator("li.organic-post").first
    assert first.locator("[data-cite]").count() >= 1, "a post idea says what it rests on"
    text = first.locator(".organic-text").inner_text()
    founder.shot("growth-organic-research")
    first.get_by_role("button", name=re.compile("^Approve this post")).click()
    first.locator("[data-approved=post]").wait_for()
    logged = page.locator("ol.approval-log li[data-scope=post]")
    logged.first.wait_for()
    assert logged.count() == 1 and text[:40] in logged.first.inner_text()
    assert api_answer(founder, "/api/organic/log")["approvals"][0]["text"] == text
    founder.shot("growth-organic-approved")

    # The launch fact reads the ledger.
    page = screen(founder, "/#/app/launch", "launch")
    assert page.locator("[data-fact=ad_balance_funded]").get_attribute("data-true") == "true"


def test_on_a_phone_without_an_account_the_ad_shows_and_the_screen_says_what_needs_one(open_app, run_jobs):
    catalog(3)
    founder = open_app("phone")
    a_founder_with_a_built_store(founder, run_jobs)
    page = screen(founder, "/#/app/growth", "growth")
    shows_the_ad_in_its_frame(page, api_answer(founder, "/api/ad?platform=meta"), "meta")
    for needs in ("[data-change=needs-account]", "[data-organic=needs-account]"):
        notice = page.locator(needs)
        assert "needs an account" in notice.inner_text()
        assert notice.get_by_role("link", name="Save your address").get_attribute("href") == "#/app/account"
    assert page.locator("[data-campaigns=none]").count() == 1
    assert page.locator("[data-ledger=empty]").count() == 1
    assert page.evaluate(MEASURE, [TOUCH_PX]) == []
    founder.shot("growth-phone-no-account")
    # A campaign and the Google frame fit the phone too.
    form = page.locator("form[data-form=campaign]")
    form.get_by_label("Campaign name").fill("A campaign with a rather long name, to see it wrap")
    form.get_by_role("button", name="Save the campaign").click()
    page.locator("article.campaign-card").first.wait_for()
    page.get_by_role("group", name="Platform").get_by_role("button", name="Google").click()
    page.locator("[data-frame=google]").wait_for()
    assert page.evaluate(MEASURE, [TOUCH_PX]) == []
    founder.shot("growth-phone-google-and-campaign")


def test_while_the_ad_is_written_the_screen_shows_its_progress_then_the_ad(open_app, run_jobs, worker):
    from models.ad import Ad, AdImage
    from models.job import Job
    from services.growth.ads import AD_BUILD

    catalog(3)
    founder = open_app("desktop")
    a_founder_with_a_built_store(founder, run_jobs)
    # As if the ad were not written yet: no ad and no job that wrote one, and the worker held,
    # so the job the screen's first read starts waits in the queue meanwhile.
    worker.pause()
    try:
        AdImage.delete().execute()
        Ad.delete().execute()
        Job.delete().where(Job.kind == AD_BUILD).execute()
        # Each read while the ad is written answers 404 (building: true), which Chromium logs.
        founder.allow_console(r"status of 404 .* at .*/api/ad\?platform=meta")
        page = screen(founder, "/#/app/home", "home")
        page.locator("#nav-list a[href='#/app/growth']").click()
        being_written = page.locator("[data-section=ad] .progress[role=status]")
        being_written.wait_for()
        assert "Writing your ad" in being_written.inner_text()
        founder.shot("growth-ad-being-written")
    finally:
        worker.resume()
    page.wait_for_selector("main[data-screen=growth][data-state=ready]", state="attached", timeout=30_000)
    shows_the_ad_in_its_frame(page, api_answer(founder, "/api/ad?platform=meta"), "meta")
    assert page.locator("[data-section=ad] .progress").count() == 0
