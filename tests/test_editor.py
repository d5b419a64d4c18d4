"""The store editor through HTTP: versions, the draft, undo, redo and go-to-version (no
version written, nothing charged), publishing the draft, and the plain-language edit's
refusals while it is not built."""
from __future__ import annotations

from urllib.parse import urlsplit

from models.store import Store
from tests.mailbox import last_link
from tests.test_discovery import claim, find, load, refusal
from tests.test_intents import TRENDING, product
from tests.test_store import built


def signed_in_founder_with_store(founder, run_jobs, address="editor@example.com"):
    load(product())
    client = founder()
    client.post("/api/account", json={"email": address})
    run_jobs()
    link = urlsplit(last_link(address))
    client.get(f"{link.path}?{link.query}")
    find(client)
    claim(client)
    built(client, run_jobs)
    return client


def three_versions(client):
    """Version 2 leads with evidence (an applied intent), version 3 with the price (an order)."""
    change = client.post("/api/intent", json=TRENDING).get_json()["proposal"]["intent_change"]
    assert client.post("/api/intent/apply", json={"intent_change": change}).get_json()["version"] == 2
    assert client.post("/api/intent/order", json={"section": "price"}).get_json()["version"] == 3


def draft_lead(client):
    return client.get("/api/editor/draft").get_json()["document"]["lead"]


def test_undo_redo_and_go_to_version_move_the_draft_and_write_nothing(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    refusal(client.post("/api/ai/edit", json={"direction": "undo"}), 200, "no_history")
    three_versions(client)
    usage_before = client.get("/api/usage").get_json()
    body = client.post("/api/ai/edit", json={"direction": "undo"}).get_json()
    assert (body["status"], body["version"]) == ("edited", 2) and draft_lead(client) == "evidence"
    assert client.post("/api/ai/edit", json={"direction": "undo"}).get_json()["version"] == 1
    refusal(client.post("/api/ai/edit", json={"direction": "undo"}), 200, "nothing_to_undo")
    assert client.post("/api/ai/edit", json={"direction": "redo"}).get_json()["version"] == 2
    assert client.post("/api/ai/edit", json={"version": 3}).get_json()["version"] == 3
    refusal(client.post("/api/ai/edit", json={"direction": "redo"}), 200, "nothing_to_redo")
    refusal(client.post("/api/ai/edit", json={"direction": "sideways"}), 200, "no_direction")
    refusal(client.post("/api/ai/edit", json={"version": 9}), 200, "unknown_version")
    assert Store.get().version == 3  # moving wrote no version
    assert client.get("/api/usage").get_json() == usage_before  # and charged nothing


def test_a_change_made_after_an_undo_branches_from_the_draft(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    three_versions(client)
    client.post("/api/ai/edit", json={"version": 1})
    assert client.post("/api/intent/order", json={"section": "faq"}).get_json()["version"] == 4
    versions = {v["number"]: v for v in client.get("/api/editor/versions").get_json()["versions"]}
    assert versions[4]["parent"] == 1 and versions[4]["draft"] and versions[3]["parent"] == 2
    client.post("/api/ai/edit", json={"direction": "undo"})
    assert client.post("/api/ai/edit", json={"direction": "redo"}).get_json()["version"] == 4  # the newest child


def test_versions_and_one_version_with_its_document_and_patch(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    three_versions(client)
    listed = client.get("/api/editor/versions").get_json()
    assert [v["number"] for v in listed["versions"]] == [3, 2, 1] and listed["draft_version"] == 3
    assert listed["versions"][0]["summary"] == "Leads with price"
    two = client.get("/api/editor/versions/2").get_json()
    assert two["document"]["lead"] == "evidence" and two["parent"] == 1
    assert {"op": "replace", "path": "/lead", "value": "evidence"} in two["patch"]
    refusal(client.get("/api/editor/versions/9"), 400, "unknown_version")
    refusal(client.get("/api/editor/versions/two"), 400, "unknown_version")


def test_the_preview_and_publishing_follow_the_draft(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    three_versions(client)
    client.post("/api/ai/edit", json={"direction": "undo"})
    state = client.get("/api/store").get_json()
    assert (state["version"], state["draft_version"]) == (3, 2)
    published = client.post("/api/editor/publish").get_json()
    assert (published["status"], published["published_version"]) == ("published", 2)
    assert client.get("/api/editor/draft").get_json()["published"] is True


def test_a_plain_language_edit_is_refused_honestly_and_costs_nothing(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    before = client.get("/api/usage").get_json()
    refusal(client.post("/api/ai/edit", json={"message": "  "}), 400, "no_message")
    refusal(client.post("/api/ai/edit", json={}), 400, "no_message")
    refusal(client.post("/api/ai/edit", json={"message": "x" * 2001}), 400, "message_too_long")
    refusal(client.post("/api/ai/edit", json={"message": "Shorter", "field": "footer"}), 200, "unknown_field")
    body = refusal(client.post("/api/ai/edit", json={"message": "Make the headline punchier"}), 200,
                   "editor_unavailable")
    assert "nothing was charged" in body["explanation"]
    assert client.get("/api/usage").get_json() == before and Store.get().version == 1


def test_the_editor_needs_an_account_a_claim_and_a_store(founder, run_jobs):
    load(product())
    anonymous = founder()
    refusal(anonymous.post("/api/ai/edit", json={"direction": "undo"}), 401, "no_account")
    refusal(anonymous.get("/api/editor/versions"), 200, "not_claimed")
    find(anonymous)
    claim(anonymous)
    refusal(anonymous.get("/api/editor/draft"), 409, "not_started")
    refusal(anonymous.post("/api/editor/publish"), 409, "not_started")


def test_another_founder_never_sees_your_versions_or_draft(founder, run_jobs):
    owner = signed_in_founder_with_store(founder, run_jobs)
    three_versions(owner)
    other = founder()
    refusal(other.get("/api/editor/versions"), 200, "not_claimed")
    refusal(other.get("/api/editor/versions/2"), 200, "not_claimed")
    refusal(other.get("/api/editor/draft"), 200, "not_claimed")
