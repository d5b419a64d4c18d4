"""The report and its mail say the same thing (issue 48.4 and 48.5): a finished run's
`summary` (services/fix/summary.py) is counted once, and the API answer, the report mail and
the follow-up mail show the same numbers and the same sentence. A store elsewhere gets its
repairs written and ready, none applied: nothing says "repaired 0", the subtitle says checked,
and the score after is called expected, not measured. A store built here whose owner runs Fix
gets a new store version: repaired > 0, the subtitle says checked and repaired, and the score
after is measured on that version."""
from __future__ import annotations

import html as html_module
from datetime import timedelta

import pytest

from models.clock import utcnow
from models.fix import FixRun
from models.store import Store
from services.fix import mail, summary
from tests.conftest import SETTINGS
from tests.fix_site import Site
from tests.mailbox import html_of, messages_to, sign_in_here, text_of

pytestmark = pytest.mark.usefixtures("jobs_drained")

FIELDS = {"pages_read", "found", "repaired", "ready", "left", "score_before", "score_after", "score_after_measured",
          "built_here", "headline", "sentence", "score_sentence"}
NEVER_SAID = ("repaired 0", "wrote repairs for 0", "0 repaired", "repairs for 0")


@pytest.fixture
def site(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def finished_run(client, run_jobs, url: str, email: str) -> dict:
    answer = client.post("/api/fix", json={"url": url, "email": email})
    assert answer.status_code == 200, answer.get_json()
    token = answer.get_json()["token"]
    run_jobs()
    run = client.get(f"/api/fix/mine?token={token}").get_json()["run"]
    assert run["stage"] == "done", run
    return run


def report_mail(address: str):
    mails = [m for m in messages_to(address) if "store check is ready" in m["Subject"]]
    assert len(mails) == 1, [m["Subject"] for m in messages_to(address)]
    return mails[0]


def follow_up_mail(address: str):
    assert mail.send_follow_ups(now=utcnow() + timedelta(days=SETTINGS.fix_follow_up_days, hours=1)) == 1
    mails = [m for m in messages_to(address) if "check your store again" in m["Subject"]]
    assert len(mails) == 1
    return mails[0]


def says_the_summary(message, said: dict) -> None:
    """The mail, in both its parts, says the summary's sentence and scores word for word,
    and never a count of nothing repaired."""
    for part in (text_of(message), html_module.unescape(html_of(message))):
        flat = " ".join(part.split())
        assert said["sentence"] in flat, (said["sentence"], flat)
        if said["score_sentence"]:
            assert said["score_sentence"] in flat, (said["score_sentence"], flat)
        for words in NEVER_SAID:
            assert words not in flat.lower(), (words, flat)
        if not said["score_after_measured"]:
            assert "score after" not in flat.lower() and "it scored" not in flat.lower(), flat


def counted_from_findings(run: dict) -> tuple[int, int, int]:
    findings = run["findings"]
    repaired = sum(1 for f in findings if f["fixed"] and (f["fix"] or {}).get("kind") == "store_version")
    left = sum(1 for f in findings if not f["fix"])
    return repaired, len(findings) - repaired - left, left


def test_a_store_elsewhere_with_repairs_ready_and_none_applied_says_so_in_the_answer_and_both_mails(
        signed_in, run_jobs, site):
    address = "elsewhere@example.com"
    client = signed_in(address)
    run = finished_run(client, run_jobs, site.origin + "/", address)
    said = run["summary"]
    assert set(said) == FIELDS
    # The answer's own findings give the same piles: nothing applied, repairs ready, some left.
    assert (said["repaired"], said["ready"], said["left"]) == counted_from_findings(run)
    assert said["repaired"] == 0 and said["ready"] > 0 and said["left"] > 0
    assert said["found"] == len(run["findings"]) == said["repaired"] + said["ready"] + said["left"]
    assert said["pages_read"] == len(run["pages"]) >= 2
    assert said["headline"] == "Your store, checked."
    assert f"{said['ready']} repairs are ready for you to copy or download" in said["sentence"]
    assert f"found {said['found']} things to fix" in said["sentence"]
    # The score after is the corrected pages', which nobody has put on the store: expected, not measured.
    assert said["score_after_measured"] is False and run["repaired_in_place"] is False
    assert (said["score_before"], said["score_after"]) == (run["score_before"], run["score_after"])
    assert said["score_after"] > said["score_before"]
    assert said["score_sentence"] == (f"Your pages score {said['score_before']} out of 100 as they are; we expect "
                                      f"{said['score_after']} out of 100 once these repairs are on your store.")

    report = report_mail(address)
    assert report["Subject"] == (f"Your store check is ready: {said['found']} things found, {said['ready']} repairs "
                                 "ready to use")
    says_the_summary(report, said)
    says_the_summary(follow_up_mail(address), said)


def test_a_store_built_here_says_ready_to_apply_then_repaired_in_the_answer_and_both_mails(
        shop, run_jobs, settings_with):
    address = "owner@example.com"
    sign_in_here(shop, run_jobs, address)  # the store's owner, signed in: the report is mailed to them
    with Site({}) as elsewhere:  # the About text links to a page of it that is gone
        settings_with(fix_allow_hosts=elsewhere.allow)
        about = f'<p>Made in a small workshop. See <a href="{elsewhere.origin}/gone">our old catalog</a>.</p>'
        assert shop.post("/api/ai/edit", json={"message": f"change the about text to {about}"}).status_code == 200
        run_jobs()
        assert shop.post("/api/store/publish").get_json()["status"] == "published"
        run = finished_run(shop, run_jobs, f"{SETTINGS.base_url}/store/{Store.get().slug}/", address)

        said = run["summary"]
        assert set(said) == FIELDS and said["built_here"] is True
        assert (said["repaired"], said["ready"], said["left"]) == counted_from_findings(run) and said["ready"] == 1
        assert "1 repair is ready to apply to your store" in said["sentence"]
        assert said["headline"] == "Your store, checked." and said["score_after_measured"] is False
        report = report_mail(address)
        says_the_summary(report, said)
        assert "apply these repairs to your store in one step" in " ".join(text_of(report).split())

        assert shop.post("/api/fix/apply", json={"token": run["token"]}).status_code == 200
        run_jobs()
    applied = shop.get(f"/api/fix/mine?token={run['token']}").get_json()["run"]
    said = applied["summary"]
    assert (said["repaired"], said["ready"], said["left"]) == counted_from_findings(applied)
    assert said["repaired"] == 1 and said["found"] == said["repaired"] + said["ready"] + said["left"]
    assert said["headline"] == "Your store, checked and repaired."
    assert "we repaired 1 in a new version of your store" in said["sentence"]
    # Measured: the score after is a fresh run's of the version the apply wrote.
    assert said["score_after_measured"] is True and said["score_after"] > said["score_before"]
    assert said["score_sentence"] == (f"Your store scored {said['score_before']} out of 100 before the repairs; its "
                                      f"new version, with them, scores {said['score_after']} out of 100.")
    follow_up = follow_up_mail(address)
    says_the_summary(follow_up, said)


@pytest.mark.parametrize("counts, expected", [
    ({"pages_read": 7, "found": 14, "repaired": 0, "ready": 6, "left": 8},
     "We read 7 pages and found 14 things to fix: 6 repairs are ready for you to copy or download, and 8 we could "
     "not repair for you."),
    ({"pages_read": 1, "found": 1, "repaired": 1, "ready": 0, "left": 0},
     "We read 1 page and found 1 thing to fix: we repaired 1 in a new version of your store."),
    ({"pages_read": 6, "found": 5, "repaired": 1, "ready": 1, "left": 3},
     "We read 6 pages and found 5 things to fix: we repaired 1 in a new version of your store, 1 more repair is "
     "ready for you to copy or download, and 3 we could not repair for you."),
    ({"pages_read": 3, "found": 2, "repaired": 0, "ready": 0, "left": 2},
     "We read 3 pages and found 2 things to fix: we could not repair any of them for you."),
    ({"pages_read": 4, "found": 0, "repaired": 0, "ready": 0, "left": 0},
     "We read 4 pages and found nothing to fix."),
])
def test_the_sentence_says_each_pile_only_when_it_holds_something(counts, expected):
    assert summary.sentence(**counts) == expected


def test_a_run_not_done_has_no_summary_yet(client, site, held_worker):
    token = client.post("/api/fix", json={"url": site.origin + "/"}).get_json()["token"]
    assert client.get(f"/api/fix/mine?token={token}").get_json()["run"]["summary"] is None
    assert summary.of(FixRun.get(FixRun.token == token)) is None
