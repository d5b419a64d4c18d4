"""Evidence-backed intents through HTTP: proposals only with a dated row behind them,
apply only what came back unmodified and is still backed, order, and revert to the exact
previous document; every refusal of spec 4.4 and 7.2 reached."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from models.db import db
from models.discovery import Claim
from models.job import Job
from models.store import StoreIntent, StoreVersion
from services.store import editor, intents
from tests.factories import TODAY, TRENDING, built, claim, find, load, product, refusal
from tests.helpers import wait_for


def founder_with_store(founder, run_jobs):
    load(product())
    client = founder()
    find(client)
    claim(client)
    built(client, run_jobs)
    return client


def propose(client, **body):
    response = client.post("/api/intent", json={**TRENDING, **body})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def newest(pid="p00"):
    return StoreVersion.select().where(StoreVersion.store == pid).order_by(StoreVersion.number.desc()).first()


# --- Proposals ---------------------------------------------------------------------------------

def test_a_proposal_cites_the_newest_dated_row_that_justifies_it(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    body = propose(client)
    assert body["status"] == "proposed"
    row = {"date": (TODAY - timedelta(days=10)).isoformat(), "source": "google_trends", "metric": "interest_index",
           "value": 50.0}
    assert body["source_row"] == row and body["proposal"]["source_row"] == row
    proposal = body["proposal"]
    assert (proposal["surface"], proposal["lead"], proposal["reversible"]) == ("home", "evidence", True)
    assert proposal["requested"] == TRENDING["requested"] and proposal["because"].startswith(
        "Google Trends reports search interest index 50 on ")
    assert proposal["diff"] == "The home page leads with the proof of demand instead of the headline and photo."
    assert newest().number == 1  # nothing is applied


def test_without_a_product_there_is_nothing_to_propose(client):
    refusal(client.post("/api/intent", json=TRENDING), 200, "no_product")


@pytest.mark.parametrize("requested", ["Make the title 48px", "Use 120% line height", "Headline in #ff6600",
                                       "Buttons of 2rem", "fonts at 12pt"])
def test_exact_sizes_and_colours_are_not_an_intent(founder, run_jobs, requested):
    client = founder_with_store(founder, run_jobs)
    refusal(client.post("/api/intent", json={"surface": "home", "requested": requested}), 200, "not_an_intent")


def test_unknown_surfaces_sections_and_unbacked_requests_are_refused_by_name(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    refusal(client.post("/api/intent", json={"surface": "checkout", "requested": "x"}), 200, "unknown_surface")
    # ads is a surface: its refusals say why (tests/test_contract_shapes.py), never unknown_surface.
    assert client.post("/api/intent", json={"surface": "ads", "requested": "trending"}).get_json()["reason"] in (
        "not_started", "no_row_justifies_this")
    refusal(client.post("/api/intent", json={"surface": "home", "requested": "Lead with the footer"}), 200,
            "unknown_section")
    body = refusal(client.post("/api/intent", json={"surface": "home", "requested": "Lead with reviews"}), 200,
                   "no_row_justifies_this")
    assert "rating" in body["explanation"]
    refusal(client.post("/api/intent", json={"surface": "home", "requested": "Make it nicer"}), 200,
            "no_row_justifies_this")


# --- Apply -------------------------------------------------------------------------------------

def test_applying_an_echoed_proposal_writes_a_version_leading_with_it(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    answer = client.post("/api/intent/apply", json={"intent_change": change})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert (body["status"], body["lead"], body["version"]) == ("applied", "evidence", 2)
    document = newest().document
    home = next(page for page in document["pages"] if page["id"] == "home")
    assert document["lead"] == "evidence" and home["sections"][0] == {"type": "evidence"}
    preview = client.get(client.get("/api/store").get_json()["preview_url"]).get_data(as_text=True)
    assert preview.index("Why this product") < preview.index("What you get")
    again = client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    refusal(again, 409, "nothing_to_apply")


def test_a_proposal_echoed_by_a_client_that_writes_whole_numbers_without_decimals_still_applies(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    echoed = {**change, "source_row": {**change["source_row"], "value": int(change["source_row"]["value"])}}
    assert client.post("/api/intent/apply", json={"intent_change": echoed}).get_json()["status"] == "applied"


@pytest.mark.parametrize("damage", [None, "edited", "unsigned", "another founder's"])
def test_a_proposal_not_echoed_unmodified_is_refused(founder, run_jobs, damage):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    if damage == "edited":
        change = {**change, "lead": "price"}
    elif damage == "unsigned":
        change = {k: v for k, v in change.items() if k != "signature"}
    elif damage == "another founder's":
        change = intents.sign({**{k: v for k, v in change.items() if k != "signature"}, "product_id": "p99"})
    body = {"intent_change": change} if damage else {}
    refusal(client.post("/api/intent/apply", json=body), 409, "no_proposal_echoed")
    assert newest().number == 1


def test_a_proposal_goes_stale_when_new_evidence_arrives(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    load(product(extra_days=(3,)))  # a new dated row for the product
    refusal(client.post("/api/intent/apply", json={"intent_change": change}), 409, "stale_proposal")
    fresh = propose(client)
    assert fresh["source_row"]["date"] == (TODAY - timedelta(days=3)).isoformat()
    assert client.post("/api/intent/apply", json={"intent_change": fresh["proposal"]["intent_change"]}).get_json()[
        "status"] == "applied"


def test_an_irreversible_change_needs_confirmation_and_cannot_be_reverted(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    irreversible = intents.sign({**{k: v for k, v in change.items() if k != "signature"}, "reversible": False})
    refusal(client.post("/api/intent/apply", json={"intent_change": irreversible}), 409,
            "irreversible_without_confirmation")
    body = client.post("/api/intent/apply", json={"intent_change": irreversible, "confirm": True}).get_json()
    assert body["status"] == "applied"
    refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")


def test_before_the_store_is_built_there_is_nothing_to_apply_it_to(founder):
    load(product())
    client = founder()
    find(client)
    claim(client)
    change = propose(client)["proposal"]["intent_change"]
    refusal(client.post("/api/intent/apply", json={"intent_change": change}), 409, "not_started")


def test_applying_during_a_running_build_is_refused(founder, run_jobs, held_worker):  # noqa: F811
    held_worker.resume()
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    held_worker.pause()
    client.post("/api/store")  # a new build, queued while the worker is paused
    refusal(client.post("/api/intent/apply", json={"intent_change": change}), 409, "build_in_progress")
    refusal(client.post("/api/intent/order", json={"section": "price"}), 409, "build_in_progress")


def test_a_change_job_that_fails_answers_apply_build_raised(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    change = propose(client)["proposal"]["intent_change"]
    # A signed proposal for a section no store document may lead with: its version fails the schema.
    impossible = intents.sign({**{k: v for k, v in change.items() if k != "signature"}, "lead": "footer"})
    refusal(client.post("/api/intent/apply", json={"intent_change": impossible}), 500, "apply_build_raised")
    assert newest().number == 1


# --- Revert ------------------------------------------------------------------------------------

def test_apply_then_revert_restores_the_exact_previous_document(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    before = newest().document
    client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    body = client.post("/api/intent/revert").get_json()
    assert (body["status"], body["version"]) == ("reverted", 3)
    assert body["reverted_from"] == {
        "surface": "home", "lead": "evidence",
        "diff": "The home page led with the proof of demand instead of the headline and photo."}
    assert newest().document == before
    refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")


def test_a_revert_after_a_rebuild_undoes_the_intent_and_keeps_the_rebuild(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    built(client, run_jobs)  # a rebuild after the intent: version 3, which keeps leading with it
    assert newest().document["lead"] == "evidence"
    body = client.post("/api/intent/revert").get_json()
    assert (body["status"], body["version"]) == ("reverted", 4)
    four = newest()
    assert four.parent == 3 and four.document["lead"] == "hero"
    assert four.document["copy"] == StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 3).document["copy"]
    refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")


def test_a_revert_whose_draft_moved_while_it_waited_fails_and_says_why(founder, run_jobs, held_worker):  # noqa: F811
    held_worker.resume()
    client = founder_with_store(founder, run_jobs)
    client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    thread, answer = revert_waiting_for_its_job(client, held_worker)
    editor.move("p00", direction="undo")  # the founder steps back to version 1 meanwhile
    held_worker.resume()
    thread.join(timeout=30)
    body = answer["response"].get_json()
    assert body["status"] == "revert_failed" and "version 1" in body["explanation"]
    assert newest().number == 2 and StoreIntent.get().status == StoreIntent.APPLIED


def test_an_unreadable_intents_book_is_said_so(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    db.execute_sql("UPDATE store_intent SET change = 'not json'")
    refusal(client.post("/api/intent/revert"), 500, "intents_book_unreadable")


def test_with_nothing_applied_there_is_nothing_to_revert(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")


def _in_background(call):
    answer = {}
    thread = threading.Thread(target=lambda: answer.setdefault("response", call()))
    thread.start()
    return thread, answer


def revert_waiting_for_its_job(client, held_worker):
    """Asks for a revert in the background while the worker is held, and returns (thread,
    answer) once the revert waits for its job (the job's row exists); the test resumes the worker."""
    held_worker.pause()
    thread, answer = _in_background(lambda: client.post("/api/intent/revert"))
    assert wait_for(lambda: any(job.payload.get("action") == "revert"
                                for job in Job.select().where(Job.kind == intents.CHANGE)), 10, "the revert's job")
    return thread, answer


def test_a_revert_whose_job_fails_answers_revert_build_raised(founder, run_jobs, held_worker):  # noqa: F811
    held_worker.resume()
    client = founder_with_store(founder, run_jobs)
    client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    thread, answer = revert_waiting_for_its_job(client, held_worker)
    # While the revert waits for its job, the version it must restore is lost.
    StoreVersion.delete().where(StoreVersion.store == "p00", StoreVersion.number == 1).execute()
    held_worker.resume()
    thread.join(timeout=30)
    refusal(answer["response"], 500, "revert_build_raised")
    assert StoreIntent.get().status == StoreIntent.APPLIED


# --- Order -------------------------------------------------------------------------------------

def test_ordering_overrides_the_leading_section(founder, run_jobs):
    client = founder_with_store(founder, run_jobs)
    refusal(client.post("/api/intent/order", json={}), 400, "no_section")
    refusal(client.post("/api/intent/order", json={"section": "  "}), 400, "no_section")
    refusal(client.post("/api/intent/order", json={"section": "footer"}), 400, "unknown_section")
    body = client.post("/api/intent/order", json={"section": "price"}).get_json()
    assert (body["status"], body["lead"], body["version"]) == ("ordered", "price", 2)
    assert newest().document["lead"] == "price"
    again = client.post("/api/intent/order", json={"section": "price"}).get_json()
    assert (again["status"], again["version"]) == ("ordered", None) and newest().number == 2


def test_an_order_whose_job_fails_answers_order_build_raised(founder, run_jobs, held_worker):  # noqa: F811
    held_worker.resume()
    client = founder_with_store(founder, run_jobs)
    held_worker.pause()
    thread, answer = _in_background(lambda: client.post("/api/intent/order", json={"section": "faq"}))
    # Once the order waits for its job (its row exists), the store's versions are lost.
    assert wait_for(lambda: Job.select().where(Job.kind == intents.CHANGE).exists(), 10, "the order's job")
    db.execute_sql("UPDATE store_version SET document = 'not json'")
    held_worker.resume()
    thread.join(timeout=30)
    refusal(answer["response"], 500, "order_build_raised")


def test_another_founder_can_neither_propose_on_nor_change_your_store(founder, run_jobs):
    owner = founder_with_store(founder, run_jobs)
    change = propose(owner)["proposal"]["intent_change"]
    other = founder()
    refusal(other.post("/api/intent", json=TRENDING), 200, "no_product")
    refusal(other.post("/api/intent/apply", json={"intent_change": change}), 200, "not_claimed")
    refusal(other.post("/api/intent/revert"), 200, "not_claimed")
    assert newest().number == 1


def test_a_held_products_store_takes_proposals_applies_and_reverts_them(founder, run_jobs):
    """Spec 2: a held product resolves like a claimed one; editing its store needs no claim."""
    load(product())
    client = founder()
    find(client)  # a hold, no claim
    built(client, run_jobs)
    before = newest().document
    answer = client.post("/api/intent/apply", json={"intent_change": propose(client)["proposal"]["intent_change"]})
    assert answer.status_code == 200 and answer.get_json()["status"] == "applied", answer.get_data(as_text=True)
    assert client.post("/api/intent/revert").get_json()["status"] == "reverted"
    assert newest().document == before
    assert client.post("/api/intent/order", json={"section": "price"}).get_json()["status"] == "ordered"
    assert Claim.select().count() == 0
    refusal(client.post("/api/store/publish"), 409, "claim_required")


