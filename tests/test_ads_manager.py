"""The campaign book (issue 24, point 3; spec 2.10, 4.5; decisions.md "Growth"): it never
404s, settings merge key by key, campaigns merge by id and take their ids from `next`, which
never hands one out twice (also under saves at once), every value is checked and a refused
save stores nothing, the book is bounded, founders never see each other's, and a session's
book becomes its account's."""
from __future__ import annotations

import pytest

from models.campaign_book import CampaignBook
from models.clock import clock, iso
from services.sessions import prune_anonymous_sessions
from tests.conftest import SETTINGS
from tests.factories import cookie_of, refusal
from tests.growth_factories import book_of, campaign, saved_book
from tests.helpers import in_threads
from tests.mailbox import sign_in_here

DEFAULTS = {"currency": "USD", "daily_budget_minor": 1000, "platform": "meta", "objective": "sales",
            "audience": "broad"}


def ids_of(answer: dict) -> list[int]:
    return [c["id"] for c in answer["book"]["campaigns"]]


def test_a_founder_without_a_book_gets_the_empty_book_never_a_404(client):
    answer = book_of(client)
    assert answer["status"] == "ok" and "updated_at" not in answer
    assert answer["book"] == {"campaigns": [], "next": 1, "settings": DEFAULTS}
    assert answer["options"]["platforms"] == ["meta", "google"] and answer["options"]["max_campaigns"] == 50
    assert CampaignBook.select().count() == 0  # reading writes nothing


def test_settings_are_merged_key_by_key_and_each_save_sets_updated_at(client):
    clock.freeze(clock.now())
    first = saved_book(client, settings={"platform": "google"})
    assert first["book"]["settings"] == {**DEFAULTS, "platform": "google"}
    assert first["updated_at"] == iso(clock.now())
    clock.advance(90)
    second = saved_book(client, settings={"daily_budget_minor": 2500, "currency": "eur"})
    assert second["book"]["settings"] == {**DEFAULTS, "platform": "google", "daily_budget_minor": 2500,
                                          "currency": "EUR"}
    assert second["updated_at"] == iso(clock.now()) != first["updated_at"]
    read = book_of(client)
    assert read["book"] == second["book"] and read["updated_at"] == second["updated_at"]


def test_new_campaigns_take_next_and_changes_merge_by_id(client):
    answer = saved_book(client, settings={"objective": "traffic"},
                        campaigns=[campaign("Meta test"), campaign("Search", platform="google", status="paused",
                                                                   audience="retargeting")])
    assert answer["book"]["next"] == 3
    assert answer["book"]["campaigns"] == [
        {"id": 1, "name": "Meta test", "platform": "meta", "status": "draft", "daily_budget_minor": 1500,
         "objective": "traffic", "audience": "broad", "delivery": None},
        {"id": 2, "name": "Search", "platform": "google", "status": "paused", "daily_budget_minor": 1500,
         "objective": "traffic", "audience": "retargeting", "delivery": None}]
    # A save naming one campaign changes only the fields it gives, and leaves the others alone.
    answer = saved_book(client, campaigns=[{"id": 1, "status": "paused", "name": "  Meta   test two "}])
    assert answer["book"]["campaigns"][0] == {**answer["book"]["campaigns"][0], "status": "paused",
                                              "name": "Meta test two", "platform": "meta"}
    assert ids_of(answer) == [1, 2] and answer["book"]["next"] == 3


def test_a_removed_campaigns_id_is_never_handed_out_again(client):
    saved_book(client, campaigns=[campaign("One"), campaign("Two")])
    answer = saved_book(client, campaigns=[{"id": 2, "delete": True}])
    assert ids_of(answer) == [1] and answer["book"]["next"] == 3
    answer = saved_book(client, campaigns=[campaign("Three")])
    assert ids_of(answer) == [1, 3] and answer["book"]["next"] == 4
    refusal(client.post("/api/ads-manager", json={"campaigns": [{"id": 2, "status": "active"}]}), 400,
            "unknown_campaign")
    # An id past `next` names no campaign (`next` itself is a new one: tests/test_contract_shapes.py).
    refusal(client.post("/api/ads-manager", json={"campaigns": [campaign("Mine", id=5)]}), 400, "unknown_campaign")
    assert book_of(client)["book"]["next"] == 4


