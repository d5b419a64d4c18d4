"""Storefronts through HTTP: the build job through its stages, one build per product however
many ask, failures and retries, versions with their patches, the owner's preview, the
public pages, publishing (with regeneration and verify_failed), and the launch facts."""
from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser

import pytest

from models.catalog import Product
from models.clock import clock
from models.db import db
from models.job import Job
from models.store import Store, StoreVersion
from services import jobs as job_rows
from services.store import builds, versions
from tests.conftest import SETTINGS
from tests.factories import built, claim, claimed_founder, demo_item, find, load, refusal
from tests.helpers import in_threads

XSS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "</script><script>alert(2)</script>",
       "<svg onload=alert(3)>", "{{7*7}}"]


class Page(HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.scripts, self.handlers, self.h1 = [], [], 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.h1 += tag == "h1"
        if tag == "script":
            # The JSON-LD by its type; the funnel events' tracker by its file (never inline).
            self.scripts.append(dict(attrs).get("type") or dict(attrs).get("src"))
        self.handlers += [name for name, _ in attrs if name.startswith("on")]


# --- Building ----------------------------------------------------------------------------------

def test_with_nothing_held_or_claimed_post_store_answers_the_not_claimed_state(founder):
    load(demo_item())
    client = founder()
    body = client.post("/api/store").get_json()
    assert body["status"] == "not_claimed" and body["reason"] == "not_claimed" and body["explanation"]
    refusal(client.get("/api/store"), 200, "not_claimed")
    assert Store.select().count() == 0


def test_a_held_product_resolves_its_store_is_built_and_edited_but_publishing_needs_the_claim(founder, run_jobs):
    """Spec 2: one resolver, claimed first and then by hold, for every founder-scoped endpoint."""
    load(demo_item())
    client = founder()
    find(client)  # holds p00
    state = built(client, run_jobs)
    assert state["product_id"] == "p00" and state["version"] == 1
    assert client.get(state["preview_url"]).status_code == 200
    assert client.get("/api/editor/draft").get_json()["status"] == "ok"
    assert client.get("/api/editor/metrics").get_json()["status"] == "ok"
    body = refusal(client.post("/api/store/publish"), 409, "claim_required")
    assert "claim it first" in body["explanation"]
    assert Store.get().published_version is None
    # Once claimed, the same store is published.
    assert claim(client).get_json()["status"] == "claimed"
    assert client.post("/api/store/publish").get_json()["status"] == "published"


def test_a_store_built_on_a_lapsed_hold_is_never_the_next_founders(founder, run_jobs):
    load(demo_item())
    first = founder()
    find(first)
    built(first, run_jobs)
    assert Store.get().version == 1
    clock.advance(31 * 60)  # the hold lapses
    second = founder()
    assert find(second).get_json()["product_id"] == "p00"
    answer = second.get("/api/store").get_json()
    assert answer.get("reason") == "not_yet_researched", answer  # nothing of the first founder's draft
    assert StoreVersion.select().count() == 0
    state = built(second, run_jobs)
    assert state["version"] == 1
    assert first.get(state["preview_url"]).status_code == 404  # the first founder's preview is gone with it
    refusal(first.get("/api/store"), 200, "not_claimed")


def test_before_the_first_build_the_store_is_not_started(founder):
    client = claimed_founder(founder)
    refusal(client.get("/api/store"), 200, "not_yet_researched")
    refusal(client.post("/api/store/publish"), 409, "not_started")


def test_the_build_job_moves_through_every_stage_and_stores_version_one(founder, run_jobs, monkeypatch):
    stages = []
    renew = job_rows.renew_lease

    def recording(job_id, attempt, *, lease_seconds, stage=None):
        if stage is not None:
            stages.append((job_id, stage))
        return renew(job_id, attempt, lease_seconds=lease_seconds, stage=stage)

    monkeypatch.setattr(job_rows, "renew_lease", recording)
    client = claimed_founder(founder)
    first = client.post("/api/store").get_json()
    assert (first["status"], first["stage"], first["version"]) == ("building", "queued", 0)
    state = built(client, run_jobs)
    build_id = Job.get(Job.kind == builds.BUILD).id
    assert [name for job_id, name in stages if job_id == build_id] == ["researching", "writing", "rendering",
                                                                        "verifying"]
    assert state["version"] == 1 and state["published_version"] is None and state["public_url"] is None
    assert re.fullmatch(r"/store/product-p00-[0-9a-f]{6}/preview/", state["preview_url"])
    row = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 1)
    assert row.document["product_id"] == "p00" and row.document["price"] == 30.0
    assert {page["id"] for page in row.document["pages"]} == {"home", "product", "faq", "shipping", "contact",
                                                               "privacy", "terms"}


def test_a_running_build_is_reported_not_started_again(founder, held_worker, run_jobs):
    client = claimed_founder(founder)
    first = client.post("/api/store").get_json()
    again = client.post("/api/store").get_json()
    assert again["job_id"] == first["job_id"] and again["status"] == "building"
    assert Job.select().where(Job.kind == builds.BUILD).count() == 1


