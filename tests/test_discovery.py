"""Discovery (spec 2.4-2.6, 3, 4.3, 7.2, 8.6; decisions.md): find, feed, select, pass and
claim, the allowance and share, the evidence gate, adoption, and every discovery state row
and refusal reached by a client."""
import json
from datetime import timedelta

import pytest

from config import ROOT
from models.account import Milestone, Referral
from models.clock import clock
from models.discovery import Claim, Hold, Seen
from services import evidence_gate
from services.catalog import load_catalog_file
from tests.factories import NOW, TODAY, catalog, claim, find, item, load, pass_on, refusal, select, session_of
from tests.mailbox import sign_in_here

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

DEMO = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
CARD_FIELDS = {"product_id", "name", "description", "category", "image", "price", "cost", "margin", "margin_pct",
               "currency", "evidence_count", "evidence_latest", "trends", "rank", "yours"}


# --- The evidence gate -----------------------------------------------------------------

def test_demo_catalog_gate_serves_most_products_for_over_a_year_and_drops_the_weak_ones():
    load_catalog_file(DEMO)
    items = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    evidence_gate.refresh([i["product_id"] for i in items])
    gate = evidence_gate.current_gate()

    def servable_on(day):
        from models.discovery import ProductGate

        return {pid for (pid,) in ProductGate.select(ProductGate.product)
                .where(evidence_gate.servable(gate, day)).tuples()}

    today = servable_on(TODAY)
    assert len(today) >= 50
    assert servable_on(TODAY + timedelta(days=366)) == today
    thin = {i["product_id"] for i in items if (i["price"] - i["cost"]) / i["price"] < 0.20}
    single = {i["product_id"] for i in items if len(i["evidence"]) == 1}
    old = {i["product_id"] for i in items if max(e["date"] for e in i["evidence"]) < "2025-06-01"}
    assert (len(thin), len(single), len(old)) == (8, 4, 6)
    assert not (thin | single | old) & today
    assert len(today) == len(items) - len(thin | single | old)


def test_gate_assessment_matches_the_served_set():
    gate = evidence_gate.Gate(min_rows=2, max_age_days=540, min_margin_pct=20)
    assess = evidence_gate.assess
    recent = [TODAY - timedelta(days=10), TODAY - timedelta(days=100)]
    assert assess(price=30, cost=10, evidence_dates=recent, on=TODAY, gate=gate).clears
    assert assess(price=30, cost=25, evidence_dates=recent, on=TODAY, gate=gate).why_not == "thin_margin"
    assert assess(price=30, cost=10, evidence_dates=recent[:1], on=TODAY, gate=gate).why_not == "too_few_rows"
    old = [TODAY - timedelta(days=10), TODAY - timedelta(days=600)]
    assert assess(price=30, cost=10, evidence_dates=old, on=TODAY, gate=gate).why_not == "old_evidence"
    assert evidence_gate.margin_pct(34.99, 11.20) == evidence_gate.margin_pct("34.99", "11.2")


def test_gate_thresholds_are_settings():
    from config import load_settings

    settings = load_settings({"SECRET_KEY": "x" * 32, "EVIDENCE_MIN_ROWS": "3", "EVIDENCE_MAX_AGE_DAYS": "90",
                              "MIN_MARGIN_PCT": "35"})
    assert evidence_gate.current_gate(settings) == evidence_gate.Gate(3, 90, 35)
    from config import SettingsError

    with pytest.raises(SettingsError, match="^EVIDENCE_MIN_ROWS"):
        load_settings({"SECRET_KEY": "x" * 32, "EVIDENCE_MIN_ROWS": "0"})
    with pytest.raises(SettingsError, match="^SUPPLIER_FEED"):
        load_settings({"SECRET_KEY": "x" * 32, "SUPPLIER_FEED": "ftp://feeds.example/x.jsonl"})
    with pytest.raises(SettingsError, match="^SUPPLIER_FEED"):
        load_settings({"SECRET_KEY": "x" * 32, "SUPPLIER_FEED": "/no/such/feed.jsonl"})


# --- Find -------------------------------------------------------------------------------------

