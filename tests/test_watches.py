"""Watches (spec 2.6, POST and GET /api/notify_me): placed on a product held or claimed by
someone else; closed once, with one mail, when the product is observed available again."""
import pytest

from models.clock import clock
from models.discovery import Watch
from tests.factories import catalog, claim, find, item, load, pass_on, refusal, select
from tests.mailbox import messages_to

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

WATCHER = "watcher@example.com"


def watch(client, product_id, email=WATCHER):
    return client.post("/api/notify_me", json={"email": email, "product_id": product_id})


def test_a_watch_on_a_product_held_by_someone_else_is_recorded_and_listed(client, founder):
    catalog(2)
    held = find(founder()).get_json()["product_id"]
    response = watch(client, held)
    assert response.status_code == 200
    body = response.get_json()
    assert body == {"status": "watching", "product_id": held, "email": WATCHER, "since": "2026-11-22T12:00:00Z",
                    "because": "held"}
    listed = client.get("/api/notify_me").get_json()
    assert listed["status"] == "ok"
    assert [(w["product_id"], w["email"], w["state"]) for w in listed["watches"]] == [(held, WATCHER, "watching")]


def test_nothing_to_watch_on_a_free_product_your_own_or_an_unknown_one(client):
    catalog(2)
    mine = find(client).get_json()["product_id"]
    refusal(watch(client, mine), 200, "nothing_to_watch")
    refusal(watch(client, "p01"), 200, "nothing_to_watch")
    refusal(watch(client, "nowhere"), 200, "nothing_to_watch")
    assert Watch.select().count() == 0


def test_a_bad_or_missing_address_is_invalid_email(client, founder):
    catalog(1)
    held = find(founder()).get_json()["product_id"]
    refusal(watch(client, held, email="not-an-address"), 400, "invalid_email")
    refusal(client.post("/api/notify_me", json={"product_id": held}), 400, "invalid_email")
    refusal(client.post("/api/notify_me", json={"email": WATCHER}), 400, "no_product_id")
    assert Watch.select().count() == 0


def test_no_watches_is_an_empty_surface(client):
    body = refusal(client.get("/api/notify_me"), 200, "nothing_to_watch")
    assert body["watches"] == []


def test_the_watcher_is_mailed_once_when_the_holder_passes(client, founder, run_jobs):
    catalog(3)
    holder = founder()
    held = find(holder).get_json()["product_id"]
    watch(client, held)
    pass_on(holder)
    run_jobs()
    mails = messages_to(WATCHER)
    assert len(mails) == 1
    assert "available again" in mails[0]["Subject"]
    text = mails[0].get_body(preferencelist=("plain",)).get_content()
    assert f"Product {held}" in text and f"product={held}" in text
    state = client.get("/api/notify_me").get_json()["watches"][0]
    assert state["state"] == "available" and state["notified_at"] and state["closed_at"]
    # Seen free again elsewhere: the watch is closed, so no second mail.
    founder().get("/api/feed")
    run_jobs()
    assert len(messages_to(WATCHER)) == 1


def test_the_watcher_is_mailed_when_the_holder_selects_another_product(client, founder, run_jobs):
    catalog(14)
    holder = founder()
    cards = holder.get("/api/feed").get_json()
    watch(client, cards[0]["product_id"])
    select(holder, cards[4]["product_id"])
    run_jobs()
    assert len(messages_to(WATCHER)) == 1


def test_an_expired_hold_is_noticed_when_a_feed_shows_the_product_free(client, founder, run_jobs):
    load(item("top", rank=90), item("watched", rank=50))
    holder = founder()
    holder.get("/api/feed")
    select(holder, "watched")
    watch(client, "watched")
    clock.advance(31 * 60)
    cards = founder().get("/api/feed").get_json()
    assert [c["product_id"] for c in cards] == ["top", "watched"]
    run_jobs()
    assert len(messages_to(WATCHER)) == 1


def test_an_expired_hold_is_noticed_when_the_watcher_reads_their_watches(client, founder, run_jobs):
    catalog(2)
    held = find(founder()).get_json()["product_id"]
    watch(client, held)
    assert client.get("/api/notify_me").get_json()["watches"][0]["state"] == "watching"
    clock.advance(31 * 60)
    assert client.get("/api/notify_me").get_json()["watches"][0]["state"] == "available"
    run_jobs()
    assert len(messages_to(WATCHER)) == 1


def test_a_watch_on_a_claimed_product_stays_open(client, founder, run_jobs):
    catalog(2)
    owner = founder()
    pid = find(owner).get_json()["product_id"]
    claim(owner)
    assert watch(client, pid).get_json()["because"] == "claimed"
    clock.advance(3 * 3600)
    founder().get("/api/feed")
    run_jobs()
    assert client.get("/api/notify_me").get_json()["watches"][0]["state"] == "watching"
    assert messages_to(WATCHER) == []


def test_watching_again_replaces_the_address_and_reopens_a_closed_watch(client, founder, run_jobs):
    catalog(3)
    holder = founder()
    held = find(holder).get_json()["product_id"]
    watch(client, held)
    watch(client, held, email="second@example.com")
    assert [w["email"] for w in client.get("/api/notify_me").get_json()["watches"]] == ["second@example.com"]
    pass_on(holder)
    run_jobs()
    assert len(messages_to("second@example.com")) == 1 and messages_to(WATCHER) == []
    # Held again by someone else: watching it again reopens the same watch.
    assert find(founder()).get_json()["product_id"] == held
    assert watch(client, held, email="second@example.com").get_json()["status"] == "watching"
    assert [w["state"] for w in client.get("/api/notify_me").get_json()["watches"]] == ["watching"]
    assert Watch.select().count() == 1
