"""The ad artifact through HTTP (spec 2.9, 4.5 GET /api/ad, 4.7 ad/edit; decisions.md, Growth):
the job that writes it after a build, its fields within each platform's limits, its pass bars,
the `ad` meter, the field editor, and one founder never seeing another's ad."""
from __future__ import annotations

import json
import sys

import pytest

from integrations import ai
from integrations.ai import schemas
from models.ad import Ad
from models.clock import clock
from models.job import Job
from services.errors import JobFailed
from services.growth import ad_copy, ads
from services.growth.ad_limits import CALLS_TO_ACTION, LIMITS, PLATFORMS
from tests.ad_factories import ad_founder, ad_of, exhaust, knife_line, used
from tests.ai_factories import completion, demo_products, facts_of, openai_settings
from tests.factories import built, claim, demo_item, find, load, refusal, session_of

FIELDS = ("headline", "primary_text", "description", "call_to_action")
OTHER_BUCKETS = ["AI website editor", "AI Growth ad editor", "Product find engine", "Support agent"]


def within_limits(body: dict) -> None:
    for field, most in LIMITS[body["platform"]].items():
        assert 1 <= len(body[field]) <= most, (body["platform"], field, body[field])
    assert body["call_to_action"] in CALLS_TO_ACTION


# --- The job writes it -----------------------------------------------------------------------