def test_find_holds_the_best_candidate_and_serves_a_card_with_the_decided_fields(client):
    load(item("mid", rank=50), item("top", rank=90, price=34.99, cost=11.2), item("low", rank=10))
    response = find(client)
    assert response.status_code == 200
    card = response.get_json()
    assert set(card) == CARD_FIELDS | {"held_until"}
    assert card["product_id"] == "top" and card["yours"] is True
    assert card["held_until"] == "2026-11-22T12:30:00Z"
    assert (card["price"], card["cost"], card["margin"], card["margin_pct"]) == (34.99, 11.2, 23.79, 67.99)
    assert card["image"] == "/static/demo/top-1.svg" and card["currency"] == "USD"
    assert (card["evidence_count"], card["evidence_latest"]) == (3, (TODAY - timedelta(days=10)).isoformat())
    assert card["rank"] == 90 and card["category"] == "Home & Kitchen"
    assert Hold.get(Hold.product == "top").expires_at == NOW + timedelta(minutes=30)


def test_a_card_carries_its_dated_evidence_as_trends_per_metric_and_source(client):
    line = item("top", rank=90)
    line["evidence"] += [{"date": (TODAY - timedelta(days=d)).isoformat(), "source": "amazon", "metric": "bsr_rank",
                          "value": v, "note": ""} for d, v in ((20, 2400), (5, 1800))]
    load(line, item("other", rank=10))
    cards = client.get("/api/feed").get_json()
    assert [c["product_id"] for c in cards] == ["top", "other"]
    interest, rank = cards[0]["trends"]
    assert (interest["metric"], interest["source"], interest["lower_is_better"]) == ("interest_index", "google_trends", False)
    assert [p["date"] for p in interest["points"]] == [(TODAY - timedelta(days=d)).isoformat() for d in (90, 40, 10)]
    assert (rank["label"], rank["lower_is_better"], [p["value"] for p in rank["points"]]) == (
        "best-seller rank", True, [2400, 1800])
    assert [t["metric"] for t in cards[1]["trends"]] == ["interest_index"]
    assert [t["metric"] for t in find(client).get_json()["trends"]] == ["interest_index", "bsr_rank"]


def test_find_again_serves_the_same_hold_without_extending_it(client):
    catalog(3)
    first = find(client).get_json()
    clock.advance(600)
    again = find(client).get_json()
    assert again["product_id"] == first["product_id"] and again["held_until"] == first["held_until"]


def test_find_and_feed_advance_find_served_and_shown_field(client, founder):
    catalog(3)
    find(client)
    names = {m.name for m in Milestone.select().where(Milestone.session == session_of(client).id)}
    assert names == {"find_served", "shown_field"}
    other = founder()
    other.get("/api/feed")
    names = {m.name for m in Milestone.select().where(Milestone.session == session_of(other).id)}
    assert names == {"find_served", "shown_field"}


def test_a_signed_in_founders_find_advances_the_accounts_milestones(client, run_jobs):
    catalog(3)
    sign_in_here(client, run_jobs, "milestones@example.com")
    find(client)
    account_id = session_of(client).account_id
    assert account_id is not None
    names = {m.name for m in Milestone.select().where(Milestone.account == account_id)}
    assert {"find_served", "shown_field"} <= names


def test_find_and_feed_are_refused_from_another_site(client):
    catalog(2)
    refusal(client.get("/api/find", headers={"Sec-Fetch-Site": "cross-site"}), 403, "cross_site_request")
    refusal(client.get("/api/feed", headers={"Origin": "https://evil.example"}), 403, "cross_site_request")
    assert Hold.select().count() == 0


def test_an_expired_hold_is_servable_to_another_founder(client, founder):
    load(item("only"))
    assert find(client).get_json()["product_id"] == "only"
    other = founder()
    refusal(find(other), 200, "all_held")
    clock.advance(31 * 60)
    card = find(other).get_json()
    assert card["product_id"] == "only" and card["yours"] is True
    assert Hold.select().count() == 1 and Hold.get().session_id == session_of(other).id


def test_find_drops_a_held_product_that_left_the_served_set_and_serves_another(client):
    load(item("a", rank=90), item("b", rank=50))
    assert find(client).get_json()["product_id"] == "a"
    load(item("a", rank=90, days=(10,)))  # a reload leaves it with one evidence row
    assert find(client).get_json()["product_id"] == "b"
    assert [h.product_id for h in Hold.select()] == ["b"]


