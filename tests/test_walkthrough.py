"""The walkthrough (GET /api/walkthrough, POST /api/walkthrough/advance and /dismiss): the
launch facts as steps, the position stored per founder, clamped and moved forward or back,
dismissal, isolation between founders and adoption on sign-in."""
from __future__ import annotations

import pytest

from models.walkthrough import Walkthrough
from services.research.launch import FACT_IDS
from services.walkthrough import STEPS
from tests.factories import catalog, claim, find, new_account, refusal, sign_in
from tests.helpers import in_threads


def shown(client) -> dict:
    response = client.get("/api/walkthrough")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def advance(client, direction):
    return client.post("/api/walkthrough/advance", json={"direction": direction})


def moved(client, direction) -> dict:
    response = advance(client, direction)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_the_steps_are_the_launch_facts_in_a_founders_words(client):
    body = shown(client)
    assert set(body) == {"status", "steps", "position", "dismissed"} and body["status"] == "ok"
    assert [step["id"] for step in body["steps"]] == FACT_IDS
    first = body["steps"][0]
    assert first == {"id": "product_claimed", "title": STEPS["product_claimed"][0], "done": False,
                     "detail": "Claim a product from your feed.", "route": "#/app/find"}
    assert not any(step["done"] for step in body["steps"])
    assert body["position"] == 0 and body["dismissed"] is False
    assert Walkthrough.select().count() == 0  # reading stores nothing


def test_a_step_is_done_when_its_fact_is_true_and_a_newcomer_starts_at_the_first_open_one(client):
    catalog(2)
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    body = shown(client)
    done = {step["id"]: step["done"] for step in body["steps"]}
    assert done["product_claimed"] is True and done["store_built"] is False
    assert body["position"] == [step["done"] for step in body["steps"]].index(False)


def test_the_position_moves_forward_and_back_within_the_steps(client):
    last = len(FACT_IDS) - 1
    assert moved(client, "back")["position"] == 0  # back at the first step changes nothing
    assert moved(client, "forward")["position"] == 1
    assert moved(client, "forward")["position"] == 2
    assert shown(client)["position"] == 2  # stored
    assert moved(client, "back")["position"] == 1
    for _ in range(last + 3):
        body = moved(client, "forward")
    assert body["position"] == last and shown(client)["position"] == last


@pytest.mark.parametrize("body", [{"direction": "sideways"}, {"direction": ""}, {"direction": 1}, {}])
def test_another_direction_is_refused_and_changes_nothing(client, body):
    moved(client, "forward")
    refusal(client.post("/api/walkthrough/advance", json=body), 400, "invalid_direction")
    assert shown(client)["position"] == 1


def test_dismissing_is_stored_and_the_walkthrough_keeps_answering(client):
    moved(client, "forward")
    response = client.post("/api/walkthrough/dismiss")
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["dismissed"] is True and body["position"] == 1 and len(body["steps"]) == len(FACT_IDS)
    assert shown(client)["dismissed"] is True
    assert client.post("/api/walkthrough/dismiss").get_json()["dismissed"] is True
    assert moved(client, "forward")["dismissed"] is True  # moving does not bring it back


def test_each_founder_has_their_own_position(founder):
    one, other = founder(), founder()
    moved(one, "forward")
    moved(one, "forward")
    client_dismissed = other.post("/api/walkthrough/dismiss").get_json()
    assert client_dismissed["position"] == 0
    assert shown(one)["position"] == 2 and shown(one)["dismissed"] is False
    assert shown(other)["position"] == 0 and shown(other)["dismissed"] is True


def test_clicks_at_once_each_count_and_never_pass_the_end(client):
    assert client.get("/api/walkthrough").status_code == 200  # the session exists before the race
    in_threads(6, lambda _: moved(client, "forward"))
    assert shown(client)["position"] == 6 and Walkthrough.select().count() == 1
    in_threads(12, lambda _: moved(client, "back"))
    assert shown(client)["position"] == 0


def test_a_sessions_place_becomes_its_accounts_on_sign_in(founder, run_jobs):
    laptop = new_account(founder, run_jobs, "walk@example.com")
    phone = founder()
    for _ in range(3):
        moved(phone, "forward")
    sign_in(phone, run_jobs, "walk@example.com")
    assert shown(laptop)["position"] == 3 and shown(phone)["position"] == 3
    # An account that has a place keeps it when another session signs in.
    tablet = founder()
    moved(tablet, "forward")
    sign_in(tablet, run_jobs, "walk@example.com")
    assert shown(tablet)["position"] == 3
    assert Walkthrough.select().count() == 1
