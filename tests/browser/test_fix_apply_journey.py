"""Fix applies its repairs to a store built here, in Chromium on a desktop and on a phone
(issue 48, point 2). A founder's store, built and published here, has an About text that links
to a page that is gone (on a small site on this machine). The founder opens Fix, checks their
store's address and reads the report: "Apply these repairs" with the About text before (struck
through) and after (the dead link taken out, its words kept), how to undo it, and apart from
it, with why, what the store's content cannot hold (the plain-http address it is served at). A
refusal of the apply is shown in the service's words. They apply the repairs: the screen says
the new version is being published and checked ("Checking your new version…"), then the
measured score, higher than before, and "Your store, checked and repaired."; the link's findings
say repaired in the store. The store has one more version, live, whose About text is the repaired
one. Screenshots at each step; axe passes on each; no screen shows a route, a field name or a
machine time; nothing scrolls sideways on the phone."""
from __future__ import annotations

import json
import re

import pytest

from models.db import transaction
from models.store import Store, StoreVersion
from services.store import versions
from tests.browser.steps import MEASURE, TOUCH_PX, api_answer, claimed_and_built, fix_run_done, publish_store, screen
from tests.factories import demo_item, load
from tests.fix_site import Site

ABOUT = '<p>Two of us make these strips in a small workshop. See <a href="{origin}/gone">our old catalog</a>.</p>'