def test_a_hundred_concurrent_builds_start_one_job_and_send_one_message(founder, held_worker, monkeypatch):
    import api.store as store_routes

    sent = []
    real_send_all = store_routes.send_all
    monkeypatch.setattr(store_routes, "send_all", lambda jobs: (sent.extend(jobs), real_send_all(jobs)))
    client = claimed_founder(founder)
    cookie = client.get_cookie("ff_session").value

    def build(_):
        other = founder()
        other.set_cookie("ff_session", cookie)
        return other.post("/api/store").get_json()

    answers = in_threads(100, build)
    assert Job.select().where(Job.kind == builds.BUILD).count() == 1
    assert len(sent) == 1
    job_id = Job.get(Job.kind == builds.BUILD).id
    assert {(a["status"], a["stage"], a["job_id"]) for a in answers} == {("building", "queued", job_id)}


def test_a_failed_generation_says_so_and_the_next_build_starts_afresh(founder, run_jobs, settings_with, tmp_path):
    failing = tmp_path / "failing_ai.py"
    failing.write_text("import sys\nsys.stdin.read()\nsys.exit(3)\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {failing}")
    client = claimed_founder(founder)
    client.post("/api/store")
    run_jobs()
    state = client.get("/api/store").get_json()
    assert (state["status"], state["stage"], state["reason"]) == ("failed", "failed", "generation_failed")
    assert "did not finish" in state["explanation"] and state["version"] == 0
    settings_with(ai_backend="offline")
    again = client.post("/api/store").get_json()
    assert again["status"] == "building" and again["job_id"] != state.get("job_id")
    # That build is the next one: its job is run, not a build after it (which, once it has
    # finished, a second POST would start).
    run_jobs()
    done = client.get("/api/store").get_json()
    assert (done["status"], done["version"]) == ("built", 1)


def test_every_build_is_a_new_version_whose_patch_reproduces_it(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    Product.update(description="A solid acacia bar with magnets, now with wall anchors.").where(
        Product.product_id == "p00").execute()
    assert built(client, run_jobs)["version"] == 2
    second = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 2)
    assert any(op["path"] == "/product/description" for op in second.patch)
    for number in (1, 2):
        stored = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == number).document
        assert versions.apply_patches("p00", number) == stored


# --- Pages ---------------------------------------------------------------------------------------

def test_the_owner_previews_the_newest_version_and_nobody_else_does(founder, run_jobs):
    client = claimed_founder(founder)
    state = built(client, run_jobs)
    preview = client.get(state["preview_url"])
    assert preview.status_code == 200 and preview.headers["Content-Type"].startswith("text/html")
    assert "noindex" in preview.get_data(as_text=True)
    assert "script-src" not in preview.headers["Content-Security-Policy"]
    assert "track.js" not in preview.get_data(as_text=True)  # a preview never counts
    assert "private" in preview.headers["Cache-Control"]
    stranger = founder()
    assert stranger.get(state["preview_url"]).status_code == 404
    public = state["preview_url"].replace("/preview/", "/")
    response = founder().get(public)
    assert response.status_code == 404 and response.get_json()["reason"] == "not_found"


def test_every_page_of_a_built_store_parses_with_one_h1_and_no_script(founder, run_jobs):
    client = claimed_founder(founder)
    base = built(client, run_jobs)["preview_url"]
    for page in ("", "product", "faq", "shipping", "contact", "privacy", "terms"):
        response = client.get(base + page)
        assert response.status_code == 200, page
        parsed = Page(response.get_data(as_text=True))
        assert parsed.h1 == 1 and parsed.handlers == [], page
        assert set(parsed.scripts) <= {"application/ld+json"}, page
    assert client.get(base + "nowhere").status_code == 404


def test_founder_text_full_of_script_never_becomes_script(founder, run_jobs):
    line = demo_item(name=" ".join(XSS), description="Holds knives. " + " ".join(XSS))
    client = claimed_founder(founder, line)
    base = built(client, run_jobs)["preview_url"]
    public = client.post("/api/store/publish").get_json()["public_url"]
    for page in ("", "product", "faq"):
        # The public page: the tracker and the JSON-LD, nothing else, whatever the founder wrote.
        text = founder().get(public + page).get_data(as_text=True)
        parsed = Page(text)
        assert parsed.handlers == [] and set(parsed.scripts) <= {"application/ld+json", "/static/storefront/track.js"}
        assert parsed.scripts.count("/static/storefront/track.js") == 1 and text.lower().count("<script") == len(
            parsed.scripts), page
        text = client.get(base + page).get_data(as_text=True)
        parsed = Page(text)
        assert parsed.handlers == [] and set(parsed.scripts) <= {"application/ld+json"}, page
        assert "{{7*7}}" in text or "{{7*7}}" in text.replace("&#123;", "{"), page
        for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', text, re.S):
            json.loads(block)


# --- Publishing ----------------------------------------------------------------------------------

