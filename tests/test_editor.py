"""The store editor through HTTP: versions, the draft, undo, redo and go-to-version (no
version written, nothing charged), publishing the draft, and the plain-language edit's
refusals while it is not built."""
from __future__ import annotations

import sys

import pytest

from models.job import Job
from models.store import Store
from services import ai_tasks
from tests.factories import TRENDING, claim, edit, find, load, product, refusal, signed_in_founder_with_store
from tests.helpers import in_threads


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
    assert listed["versions"][0]["summary"] == "Leads with the price"
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


def website_edit_used(client) -> int:
    features = client.get("/api/usage").get_json()["features"]
    return next(f["used_5h"] for f in features if f["feature"] == "website_edit")


def test_a_plain_language_edit_makes_a_version_from_the_draft_and_costs_only_then(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    answer = edit(client, "Change the headline to Knives on the wall, counters clear")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert (body["status"], body["version"]) == ("edited", 2)
    assert body["diff"] == [{"op": "replace", "path": "/copy/headline", "value": "Knives on the wall, counters clear"}]
    assert website_edit_used(client) == 50
    page = client.get(client.get("/api/store").get_json()["preview_url"]).get_data(as_text=True)
    assert "Knives on the wall, counters clear" in page
    # The same edit again changes nothing, and costs nothing.
    refusal(edit(client, "Change the headline to Knives on the wall, counters clear"), 200, "no_diff")
    assert website_edit_used(client) == 50 and Store.get().version == 2


@pytest.mark.parametrize("message, field, reason", [
    ("Change the headline to Handmade in Italy by masters", None, "unbacked_claim"),
    ("Change the headline to " + "very " * 30 + "long", None, "too_long"),
    ("Make it punchier", None, "editor_unavailable"),
    ("Set the price to 0", None, "invalid_price"),
    ("Set the price to 250000", None, "invalid_price"),
    ("Remove the question about unicorns", None, "editor_unavailable"),
    ("Certified organic since 1990.", "guarantee", "unbacked_claim"),
])
def test_an_edit_that_cannot_be_made_is_refused_by_name_and_costs_nothing(founder, run_jobs, message, field, reason):
    client = signed_in_founder_with_store(founder, run_jobs)
    body = refusal(edit(client, message, **({"field": field} if field else {})), 200, reason)
    if reason == "unbacked_claim":
        assert body["unbacked"] and body["unbacked"][0]["why"] in ("origin", "certification", "number")
    if message.startswith("Make it"):
        assert "understands" in body["explanation"]
    assert website_edit_used(client) == 0 and Store.get().version == 1


def faq_of(client) -> list[dict]:
    return client.get("/api/editor/draft").get_json()["document"]["copy"]["faq"]


def test_questions_are_removed_and_added_by_plain_words(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    first = faq_of(client)[0]["question"]
    words = " ".join(first.rstrip("?").split()[-2:])
    assert edit(client, f"Remove the question about {words}").get_json()["status"] == "edited"
    assert first not in [item["question"] for item in faq_of(client)]
    added = edit(client, "Add a question: Does it hold ceramic knives? It holds any knife with a steel blade.")
    assert added.get_json()["status"] == "edited"
    assert faq_of(client)[-1] == {"question": "Does it hold ceramic knives?",
                                  "answer": "It holds any knife with a steel blade."}


def test_a_named_field_and_the_leading_section_by_plain_words(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    refusal(edit(client, "Add a question: Is it heavy? It is light."), 200, "too_long")  # six questions already
    guarantee = edit(client, "If anything is wrong with your order, write to us and we will make it right.",
                     field="guarantee").get_json()
    assert guarantee["diff"][0]["path"] == "/copy/guarantee"
    assert edit(client, "Lead with the price").get_json()["version"] == 3
    assert client.get("/api/editor/draft").get_json()["document"]["lead"] == "price"


def test_a_free_accounts_edits_stop_at_its_limit_with_a_429(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert edit(client, "Change the headline to First headline of ours").status_code == 200
    assert edit(client, "Change the headline to Second headline of ours").status_code == 200
    over = edit(client, "Change the headline to Third headline of ours")
    assert over.status_code == 429 and over.get_json()["reason"] == "usage_limit_reached"
    assert Store.get().version == 3 and website_edit_used(client) == 100


def test_fifty_concurrent_edits_charge_exactly_the_versions_they_made(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    cookie = client.get_cookie("ff_session").value

    def one(i):
        other = founder()
        other.set_cookie("ff_session", cookie)
        # Words, not digits: a number the product record lacks could not be backed.
        name = "abcdefghijklmnopqrstuvwxyz"[i % 26] + "xyz"[i // 26]
        return other.post("/api/ai/edit", json={"message": f"Change the headline to Headline called {name}"})

    answers = in_threads(50, one)
    made = [a for a in answers if a.status_code == 200 and a.get_json()["status"] == "edited"]
    # An edit whose job outlived the request's wait (a loaded machine) answers `editing` and
    # finishes in the background: it is counted once its job has run.
    waiting = [a for a in answers if a.status_code == 200 and a.get_json()["status"] == "editing"]
    others = [a for a in answers if a not in made and a not in waiting]
    assert {a.get_json().get("reason") for a in others} <= {"build_in_progress", "usage_limit_reached"}, [
        (a.status_code, a.get_json()) for a in others]
    run_jobs()
    versions_made = Store.get().version - 1
    assert len(made) <= versions_made <= len(made) + len(waiting) and 1 <= versions_made <= 2
    assert website_edit_used(client) == 50 * versions_made


def test_a_model_backend_edits_through_the_same_checks(founder, run_jobs, settings_with, tmp_path):
    client = signed_in_founder_with_store(founder, run_jobs)
    model = tmp_path / "editor.py"  # a real program standing in for a model: it rewrites the headline
    model.write_text("import json, sys\nrequest = json.load(sys.stdin)\ncopy = request['current']['copy']\n"
                     "copy['headline'] = 'Knife strip, rewritten by the model'\n"
                     "print(json.dumps({'copy': copy, 'lead': None}))\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {model}")
    body = edit(client, "Make the headline say it was rewritten").get_json()
    assert body["status"] == "edited" and body["diff"][0]["value"] == "Knife strip, rewritten by the model"
    elsewhere = tmp_path / "elsewhere.py"  # a model that wants the store to lead with a section it lacks
    elsewhere.write_text("import json, sys\nrequest = json.load(sys.stdin)\n"
                         "print(json.dumps({'copy': request['current']['copy'], 'lead': 'footer'}))\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {elsewhere}")
    refusal(edit(client, "Lead with the footer"), 200, "unknown_diff")
    settings_with(ai_backend="command", ai_command=str(tmp_path / "no-such-program"))
    refusal(edit(client, "Anything"), 200, "cli_unavailable")
    # Refused only once the AI jobs' retries are spent (services/ai_tasks.py), as a build is.
    assert Job.get(Job.kind == "store_edit", Job.status == Job.FAILED).attempt == ai_tasks.ATTEMPTS
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.stdin.read()\nprint('not json')\n")
    settings_with(ai_backend="command", ai_command=f"{sys.executable} {broken}")
    refusal(edit(client, "Anything"), 200, "cli_failed")
    assert website_edit_used(client) == 50


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


def test_a_new_price_in_plain_words_is_kept_as_the_founders_own_and_publishes(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    body = edit(client, "Set the price to $24.99").get_json()
    assert body["status"] == "edited" and {"op": "replace", "path": "/price", "value": 24.99} in body["diff"]
    assert client.get("/api/product").get_json()["product"]["price"] == 24.99
    published = client.post("/api/editor/publish").get_json()
    assert (published["status"], published["published_version"]) == ("published", 2)  # no regeneration needed
    assert "24.99" in client.get(published["public_url"] + "product").get_data(as_text=True)