# --- Feed -------------------------------------------------------------------------------------

def test_feed_is_your_product_then_eleven_free_cards_by_rank_then_product_id(client):
    load(*[item(f"p{n:02d}", rank=100 - n) for n in range(10)], item("tie-b", rank=50), item("tie-a", rank=50),
         item("tie-c", rank=50), item("last", rank=1))
    cards = client.get("/api/feed").get_json()
    assert len(cards) == 12
    assert cards[0]["product_id"] == "p00" and cards[0]["yours"] is True and "held_until" in cards[0]
    assert [c["product_id"] for c in cards[1:]] == [f"p{n:02d}" for n in range(1, 10)] + ["tie-a", "tie-b"]
    assert all(c["yours"] is False and set(c) == CARD_FIELDS for c in cards[1:])


def test_every_card_rendered_is_recorded_as_seen_and_any_of_them_can_be_selected(client, founder):
    catalog(14)
    cards = client.get("/api/feed").get_json()
    shown = {c["product_id"] for c in cards}
    assert {s.product_id for s in Seen.select().where(Seen.session == session_of(client).id)} == shown
    client.get("/api/feed")
    assert Seen.select().count() == 12  # one row per session and product
    response = select(client, cards[7]["product_id"])
    assert response.status_code == 200
    assert response.get_json() == {"status": "selected", "held": cards[7]["product_id"],
                                   "product_id": cards[7]["product_id"], "held_minutes": 30,
                                   "held_until": "2026-11-22T12:30:00Z"}
    # The previous hold is released: another founder is now served it.
    assert find(founder()).get_json()["product_id"] == cards[0]["product_id"]


def test_two_founders_feeds_never_overlap_in_held_or_claimed_products(founder):
    catalog(40)
    founders = [founder() for _ in range(4)]
    owns = {}

    def checked_feed(client):
        cards = client.get("/api/feed").get_json()
        mine = session_of(client).id
        ids = [card["product_id"] for card in cards]
        held_by_others = {h.product_id for h in Hold.select() if h.session_id != mine and h.expires_at > NOW}
        claimed = {c.product_id for c in Claim.select()}
        assert len(ids) == len(set(ids))
        assert not set(ids) & held_by_others, "a feed shows a product another founder holds"
        assert not set(ids) & claimed, "a feed shows a claimed product"
        return cards

    for round_no in range(3):
        for n, client in enumerate(founders):
            cards = checked_feed(client)
            owns[n] = cards[0]["product_id"] if cards else None
            if round_no == 1 and n % 2 == 0:
                assert claim(client).get_json()["status"] == "claimed"
    firsts = [pid for pid in owns.values() if pid]
    assert len(firsts) == len(set(firsts)) == 2  # the two claimers are at their allowance: empty feeds


def test_feed_is_empty_at_the_allowance_and_find_serves_the_claim(client):
    catalog(5)
    card = find(client).get_json()
    claimed = claim(client).get_json()
    assert claimed == {"status": "claimed", "product_id": card["product_id"], "allowance": 1, "claims_made": 1,
                       "finds_remaining": 0}
    assert client.get("/api/feed").get_json() == []
    again = find(client).get_json()
    assert again["product_id"] == card["product_id"] and again["claimed"] is True and "held_until" not in again


def test_feed_leaves_out_products_you_passed_on(client):
    catalog(4)
    first = find(client).get_json()["product_id"]
    pass_on(client)
    ids = [c["product_id"] for c in client.get("/api/feed").get_json()]
    assert first not in ids and len(ids) == 3


# --- Select -------------------------------------------------------------------------------------

def test_select_without_a_body_or_product_id_is_400(client):
    refusal(client.post("/api/select", json={}), 400, "no_product_id")
    refusal(client.post("/api/select", data="{", content_type="application/json"), 400, "invalid_json")


def test_select_of_a_product_not_in_the_catalog_is_404(client):
    catalog(1)
    refusal(select(client, "nope"), 404, "unknown_product")


def test_select_of_a_product_not_shown_is_409_not_shown(client):
    catalog(20)
    client.get("/api/feed")
    refusal(select(client, "p15"), 409, "not_shown")
    assert Hold.get().product_id == "p00"


