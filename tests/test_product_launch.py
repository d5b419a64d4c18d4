"""The launch state machine (POST /api/product-launch, and `launch_state` in GET /api/launch):
every transition and every refusal, a race between two transitions, and one founder never
seeing or moving another's launch.

The rules are tested twice. Over a map of facts (`launch_state.decide` and `options`, the
functions the route uses), every state and action, since `live` and `paused` cannot be
reached through the API today: `payments_ready` has no check until payments exist, so it
reads false and launching is refused, truthfully. Through HTTP, everything reachable today;
and to drive pause/resume/retire from `live` and `paused` through the route, the stored
state is set to `live` directly, as a product launched once payments exist would be.
"""
from __future__ import annotations

import pytest

from models.launch import ProductLaunch
from services import launch_state
from services.errors import Refused
from services.research.launch import FACT_IDS
from tests.factories import built, claim, claimed_founder, demo_item, find, item, load, refusal
from tests.helpers import in_threads

ALL_TRUE = {fact: True for fact in FACT_IDS}
NONE_TRUE = {fact: False for fact in FACT_IDS}
STATES = ["draft", "ready", "live", "paused", "retired"]
ACTIONS = ["prepare", "launch", "pause", "resume", "retire"]
# The whole machine: (state, action) -> next state; every other pair is invalid_transition.
MOVES = {
    ("draft", "prepare"): "ready", ("ready", "launch"): "live", ("live", "pause"): "paused",
    ("paused", "resume"): "live",
    ("draft", "retire"): "retired", ("ready", "retire"): "retired", ("live", "retire"): "retired",
    ("paused", "retire"): "retired",
}
READY_NEEDS = ["product_claimed", "offer_researched", "store_built"]
LIVE_NEEDS = READY_NEEDS + ["store_published", "payments_ready"]


def move(client, action):
    return client.post("/api/product-launch", json={"action": action})


