"""Decided shapes (issue 51, points 2 and 4): the campaign book round-trips (GET's answer,
posted back, is taken, and a campaign appended under `next`'s id is created); GET
/api/fix/mine?token= answers the decided fields at the top level; an ads intent before the
ad is written is `not_started`; POST /api/journey takes the app's routes as links write them."""
from __future__ import annotations

import copy

import pytest

from models.ad import Ad
from models.campaign_book import CampaignBook
from models.store import Store
from tests.factories import claimed_founder, cookie_of, product, refusal, store_founder
from tests.fix_site import Site
from tests.growth_factories import book_of, campaign, saved_book
from tests.helpers import in_threads


def ids_of(answer: dict) -> list[int]:
    return [c["id"] for c in answer["book"]["campaigns"]]


def posted(client, body) -> dict:
    response = client.post("/api/ads-manager", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


# --- The campaign book round-trips (51.2) ------------------------------------------------------

def test_the_book_as_get_answers_it_posted_back_changes_nothing(client):
    saved_book(client, settings={"platform": "google"}, campaigns=[campaign("One"), campaign("Two", status="paused")])
    read = book_of(client)
    # The book alone ({campaigns, next, settings}), and GET's whole answer, with every field it has.
    assert posted(client, read["book"]) == read
    assert posted(client, read) == read
    assert book_of(client) == read


def test_the_empty_book_posted_back_is_taken(client):
    read = book_of(client)
    answer = posted(client, read["book"])
    assert answer["book"] == read["book"]


def test_a_campaign_appended_under_next_is_created_and_next_moves_on(client):
    saved_book(client, campaigns=[campaign("One")])
    read = book_of(client)
    assert read["book"]["next"] == 2
    sent = copy.deepcopy(read["book"])
    sent["campaigns"].append(campaign("Two", id=sent["next"]))
    answer = posted(client, sent)
    assert [(c["id"], c["name"]) for c in answer["book"]["campaigns"]] == [(1, "One"), (2, "Two")]
    assert answer["book"]["next"] == 3
    # Two appended at once take next and the one after it, in order.
    sent = copy.deepcopy(answer["book"])
    sent["campaigns"] += [campaign("Three", id=3), campaign("Four", id=4)]
    assert ids_of(posted(client, sent)) == [1, 2, 3, 4]
    # Without `next` in the body, an id equal to the book's next is a new campaign as well.
    assert ids_of(posted(client, {"campaigns": [campaign("Five", id=5)]})) == [1, 2, 3, 4, 5]


def test_next_is_taken_and_an_id_neither_held_nor_next_is_still_unknown_campaign(client):
    saved_book(client, campaigns=[campaign("One")])
    read = book_of(client)
    for wrong in (3, 99):
        sent = copy.deepcopy(read["book"])
        sent["campaigns"].append(campaign("Stray", id=wrong))
        refusal(client.post("/api/ads-manager", json=sent), 400, "unknown_campaign")
    refusal(client.post("/api/ads-manager", json={"campaigns": [{"id": 2, "delete": True}]}), 400, "unknown_campaign")
    # A new campaign under `next` still needs what any new one needs.
    refusal(client.post("/api/ads-manager", json={"campaigns": [{"id": 2, "name": "Half"}]}), 400, "invalid_campaign")
    assert book_of(client) == read
    assert ids_of(posted(client, {"campaigns": [campaign("Two", id=2)]})) == [1, 2]


def test_the_book_and_top_level_fields_together_are_refused(client):
    read = book_of(client)
    refusal(client.post("/api/ads-manager", json={**read, "campaigns": [campaign()]}), 400, "invalid_campaign")
    assert CampaignBook.select().count() == 0


def test_a_save_replayed_after_its_id_was_taken_adds_nothing_and_another_campaign_takes_next(client):
    saved_book(client, campaigns=[campaign("One")])
    sent = copy.deepcopy(book_of(client)["book"])
    sent["campaigns"].append(campaign("Two", id=2))
    posted(client, sent)
    assert ids_of(posted(client, sent)) == [1, 2]  # the same save again (a retry, a double click)
    other = copy.deepcopy(sent)
    other["campaigns"][-1] = campaign("From another tab", id=2)
    answer = posted(client, other)  # it read next 2 too, but 2 is taken: it becomes 3, 2 stays
    assert [(c["id"], c["name"]) for c in answer["book"]["campaigns"]] == [(1, "One"), (2, "Two"),
                                                                          (3, "From another tab")]


def test_concurrent_posts_of_the_same_new_id_create_one_campaign(founder, app):
    client = founder()
    saved_book(client, campaigns=[campaign("One")])
    read = book_of(client)
    cookie = cookie_of(client)
    racers = 8

    def add(i, with_next):
        browser = app.test_client()
        browser.set_cookie("ff_session", cookie)
        body = copy.deepcopy(read["book"]) if with_next else {}
        body["campaigns"] = body.get("campaigns", []) + [campaign("Same new one", id=2)]
        return browser.post("/api/ads-manager", json=body).status_code

    assert set(in_threads(racers, add, True)) == {200}
    answer = book_of(client)
    assert [(c["id"], c["name"]) for c in answer["book"]["campaigns"]] == [(1, "One"), (2, "Same new one")]
    assert answer["book"]["next"] == 3
    saved_book(client, campaigns=[{"id": 2, "delete": True}])
    read = book_of(client)
    body_three = {"campaigns": [campaign("Same new one", id=3)]}
    statuses = in_threads(racers, lambda i: _posted_as(app, cookie, body_three))
    assert set(statuses) == {200}
    assert ids_of(book_of(client)) == [1, 3] and book_of(client)["book"]["next"] == 4


def _posted_as(app, cookie, body) -> int:
    browser = app.test_client()
    browser.set_cookie("ff_session", cookie)
    return browser.post("/api/ads-manager", json=body).status_code


# --- GET /api/fix/mine?token= answers the decided fields at the top level (51.4) -----------------

FIX_DECIDED = ("token", "url", "stage", "score_before", "score_after", "findings")
FINDING_DECIDED = {"id", "check", "severity", "page", "detail", "fixed", "fix"}


@pytest.fixture
def site(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


@pytest.mark.usefixtures("jobs_drained")
def test_fix_mine_with_a_token_answers_the_decided_fields_at_the_top_level(client, run_jobs, site):
    token = client.post("/api/fix", json={"url": site.origin + "/"}).get_json()["token"]
    early = client.get(f"/api/fix/mine?token={token}").get_json()
    assert early["token"] == token and early["stage"] in ("queued", "fetching", "auditing", "repairing", "done")
    run_jobs()
    answer = client.get(f"/api/fix/mine?token={token}").get_json()
    assert answer["status"] == "ok" and set(FIX_DECIDED) <= set(answer)
    assert (answer["token"], answer["url"], answer["stage"]) == (token, site.origin + "/", "done")
    assert 0 <= answer["score_before"] < answer["score_after"] <= 100
    assert answer["findings"] and all(FINDING_DECIDED <= set(f) for f in answer["findings"])
    # `run` stays beside them for the Fix screen, and says the same.
    assert {key: answer["run"][key] for key in FIX_DECIDED} == {key: answer[key] for key in FIX_DECIDED}
    # Without a token the listing is unchanged: runs and subscriptions only.
    assert set(client.get("/api/fix/mine").get_json()) == {"status", "runs", "subscriptions"}


# --- POST /api/intent {surface: ads} before the ad is written is not_started (51.4) --------------

ADS = {"surface": "ads", "requested": "Show shoppers that it is trending"}


def test_an_ads_intent_without_a_store_says_the_ad_is_not_written(founder):
    client = claimed_founder(founder, product())
    body = refusal(client.post("/api/intent", json=ADS), 409, "not_started")
    assert "ad has not been written" in body["explanation"]


def test_an_ads_intent_of_a_built_store_without_its_ad_is_not_started_and_with_it_points_to_growth(founder,
                                                                                                  run_jobs):
    client = store_founder(founder, run_jobs, product())
    Ad.delete().where(Ad.product == "p00").execute()  # the store is built, its ad not yet written
    body = refusal(client.post("/api/intent", json=ADS), 409, "not_started")
    assert "ad has not been written" in body["explanation"]
    # The ad written (as the ad job writes it): an ads intent is not a store lead; it says where ads change.
    store = Store.get(Store.product == "p00")
    Ad.create(product="p00", owner=store.owner, store_version=store.version, written={}, overrides={})
    body = refusal(client.post("/api/intent", json=ADS), 200, "no_row_justifies_this")
    assert "Growth" in body["explanation"]
    # A surface that is not one of the decided ones stays unknown_surface.
    refusal(client.post("/api/intent", json={"surface": "checkout", "requested": "x"}), 200, "unknown_surface")


# --- POST /api/journey takes routes as links write them (51.4) -----------------------------------

@pytest.mark.parametrize("route", ["/app/store", "#/app/store", "/#/app/store"])
def test_a_journey_takes_the_apps_route_as_links_write_it_and_stores_the_apps_form(client, founder, route):
    issued = client.post("/api/journey", json={"route": route, "data": {"step": 2}})
    assert issued.status_code == 200, issued.get_data(as_text=True)
    consumed = founder().post(f"/api/journey/{issued.get_json()['id']}/consume")
    assert consumed.get_json() == {"status": "ok", "route": "#/app/store", "data": {"step": 2}}


@pytest.mark.parametrize("route", ["/app/store?tab=ads", "#/app/growth/book"])
def test_a_journey_keeps_the_path_and_query_of_a_route(client, founder, route):
    issued = client.post("/api/journey", json={"route": route}).get_json()
    consumed = founder().post(f"/api/journey/{issued['id']}/consume").get_json()
    assert consumed["route"] == "#" + route.lstrip("#")


NOT_ROUTES = ["https://evil.example/app/store", "//evil.example/app/store", "/app/../admin", "app/store", "/store",
              "##/app/store", "/app//store", "/#/#/app/store", "/app/" + "x" * 296]


def test_a_journey_still_refuses_what_is_not_a_route_of_the_app(client):
    for route in NOT_ROUTES:
        refusal(client.post("/api/journey", json={"route": route}), 400, "invalid_route")
    # The longest route taken, written either way, is stored within the bound.
    longest = "/app/" + "x" * 294
    issued = client.post("/api/journey", json={"route": longest}).get_json()
    assert client.post(f"/api/journey/{issued['id']}/consume").get_json()["route"] == "#" + longest