def test_select_of_product_held_by_another_founder_is_409(client, founder):
    load(item("x"))
    find(client)
    clock.advance(31 * 60)
    other = founder()
    assert find(other).get_json()["product_id"] == "x"
    refusal(select(client, "x"), 409, "held_by_another_founder")


def test_select_of_product_claimed_by_another_founder_is_409(client, founder):
    load(item("x"), item("y", rank=1))
    find(client)
    clock.advance(31 * 60)
    other = founder()
    find(other)
    claim(other)
    refusal(select(client, "x"), 409, "claimed_by_another_founder")
    refusal(claim(client, "x"), 409, "claimed_by_another_founder")


def test_select_of_a_product_you_passed_on_is_409_passed_by_you(client):
    catalog(3)
    first = find(client).get_json()["product_id"]
    pass_on(client)
    refusal(select(client, first), 409, "passed_by_you")
    refusal(claim(client, first), 409, "passed_by_you")


def test_select_and_claim_of_a_product_that_no_longer_clears_the_gate(client):
    load(item("a", rank=90), item("b", rank=50))
    client.get("/api/feed")
    load(item("b", rank=50, price=30, cost=29))  # its margin is gone
    refusal(select(client, "b"), 409, "not_presearch_qualified")
    load(item("a", rank=90, days=(800, 900)))  # its evidence is old now
    body = refusal(claim(client), 200, "not_presearch_qualified")
    assert body["product_id"] == "a"
    assert Hold.select().count() == 0 and Claim.select().count() == 0


def test_selecting_your_own_claim_answers_selected_with_claimed(client):
    catalog(3)
    pid = find(client).get_json()["product_id"]
    claim(client)
    body = select(client, pid).get_json()
    assert body["status"] == "selected" and body["claimed"] is True and body["product_id"] == pid


# --- Pass and claim ------------------------------------------------------------------------------

def test_pass_needs_a_valid_action(client):
    catalog(2)
    find(client)
    refusal(client.post("/api/pass", json={}), 400, "invalid_action")
    refusal(client.post("/api/pass", json={"action": "keep"}), 400, "invalid_action")
    refusal(client.post("/api/pass", data="[]", content_type="application/json"), 400, "invalid_json")
    assert Claim.select().count() == 0


def test_pass_is_final_and_shows_the_next_card_held_for_you(client):
    catalog(3)
    first = find(client).get_json()["product_id"]
    body = pass_on(client).get_json()
    assert body["status"] == "passed" and body["passed"] == first
    following = body["next"]
    assert following["product_id"] == "p01" and following["yours"] is True and "held_until" in following
    assert Hold.get().product_id == "p01"
    assert find(client).get_json()["product_id"] == "p01"


def test_pass_or_claim_with_no_product_is_no_product(client):
    catalog(2)
    refusal(claim(client), 200, "no_product")
    refusal(pass_on(client), 200, "no_product")


def test_pass_or_claim_of_an_unknown_or_unshown_product_is_refused(client):
    catalog(20)
    client.get("/api/feed")
    refusal(claim(client, "ghost"), 400, "unknown_product")
    refusal(claim(client, "p17"), 409, "not_shown")
    refusal(pass_on(client, "p17"), 409, "not_shown")


def test_claiming_is_exclusive_and_passing_your_claim_is_refused(client, founder):
    load(item("x"), item("y", rank=1))
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    refusal(pass_on(client, "x"), 409, "claimed_by_you")
    other = founder()
    cards = other.get("/api/feed").get_json()
    assert [c["product_id"] for c in cards] == ["y"]


def test_claim_at_the_allowance_is_claim_limit_reached(client):
    catalog(14)
    cards = client.get("/api/feed").get_json()
    claim(client)
    body = refusal(claim(client, cards[3]["product_id"]), 200, "claim_limit_reached")
    assert (body["allowance"], body["claims_made"], body["finds_remaining"]) == (1, 1, 0)
    refusal(select(client, cards[4]["product_id"]), 200, "claim_limit_reached")


def test_claiming_again_what_you_claimed_counts_once(client):
    catalog(2)
    pid = find(client).get_json()["product_id"]
    first = claim(client, pid).get_json()
    again = claim(client, pid).get_json()
    assert first == again == {"status": "claimed", "product_id": pid, "allowance": 1, "claims_made": 1,
                              "finds_remaining": 0}


