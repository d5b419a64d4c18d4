"""An owner applies Fix's repairs to a store built here in one step (issue 48, point 2).

A store built here passes its own audit as it is built (tests/test_built_store_passes_its_audit.py),
so what a run finds on it is what its founder wrote: here a link in the About text to a page
that is gone (and, served over plain http as the suite's BASE_URL is, the address). The run
writes nothing into the store; its owner reads what applying would change, applies it (one
new store version, published since the store was live), and the report's score after becomes
the measured score of a fresh run of the new version. Undo is the editor's step back. Nobody
but the owner applies; a second apply, or five at once, writes one version; a store that
changed since the check, or a check with nothing the store can hold, is refused with why."""
from __future__ import annotations

import pytest

from models.fix import FixRun
from models.store import Store, StoreVersion
from services.fix import store_repairs
from services.store import versions
from tests.factories import cookie_of, edit, refusal, signed_in_founder_with_store
from tests.fix_site import Site
from tests.helpers import in_threads
from tests.store_pages import publish

pytestmark = pytest.mark.usefixtures("jobs_drained")

ABOUT = ('<p>Made in a small workshop. See <a href="{origin}/gone">our old catalog</a> and '
         '<a href="{origin}/catalog">the new one</a>.</p>')


@pytest.fixture
def elsewhere(settings_with):
    """The site the About text links to: its old catalog is gone, its new one opens."""
    with Site({"/catalog": (200, "text/html", b"<!doctype html><title>Catalog</title><h1>Catalog</h1>")}) as site:
        settings_with(fix_allow_hosts=site.allow)
        yield site


def with_about(client, run_jobs, about: str) -> None:
    answer = edit(client, f"change the about text to {about}")
    assert answer.get_json()["status"] == "edited", answer.get_json()
    run_jobs()


@pytest.fixture
def owner(founder, run_jobs, elsewhere):
    """A signed-in founder whose published store's About text links to a page that is gone."""
    client = signed_in_founder_with_store(founder, run_jobs)
    with_about(client, run_jobs, ABOUT.format(origin=elsewhere.origin))
    client.store_url = "http://localhost" + publish(client)
    return client


def checked(client, run_jobs, url: str) -> tuple[str, dict]:
    answer = client.post("/api/fix", json={"url": url})
    assert answer.status_code == 200, answer.get_json()
    token = answer.get_json()["token"]
    run_jobs()
    return token, run_of(client, token)


def run_of(client, token: str) -> dict:
    answer = client.get(f"/api/fix/mine?token={token}")
    assert answer.status_code == 200
    return answer.get_json()["run"]


def apply(client, token: str):
    return client.post("/api/fix/apply", json={"token": token})


def about_of(number: int) -> str:
    return versions.document_of(Store.get().product_id, number)["copy"]["about"]


def test_a_run_writes_nothing_and_shows_the_owner_what_applying_would_change(owner, run_jobs, elsewhere):
    versions_before = StoreVersion.select().count()
    token, run = checked(owner, run_jobs, owner.store_url)

    assert run["stage"] == "done" and StoreVersion.select().count() == versions_before
    assert run["repaired_in_place"] is False and run["store_version"] is None
    [dead] = [f for f in run["findings"] if f["check"] == "broken_links"]
    said = {"what": "A link in your About text",
            "before": f"\u201cour old catalog\u201d leads to {elsewhere.origin}/gone, which does not open (page not found).",
            "after": "\u201cour old catalog\u201d stays, as plain words."}
    assert dead["fixed"] is False and dead["fix"] == {"kind": "store_change", "draft": False, **said}
    offer = run["apply"]
    assert offer["state"] == "offered" and offer["version"] is None and offer["checking"] is False
    assert offer["repairs"] == [{"finding": dead["id"], "findings": [dead["id"]], **said}]
    # Served over http (the suite's BASE_URL): every page says so, listed apart once, with why.
    [address] = offer["apart"]
    assert len(address["findings"]) == run["summary"]["pages_read"]
    assert address["why"] == store_repairs.APART["https"]
    assert "step back" in offer["undo"]

    said = run["summary"]
    assert (said["repaired"], said["ready"], said["built_here"]) == (0, 1, True)
    assert "1 repair is ready to apply to your store" in said["sentence"]
    assert said["headline"] == "Your store, checked." and said["score_after_measured"] is False