def ok(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def refused_move(client, action, reason, state) -> dict:
    body = refusal(move(client, action), 409, reason)
    assert body["state"] == state and body["action"] == action, body
    return body


def facts_of(client) -> dict:
    return {f["id"]: f["true_today"] for f in client.get("/api/launch").get_json()["facts"]}


# --- The rules, over a map of facts ---------------------------------------------------------

def test_the_actions_and_states_are_those_decided():
    assert launch_state.ACTIONS == ACTIONS
    assert list(launch_state.STATES) == STATES


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("action", ACTIONS)
def test_every_state_and_action_moves_as_the_machine_says_when_every_fact_is_true(state, action):
    if (state, action) in MOVES:
        assert launch_state.decide(state, action, ALL_TRUE) == MOVES[(state, action)]
        return
    with pytest.raises(Refused) as refused:
        launch_state.decide(state, action, ALL_TRUE)
    assert refused.value.reason == "invalid_transition"
    assert refused.value.fields["state"] == state
    assert refused.value.fields["allowed"] == [a for a in ACTIONS if (state, a) in MOVES]
    assert state in refused.value.explanation and action in refused.value.explanation


@pytest.mark.parametrize(("state", "action", "needs"), [
    ("draft", "prepare", READY_NEEDS), ("ready", "launch", LIVE_NEEDS), ("paused", "resume", LIVE_NEEDS)])
def test_a_transition_is_blocked_by_exactly_its_false_facts(state, action, needs):
    with pytest.raises(Refused) as refused:
        launch_state.decide(state, action, NONE_TRUE)
    assert refused.value.reason == "launch_blocked"
    assert refused.value.fields["blocked_by"] == needs
    for fact in needs:  # each one alone false blocks it, and is named alone
        with pytest.raises(Refused) as one:
            launch_state.decide(state, action, ALL_TRUE | {fact: False})
        assert (one.value.reason, one.value.fields["blocked_by"]) == ("launch_blocked", [fact])
    # Facts the step does not need never block it.
    others = {fact: fact in needs for fact in FACT_IDS}
    assert launch_state.decide(state, action, others) == MOVES[(state, action)]


@pytest.mark.parametrize("state", ["live", "draft", "ready", "paused"])
def test_pausing_and_retiring_need_no_fact(state):
    if state == "live":
        assert launch_state.decide("live", "pause", NONE_TRUE) == "paused"
    assert launch_state.decide(state, "retire", NONE_TRUE) == "retired"


def test_an_invalid_transition_is_refused_before_the_facts_are_asked():
    with pytest.raises(Refused) as refused:
        launch_state.decide("draft", "launch", NONE_TRUE)
    assert refused.value.reason == "invalid_transition"


def test_options_split_the_actions_from_a_state_into_allowed_and_blocked():
    assert launch_state.options("draft", NONE_TRUE) == (["retire"], {"prepare": READY_NEEDS})
    assert launch_state.options("draft", ALL_TRUE) == (["prepare", "retire"], {})
    assert launch_state.options("ready", ALL_TRUE | {"payments_ready": False}) == (
        ["retire"], {"launch": ["payments_ready"]})
    assert launch_state.options("live", NONE_TRUE) == (["pause", "retire"], {})
    assert launch_state.options("paused", NONE_TRUE) == (["retire"], {"resume": LIVE_NEEDS})
    assert launch_state.options("retired", ALL_TRUE) == ([], {})


def test_the_whole_way_with_every_fact_true():
    state = "draft"
    for action in ["prepare", "launch", "pause", "resume", "pause", "resume", "retire"]:
        state = launch_state.decide(state, action, ALL_TRUE)
    assert state == "retired"


# --- Through HTTP ---------------------------------------------------------------------------

def test_a_session_without_a_claim_is_told_to_claim_first(founder):
    load(demo_item())
    client = founder()
    body = refusal(move(client, "prepare"), 200, "not_claimed")
    assert "launch_state" not in body
    find(client)  # a hold is not a claim
    body = refusal(move(client, "retire"), 409, "claim_required")
    assert "claim it first" in body["explanation"]
    assert ProductLaunch.select().count() == 0
    assert client.get("/api/launch").get_json()["launch_state"] is None


@pytest.mark.parametrize("sent", [{}, {"action": "fly"}, {"action": "PREPARE"}, {"action": 5}, {"action": None},
                                  {"action": ["prepare"]}])
def test_an_action_that_is_not_one_of_the_five_is_400_invalid_action(founder, sent):
    client = claimed_founder(founder)
    body = refusal(client.post("/api/product-launch", json=sent), 400, "invalid_action")
    assert "action" in body["fields"]
    assert ProductLaunch.select().count() == 0


def test_draft_waits_on_the_store_and_refuses_what_is_not_a_step_from_draft(founder, run_jobs):
    client = claimed_founder(founder)
    run_jobs()  # the claim's research
    state = client.get("/api/launch").get_json()["launch_state"]
    assert state == {"product_id": "p00", "state": "draft", "previous": None, "allowed": ["retire"],
                     "blocked": {"prepare": ["store_built"]}, "changed_at": None}
    body = refused_move(client, "prepare", "launch_blocked", "draft")
    assert body["blocked_by"] == ["store_built"] and "store_built" in body["explanation"]
    for action in ["launch", "pause", "resume"]:
        body = refused_move(client, action, "invalid_transition", "draft")
        assert (body["allowed"], body["blocked"]) == (["retire"], {"prepare": ["store_built"]})
        assert "draft" in body["explanation"]
    assert client.get("/api/launch").get_json()["launch_state"]["state"] == "draft"


def test_prepare_before_the_research_finishes_names_the_offer_too(founder, worker):
    worker.pause()  # the claim's research job stays queued
    try:
        client = claimed_founder(founder)
        body = refused_move(client, "prepare", "launch_blocked", "draft")
        assert body["blocked_by"] == ["offer_researched", "store_built"]
    finally:
        worker.resume()


def test_a_built_store_makes_it_ready_and_launching_waits_on_publishing_and_payments(founder, run_jobs,
                                                                                     settings_with):
    client = claimed_founder(founder)
    built(client, run_jobs)
    ready = ok(move(client, "prepare"))
    assert {k: ready[k] for k in ("product_id", "state", "previous", "allowed", "blocked")} == {
        "product_id": "p00", "state": "ready", "previous": "draft", "allowed": ["retire"],
        "blocked": {"launch": ["store_published", "payments_ready"]}}
    assert ready["changed_at"]
    launch_answer = client.get("/api/launch").get_json()
    assert launch_answer["launch_state"] == {k: v for k, v in ready.items() if k != "status"}

    body = refused_move(client, "launch", "launch_blocked", "ready")
    assert body["blocked_by"] == ["store_published", "payments_ready"]
    for action in ["prepare", "pause", "resume"]:
        refused_move(client, action, "invalid_transition", "ready")

    assert client.post("/api/store/publish").get_json()["status"] == "published"
    settings_with(payment_provider="off")  # published, but no payment can be taken
    body = refused_move(client, "launch", "launch_blocked", "ready")
    assert body["blocked_by"] == ["payments_ready"]
    assert "payments_ready" in body["explanation"]
    assert not facts_of(client)["payments_ready"]
    assert client.get("/api/launch").get_json()["launch_state"]["state"] == "ready"

    retired = ok(move(client, "retire"))
    assert (retired["state"], retired["previous"], retired["allowed"], retired["blocked"]) == (
        "retired", "ready", [], {})
    for action in ACTIONS:
        body = refused_move(client, action, "invalid_transition", "retired")
        assert (body["allowed"], body["blocked"]) == ([], {})
        assert "final" in body["explanation"]


def test_a_draft_can_be_retired_at_once(founder):
    client = claimed_founder(founder)
    retired = ok(move(client, "retire"))
    assert (retired["state"], retired["previous"]) == ("retired", "draft")
    assert ProductLaunch.get(ProductLaunch.product == "p00").state == "retired"


def test_with_the_store_published_and_payments_on_the_product_goes_live(founder, run_jobs):
    client = claimed_founder(founder)
    built(client, run_jobs)
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    ok(move(client, "prepare"))
    assert facts_of(client)["payments_ready"]
    live = ok(move(client, "launch"))
    assert (live["state"], live["previous"], live["blocked"]) == ("live", "ready", {})


def test_from_live_pause_resume_and_retire_go_through_the_route(founder, run_jobs, settings_with):
    client = claimed_founder(founder)
    built(client, run_jobs)
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    ok(move(client, "prepare"))
    ok(move(client, "launch"))
    settings_with(payment_provider="off")  # payments switched off while the product is live
    state = client.get("/api/launch").get_json()["launch_state"]
    assert (state["state"], state["allowed"], state["blocked"]) == ("live", ["pause", "retire"], {})
    for action in ["prepare", "launch", "resume"]:
        refused_move(client, action, "invalid_transition", "live")

    paused = ok(move(client, "pause"))
    assert (paused["state"], paused["previous"], paused["allowed"], paused["blocked"]) == (
        "paused", "live", ["retire"], {"resume": ["payments_ready"]})
    body = refused_move(client, "resume", "launch_blocked", "paused")
    assert body["blocked_by"] == ["payments_ready"]
    for action in ["prepare", "launch", "pause"]:
        refused_move(client, action, "invalid_transition", "paused")

    retired = ok(move(client, "retire"))
    assert (retired["state"], retired["previous"]) == ("retired", "paused")


def test_live_can_be_retired_through_the_route(founder):
    client = claimed_founder(founder)
    ok(move(client, "retire"))
    ProductLaunch.update(state="live", previous="ready").where(ProductLaunch.product == "p00").execute()
    assert ok(move(client, "retire"))["previous"] == "live"


@pytest.mark.parametrize(("stored", "action"), [
    (None, "prepare"),  # the first transition: the row is created as it is taken
    (None, "retire"),
    ("ready", "retire"),  # the row exists: only the conditional update settles it
    ("live", "pause"),
    ("paused", "retire"),
])
def test_devices_racing_the_same_transition_apply_it_once(founder, run_jobs, stored, action):
    client = claimed_founder(founder)
    built(client, run_jobs)
    if stored is not None:
        ProductLaunch.create(product="p00", state=stored, previous=None)
    start = stored or "draft"
    cookie = client.get_cookie("ff_session").value

    def attempt(_):
        device = founder()
        device.set_cookie("ff_session", cookie)
        response = move(device, action)
        return response.status_code, response.get_json()

    answers = in_threads(8, attempt)
    applied = [body for status, body in answers if status == 200]
    assert len(applied) == 1, answers
    target = MOVES[(start, action)]
    assert (applied[0]["state"], applied[0]["previous"]) == (target, start)
    assert all((status, body["reason"], body["state"]) == (409, "invalid_transition", target)
               for status, body in answers if status != 200), answers
    row = ProductLaunch.get(ProductLaunch.product == "p00")
    assert (row.state, row.previous) == (target, start)


def test_a_transition_decided_on_a_state_read_before_another_applied_changes_nothing(founder):
    claimed_founder(founder)
    ProductLaunch.create(product="p00", state="ready", previous="draft")
    before = ProductLaunch.get(ProductLaunch.product == "p00")
    # A request that read `draft` (before another moved it to ready) and decided `ready`:
    assert launch_state.apply("p00", expected="draft", target="ready") is False
    # One that read `ready` and decided `retired` applies, once.
    assert launch_state.apply("p00", expected="ready", target="retired") is True
    assert launch_state.apply("p00", expected="ready", target="retired") is False
    row = ProductLaunch.get(ProductLaunch.product == "p00")
    assert (row.state, row.previous) == ("retired", "ready") and row.changed_at >= before.changed_at


def test_another_founder_never_sees_or_moves_your_launch(founder, run_jobs):
    load(demo_item("p00"), item("p01", rank=10))
    mine = founder()
    find(mine)
    assert claim(mine).get_json()["status"] == "claimed"
    ok(move(mine, "retire"))

    stranger = founder()  # no product at all
    refusal(move(stranger, "prepare"), 200, "not_claimed")
    assert stranger.get("/api/launch").get_json()["launch_state"] is None

    other = founder()  # a product of their own
    find(other)
    assert claim(other).get_json()["status"] == "claimed"
    theirs = other.get("/api/launch").get_json()["launch_state"]
    assert (theirs["product_id"], theirs["state"], theirs["previous"]) == ("p01", "draft", None)
    assert ok(move(other, "retire"))["product_id"] == "p01"
    # Their retire moved their product, not mine: a new one of mine would be refused from retired.
    assert claim(other, "p00").get_json()["status"] != "claimed"

    state = mine.get("/api/launch").get_json()["launch_state"]
    assert (state["product_id"], state["state"], state["previous"]) == ("p00", "retired", "draft")
    assert {r.product_id: (r.state, r.previous) for r in ProductLaunch.select()} == {
        "p00": ("retired", "draft"), "p01": ("retired", "draft")}


def test_another_founders_transition_leaves_your_draft_alone(founder):
    load(demo_item("p00"), item("p01", rank=10))
    mine, other = founder(), founder()
    find(mine)
    assert claim(mine).get_json()["status"] == "claimed"
    find(other)
    assert claim(other).get_json()["status"] == "claimed"
    assert ok(move(other, "retire"))["product_id"] == "p01"
    state = mine.get("/api/launch").get_json()["launch_state"]
    assert (state["product_id"], state["state"], state["changed_at"]) == ("p00", "draft", None)
    assert ProductLaunch.get_or_none(ProductLaunch.product == "p00") is None