def test_saves_at_once_never_hand_out_one_id_twice(founder, app):
    # Each racer is the same founder's browser on a connection of its own (PostgreSQL: the
    # pool's); on SQLite the writers queue on its one write lock, which is the same promise.
    client = founder()
    book_of(client)
    cookie = cookie_of(client)
    racers = 20

    def add(i):
        browser = app.test_client()
        browser.set_cookie("ff_session", cookie)
        response = browser.post("/api/ads-manager", json={"campaigns": [campaign(f"Racer {i}")],
                                                           "settings": {"daily_budget_minor": 1000 + i}})
        return response.status_code, [c["id"] for c in response.get_json()["book"]["campaigns"]]

    results = in_threads(racers, add)
    assert {status for status, _ids in results} == {200}
    answer = book_of(client)
    assert ids_of(answer) == list(range(1, racers + 1)) and answer["book"]["next"] == racers + 1
    assert sorted({c["name"] for c in answer["book"]["campaigns"]}) == sorted(f"Racer {i}" for i in range(racers))
    # Each save saw every save before it: the answers hold 1, 2, ... racers campaigns.
    assert sorted(len(ids) for _status, ids in results) == list(range(1, racers + 1))
    assert CampaignBook.select().count() == 1


def test_the_book_is_bounded(client):
    saved_book(client, campaigns=[campaign(f"C{i}") for i in range(50)])
    body = refusal(client.post("/api/ads-manager", json={"campaigns": [campaign("One more")]}), 409,
                   "campaign_book_full")
    assert body["max_campaigns"] == 50
    # Changing or removing what is there still works, and frees a place.
    saved_book(client, campaigns=[{"id": 1, "delete": True}, {"id": 2, "status": "paused"}])
    assert ids_of(saved_book(client, campaigns=[campaign("One more")]))[-1] == 51
    refusal(client.post("/api/ads-manager", json={"campaigns": [campaign(f"X{i}") for i in range(51)]}), 409,
            "campaign_book_full")


BAD_SETTINGS = [
    ({"platform": "tiktok"}, "invalid_platform"),
    ({"platform": 7}, "invalid_setting"),
    ({"objective": "fame"}, "invalid_setting"),
    ({"audience": "everyone"}, "invalid_setting"),
    ({"currency": "XYZ"}, "invalid_setting"),
    ({"currency": "US"}, "invalid_setting"),
    ({"daily_budget_minor": 0}, "invalid_setting"),
    ({"daily_budget_minor": 99}, "invalid_setting"),
    ({"daily_budget_minor": 1_000_001}, "invalid_setting"),
    ({"daily_budget_minor": "1000"}, "invalid_setting"),
    ({"daily_budget_minor": 10.5}, "invalid_setting"),
    ({"daily_budget_minor": True}, "invalid_setting"),
    ({"currency": None}, "invalid_setting"),
    ("meta", "invalid_setting"),
]


@pytest.mark.parametrize("settings, reason", BAD_SETTINGS)
def test_a_bad_setting_is_400_and_nothing_is_saved(client, settings, reason):
    before = saved_book(client, campaigns=[campaign()])
    refusal(client.post("/api/ads-manager", json={"settings": settings, "campaigns": [campaign("Extra")]}), 400,
            reason)
    assert book_of(client) == before


BAD_CAMPAIGNS = [
    (campaign(name=""), "invalid_campaign"),
    (campaign(name="   "), "invalid_campaign"),
    (campaign(name="x" * 81), "invalid_campaign"),
    (campaign(name="bad\u0007bell"), "invalid_campaign"),
    (campaign(name="\u202egpj.exe"), "invalid_campaign"),
    (campaign(name=5), "invalid_campaign"),
    (campaign(platform="tiktok"), "invalid_platform"),
    (campaign(status="running"), "invalid_campaign"),
    (campaign(daily_budget_minor=0), "invalid_campaign"),
    (campaign(daily_budget_minor=-100), "invalid_campaign"),
    (campaign(daily_budget_minor=2_000_000), "invalid_campaign"),
    (campaign(daily_budget_minor="1500"), "invalid_campaign"),
    (campaign(daily_budget_minor=15.0), "invalid_campaign"),
    (campaign(objective="fame"), "invalid_campaign"),
    (campaign(audience="everyone"), "invalid_campaign"),
    ({"name": "No platform", "status": "draft", "daily_budget_minor": 1500}, "invalid_campaign"),
    ({"delete": True}, "invalid_campaign"),
    (campaign(id=0), "invalid_campaign"),
    (campaign(id=True), "invalid_campaign"),
    ("a campaign", "invalid_campaign"),
]


