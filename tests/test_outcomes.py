"""Outcomes of claimed products (spec 2.13) and the published track record (decisions.md)."""
import pytest

from models.research import Outcome
from tests.factories import catalog, claim, find, refusal

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW


def outcome(client, **body):
    return client.post("/api/outcome", json=body)


def claimed_founder(founder):
    client = founder()
    product_id = find(client).get_json()["product_id"]
    assert claim(client).get_json()["status"] == "claimed"
    return client, product_id


def test_an_outcome_attaches_to_the_claimed_product(founder):
    catalog(3)
    client, product_id = claimed_founder(founder)
    body = outcome(client, spend=120.5, revenue=300, note="first month").get_json()
    assert body["status"] == "recorded"
    assert {k: v for k, v in body["outcome"].items() if k != "declared_at"} == {
        "product_id": product_id, "spend": 120.5, "revenue": 300.0, "note": "first month", "result": "win",
        "revenue_from_orders": False}
    assert body["outcome"]["declared_at"].endswith("Z")


def test_a_later_declaration_replaces_what_it_sends_and_keeps_the_rest(founder):
    catalog(3)
    client, _ = claimed_founder(founder)
    outcome(client, spend=100, revenue=50, note="slow start")
    body = outcome(client, revenue=250).get_json()["outcome"]
    assert (body["spend"], body["revenue"], body["note"], body["result"]) == (100.0, 250.0, "slow start", "win")
    assert Outcome.select().count() == 1


def test_an_outcome_with_neither_figure_records_nothing(founder):
    catalog(3)
    client, _ = claimed_founder(founder)
    refusal(outcome(client, note="just a note"), 400, "nothing_to_record")
    refusal(outcome(client), 400, "nothing_to_record")
    assert Outcome.select().count() == 0


@pytest.mark.parametrize("body", [{"spend": -1}, {"revenue": -0.01}, {"spend": "12"}, {"revenue": True},
                                  {"spend": 1e10}, {"spend": 5, "note": 7}])
def test_negative_or_non_numeric_figures_are_invalid_outcome(founder, body):
    catalog(3)
    client, _ = claimed_founder(founder)
    refusal(outcome(client, **body), 400, "invalid_outcome")
    assert Outcome.select().count() == 0


def test_a_hold_is_not_ownership(founder):
    catalog(3)
    client = founder()
    find(client)
    refusal(outcome(client, spend=10), 400, "no_claim")


def test_a_session_with_no_product_has_no_claim_record(founder):
    catalog(3)
    refusal(outcome(founder(), revenue=10), 400, "no_claim_record")


def test_another_founders_outcome_is_never_shown_or_changed(founder):
    catalog(3)
    first, first_product = claimed_founder(founder)
    outcome(first, spend=10, revenue=20)
    second, second_product = claimed_founder(founder)
    body = outcome(second, spend=30).get_json()["outcome"]
    assert (body["product_id"], body["spend"], body["revenue"]) == (second_product, 30.0, None)
    assert first_product != second_product
    mine = outcome(first, revenue=25).get_json()["outcome"]
    assert (mine["product_id"], mine["spend"], mine["revenue"]) == (first_product, 10.0, 25.0)


def test_the_track_record_is_public_and_counts_wins_misses_and_pending(founder):
    empty = founder().get("/api/track-record").get_json()
    assert (empty["hit_rate"], empty["wins"], empty["misses"], empty["pending"], empty["basis"]["outcomes"]) == (
        None, 0, 0, 0, 0)
    catalog(5)
    winner, _ = claimed_founder(founder)
    loser, _ = claimed_founder(founder)
    even, _ = claimed_founder(founder)
    claimed_founder(founder)  # claimed, nothing declared: pending
    outcome(winner, spend=100, revenue=100.01)
    outcome(loser, spend=100, revenue=20)
    outcome(even, spend=50, revenue=50)  # not above spend: a miss
    body = founder().get("/api/track-record").get_json()
    assert (body["status"], body["wins"], body["misses"], body["pending"]) == ("ok", 1, 2, 1)
    assert body["hit_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert body["basis"]["outcomes"] == 3 and "revenue is above its spend" in body["basis"]["definition"]


def test_revenue_alone_is_a_win_and_spend_alone_a_miss(founder):
    catalog(3)
    a, _ = claimed_founder(founder)
    b, _ = claimed_founder(founder)
    assert outcome(a, revenue=5).get_json()["outcome"]["result"] == "win"
    assert outcome(b, spend=5).get_json()["outcome"]["result"] == "miss"
    assert founder().get("/api/track-record").get_json()["hit_rate"] == 0.5
