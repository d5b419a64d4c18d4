"""What a rebuild keeps (issue 47.3): building a new version writes the store afresh and
puts back every change the founder made that the draft carries (plain-language edits and
applied intents); a change they stepped back from is not theirs any more; a sentence of
theirs the record no longer backs is reported, never dropped silently; and "Undo the last
applied change" agrees with Step back and Step forward."""
from __future__ import annotations

from models.store import StoreVersion
from tests.factories import TRENDING, built, edit, load, product, refusal, signed_in_founder_with_store

HEADLINE = "Knives on the wall, counters clear"
RETURNS = "Send it back unused and we refund you, no questions asked."


def draft(client) -> dict:
    return client.get("/api/editor/draft").get_json()


def first_version_copy() -> dict:
    return StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 1).document["copy"]


def apply_trending(client) -> dict:
    change = client.post("/api/intent", json=TRENDING).get_json()["proposal"]["intent_change"]
    return client.post("/api/intent/apply", json={"intent_change": change}).get_json()


def undone_keeping_the_headline(client, *, version: int) -> None:
    """Undoes the last applied change (the trending lead) and checks what stays: the home page
    leads with the hero again and the founder's headline is kept, in the new version `version`."""
    body = client.post("/api/intent/revert").get_json()
    assert (body["status"], body["version"]) == ("reverted", version)
    document = draft(client)["document"]
    assert document["lead"] == "hero" and document["copy"]["headline"] == HEADLINE