def test_a_built_store_gets_its_ad_for_both_platforms_from_the_ad_job(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    meta = ad_of(client)
    assert (meta["status"], meta["product_id"], meta["platform"], meta["version"]) == ("ok", "p00", "meta", 1)
    assert meta["headline"] == "Acacia Wood Magnetic Knife Strip"  # the name, to its first comma
    assert meta["primary_text"].startswith("A 16-inch solid acacia bar") and "$34.99" in meta["primary_text"]
    assert meta["description"] == "Now $34.99" and meta["call_to_action"] == "Shop Now"
    within_limits(meta)
    assert meta["limits"] == LIMITS["meta"] and meta["call_to_action_options"] == list(CALLS_TO_ACTION)
    assert meta["platforms"] == ["meta", "google"] and meta["overridden"] == [] and meta["updated_at"]
    assert [(i["width"], i["height"]) for i in meta["images"]] == [(1080, 1080), (1080, 1350)]
    assert meta["image"] == meta["images"][0]["url"]
    assert meta["pass_criteria"] == {"ctr_min_pct": 1.59, "cpc_max": 0.7, "currency": "USD",
                                     "source": meta["pass_criteria"]["source"]}
    assert "WordStream" in meta["pass_criteria"]["source"] and "Retail" in meta["pass_criteria"]["source"]
    google = ad_of(client, "google")
    within_limits(google)
    assert google["headline"] == "Wood Magnetic Knife Strip" and "$34.99" in google["primary_text"]
    assert [(i["width"], i["height"]) for i in google["images"]] == [(1200, 628)]
    assert google["pass_criteria"]["ctr_min_pct"] == 2.5 and google["pass_criteria"]["cpc_max"] == 2.23
    assert "Shopping, Collectibles & Gifts" in google["pass_criteria"]["source"]
    job = Job.get(Job.kind == ads.AD_BUILD)
    assert (job.status, job.subject, job.result["version"]) == ("done", "ad:p00", 1)


def test_the_pass_bars_follow_the_products_category(founder, run_jobs):
    client = ad_founder(founder, run_jobs, line={**knife_line(), "category": "Beauty & Personal Care"})
    assert ad_of(client)["pass_criteria"]["ctr_min_pct"] == 1.16
    assert ad_of(client, "google")["pass_criteria"]["cpc_max"] == 3.74


def test_a_second_delivery_of_the_job_writes_nothing_and_a_new_build_writes_again(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    job = Job.get(Job.kind == ads.AD_BUILD)
    assert ads.run(job.payload)["skipped"] == "already written from this build"
    assert ad_of(client)["version"] == 1
    built(client, run_jobs)  # a rebuild: version 2 of the store, and its ad
    assert ad_of(client)["version"] == 2 and Ad.get().store_version == 2
    assert Job.select().where(Job.kind == ads.AD_BUILD).count() == 2


def test_every_generated_field_fits_its_platform_for_every_demo_product():
    for product in demo_products():
        for facts in (facts_of(product), facts_of(product, offer=False)):
            copy = ad_copy.ad_copy(facts)
            assert schemas.validate(copy, ad_copy.AD_COPY) == [], product["product_id"]
            assert copy["meta"]["headline"].split()[0] in product["name"]
            # Google shows both description lines together: the price is said in one of them only.
            google = copy["google"]
            assert ("Yours for" in google["primary_text"]) + ("Yours for" in google["description"]) <= 1, google
    long_name = {**demo_products()[0], "name": "Word " * 40, "description": "Long " * 200}
    assert schemas.validate(ad_copy.ad_copy(facts_of(long_name)), ad_copy.AD_COPY) == []


def test_a_model_answer_past_a_platform_limit_is_asked_for_again(chat):
    facts = facts_of(demo_products()[0])
    valid = ad_copy.ad_copy(facts)
    valid["meta"]["headline"] = "Knives off the counter"
    too_long = json.loads(json.dumps(valid))
    too_long["google"]["headline"] = "A headline far longer than Google shows"
    chat.reply(completion(json.dumps(too_long)))
    chat.reply(completion(json.dumps(valid)))
    answer = ai.complete(ai.Task(kind=ad_copy.AD_COPY_KIND, facts=facts), settings=openai_settings(chat))
    assert answer.copy["meta"]["headline"] == "Knives off the counter"
    assert len(chat.received) == 2
    assert "$.google.headline: must be at most 30 characters" in json.dumps(chat.received[1]["body"])


def test_an_unbacked_sentence_a_model_writes_is_dropped(chat):
    facts = facts_of(demo_products()[0])
    copy = ad_copy.ad_copy(facts)
    copy["meta"]["primary_text"] = "Certified organic acacia. Holds knives flat."
    chat.reply(completion(json.dumps(copy)))
    answer = ai.complete(ai.Task(kind=ad_copy.AD_COPY_KIND, facts=facts), settings=openai_settings(chat))
    assert answer.copy["meta"]["primary_text"] == "Holds knives flat."
    assert answer.dropped == [{"field": "meta.primary_text", "sentence": "Certified organic acacia.",
                               "why": "certification"}]


# --- GET /api/ad ---------------------------------------------------------------------------------

def test_no_ad_is_404_not_found_and_says_whether_it_is_being_built(founder, run_jobs, held_worker):
    client = founder()
    body = refusal(client.get("/api/ad"), 404, "not_found")
    assert body["building"] is False
    load(knife_line())
    find(client)
    claim(client)
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is False  # no store yet
    client.post("/api/store")
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is True
    held_worker.resume()
    run_jobs()
    assert ad_of(client)["version"] == 1


def test_get_ad_starts_the_job_when_the_store_is_built_and_no_ad_exists(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    Ad.delete().execute()
    Job.delete().where(Job.kind == ads.AD_BUILD).execute()
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is True
    run_jobs()
    assert ad_of(client)["version"] == 1


def test_an_ad_job_finishing_while_the_ad_is_read_is_never_said_not_to_be_written(founder, run_jobs, monkeypatch):
    """GET /api/ad reads the founder's latest ad job, then whether one is active: a job that
    finishes (refused by the meter) between the two reads was still being written when read."""
    client = ad_founder(founder, run_jobs)
    Ad.delete().execute()
    job = Job.get(Job.kind == ads.AD_BUILD)
    Job.update(status=Job.RUNNING, result=None).where(Job.id == job.id).execute()
    monkeypatch.setattr(ads, "start_if_missing", lambda *, session: [])  # the running job will write it
    reads_after = ads.active_job

    def finished_meanwhile(**where):
        Job.update(status=Job.DONE, result={"refused": {"reason": "usage_limit_reached"}}).where(
            Job.id == job.id).execute()
        return reads_after(**where)

    monkeypatch.setattr(ads, "active_job", finished_meanwhile)
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is True


def test_an_unknown_platform_is_400_invalid_platform(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    refusal(client.get("/api/ad?platform=tiktok"), 400, "invalid_platform")
    refusal(client.post("/api/ad/edit", json={"platform": "bing", "field": "headline", "value": "x"}), 400,
            "invalid_platform")


# --- The `ad` meter -------------------------------------------------------------------------------

def test_writing_the_ad_spends_the_owners_ad_bucket_once_per_ad(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="ads@example.com")
    assert used(client, "ad") == 10
    ads.run(Job.get(Job.kind == ads.AD_BUILD).payload)  # delivered again: nothing written, nothing spent
    assert used(client, "ad") == 10


def test_a_free_account_past_its_ad_allowance_gets_the_meters_429(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="spent@example.com")
    Ad.delete().execute()
    exhaust(client, "ad")
    Job.delete().where(Job.kind == ads.AD_BUILD).execute()
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is True
    run_jobs()
    response = client.get("/api/ad")
    body = refusal(response, 429, "usage_limit_reached")
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert "Retry-After" not in response.headers
    assert (body["feature"], body["bucket"], body["used"], body["limit"], body["tier"]) == (
        "Ad generation", "ad", 50, 50, "free")
    assert body["unaffected"] == OTHER_BUCKETS and body["ways_up"] and body["resets_at"]
    assert Job.get(Job.kind == ads.AD_BUILD).result["refused"]["reason"] == "usage_limit_reached"
    assert used(client, "ad") == 50  # the refused job spent nothing
    clock.freeze(body["resets_at"] + 1)  # the window resets: the next GET writes it
    assert refusal(client.get("/api/ad"), 404, "not_found")["building"] is True
    run_jobs()
    assert ad_of(client)["version"] == 1 and used(client, "ad") == 10


# --- POST /api/ad/edit -------------------------------------------------------------------------

def test_a_field_is_overridden_and_reset_puts_the_written_copy_back(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    written = ad_of(client)
    body = client.post("/api/ad/edit", json={"platform": "meta", "field": "headline",
                                             "value": "  Knives   off the counter "}).get_json()
    assert (body["status"], body["headline"], body["overridden"], body["version"]) == (
        "edited", "Knives off the counter", ["headline"], 2)
    assert body["image"] != written["image"] and ad_of(client, "google")["headline"] == "Wood Magnetic Knife Strip"
    body = client.post("/api/ad/edit", json={"platform": "meta", "field": "call_to_action",
                                             "value": "Buy Now"}).get_json()
    assert body["call_to_action"] == "Buy Now" and body["overridden"] == ["headline", "call_to_action"]
    body = client.post("/api/ad/edit", json={"platform": "meta", "reset": True}).get_json()
    assert body["status"] == "reset" and body["overridden"] == []
    assert {f: body[f] for f in FIELDS} == {f: written[f] for f in FIELDS}
    assert client.get("/api/usage").get_json()["features"] == []  # not metered (and no account)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_edited_field_is_held_to_its_platforms_limit(founder, run_jobs, platform):
    client = ad_founder(founder, run_jobs)
    for field, most in LIMITS[platform].items():
        if field == "call_to_action":
            continue
        body = refusal(client.post("/api/ad/edit", json={"platform": platform, "field": field, "value": "x" * (most + 1)}),
                       200, "too_long")
        assert (body["limit"], body["length"]) == (most, most + 1)
        edited = client.post("/api/ad/edit", json={"platform": platform, "field": field, "value": "y" * most}).get_json()
        assert edited[field] == "y" * most
    assert ad_of(client, platform)["overridden"] == ["headline", "primary_text", "description"]


def test_the_field_editors_refusals(founder, run_jobs):
    client = ad_founder(founder, run_jobs)
    refusal(client.post("/api/ad/edit", json={"platform": "meta", "field": "tagline", "value": "Hi"}), 200,
            "unknown_field")
    assert refusal(client.post("/api/ad/edit", json={"platform": "meta", "value": "Hi"}), 200,
                   "unknown_field")["known_fields"] == list(FIELDS)
    refusal(client.post("/api/ad/edit", json={"platform": "meta", "field": "headline", "value": "   "}), 200,
            "invalid_editor_response")
    body = refusal(client.post("/api/ad/edit", json={"platform": "google", "field": "call_to_action",
                                                     "value": "Click here"}), 200, "invalid_editor_response")
    assert body["call_to_action_options"] == list(CALLS_TO_ACTION)
    assert ad_of(client)["version"] == 1  # nothing was changed
    refusal(founder().post("/api/ad/edit", json={"platform": "meta", "reset": True}), 404, "not_found")


# --- One founder never sees another's ad ------------------------------------------------------

def test_another_founder_never_sees_reads_or_edits_the_ad(founder, run_jobs):
    a = ad_founder(founder, run_jobs)
    load({**demo_item("p01", name="Silicone Spatula Set"), "rank": 900})
    b = founder()
    find(b)
    assert claim(b, "p01").get_json()["status"] == "claimed"
    assert refusal(b.get("/api/ad"), 404, "not_found")["building"] is False
    refusal(b.post("/api/ad/edit", json={"platform": "meta", "field": "headline", "value": "Mine now"}), 404,
            "not_found")
    refusal(b.post("/api/ad/edit", json={"platform": "meta", "reset": True}), 404, "not_found")
    built(b, run_jobs)
    assert ad_of(b)["product_id"] == "p01" and ad_of(b)["headline"] == "Silicone Spatula Set"
    assert ad_of(a)["product_id"] == "p00" and ad_of(a)["headline"] == "Acacia Wood Magnetic Knife Strip"


def test_a_lapsed_holds_ad_is_never_the_next_founders(founder, run_jobs):
    load(knife_line())
    first = founder()
    find(first)  # holds p00, and builds its store and ad on the hold
    built(first, run_jobs)
    mine = {"platform": "meta", "field": "headline", "value": "The first founder's words"}
    assert first.post("/api/ad/edit", json=mine).get_json()["version"] == 2
    clock.advance(31 * 60)  # the hold lapses
    second = founder()
    assert find(second).get_json()["product_id"] == "p00"
    assert refusal(second.get("/api/ad"), 404, "not_found")["building"] is False
    refusal(second.post("/api/ad/edit", json={"platform": "meta", "reset": True}), 404, "not_found")
    built(second, run_jobs)
    ad = ad_of(second)
    assert (ad["headline"], ad["overridden"], ad["version"]) == ("Acacia Wood Magnetic Knife Strip", [], 3)
    assert Ad.get().owner == f"session:{session_of(second).id}"
    refusal(first.get("/api/ad"), 404, "not_found")


def test_a_failed_write_refunds_the_ad_charge(founder, run_jobs, settings_with, tmp_path):
    client = ad_founder(founder, run_jobs, email="refund@example.com")
    payload = Job.get(Job.kind == ads.AD_BUILD).payload
    Ad.delete().execute()
    program = tmp_path / "model"
    program.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nprint('not an ad')\n")
    program.chmod(0o755)
    settings_with(ai_backend="command", ai_command=str(program))
    with pytest.raises(JobFailed):
        ads.run(payload)
    assert used(client, "ad") == 10 and not Ad.select().exists()  # the first ad's charge only