def test_pass_at_the_allowance_says_claim_limit_reached(client):
    catalog(14)
    cards = client.get("/api/feed").get_json()
    claim(client, cards[2]["product_id"])
    body = pass_on(client).get_json()  # the hold on cards[0] is still the session's
    assert body["passed"] == cards[0]["product_id"] and body["next"] is None
    assert body["reason"] == "claim_limit_reached" and body["explanation"]


# --- Exhaustion ----------------------------------------------------------------------------------

def test_all_held_when_every_product_is_held_by_other_founders(founder):
    catalog(2)
    find(founder())
    find(founder())
    late = founder()
    refusal(find(late), 200, "all_held")
    refusal(late.get("/api/feed"), 200, "all_held")


def test_passed_out_when_you_passed_on_everything_available(client):
    catalog(2)
    find(client)
    assert pass_on(client).get_json()["next"]["product_id"] == "p01"
    body = pass_on(client).get_json()
    assert body["next"] is None and body["reason"] == "passed_out"
    refusal(find(client), 200, "passed_out")


def test_catalog_exhausted_when_every_product_is_claimed_or_there_are_none(client, founder):
    refusal(find(client), 200, "catalog_exhausted")
    catalog(1)
    find(client)
    claim(client)
    refusal(find(founder()), 200, "catalog_exhausted")
    refusal(founder().get("/api/feed"), 200, "catalog_exhausted")


def test_not_servable_when_nothing_unclaimed_clears_the_gate(client):
    load(item("thin", cost=29), item("single", days=(5,)), item("old", days=(700, 800)))
    refusal(find(client), 200, "not_servable")


def test_a_refused_find_is_not_charged(client, founder, run_jobs):
    sign_in_here(client, run_jobs, "meter@example.com")
    catalog(1)
    find(founder())
    refusal(find(client), 200, "all_held")
    usage = client.get("/api/usage").get_json()
    used = {f["feature"]: f["used_5h"] for f in usage["features"]}
    assert used["find"] == 0


# --- Metering ------------------------------------------------------------------------------------

def test_find_and_feed_spend_the_find_bucket_and_429_when_it_is_used_up(client, run_jobs):
    catalog(3)
    sign_in_here(client, run_jobs, "finder@example.com")
    # Free tier: 50 credits per five hours at 5 a find.
    for n in range(10):
        response = find(client) if n % 2 else client.get("/api/feed")
        assert response.status_code == 200, n
    body = refusal(find(client), 429, "usage_limit_reached")
    assert body["used"] == body["limit"] == 50
    refusal(client.get("/api/feed"), 429, "usage_limit_reached")


def test_anonymous_finds_are_not_metered(client):
    catalog(2)
    for _ in range(15):
        assert find(client).status_code == 200


# --- Share and the allowance -------------------------------------------------------------------------

def test_share_records_lifts_the_allowance_and_returns_the_coded_link(client):
    catalog(14)
    find(client)
    claim(client)
    assert client.get("/api/feed").get_json() == []
    response = client.post("/api/share")
    body = response.get_json()
    assert response.status_code == 200
    assert set(body) == {"status", "shared", "url", "allowance", "claims_made", "finds_remaining", "explanation",
                         "observed"}
    assert (body["status"], body["shared"], body["allowance"], body["claims_made"], body["finds_remaining"]) == \
        ("share_recorded", True, 2, 1, 1)
    assert body["url"].startswith("http://localhost/r/") and len(body["url"].rsplit("/", 1)[1]) >= 8
    assert "not" in body["observed"]
    # The first share unlocks the second find.
    cards = client.get("/api/feed").get_json()
    assert len(cards) == 12 and cards[0]["yours"] is True
    assert claim(client).get_json()["claims_made"] == 2