def test_applying_writes_one_published_version_and_a_fresh_run_measures_the_score_after(owner, run_jobs, elsewhere):
    token, run = checked(owner, run_jobs, owner.store_url)
    published = Store.get().published_version
    versions_before = StoreVersion.select().count()

    answer = apply(owner, token)

    assert answer.status_code == 200 and answer.get_json()["status"] == "applied"
    assert StoreVersion.select().count() == versions_before + 1
    applied = answer.get_json()["run"]
    number = applied["store_version"]
    assert number == Store.get().version and applied["repaired_in_place"] is True
    assert about_of(number) == (f'<p>Made in a small workshop. See our old catalog and '
                                f'<a href="{elsewhere.origin}/catalog">the new one</a>.</p>')
    assert StoreVersion.get(StoreVersion.number == number).parent == published
    assert StoreVersion.get(StoreVersion.number == number).summary == "Fix: a link in your about text repaired"
    assert applied["apply"]["state"] == "applied" and applied["apply"]["checking"] is True
    [dead] = [f for f in applied["findings"] if f["check"] == "broken_links"]
    assert dead["fixed"] is True and dead["fix"]["kind"] == "store_version" and dead["fix"]["version"] == number
    # Until the fresh run is done, the score after is still the expected one.
    assert applied["summary"]["score_after_measured"] is False

    run_jobs()
    assert Store.get().published_version == number  # the store was live: the repair is too
    done = run_of(owner, token)
    check = run_of(owner, done["apply"]["check_token"])
    assert check["stage"] == "done" and not [f for f in check["findings"] if f["check"] == "broken_links"]
    said = done["summary"]
    assert said["score_after_measured"] is True and said["score_after"] == check["score_before"]
    assert said["score_after"] > said["score_before"] == run["score_before"]
    assert (said["repaired"], said["ready"]) == (1, 0)
    assert said["headline"] == "Your store, checked and repaired."
    assert said["score_sentence"] == (f"Your store scored {said['score_before']} out of 100 before the repairs; its "
                                      f"new version, with them, scores {said['score_after']} out of 100.")
    assert done["apply"] | {"check_token": None} == {
        **applied["apply"], "check_token": None, "checking": False, "published": True, "publishing": False}

    # A second apply answers the same and writes nothing more.
    again = apply(owner, token)
    assert again.status_code == 200 and again.get_json()["run"]["store_version"] == number
    assert StoreVersion.select().count() == versions_before + 1


def test_the_editors_step_back_undoes_the_apply(owner, run_jobs):
    token, _run = checked(owner, run_jobs, owner.store_url)
    before = about_of(Store.get().draft)
    assert apply(owner, token).status_code == 200
    run_jobs()
    assert about_of(Store.get().draft) != before

    stepped = owner.post("/api/ai/edit", json={"direction": "undo"})

    assert stepped.status_code == 200, stepped.get_json()
    assert about_of(Store.get().draft) == before


def test_only_the_stores_owner_applies_and_reads_what_applying_would_change(owner, run_jobs, founder):
    token, _run = checked(owner, run_jobs, owner.store_url)
    stranger = founder()
    versions_before = StoreVersion.select().count()

    assert run_of(stranger, token)["apply"] is None  # the token shows the report, not the apply
    refusal(apply(stranger, token), 404, "not_found")
    refusal(apply(stranger, "no-such-run"), 404, "not_found")
    # A stranger's own check of the store: the report, and nothing to apply.
    _their_token, theirs = checked(stranger, run_jobs, owner.store_url)
    assert theirs["apply"] is None and theirs["summary"]["ready"] == 1
    refusal(apply(stranger, _their_token), 404, "not_found")

    assert StoreVersion.select().count() == versions_before
    assert FixRun.get(FixRun.token == token).applied_at is None


def test_five_applies_at_once_write_one_version(owner, run_jobs):
    token, _run = checked(owner, run_jobs, owner.store_url)
    versions_before = StoreVersion.select().count()
    tabs = []
    for _ in range(5):  # the owner's five tabs: one session, five connections
        tab = owner.application.test_client()
        tab.set_cookie("ff_session", cookie_of(owner))
        tabs.append(tab)

    answers = in_threads(5, lambda i: apply(tabs[i], token))

    assert [a.status_code for a in answers] == [200] * 5
    assert {a.get_json()["run"]["store_version"] for a in answers} == {versions_before + 1}
    assert StoreVersion.select().count() == versions_before + 1
    run_jobs()
    assert FixRun.select().where(FixRun.recheck_of.is_null(False)).count() == 1


def test_a_run_not_finished_has_nothing_to_apply_yet(owner, held_worker):
    token = owner.post("/api/fix", json={"url": owner.store_url}).get_json()["token"]
    refusal(apply(owner, token), 409, "fix_run_not_done")


def test_a_clean_store_has_nothing_to_apply(owner, run_jobs):
    with_about(owner, run_jobs, "<p>Made in a small workshop by a small team.</p>")
    publish(owner)
    token, run = checked(owner, run_jobs, owner.store_url)
    assert run["apply"]["state"] == "nothing" and run["apply"]["repairs"] == []
    versions_before = StoreVersion.select().count()
    refusal(apply(owner, token), 409, "nothing_to_apply")
    assert StoreVersion.select().count() == versions_before


def test_a_store_changed_since_the_check_is_not_overwritten(owner, run_jobs):
    token, _run = checked(owner, run_jobs, owner.store_url)
    with_about(owner, run_jobs, "<p>Made in a small workshop by a small team.</p>")
    versions_before = StoreVersion.select().count()

    answer = apply(owner, token)

    refusal(answer, 409, "nothing_to_apply")
    assert "changed since this check" in answer.get_json()["explanation"]
    assert StoreVersion.select().count() == versions_before
    assert about_of(Store.get().draft) == "<p>Made in a small workshop by a small team.</p>"
    assert FixRun.get(FixRun.token == token).applied_at is None  # nothing half-written


def test_an_apply_with_edits_waiting_to_be_published_leaves_publishing_to_the_founder(owner, run_jobs):
    token, _run = checked(owner, run_jobs, owner.store_url)
    live = Store.get().published_version
    # An edit the founder has not published yet: the apply keeps it and does not publish it for them.
    assert edit(owner, "change the headline to Knives off the counter, on the wall").get_json()["status"] == "edited"

    applied = apply(owner, token).get_json()["run"]
    run_jobs()

    number = applied["store_version"]
    assert Store.get().published_version == live
    assert versions.document_of(Store.get().product_id, number)["copy"]["headline"] == \
        "Knives off the counter, on the wall"
    assert run_of(owner, token)["apply"]["published"] is False
