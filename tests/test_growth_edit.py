"""POST /api/growth/edit through HTTP (spec 4.7, 8.1 `growth_edit`; decisions.md, Growth): a
plain-language change of the ad through the AI seam's `ad_edit` kind, run as a job, charged only
when something changed, each changed field held to its platform's limit and to the facts."""
from __future__ import annotations

from models.job import Job
from services.growth import ads
from tests.ad_factories import ad_founder, ad_of, exhaust, used
from tests.factories import refusal

OTHER_BUCKETS = ["AI website editor", "Product find engine", "Ad generation", "Support agent"]


def grow(client, message, **body):
    return client.post("/api/growth/edit", json={"message": message, **body})


def signed_in_ad(founder, run_jobs, email="grow@example.com"):
    return ad_founder(founder, run_jobs, email=email)


def test_a_plain_language_edit_changes_both_platforms_and_is_charged(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    before = ad_of(client)
    response = grow(client, 'Set the headline to "Knives off the counter"')
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert (body["status"], body["version"], body["skipped"]) == ("edited", 2, [])
    assert body["diff"] == [
        {"platform": "meta", "field": "headline", "before": "Acacia Wood Magnetic Knife Strip",
         "after": "Knives off the counter"},
        {"platform": "google", "field": "headline", "before": "Wood Magnetic Knife Strip",
         "after": "Knives off the counter"}]
    after = ad_of(client)
    assert (after["headline"], after["overridden"], after["version"]) == ("Knives off the counter", ["headline"], 2)
    assert after["image"] != before["image"] and client.get(before["image"]).status_code == 404
    assert ad_of(client, "google")["headline"] == "Knives off the counter"
    assert used(client, "growth_edit") == 20
    job = Job.get(Job.kind == ads.AD_EDIT)
    assert (job.status, job.subject) == ("done", "ad:p00")


def test_the_platform_named_in_the_request_or_the_message_is_the_one_changed(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    body = grow(client, "use the Buy Now button", platform="google").get_json()
    assert [(d["platform"], d["field"], d["after"]) for d in body["diff"]] == [("google", "call_to_action", "Buy Now")]
    body = grow(client, "On Facebook, make the description say Hang them up").get_json()
    assert [(d["platform"], d["field"], d["after"]) for d in body["diff"]] == [("meta", "description", "Hang them up")]
    assert ad_of(client)["call_to_action"] == "Shop Now"
    assert used(client, "growth_edit") == 40  # two edits of a free account's 50


def test_shorten_drops_the_last_sentence_of_the_field(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    body = grow(client, "shorten the primary text", platform="meta").get_json()
    [change] = body["diff"]
    assert change["field"] == "primary_text" and change["after"] == change["before"].rsplit(" Yours for", 1)[0]


def test_a_field_too_long_for_one_platform_is_skipped_and_the_rest_applied(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    headline = "Knives flat on the wall, counters clear"  # 39: fits Meta's 40, not Google's 30
    body = grow(client, f"set the headline to {headline}").get_json()
    assert [(d["platform"], d["after"]) for d in body["diff"]] == [("meta", headline)]
    assert body["skipped"] == [{"platform": "google", "field": "headline", "why": "too_long"}]
    assert ad_of(client, "google")["headline"] == "Wood Magnetic Knife Strip"


def test_refusals_are_refunded_and_change_nothing(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    # Words outside the grammar: the closest requests it understands, as examples to press.
    body = refusal(grow(client, "make it funnier"), 200, "editor_unavailable")
    assert "“make it funnier”" in body["explanation"] and len(body["examples"]) == 3
    body = refusal(grow(client, "set the headline to " + "very long words " * 10), 200, "invalid_editor_response")
    assert {s["why"] for s in body["skipped"]} == {"too_long"}
    refusal(grow(client, "set the description to  "), 200, "editor_unavailable")
    refusal(grow(client, "replace 'zebra' with 'horse'"), 200, "no_diff")  # understood; changes nothing
    body = refusal(grow(client, "set the primary text to Certified organic acacia, made in Italy."), 200,
                   "unbacked_claim")
    assert body["unbacked"][0]["why"] in ("certification", "origin")
    refusal(grow(client, "set the primary text to Now 50% off for 3 days."), 200, "unbacked_claim")
    assert used(client, "growth_edit") == 0
    assert ad_of(client)["version"] == 1


def test_the_growth_editors_request_refusals(founder, run_jobs):
    refusal(founder().post("/api/growth/edit", json={"message": "shorter"}), 401, "no_account")
    client = signed_in_ad(founder, run_jobs)
    refusal(grow(client, "   "), 400, "no_message")
    refusal(grow(client, "x" * 2001), 400, "message_too_long")
    refusal(grow(client, "shorter", platform="tiktok"), 400, "invalid_platform")
    assert used(client, "growth_edit") == 0


def test_without_an_ad_it_is_404_and_nothing_is_charged(founder, run_jobs, signed_in):
    client = signed_in("noad@example.com")
    refusal(grow(client, "set the headline to Hello"), 404, "not_found")
    assert used(client, "growth_edit") == 0


def test_a_free_account_past_its_growth_edit_allowance_gets_the_meters_429(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    exhaust(client, "growth_edit")
    response = grow(client, "set the headline to Knives off the counter")
    body = refusal(response, 429, "usage_limit_reached")
    assert response.headers["Cache-Control"] == "private, no-store, must-revalidate"
    assert (body["feature"], body["bucket"], body["used"], body["limit"], body["tier"]) == (
        "AI Growth ad editor", "growth_edit", 40, 50, "free")
    assert body["unaffected"] == OTHER_BUCKETS
    assert ad_of(client)["version"] == 1 and not Job.select().where(Job.kind == ads.AD_EDIT).exists()


def test_another_founders_growth_edit_never_touches_the_ad(founder, run_jobs, signed_in):
    a = signed_in_ad(founder, run_jobs, "first@example.com")
    b = signed_in("second@example.com")
    refusal(grow(b, "set the headline to Mine now"), 404, "not_found")
    assert ad_of(a)["headline"] == "Acacia Wood Magnetic Knife Strip" and ad_of(a)["version"] == 1


def test_a_reset_also_undoes_growth_edits(founder, run_jobs):
    client = signed_in_ad(founder, run_jobs)
    grow(client, "set the headline to Knives off the counter")
    body = client.post("/api/ad/edit", json={"platform": "meta", "reset": True}).get_json()
    assert body["headline"] == "Acacia Wood Magnetic Knife Strip" and body["overridden"] == []
    assert ad_of(client, "google")["headline"] == "Knives off the counter"