def test_claims_says_what_a_claim_spends_and_keeps_the_claims_in_view_after_a_share(client, founder):
    catalog(14)
    before = client.get("/api/claims").get_json()
    assert before == {"status": "ok", "allowance": 1, "claims_made": 0, "finds_remaining": 1, "max_allowance": 5,
                      "next_claim": "You can claim 1 more product now.", "claimed": []}
    first = find(client).get_json()["product_id"]
    claim(client)
    client.post("/api/share")
    # After the share the feed holds a new card, not the claim: the claims still name it.
    assert first not in [c["product_id"] for c in client.get("/api/feed").get_json()]
    second = find(client).get_json()["product_id"]
    claim(client)
    body = client.get("/api/claims").get_json()
    assert (body["allowance"], body["claims_made"], body["finds_remaining"]) == (2, 2, 0)
    assert [c["product_id"] for c in body["claimed"]] == [second, first]
    assert set(body["claimed"][0]) == CARD_FIELDS | {"claimed"} and body["claimed"][0]["claimed"] is True
    # Another founder's claims are not theirs.
    assert founder().get("/api/claims").get_json()["claimed"] == []


def test_each_share_lifts_the_allowance_by_one_up_to_five(client):
    allowances = [client.post("/api/share").get_json()["allowance"] for _ in range(6)]
    assert allowances == [2, 3, 4, 5, 5, 5]
    same = {client.post("/api/share").get_json()["url"] for _ in range(2)}
    assert len(same) == 1


def test_the_shared_links_code_is_credited_with_a_friends_sign_up(client, founder, run_jobs, jobs_drained):
    from tests.mailbox import last_link, path_of

    url = client.post("/api/share").get_json()["url"]
    code = url.rsplit("/", 1)[1]
    friend = founder()
    friend.get(f"/r/{code}")
    friend.post("/api/account", json={"email": "friend@example.com"})
    run_jobs()
    friend.get(path_of(last_link("friend@example.com")))
    assert Referral.select().where(Referral.code == code).count() == 1


# --- One resolver, accounts and adoption ----------------------------------------------------------

def test_resolver_is_claimed_first_then_live_hold(client):
    from services.discovery import resolve

    catalog(14)
    client.get("/api/health")  # a visit issues the cookie
    assert resolve(session_of(client)) is None
    cards = client.get("/api/feed").get_json()
    resolved = resolve(session_of(client))
    assert (resolved.product_id, resolved.state) == (cards[0]["product_id"], "held")
    client.post("/api/share")
    claim(client, cards[5]["product_id"])
    resolved = resolve(session_of(client))
    assert (resolved.product_id, resolved.state, resolved.hold_product_id) == \
        (cards[5]["product_id"], "claimed", cards[0]["product_id"])
    clock.advance(31 * 60)
    assert resolve(session_of(client)).hold_product_id is None


def test_an_anonymous_claim_becomes_the_accounts_on_sign_in_and_every_signed_in_session_sees_it(client, founder,
                                                                                                   run_jobs):
    catalog(5)
    pid = find(client).get_json()["product_id"]
    claim(client)
    saved = client.post("/api/account", json={"email": "owner@example.com"}).get_json()
    assert saved["adopted_claims"] == [] and Claim.get().account_id is None  # an unproven address adopts nothing
    sign_in_here(client, run_jobs, "owner@example.com")
    assert Claim.get().account_id is not None
    elsewhere = founder()
    sign_in_here(elsewhere, run_jobs, "owner@example.com")
    card = find(elsewhere).get_json()
    assert card["product_id"] == pid and card["claimed"] is True
    assert elsewhere.get("/api/feed").get_json() == []
    # Signing out leaves the claim with the account; the cookie is anonymous again.
    client.post("/api/logout")
    assert find(client).get_json()["product_id"] != pid
    assert find(elsewhere).get_json()["product_id"] == pid


def test_adoption_merges_shares_into_the_accounts_allowance(client, founder, run_jobs):
    catalog(14)
    client.post("/api/share")
    first = founder()
    sign_in_here(first, run_jobs, "merge@example.com")
    first.post("/api/share")
    sign_in_here(client, run_jobs, "merge@example.com")
    assert client.post("/api/share").get_json()["allowance"] == 4  # 1 + three shares


def test_seen_products_follow_the_session_into_its_account(client, founder, run_jobs):
    catalog(14)
    cards = client.get("/api/feed").get_json()
    sign_in_here(client, run_jobs, "seen@example.com")
    other = founder()
    sign_in_here(other, run_jobs, "seen@example.com")
    assert select(other, cards[6]["product_id"]).get_json()["status"] == "selected"


