"""Account pre-hijacking (reliability guide, sessions and sign-in): an address nobody has
verified gives no access. Any number of sessions may save one unverified address; each sees
and changes only what it did itself. Verifying makes the verifying session's journey the
account's and leaves the others anonymous, still seeing nothing of it."""
import json

import pytest

from models.catalog import Product
from models.discovery import Claim, Hold
from models.store import Store
from tests.factories import built, choose, claim, demo_item, find, item, load, session_of, started
from tests.mailbox import links_to, path_of

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

VICTIM = "victim@example.com"
SECRET_NAME = "Victim's Walnut Knife Strip"  # the name A gives its product: B must never read it

# What B may read without any product of A's showing in the answer.
READS = ["/api/offer", "/api/store", "/api/product", "/api/dashboard", "/api/launch", "/api/tracking",
         "/api/revenue", "/api/samples", "/api/supplier-connection", "/api/editor/draft", "/api/editor/versions",
         "/api/editor/metrics", "/api/analysis", "/api/usage", "/api/domains?q=walnut"]


@pytest.fixture
def victim_journey(founder, run_jobs):
    """Session A: claims p00, builds and publishes its store, renames its product, sells one
    order, then saves its address (not yet verified). Answers A and what marks A's work."""
    load(demo_item("p00"), item("p01", rank=10), item("p02", rank=5))
    a = founder()
    assert find(a).get_json()["product_id"] == "p00"
    assert claim(a).get_json()["status"] == "claimed"
    built(a, run_jobs)
    renamed = a.post("/api/product", json={"name": SECRET_NAME})
    assert renamed.status_code == 200, renamed.get_data(as_text=True)
    built(a, run_jobs)
    assert a.post("/api/store/publish").get_json()["status"] == "published"
    customer = founder()
    order = started(customer)
    choose(customer, order["checkout_url"], "pay")
    run_jobs()
    assert a.get("/api/tracking").get_json()["orders"][0]["state"] == "paid"
    saved = a.post("/api/account", json={"email": VICTIM}).get_json()
    assert saved["status"] == "account_saved" and saved["verified"] is False
    run_jobs()
    markers = ["p00", SECRET_NAME, Store.get(Store.product == "p00").slug, order["order_id"]]
    return a, markers


def sees_nothing_of(client, markers):
    for path in READS:
        response = client.get(path)
        assert response.status_code < 500, (path, response.get_data(as_text=True))
        text = json.dumps(response.get_json())
        for marker in markers:
            assert marker not in text, (path, marker, text[:500])


def test_a_second_session_saving_an_unverified_address_sees_and_changes_nothing_of_the_first(victim_journey,
                                                                                               founder):
    a, markers = victim_journey
    b = founder()
    saved = b.post("/api/account", json={"email": VICTIM})
    assert saved.status_code == 200 and saved.get_json()["adopted_claims"] == []
    assert b.get("/api/account").get_json()["account"] == VICTIM  # shown back to the session that saved it
    sees_nothing_of(b, markers)
    assert b.get("/api/usage").get_json()["account"] is False  # no meter to share either
    # Nor can B change A's product, publish A's store or claim A's product.
    b.post("/api/product", json={"name": "Taken over"})
    b.post("/api/store/publish")
    assert claim(b, "p00").status_code == 409
    assert a.get("/api/product").get_json()["product"]["name"] == SECRET_NAME
    assert Product.get_by_id("p00").name != "Taken over"
    assert Claim.select().count() == 1
    # B's find never serves A's claimed product.
    assert find(b).get_json()["product_id"] != "p00"


def test_two_sessions_on_one_unverified_address_each_keep_their_own_hold(founder):
    load(item("p01", rank=10), item("p02", rank=5))
    a, b = founder(), founder()
    for browser in (a, b):
        assert browser.post("/api/account", json={"email": VICTIM}).status_code == 200
    held_by_a = find(a).get_json()["product_id"]
    held_by_b = find(b).get_json()["product_id"]
    assert held_by_a != held_by_b
    assert a.get("/api/offer").get_json().get("product_id") == held_by_a
    assert b.get("/api/offer").get_json().get("product_id") == held_by_b
    assert {h.account_id for h in Hold.select()} == {None}  # held by each session, not by the account


def test_after_the_owner_verifies_the_other_session_is_anonymous_and_still_sees_nothing(victim_journey, founder,
                                                                                        run_jobs):
    a, markers = victim_journey
    b = founder()
    assert b.post("/api/account", json={"email": VICTIM}).status_code == 200
    find(b)  # B holds something of its own
    run_jobs()
    # A opens the link it asked for (the first one mailed; B's save mailed another), in its own
    # browser: signed in at once, its journey the account's.
    assert a.get(path_of(links_to(VICTIM)[0])).headers["Location"] == "/?view=home#/app/home"
    assert a.get("/api/account").get_json()["verified"] is True
    assert b.get("/api/account").get_json()["account"] is None
    sees_nothing_of(b, markers)
    assert b.get("/api/usage").get_json()["account"] is False
    # A still has everything, now as the account's.
    assert a.get("/api/product").get_json()["product"]["name"] == SECRET_NAME
    assert a.get("/api/tracking").get_json()["orders"][0]["state"] == "paid"
    assert Claim.get().account_id is not None
    # B's own hold stayed B's: it was never the account's.
    (b_hold,) = Hold.select().where(Hold.session == session_of(b).id)
    assert b_hold.account_id is None