# What a founder never reads on a screen: routes, the answer's field names, machine times.
NOT_FOUNDER_WORDS = re.compile(r"/api/|\b[a-z]+(?:_[a-z]+)+\b|\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


@pytest.fixture
def elsewhere(settings_with):
    """The site the About text links to: its old catalog is gone."""
    with Site({"/catalog": (200, "text/html", b"<!doctype html><title>Catalog</title><h1>Catalog</h1>")}) as site:
        settings_with(fix_allow_hosts=site.allow)
        yield site


def founder_words_only(page) -> None:
    text = page.locator("main").inner_text()
    found = NOT_FOUNDER_WORDS.search(text)
    assert not found, found.group(0)


def fits_a_phone(app) -> None:
    if app.viewport == "phone":
        assert app.page.evaluate(MEASURE, [TOUCH_PX]) == []


def store_versions() -> int:
    return StoreVersion.select().where(StoreVersion.store == "p00").count()


def about_with_a_gone_link(origin: str) -> None:
    """The founder's About text, linking to a page of their store that is gone (what the Edit
    screen writes; it has tests of its own): a version of the store before it is published."""
    store = Store.get(Store.product == "p00")
    document = versions.document_of("p00", store.draft)
    document = {**document, "copy": {**(document.get("copy") or {}), "about": ABOUT.format(origin=origin)}}
    with transaction():
        versions.write_version("p00", document, summary="About text with a link", by_founder=True)


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_founder_applies_fixs_repairs_to_their_store_and_sees_it_checked_again(
        open_app, held_worker, run_jobs, founder, elsewhere, width):
    held_worker.resume()  # the claim's research, the build and the check run as they come; held at the apply
    load(demo_item())
    app = open_app(width)
    claimed_and_built(app, run_jobs)
    about_with_a_gone_link(elsewhere.origin)
    page = screen(app, "/#/app/store", "store")
    publish_store(app)
    address = "http://localhost" + page.get_by_role("link", name="Open the public store").get_attribute("href")

    # Fix, with the store's own address: read from its published version, never over the network.
    page, token = fix_run_done(app, address)
    run = api_answer(app, f"/api/fix/mine?token={token}")["run"]
    offer = run["apply"]
    assert offer["state"] == "offered" and offer["version"] is None and not offer["checking"]
    assert len(offer["repairs"]) == 1
    repair = offer["repairs"][0]
    before_text, after_text = repair["before"], repair["after"]
    assert "our old catalog" in before_text and before_text != after_text
    assert offer["apart"], "the About text's gone link is listed apart"
    assert run["summary"]["repaired"] == 0 and run["summary"]["score_after_measured"] is False
    assert page.locator("main p.lede").inner_text() == "Your store, checked." == run["summary"]["headline"]

    # What applying would change: the About text, before (struck through) and after.
    panel = page.locator("main section[data-apply=offered]")
    panel.get_by_role("heading", name="Apply these repairs").wait_for()
    change = panel.locator("[data-change]")
    assert change.count() == 1
    assert change.locator("del").inner_text() == before_text and change.locator("ins").inner_text() == after_text
    assert offer["repairs"][0]["what"] in change.inner_text()
    assert panel.locator("[data-undo]").inner_text() == offer["undo"]
    # Apart, with why: what the store's content cannot hold, and what the founder can do.
    apart = page.locator("main section[data-report=apart]")
    apart.get_by_role("heading", name="What we can't repair in your store for you").wait_for()
    for item in offer["apart"]:
        shown = apart.locator(f"li[data-finding-id='{item['finding']}']")
        assert shown.locator(".fix-apart-what").inner_text() == item["what"]
        assert shown.locator(".fix-apart-why").inner_text() == item["why"]
    # The gone link's finding: ready to apply, with its before and after, and no snippet to copy.
    mixed = [f for f in run["findings"] if f["fix"] and f["fix"]["kind"] == "store_change"]
    assert mixed and all(f["check"] == "broken_links" for f in mixed)
    for finding in mixed:
        row = page.locator(f"main li.fix-finding[data-finding-id='{finding['id']}']")
        assert "Ready to apply" in row.inner_text() and row.locator("ins").inner_text() == after_text
        assert row.locator("pre, button").count() == 0
    assert page.locator("main pre.fix-snippet").count() == 0  # a store built here takes no snippet
    founder_words_only(page)
    fits_a_phone(app)
    app.shot("fix-apply-offered")

    # An apply the service refuses is shown in its own words (here: a stranger's answer for this check).
    before = store_versions()
    stranger = founder().post("/api/fix/apply", json={"token": token})
    assert stranger.status_code == 404
    refused = stranger.get_json()
    app.allow_console(r"status of 404 .* at .*/api/fix/apply")
    page.route("**/api/fix/apply", lambda route: route.fulfill(status=404, content_type="application/json",
                                                                body=json.dumps(refused)), times=1)
    panel.get_by_role("button", name="Apply these repairs").click()
    notice = panel.locator("[data-apply-outcome] [data-reason=not_found]")
    notice.wait_for()
    assert refused["explanation"] in notice.inner_text()
    assert store_versions() == before

    # Applied: one new version, being published, and the fresh check of it waiting for its turn.
    run_jobs()
    held_worker.pause()
    page.unroute("**/api/fix/apply")
    panel.get_by_role("button", name="Apply these repairs").click()
    applied = page.locator("main section[data-apply=applied]")
    applied.get_by_role("heading", name="Your repairs are in your store").wait_for()
    checking = applied.locator("[data-checking=true]")
    assert checking.inner_text().startswith("Checking your new version…")
    assert applied.locator("[data-published=publishing]").count() == 1
    assert applied.locator("del").inner_text() == before_text and applied.locator("ins").inner_text() == after_text
    assert page.locator("main section[data-apply=offered]").count() == 0
    assert store_versions() == before + 1
    founder_words_only(page)
    fits_a_phone(app)
    app.shot("fix-apply-checking")

    # The new version published and checked: the measured score, higher than before.
    held_worker.resume()
    applied.locator("[data-checking=false]").wait_for(timeout=60_000)
    applied.locator("[data-published=true]").wait_for(timeout=60_000)
    run = api_answer(app, f"/api/fix/mine?token={token}")["run"]
    said, done = run["summary"], run["apply"]
    assert done["state"] == "applied" and done["published"] and not done["checking"] and not done["publishing"]
    assert said["score_after_measured"] is True and said["repaired"] == len(mixed)
    assert run["score_after"] > run["score_before"]
    assert page.locator("main p.lede").inner_text() == "Your store, checked and repaired." == said["headline"]
    assert applied.locator("[data-checking=false]").inner_text() == (
        f"We checked your new version: it scores {run['score_after']} out of 100.")
    assert "live" in applied.locator("[data-published=true]").inner_text()
    scores = page.locator("main figure[data-picture=scores]")
    assert scores.get_attribute("data-after") == str(run["score_after"])
    assert f"After them: {run['score_after']} out of 100" in scores.inner_text()
    assert page.locator("main [data-score-sentence=measured]").inner_text() == said["score_sentence"]
    for finding in mixed:
        row = page.locator(f"main li.fix-finding[data-finding-id='{finding['id']}']")
        assert row.get_attribute("data-fixed") == "true"
        assert "Repaired in your store" in row.inner_text() and "Ready to apply" not in row.inner_text()
    founder_words_only(page)
    fits_a_phone(app)
    app.shot("fix-apply-done")

    # The store: one more version, live, whose About text is the repaired one.
    store = Store.get(Store.product == "p00")
    assert store_versions() == before + 1
    assert store.version == done["version"] == store.draft == store.published_version
    assert "gone" not in versions.document_of("p00", store.version)["copy"]["about"]

    # A reload shows the same: applied, checked, nothing more to apply.
    page.reload()
    page.wait_for_selector("main[data-screen=fix][data-state=ready] section[data-apply=applied] [data-checking=false]",
                           state="attached", timeout=30_000)
    assert page.get_by_role("button", name="Apply these repairs").count() == 0