@pytest.mark.parametrize("entry, reason", BAD_CAMPAIGNS)
def test_a_bad_campaign_is_400_and_nothing_is_saved(client, entry, reason):
    before = saved_book(client, campaigns=[campaign()])
    refusal(client.post("/api/ads-manager", json={"settings": {"platform": "google"},
                                                  "campaigns": [campaign("Fine"), entry]}), 400, reason)
    assert book_of(client) == before


def test_a_campaign_named_twice_in_one_save_is_refused(client):
    saved_book(client, campaigns=[campaign()])
    refusal(client.post("/api/ads-manager", json={"campaigns": [{"id": 1, "status": "active"},
                                                                {"id": 1, "delete": True}]}), 400, "invalid_campaign")
    assert book_of(client)["book"]["campaigns"][0]["status"] == "draft"


def test_a_first_save_that_is_refused_leaves_no_book(client):
    refusal(client.post("/api/ads-manager", json={"campaigns": [campaign(platform="tiktok")]}), 400,
            "invalid_platform")
    assert CampaignBook.select().count() == 0 and "updated_at" not in book_of(client)


def test_another_founder_never_sees_or_changes_your_book(founder):
    mine, theirs = founder(), founder()
    saved_book(mine, settings={"platform": "google"}, campaigns=[campaign("Secret launch")])
    answer = book_of(theirs)
    assert answer["book"] == {"campaigns": [], "next": 1, "settings": DEFAULTS} and "updated_at" not in answer
    refusal(theirs.post("/api/ads-manager", json={"campaigns": [{"id": 1, "delete": True}]}), 400,
            "unknown_campaign")
    assert ids_of(saved_book(theirs, campaigns=[campaign("Their own")])) == [1]
    assert [c["name"] for c in book_of(mine)["book"]["campaigns"]] == ["Secret launch"]


def test_a_sessions_book_becomes_its_accounts_on_sign_in(founder, run_jobs):
    browser = founder()
    saved_book(browser, settings={"audience": "lookalike"}, campaigns=[campaign("Before signing in")])
    sign_in_here(browser, run_jobs, "booker@example.com")
    answer = book_of(browser)
    assert [c["name"] for c in answer["book"]["campaigns"]] == ["Before signing in"]
    assert answer["book"]["settings"]["audience"] == "lookalike"
    elsewhere = founder()
    sign_in_here(elsewhere, run_jobs, "booker@example.com")
    assert book_of(elsewhere)["book"] == answer["book"]
    assert book_of(founder())["book"]["campaigns"] == []


def test_a_session_joining_an_account_with_a_book_adds_its_campaigns_under_new_ids(founder, run_jobs):
    owner = founder()
    sign_in_here(owner, run_jobs, "merger@example.com")
    saved_book(owner, settings={"platform": "google"}, campaigns=[campaign("Account one"), campaign("Account two")])
    guest = founder()
    saved_book(guest, settings={"platform": "meta"}, campaigns=[campaign("Guest one")])
    sign_in_here(guest, run_jobs, "merger@example.com")
    answer = book_of(guest)
    assert [(c["id"], c["name"]) for c in answer["book"]["campaigns"]] == [
        (1, "Account one"), (2, "Account two"), (3, "Guest one")]
    assert answer["book"]["next"] == 4 and answer["book"]["settings"]["platform"] == "google"
    assert CampaignBook.select().count() == 1


def test_an_old_anonymous_session_with_a_book_is_never_pruned(client):
    saved_book(client, campaigns=[campaign()])
    clock.advance(days=SETTINGS.anon_session_days + 1)
    assert prune_anonymous_sessions(older_than_days=SETTINGS.anon_session_days) == 0
    assert ids_of(book_of(client)) == [1]