def test_a_rebuild_keeps_the_headline_and_returns_text_the_founder_wrote(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert edit(client, f"Change the headline to {HEADLINE}").get_json()["status"] == "edited"
    assert edit(client, f"Change the returns text to {RETURNS}").get_json()["status"] == "edited"
    before = client.get("/api/store").get_json()

    state = built(client, run_jobs)  # "Build a new version"
    assert (state["version"], state["draft_version"]) == (4, 4)
    rebuilt = draft(client)
    assert rebuilt["document"]["copy"]["headline"] == HEADLINE
    assert rebuilt["document"]["copy"]["returns"] == RETURNS
    assert rebuilt["document"]["copy"]["subheadline"] == first_version_copy()["subheadline"]  # the rest written afresh
    # Said before building, and after: what a new version keeps.
    assert [c["said"] for c in before["your_changes"]] == ["the headline", "the returns text"]
    assert rebuilt["summary"].endswith("keeping your changes to the headline and the returns text")
    assert [c["part"] for c in state["your_changes"]] == ["headline", "returns"] and state["unbacked"] == []

    # The pages the founder reads carry them: the preview now, the public store once published.
    preview = client.get(state["preview_url"]).get_data(as_text=True)
    assert HEADLINE in preview
    assert RETURNS in client.get(state["preview_url"] + "shipping").get_data(as_text=True)
    published = client.post("/api/store/publish").get_json()
    assert published["status"] == "published", published
    assert HEADLINE in client.get(published["public_url"]).get_data(as_text=True)

    # A change made after a rebuild joins the ones kept before: a second rebuild keeps them all.
    assert client.post("/api/intent/order", json={"section": "faq"}).get_json()["status"] == "ordered"
    built(client, run_jobs)
    document = draft(client)["document"]
    assert (document["copy"]["headline"], document["copy"]["returns"], document["lead"]) == (HEADLINE, RETURNS, "faq")

def test_a_rebuild_keeps_an_applied_intent_and_its_undo_still_undoes_it(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert apply_trending(client)["status"] == "applied"
    assert edit(client, f"Change the headline to {HEADLINE}").get_json()["version"] == 3
    state = built(client, run_jobs)
    document = draft(client)["document"]
    assert document["lead"] == "evidence" and document["copy"]["headline"] == HEADLINE
    home = next(page for page in document["pages"] if page["id"] == "home")
    assert home["sections"][0] == {"type": "evidence"}
    assert [c["part"] for c in state["your_changes"]] == ["headline", "lead"]

    body = client.post("/api/intent/revert").get_json()
    assert (body["status"], body["version"]) == ("reverted", 5)
    document = draft(client)["document"]
    # Only the leading section goes back; the rebuild and the headline stay.
    assert document["lead"] == "hero" and document["copy"]["headline"] == HEADLINE


def test_a_plain_language_lead_and_a_chosen_lead_survive_a_rebuild(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert client.post("/api/intent/order", json={"section": "faq"}).get_json()["version"] == 2
    built(client, run_jobs)
    assert draft(client)["document"]["lead"] == "faq"
    assert edit(client, "Lead with the price").get_json()["status"] == "edited"
    built(client, run_jobs)
    assert draft(client)["document"]["lead"] == "price"


def test_a_change_the_founder_stepped_back_from_is_not_kept(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    edit(client, f"Change the headline to {HEADLINE}")
    client.post("/api/ai/edit", json={"direction": "undo"})  # Step back: the draft is version 1 again
    before = client.get("/api/store").get_json()
    state = built(client, run_jobs)
    assert draft(client)["document"]["copy"]["headline"] == first_version_copy()["headline"]
    assert before["your_changes"] == [] and state["your_changes"] == []


def test_a_founders_sentence_the_record_no_longer_backs_is_reported_not_dropped_silently(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    # 50 is the product's search interest today, so the record backs it.
    claim = "Search interest stands at 50."
    assert edit(client, f"Change the returns text to {RETURNS} {claim}").get_json()["status"] == "edited"
    line = product()
    for row in line["evidence"]:
        row["value"] = 70  # the evidence moves on: 50 is no longer backed
    load(line)
    state = built(client, run_jobs)
    assert draft(client)["document"]["copy"]["returns"] == RETURNS  # the rest of their words kept
    mine = [u for u in state["unbacked"] if u["yours"]]
    assert mine == [{"reason": "unbacked_claim", "field": "returns", "sentence": claim, "why": "number",
                     "yours": True}]


def test_undo_the_last_applied_change_agrees_with_step_back_and_step_forward(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    assert apply_trending(client)["version"] == 2
    # Step back past the apply: the version being edited carries no applied change.
    assert client.post("/api/ai/edit", json={"direction": "undo"}).get_json()["version"] == 1
    said = refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")
    assert "Version 1" in said["explanation"]
    # Step forward: it is in force again, and undoing it writes a version made from it.
    assert client.post("/api/ai/edit", json={"direction": "redo"}).get_json()["version"] == 2
    undone = client.post("/api/intent/revert").get_json()
    assert (undone["status"], undone["version"]) == ("reverted", 3) and draft(client)["document"]["lead"] == "hero"
    refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")
    # Step back past the undo: the change is back, and so is the undo.
    assert client.post("/api/ai/edit", json={"direction": "undo"}).get_json()["version"] == 2
    assert draft(client)["document"]["lead"] == "evidence"
    again = client.post("/api/intent/revert").get_json()
    assert (again["status"], again["version"]) == ("reverted", 4)
    assert StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == 4).parent == 2


def test_undo_the_last_applied_change_keeps_a_later_plain_language_edit(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    apply_trending(client)
    edit(client, f"Change the headline to {HEADLINE}")
    body = client.post("/api/intent/revert").get_json()
    assert (body["status"], body["version"]) == ("reverted", 4)
    document = draft(client)["document"]
    assert document["lead"] == "hero" and document["copy"]["headline"] == HEADLINE


def test_undo_says_so_when_the_store_leads_with_another_section_since(founder, run_jobs):
    client = signed_in_founder_with_store(founder, run_jobs)
    apply_trending(client)
    client.post("/api/intent/order", json={"section": "price"})
    said = refusal(client.post("/api/intent/revert"), 409, "nothing_to_revert")
    assert "leads with the price now" in said["explanation"]
