"""The request a founder types first, through both editors over HTTP (issue 50 points 1 and 2):
"make the headline shorter and mention free returns within 30 days" makes one version of the
store and one of the ad, the return window becomes the founder's statement (business
settings, the store's policy), a refused edit states nothing, and words outside the grammar
are answered with the closest requests it understands."""
from __future__ import annotations

from tests.ad_factories import ad_founder, ad_of
from tests.factories import edit, refusal

FIRST_REQUEST = "make the headline shorter and mention free returns within 30 days"


def settings(client) -> dict:
    return client.get("/api/settings/business").get_json()["settings"]


def preview(client) -> str:
    return client.get(client.get("/api/store").get_json()["preview_url"]).get_data(as_text=True)


def test_the_first_request_edits_the_store_and_states_the_return_window(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="first@example.com")
    assert (settings(client)["return_days"], settings(client)["free_returns"]) == (None, False)
    answer = edit(client, FIRST_REQUEST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert (body["status"], body["version"]) == ("edited", 2), body
    changed = {change["path"]: change.get("value") for change in body["diff"]}
    assert changed["/copy/headline"] == "Acacia Wood Magnetic Knife Strip"  # the name whole, its size left out
    assert changed["/copy/subheadline"].endswith(" Free returns within 30 days.")
    # The founder said it, so it is theirs: saved in business settings, shown as their policy.
    assert (settings(client)["return_days"], settings(client)["free_returns"]) == (30, True)
    assert "Free returns within 30 days" in preview(client)


def test_the_growth_editor_understands_the_same_request(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="grow-first@example.com")
    response = client.post("/api/growth/edit", json={"message": FIRST_REQUEST})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "edited" and body["skipped"] == [], body
    after = {(d["platform"], d["field"]): d["after"] for d in body["diff"]}
    assert after[("meta", "headline")] == "Wood Magnetic Knife Strip"
    assert after[("google", "headline")] == "Magnetic Knife Strip"
    for platform in ("meta", "google"):
        assert after[(platform, "primary_text")].endswith("Free returns within 30 days."), after
        assert len(after[(platform, "primary_text")]) <= {"meta": 125, "google": 90}[platform]
    assert ad_of(client, "google")["primary_text"].endswith("Free returns within 30 days.")
    assert settings(client)["return_days"] == 30


def test_a_refused_edit_states_nothing(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="refused-first@example.com")
    refusal(edit(client, "mention free returns within 30 days and change the headline to Made in Italy"), 200,
            "unbacked_claim")
    assert (settings(client)["return_days"], settings(client)["free_returns"]) == (None, False)
    assert client.get("/api/store").get_json()["version"] == 1


def test_a_performance_claim_still_needs_evidence(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="claim-first@example.com")
    body = refusal(edit(client, "mention that over 10,000 were sold"), 200, "unbacked_claim")
    assert body["unbacked"][0]["why"] == "number"


def test_words_outside_the_grammar_get_the_closest_requests_from_the_founders_store(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="outside@example.com")
    body = refusal(edit(client, "make the price look cheaper"), 200, "editor_unavailable")
    assert len(body["examples"]) == 3 and "“make the price look cheaper”" in body["explanation"]
    assert any("$" in example for example in body["examples"]), body["examples"]  # the founder's own price
    body = refusal(client.post("/api/growth/edit", json={"message": "make it go viral"}), 200, "editor_unavailable")
    assert len(body["examples"]) == 3
    assert client.get("/api/store").get_json()["version"] == 1 and ad_of(client)["version"] == 1