def test_publishing_checks_and_publishes_and_the_public_pages_appear(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    answer = client.post("/api/store/publish")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    state = answer.get_json()
    assert (state["status"], state["published_version"]) == ("published", 1)
    visitor = founder()
    home = visitor.get(state["public_url"])
    assert home.status_code == 200 and "public" in home.headers["Cache-Control"]
    # The public pages load the funnel events' script (and may run it and post to this origin only).
    assert '<script src="/static/storefront/track.js" data-product-id="p00" defer></script>' in home.get_data(as_text=True)
    csp = home.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert home.headers.getlist("Set-Cookie") == []  # a visitor is given no founder cookie
    assert "noindex" not in home.get_data(as_text=True)
    assert visitor.get(state["public_url"] + "sitemap.xml").status_code == 200
    robots = visitor.get(state["public_url"] + "robots.txt").get_data(as_text=True)
    assert "sitemap.xml" in robots.lower()
    facts = {f["id"]: f["true_today"] for f in client.get("/api/launch").get_json()["facts"]}
    assert facts["store_built"] and facts["store_published"]


def test_a_price_that_moved_is_regenerated_before_publishing(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    Product.update(price=42.0).where(Product.product_id == "p00").execute()
    state = client.post("/api/store/publish").get_json()
    assert (state["status"], state["version"], state["published_version"]) == ("published", 2, 2)
    assert StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 2).document["price"] == 42.0
    assert "42.00" in founder().get(state["public_url"] + "product").get_data(as_text=True)


def test_a_store_whose_check_cannot_run_is_not_published(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    # The stored version cannot be read (its JSON is damaged): the check cannot run at all.
    db.execute_sql("UPDATE store_version SET document = 'not json' WHERE product_id = 'p00'")
    answer = client.post("/api/store/publish")
    assert answer.status_code == 500 and answer.get_json()["reason"] == "verify_failed"
    state = client.get("/api/store").get_json()
    assert state["published_version"] is None and state["last_publish"]["reason"] == "verify_failed"
    assert Store.get(Store.product == "p00").published_version is None


def test_another_founder_never_sees_or_builds_your_store(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    other = founder()
    refusal(other.get("/api/store"), 200, "not_claimed")
    refusal(other.post("/api/store/publish"), 200, "not_claimed")


def test_a_worker_that_died_mid_build_is_replaced_and_the_build_finishes_once(founder, held_worker, run_jobs):
    from jobs.send import send
    from models.clock import clock

    client = claimed_founder(founder)
    job_id = client.post("/api/store").get_json()["job_id"]
    # A worker takes the job (attempt 1) and dies without a word: no stage, no heartbeat.
    dead = job_rows.start_attempt(job_id, lease_seconds=60)
    assert dead == 1
    assert client.get("/api/store").get_json()["status"] == "building"
    clock.advance(seconds=61)  # its lease runs out
    reclaimed = job_rows.reclaim_stale(stale_seconds=SETTINGS.job_stale_seconds)
    assert job_id in [job.id for job in reclaimed]  # (the claim's research job waited too)
    for job in reclaimed:
        send(job)
    held_worker.resume()
    run_jobs()
    job = Job.get_by_id(job_id)
    assert (job.status, job.attempt) == (Job.DONE, 2)
    assert StoreVersion.select().where(StoreVersion.store == "p00").count() == 1
    assert client.get("/api/store").get_json()["status"] == "built"
    # The dead attempt wakes up: whatever it tries to write is refused.
    with pytest.raises(job_rows.Superseded):
        job_rows.finish(job_id, dead, {"late": True})


def test_a_sentence_the_record_cannot_back_is_left_out_and_reported(founder, run_jobs, settings_with, tmp_path):
    from integrations import ai
    from services import ai_facts
    from services.store import facts as store_facts

    client = claimed_founder(founder)
    facts = store_facts.load("p00")
    copy = ai.offline.store_copy(ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer))
    copy["about"] = copy["about"] + " Handmade in Italy by master craftsmen."
    written = tmp_path / "copy.json"
    written.write_text(json.dumps(copy))
    model = tmp_path / "model.py"  # a real program standing in for a model: it answers that copy
    model.write_text(f"import sys\nsys.stdin.read()\nprint(open({str(written)!r}).read())\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {model}")
    state = built(client, run_jobs)
    assert [(u["reason"], u["field"], u["why"]) for u in state["unbacked"]] == [("unbacked_claim", "about", "origin")]
    assert "Italy" in state["unbacked"][0]["sentence"]
    page = client.get(state["preview_url"] + "product").get_data(as_text=True)
    assert "Italy" not in page


def test_every_stored_version_follows_the_document_schema_and_a_bad_one_is_never_stored(founder, run_jobs):
    from services.store import document as store_document

    client = claimed_founder(founder)
    built(client, run_jobs)
    good = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 1).document
    assert store_document.problems(good) == []
    for damage in ({"price": "30"}, {"theme": {"palette": "neon"}}, {"copy": {}}, {"lead": "footer"},
                   {"pages": []}, {"extra": 1}, {"format": 2}):
        assert store_document.problems(good | damage), damage
    with pytest.raises(ValueError):
        versions.write_version("p00", good | {"price": "30"}, summary="bad")
    assert Store.get(Store.product == "p00").version == 1
