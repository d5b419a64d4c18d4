"""Fix runs through the HTTP API (issue 26; spec 2.15, 4.6, 4.7; decisions.md "Fix (store
repair)"): a run against a real local site from queued to done, its report and corrected pages,
refusals, adoption, events and feedback (a store built here, and its owner's apply, in
tests/test_fix_apply.py), the report and follow-up mail, and one visitor's runs never listed for another."""
from datetime import timedelta

import pytest

from models.clock import utcnow
from models.fix import FixEvent, FixRun
from services.fix import audit_run, mail
from tests.conftest import SETTINGS
from tests.fix_site import Site
from tests.mailbox import messages_to

pytestmark = pytest.mark.usefixtures("jobs_drained")


@pytest.fixture
def site(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def started(client, url, **extra) -> str:
    answer = client.post("/api/fix", json={"url": url, **extra})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["status"] == "queued" and body["token"]
    return body["token"]


def finished(client, run_jobs, token) -> dict:
    run_jobs()
    answer = client.get(f"/api/fix/mine?token={token}")
    assert answer.status_code == 200
    return answer.get_json()["run"]


# --- A run, end to end ----------------------------------------------------------------------

def test_a_run_reads_the_site_audits_and_repairs_it_and_the_score_rises(client, run_jobs, site):
    token = started(client, site.origin + "/")
    run = finished(client, run_jobs, token)
    assert run["stage"] == "done", run
    assert run["pages"][0] == site.origin + "/"
    assert {site.origin + "/about.html", site.origin + "/faq.html"} <= set(run["pages"])
    checks_found = {f["check"] for f in run["findings"]}
    assert {"meta_description", "one_h1", "image_alt", "canonical", "open_graph", "viewport",
            "broken_links"} <= checks_found
    assert run["score_before"] < run["score_after"] <= 100
    broken = [f for f in run["findings"] if f["check"] == "broken_links"]
    assert broken and all(f["fixed"] is False and f["fix"] is None for f in broken)
    # On the home page every repairable finding is repaired (its image's size read by fetching
    # it); what stays is what no snippet can mend: the address's scheme, two headings, a dead link.
    home = [f for f in run["findings"] if f["page"] == site.origin + "/"]
    assert {f["check"] for f in home if not f["fixed"]} == {"https", "one_h1", "broken_links"}
    assert {"image_size", "image_alt", "product_data", "meta_description"} <= {f["check"] for f in home if f["fixed"]}
    assert "/img/blue-ceramic-mug.png" in site.hits
    repaired = [f for f in run["findings"] if f["fixed"]]
    assert repaired and all(f["fix"]["snippet"] for f in repaired)
    assert all(f["check_label"] and "target" not in f for f in run["findings"])
    assert run["repaired_in_place"] is False and run["store_version"] is None


def test_the_corrected_page_downloads_as_an_attachment_with_the_repairs(client, run_jobs, site):
    run = finished(client, run_jobs, started(client, site.origin + "/"))
    home = run["pages_detail"][0]
    answer = client.get(home["download"])
    assert answer.status_code == 200
    assert answer.headers["Content-Disposition"].startswith("attachment;")
    assert answer.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert {"private", "no-store"} <= {d.strip() for d in answer.headers["Cache-Control"].split(",")}
    html = answer.get_data(as_text=True)
    assert 'rel="canonical"' in html and 'name="viewport"' in html and "application/ld+json" in html
    assert client.get(f"/api/fix/page?token={run['token']}&page=99").status_code == 404
    assert client.get("/api/fix/page?token=nope&page=0").get_json()["reason"] == "not_found"


def test_stages_move_from_queued_to_done(client, run_jobs, site, held_worker):
    token = started(client, site.origin + "/")
    assert client.get(f"/api/fix/mine?token={token}").get_json()["run"]["stage"] == "queued"
    held_worker.resume()
    assert finished(client, run_jobs, token)["stage"] == "done"


def test_a_run_twice_changes_nothing_more(client, run_jobs, site):
    token = started(client, site.origin + "/")
    first = finished(client, run_jobs, token)
    hits = len(site.hits)
    assert audit_run.run({"run_id": FixRun.get(FixRun.token == token).id}) == {"skipped": True}
    assert len(site.hits) == hits and finished(client, run_jobs, token) == first


# --- Refusals and failures ------------------------------------------------------------------

@pytest.mark.parametrize("url", ["", "   ", "ftp://example.com/", "javascript:alert(1)", "https://", "http:///x",
                                 "https://exa mple.com/", "x" * 2001, "http://[::1", "https://exa[mple.com/",
                                 "[\u00b7)_\u00c8", "http://shop.example:99999/", "http://shop.example:port/"])
def test_an_address_that_is_not_a_web_address_is_invalid_url(client, url):
    answer = client.post("/api/fix", json={"url": url})
    assert answer.status_code == 400 and answer.get_json()["reason"] == "invalid_url"


@pytest.mark.parametrize("url", ["http://127.0.0.1/", "http://localhost/admin", "http://10.0.0.5/", "http://169.254.169.254/latest/meta-data/",
                                 "http://[::1]/", "http://2130706433/", "http://0x7f000001/",
                                 "https://example.com:8080/", "http://user:pw@example.com/"])
def test_an_inward_address_or_odd_port_is_refused_before_any_run(client, url):
    answer = client.post("/api/fix", json={"url": url})
    assert answer.status_code == 400 and answer.get_json()["reason"] == "address_not_public"
    assert FixRun.select().count() == 0


def test_a_name_that_resolves_inward_fails_the_run_and_nothing_is_fetched(client, run_jobs, site, monkeypatch):
    from integrations.web import fetch

    # The outside world's DNS, answering a public-looking name with this machine's address.
    monkeypatch.setattr(fetch, "system_resolver", lambda host, port: ["127.0.0.1"])
    site_hits = len(site.hits)
    run = finished(client, run_jobs, started(client, "http://shop.example/"))
    assert run["stage"] == "failed" and run["reason"] == "address_not_public" and run["explanation"]
    assert len(site.hits) == site_hits


def test_a_site_answering_an_error_fails_as_unreachable(client, run_jobs, settings_with):
    with Site({"/": (500, "text/html", b"oops")}) as broken:
        settings_with(fix_allow_hosts=broken.allow)
        run = finished(client, run_jobs, started(client, broken.origin + "/"))
    assert run["stage"] == "failed" and run["reason"] == "store_unreachable"


def test_an_address_that_is_not_a_web_page_fails_as_such(client, run_jobs, settings_with):
    with Site({"/": (200, "application/pdf", b"%PDF-1.4")}) as pdf:
        settings_with(fix_allow_hosts=pdf.allow)
        run = finished(client, run_jobs, started(client, pdf.origin + "/"))
    assert run["stage"] == "failed" and run["reason"] == "not_a_web_page"


def test_a_session_with_three_unfinished_runs_waits_for_one(client, run_jobs, site, held_worker):
    for _ in range(3):
        started(client, site.origin + "/")
    answer = client.post("/api/fix", json={"url": site.origin + "/"})
    assert answer.status_code == 429 and answer.get_json()["reason"] == "fix_runs_busy"
    assert FixRun.select().count() == 3
    held_worker.resume()
    run_jobs()
    started(client, site.origin + "/")


def test_a_malformed_email_is_refused(client, site):
    answer = client.post("/api/fix", json={"url": site.origin + "/", "email": "not-an-address"})
    assert answer.status_code == 400 and answer.get_json()["reason"] == "invalid_email"


# --- Whose runs -----------------------------------------------------------------------------

def test_another_sessions_runs_are_never_listed_without_the_token(founder, run_jobs, site):
    alice, bob = founder(), founder()
    token = started(alice, site.origin + "/")
    run_jobs()
    assert [r["token"] for r in alice.get("/api/fix/mine").get_json()["runs"]] == [token]
    assert bob.get("/api/fix/mine").get_json() == {"status": "ok", "runs": [], "subscriptions": []}
    # The token is the key: whoever holds it reads the report.
    assert bob.get(f"/api/fix/mine?token={token}").get_json()["run"]["token"] == token
    assert bob.get("/api/fix/mine?token=unknown").status_code == 404


def test_adopt_attaches_a_run_to_the_signed_in_account(founder, signed_in, run_jobs, site):
    visitor = founder()
    token = started(visitor, site.origin + "/", email="owner@example.com")
    run_jobs()
    owner = signed_in("owner@example.com")
    assert owner.get("/api/fix/mine").get_json()["runs"] == []
    answer = owner.post("/api/fix/adopt", json={"token": token})
    assert answer.status_code == 200 and answer.get_json()["run"]["token"] == token
    mine = owner.get("/api/fix/mine").get_json()
    assert [r["token"] for r in mine["runs"]] == [token]
    assert mine["subscriptions"] == [{"url": site.origin + "/", "email": "owner@example.com", "follow_up": True}]
    assert owner.post("/api/fix/adopt", json={"token": "unknown"}).status_code == 404


def test_a_run_another_account_holds_is_read_by_its_token_but_never_taken(founder, signed_in, run_jobs, site):
    owner = signed_in("owner@example.com")
    token = started(owner, site.origin + "/")
    run_jobs()
    for taker in (signed_in("taker@example.com"), founder()):
        refused = taker.post("/api/fix/adopt", json={"token": token})
        assert refused.status_code == 404 and refused.get_json()["reason"] == "not_found"
        assert taker.get(f"/api/fix/mine?token={token}").get_json()["run"]["token"] == token
    assert founder().post("/api/account", json={"email": "third@example.com", "fix_token": token}).get_json()[
        "adopted_fix_runs"] == []
    assert [r["token"] for r in owner.get("/api/fix/mine").get_json()["runs"]] == [token]


def test_saving_an_account_with_fix_token_adopts_the_run(founder, run_jobs, site):
    visitor = founder()
    token = started(visitor, site.origin + "/")
    other = founder()
    answer = other.post("/api/account", json={"email": "new@example.com", "fix_token": token})
    assert answer.status_code == 200 and answer.get_json()["adopted_fix_runs"] == [token]
    assert [r["token"] for r in other.get("/api/fix/mine").get_json()["runs"]] == [token]
    assert other.post("/api/account", json={"email": "new@example.com", "fix_token": "nope"}).get_json()[
        "adopted_fix_runs"] == []


def test_signing_in_carries_the_sessions_runs_to_the_account(founder, run_jobs, site):
    from tests.mailbox import sign_in_here

    visitor = founder()
    token = started(visitor, site.origin + "/")
    sign_in_here(visitor, run_jobs, "carried@example.com")
    assert FixRun.get(FixRun.token == token).account_id is not None
    assert [r["token"] for r in visitor.get("/api/fix/mine").get_json()["runs"]] == [token]


# --- Events and feedback --------------------------------------------------------------------

@pytest.mark.parametrize("event", list(FixEvent.EVENTS))
def test_each_decided_event_is_recorded(client, run_jobs, site, event):
    token = started(client, site.origin + "/")
    answer = client.post("/api/fix/event", json={"token": token, "event": event, "detail": "fine"})
    assert answer.status_code == 200 and answer.get_json() == {"status": "recorded"}
    assert [(e.event, e.detail) for e in FixEvent.select()] == [(event, "fine")]


def test_an_unknown_event_is_400_and_an_unknown_token_404(client, site):
    token = started(client, site.origin + "/")
    answer = client.post("/api/fix/event", json={"token": token, "event": "clicked_everything"})
    assert answer.status_code == 400 and answer.get_json()["reason"] == "unknown_event"
    answer = client.post("/api/fix/feedback", json={"token": "unknown", "event": "feedback"})
    assert answer.status_code == 404 and answer.get_json()["reason"] == "not_found"
    assert FixEvent.select().count() == 0


def test_feedback_asking_for_no_follow_up_suppresses_it_and_says_so(signed_in, run_jobs, site):
    # Each mails its own verified address: only such an address (or a confirmed one) is mailed.
    quiet, keen = signed_in("quiet@example.com"), signed_in("keen@example.com")
    hush = started(quiet, site.origin + "/", email="quiet@example.com")
    started(keen, site.origin + "/", email="keen@example.com")
    run_jobs()
    answer = quiet.post("/api/fix/feedback", json={"token": hush, "event": "feedback",
                                                   "detail": "Useful, thanks, but please don't email me again."})
    body = answer.get_json()
    assert answer.status_code == 200 and body["status"] == "recorded" and body["follow_up"] is False
    assert "follow-up" in body["explanation"]
    assert quiet.get("/api/fix/mine").get_json()["subscriptions"][0]["follow_up"] is False
    later = utcnow() + timedelta(days=SETTINGS.fix_follow_up_days, hours=1)
    assert mail.send_follow_ups(now=later) == 1
    assert mail.send_follow_ups(now=later) == 0  # once
    subjects = lambda to: [m["Subject"] for m in messages_to(to)]  # noqa: E731
    assert any("check your store again" in s for s in subjects("keen@example.com"))
    assert not any("check your store again" in s for s in subjects("quiet@example.com"))


def test_plain_feedback_keeps_the_follow_up(client, run_jobs, site):
    token = started(client, site.origin + "/", email="fine@example.com")
    body = client.post("/api/fix/feedback", json={"token": token, "event": "feedback",
                                                  "detail": "The alt text drafts were good."}).get_json()
    assert body == {"status": "recorded"}
    assert FixRun.get(FixRun.token == token).follow_up is True


def test_the_report_is_mailed_once_when_done(signed_in, run_jobs, site):
    client = signed_in("report@example.com")
    token = started(client, site.origin + "/", email="report@example.com")
    finished(client, run_jobs, token)
    mail.send_run_mail(FixRun.get(FixRun.token == token).id)  # a second delivery sends nothing more
    mails = [m for m in messages_to("report@example.com") if "sign-in" not in m["Subject"].lower()]
    assert len(mails) == 1 and "store check is ready" in mails[0]["Subject"]
    assert token in mails[0].get_body(preferencelist=("plain",)).get_content()


def test_follow_ups_are_not_due_before_their_days(signed_in, run_jobs, site):
    client = signed_in("soon@example.com")
    finished(client, run_jobs, started(client, site.origin + "/", email="soon@example.com"))
    assert mail.send_follow_ups(now=utcnow() + timedelta(days=1)) == 0
    assert mail.send_follow_ups(now=utcnow() + timedelta(days=SETTINGS.fix_follow_up_days, hours=1)) == 1
