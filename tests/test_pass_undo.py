"""Undoing a pass (issue 47.6, decisions in api/discovery.py): for a minute after a pass the
founder can take it back, and the product is back in their feed, held for them again."""
import pytest

from models.clock import clock
from models.discovery import Hold, Passed
from tests.factories import catalog, find, pass_on, refusal, select

pytestmark = pytest.mark.usefixtures("frozen_clock")


def undo(client, product_id=None):
    body = {"action": "undo"} | ({"product_id": product_id} if product_id else {})
    return client.post("/api/pass", json=body)


def test_undo_within_the_minute_puts_the_card_back_first_in_the_feed_held_for_you(client):
    catalog(3)
    assert find(client).get_json()["product_id"] == "p00"
    assert pass_on(client).get_json()["next"]["product_id"] == "p01"
    clock.advance(seconds=59)

    body = undo(client).get_json()

    assert body["status"] == "restored" and body["product_id"] == "p00"
    assert body["held_until"] and body["explanation"] == "Product p00 is back in your feed, held for you again."
    feed = client.get("/api/feed").get_json()
    assert [card["product_id"] for card in feed] == ["p00", "p01", "p02"]
    assert feed[0]["yours"] and feed[0]["held_until"] == body["held_until"]
    assert [hold.product_id for hold in Hold.select()] == ["p00"]  # the next card's hold was released
    assert select(client, "p00").get_json()["status"] == "selected"


def test_undo_names_the_pass_it_takes_back(client):
    catalog(3)
    find(client)
    pass_on(client)  # p00, then p01 is held
    pass_on(client)  # p01, then p02 is held
    assert undo(client, "p00").get_json()["product_id"] == "p00"
    assert Passed.select().count() == 1  # p01 stays passed
    assert [card["product_id"] for card in client.get("/api/feed").get_json()] == ["p00", "p02"]


def test_undo_after_the_minute_is_refused_and_the_pass_stays(client):
    catalog(3)
    find(client)
    pass_on(client)
    clock.advance(seconds=61)

    body = refusal(undo(client), 200, "undo_window_over")

    assert body["product_id"] == "p00" and "minute" in body["explanation"]
    assert "p00" not in [card["product_id"] for card in client.get("/api/feed").get_json()]


def test_undo_with_nothing_passed_or_twice_is_no_pass_to_undo(client, founder):
    catalog(3)
    find(client)
    refusal(undo(client), 200, "no_pass_to_undo")
    pass_on(client)
    other = founder()
    find(other)
    refusal(undo(other), 200, "no_pass_to_undo")  # one founder's pass is not another's to undo
    assert undo(client).get_json()["status"] == "restored"
    refusal(undo(client), 200, "no_pass_to_undo")


def test_undo_of_a_product_another_founder_took_meanwhile_is_not_held(client, founder):
    catalog(3)
    find(client)
    pass_on(client)  # p00 is free; the founder now holds p01
    other = founder()
    assert find(other).get_json()["product_id"] == "p00"

    body = undo(client).get_json()

    assert body["status"] == "restored" and body["held_until"] is None
    assert "another founder" in body["explanation"]
    assert Hold.get(Hold.product == "p01").session_id != Hold.get(Hold.product == "p00").session_id
    assert client.get("/api/feed").get_json()[0]["product_id"] == "p01"  # still the founder's hold


def test_undo_is_an_action_of_pass(client):
    refusal(client.post("/api/pass", json={"action": "unpass"}), 400, "invalid_action")
