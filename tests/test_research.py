"""Research and verdict (issue 9): the research job, the offer arithmetic on hand-checked
cases, the analyser, each verdict rule on its boundaries, the dashboard's milestone and
referral, and launch facts; through the HTTP client where a founder would see them."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from config import Settings
from models.catalog import Product
from models.job import Job
from models.research import Research
from services import milestones, referrals
from services.research import analysis as analyser
from services.research import verdict
from services.research.offer import CatalogRecord, OfferSettings, Row, compute_offer
from services.research.records import RESEARCH
from tests.factories import TODAY, catalog, claim, find, item, load, refusal, session_of
from tests.mailbox import last_link, path_of

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

DEFAULTS = OfferSettings.from_settings(Settings())
D = Decimal


def record(price, cost, weight=None, pid="p"):
    return CatalogRecord(pid, D(str(price)), D(str(cost)), "USD", D(str(weight)) if weight else None)


def ago(days: int) -> date:
    return TODAY - timedelta(days=days)


def evidence(days, metric="interest_index", value=50, source="google_trends"):
    return {"date": ago(days).isoformat(), "source": source, "metric": metric, "value": value, "note": ""}


# --- The offer arithmetic, by hand -----------------------------------------------------------

def test_offer_of_a_record_without_weight_or_useful_quote():
    # 34.99 x 2.9% = 1.01471 -> 1.01, + 0.30 = 1.31; 34.99 - 11.20 - 4.50 - 1.31 = 17.98;
    # 17.98 / 34.99 = 51.386% -> 51.39; 34.99 / 17.98 = 1.946 -> 1.95;
    # (11.20 + 4.50 + 0.30) / (1 - 0.029 - 0.30) = 16.00 / 0.671 = 23.845 -> 23.85.
    rows = [Row(ago(15), "supplier_quote", "unit_price_quote", 7.85)]
    offer = compute_offer(record(34.99, 11.20), rows, DEFAULTS, TODAY)
    assert {k: offer[k] for k in ("price", "cost", "shipping", "fees", "unit_margin", "margin_pct", "break_even_cpa",
                                  "break_even_roas", "price_for_target_margin")} == {
        "price": 34.99, "cost": 11.20, "shipping": 4.50, "fees": 1.31, "unit_margin": 17.98, "margin_pct": 51.39,
        "break_even_cpa": 17.98, "break_even_roas": 1.95, "price_for_target_margin": 23.85}
    sources = {i["name"]: i["source"] for i in offer["inputs"]}
    assert sources["market_price"] == {"type": "catalog", "field": "price"}
    assert sources["supplier_quote"] == {"type": "evidence", "date": ago(15).isoformat(), "source": "supplier_quote",
                                         "metric": "unit_price_quote"}
    assert sources["payment_fee_pct"] == {"type": "setting", "name": "OFFER_FEE_PCT"}
    cost = next(f for f in offer["figures"] if f["name"] == "cost")
    assert cost["inputs"] == ["catalog_cost", "supplier_quote"] and "not above" in cost["formula"]


def test_offer_with_weight_and_a_fresh_higher_quote():
    # cost: the quote 19.00 (above 17.60); shipping 4.50 + 1.50 x 3.2 kg = 9.30;
    # fees 42 x 2.9% = 1.218 -> 1.22, + 0.30 = 1.52; margin 42 - 19 - 9.30 - 1.52 = 12.18;
    # 12.18 / 42 = 29.00%; ROAS 42 / 12.18 = 3.448 -> 3.45; target (19 + 9.30 + 0.30) / 0.671 = 42.62.
    rows = [Row(ago(200), "supplier_quote", "unit_price_quote", 25.0),  # stale: not used
            Row(ago(30), "supplier_quote", "unit_price_quote", 19.0)]
    offer = compute_offer(record(42.00, 17.60, weight=3200), rows, DEFAULTS, TODAY)
    assert (offer["cost"], offer["shipping"], offer["fees"], offer["unit_margin"], offer["margin_pct"],
            offer["break_even_roas"], offer["price_for_target_margin"]) == (19.0, 9.30, 1.52, 12.18, 29.0, 3.45, 42.62)
    used = {i["name"]: i for i in offer["inputs"]}
    assert used["supplier_quote"]["value"] == 19.0 and used["weight_grams"]["value"] == 3200
    assert used["shipping_per_kg"]["source"] == {"type": "setting", "name": "OFFER_SHIPPING_PER_KG"}


def test_offer_that_loses_money_has_no_break_even_roas():
    # 10 - 8 - 4.50 - (0.29 + 0.30) = -3.09; -30.90%.
    offer = compute_offer(record(10, 8), [], DEFAULTS, TODAY)
    assert (offer["unit_margin"], offer["margin_pct"], offer["break_even_cpa"], offer["break_even_roas"]) == (
        -3.09, -30.9, 0.0, None)
    assert "supplier_quote" not in {i["name"] for i in offer["inputs"]}


def test_offer_settings_change_the_figures():
    settings = OfferSettings(fee_pct=D("0"), fee_fixed=D("0"), shipping_flat=D("0"), shipping_per_kg=D("0"),
                             target_margin_pct=D("50"))
    offer = compute_offer(record(20, 5), [], settings, TODAY)
    assert (offer["unit_margin"], offer["margin_pct"], offer["break_even_roas"], offer["price_for_target_margin"]) == (
        15.0, 75.0, 1.33, 10.0)


# --- The analyser ----------------------------------------------------------------------------

def rows(*specs):
    return [Row(ago(days), source, metric, value) for days, source, metric, value in specs]


def levels(figures):
    return {f["id"]: f["level"] for f in figures["figures"]}


def test_analysis_levels_come_from_the_strongest_fresh_reading():
    found = analyser.analyse(rows((10, "search_volume", "monthly_searches", 20000),
                                  (20, "google_trends", "interest_index", 30),
                                  (30, "etsy_listings", "listings_count", 499)), TODAY, margin_pct=30.0,
                             margin_source=[])
    assert levels(found) == {"demand": "high", "competition": "low", "margin": "high", "risk": "low"}
    demand = found["figures"][0]
    assert demand["evidence"][0] == {"type": "evidence", "date": ago(10).isoformat(), "source": "search_volume",
                                     "metric": "monthly_searches", "value": 20000, "level": "high"}
    assert "20000 monthly searches" in demand["because"]


@pytest.mark.parametrize("metric,value,level", [
    ("monthly_searches", 19999, "medium"), ("monthly_searches", 4999, "low"), ("bsr_rank", 1000, "high"),
    ("bsr_rank", 1001, "medium"), ("bsr_rank", 5001, "low"), ("weekly_views", 250000, "medium")])
def test_demand_thresholds(metric, value, level):
    assert analyser.demand(rows((5, "x", metric, value)), TODAY)["level"] == level


def test_evidence_past_the_freshness_window_backs_no_level():
    stale = rows((analyser.FRESH_DAYS + 1, "search_volume", "monthly_searches", 90000))
    figure = analyser.demand(stale, TODAY)
    assert (figure["level"], figure["no_evidence"]) == ("unknown", True) and "older" in figure["because"]
    assert analyser.demand(rows((analyser.FRESH_DAYS, "s", "monthly_searches", 90000)), TODAY)["level"] == "high"
    assert analyser.risk(stale, TODAY)["level"] == "high"


def test_risk_is_high_when_demand_falls_and_medium_on_thin_evidence():
    falling = rows((60, "g", "interest_index", 50), (10, "g", "interest_index", 40), (5, "s", "monthly_searches", 9000))
    risk = analyser.risk(falling, TODAY)
    assert risk["level"] == "high" and risk["falling"][0]["change_pct"] == -20.0
    steady = rows((60, "g", "interest_index", 50), (10, "g", "interest_index", 41), (5, "s", "monthly_searches", 9000))
    assert analyser.risk(steady, TODAY)["level"] == "low"
    assert analyser.risk(steady[:2], TODAY)["level"] == "medium"
    rising_rank = rows((60, "a", "bsr_rank", 1000), (10, "a", "bsr_rank", 1200), (5, "s", "monthly_searches", 9000))
    assert analyser.risk(rising_rank, TODAY)["level"] == "high"  # a worse (higher) best-seller rank


def test_no_evidence_means_every_figure_says_so():
    for figure in analyser.no_evidence()["figures"]:
        assert figure["level"] == "unknown" and figure["no_evidence"] and figure["because"].startswith("No evidence")


# --- The verdict rules, each on its boundaries -----------------------------------------------

def inputs(**changes):
    base = dict(unit_margin=D("10"), margin_pct=D("40"), target_margin_pct=D("30"), demand="high", risk="low",
                gate_rows=3, gate_min_rows=2, gate_days=540)
    return verdict.Inputs(**(base | changes))


@pytest.mark.parametrize("changes,expected,rule", [
    ({}, "go", "strong"),
    ({"unit_margin": D("0")}, "pass", "loses_money"),
    ({"unit_margin": D("0.01"), "margin_pct": D("15")}, "test_small", "mixed"),
    ({"margin_pct": D("14.99")}, "pass", "thin_margin"),
    ({"margin_pct": D("15.00")}, "test_small", "mixed"),
    ({"gate_rows": 1}, "pass", "too_little_evidence"),
    ({"gate_rows": 2}, "go", "strong"),
    ({"margin_pct": D("30.00")}, "go", "strong"),
    ({"margin_pct": D("29.99")}, "test_small", "mixed"),
    ({"demand": "medium"}, "go", "strong"),
    ({"demand": "low"}, "test_small", "mixed"),
    ({"demand": "unknown"}, "test_small", "mixed"),
    ({"risk": "medium"}, "test_small", "mixed"),
])
def test_verdict_rules_on_their_boundaries(changes, expected, rule):
    decided, which, because = verdict.decide(inputs(**changes))
    assert (decided, which) == (expected, rule) and because


# --- Through HTTP: the research job, offer, analysis, dashboard, launch ---------------------

def strong_item(pid="strong", **kw):
    """Margin 51.39 % (the first hand-checked case), demand high, three fresh rows: go."""
    line = item(pid, price=34.99, cost=11.20, **kw)
    line["evidence"] = [evidence(10, "monthly_searches", 22400, "search_volume"), evidence(40), evidence(90)]
    return line


def test_a_claim_researches_its_product_and_the_offer_is_served_with_sources(client, run_jobs):
    load(strong_item())
    assert find(client).get_json()["product_id"] == "strong"
    assert claim(client).get_json()["status"] == "claimed"
    run_jobs()
    job = Job.get(Job.kind == RESEARCH)
    assert (job.subject, job.status) == ("research:strong", Job.DONE)
    body = client.get("/api/offer").get_json()
    assert body["status"] == "ok" and body["product_id"] == "strong" and body["currency"] == "USD"
    assert (body["price"], body["cost"], body["unit_margin"], body["margin_pct"], body["break_even_roas"]) == (
        34.99, 11.2, 17.98, 51.39, 1.95)
    assert body["researched_at"].endswith("Z") and body["refreshing"] is False
    assert all({"name", "value", "source"} <= set(i) for i in body["inputs"])
    assert Job.select().where(Job.kind == RESEARCH).count() == 1  # the fresh research is not run again


def test_until_research_finishes_offer_dashboard_and_analysis_say_not_yet_researched(client, held_worker, run_jobs):
    load(strong_item())
    find(client)
    for path in ("/api/offer", "/api/analysis", "/api/dashboard"):
        body = client.get(path).get_json()
        assert (body["status"], body["reason"], body["product_id"], body["stage"]) == (
            "not_yet_researched", "not_yet_researched", "strong", "queued"), path
        assert body["explanation"] and body["job_id"]
    assert Job.select().where(Job.kind == RESEARCH).count() == 1  # one job per product at a time
    held_worker.resume()
    run_jobs()
    assert client.get("/api/offer").get_json()["status"] == "ok"


def test_a_held_product_without_research_gets_it_from_the_offer(client, run_jobs):
    load(strong_item())
    find(client)
    assert client.get("/api/offer").get_json()["status"] == "not_yet_researched"
    run_jobs()
    assert client.get("/api/offer").get_json()["status"] == "ok"


def test_without_a_product_offer_and_analysis_say_no_product_and_the_dashboard_not_claimed(client):
    catalog(2)
    refusal(client.get("/api/offer"), 200, "no_product")
    refusal(client.get("/api/analysis"), 200, "no_product")
    body = client.get("/api/dashboard").get_json()
    assert (body["status"], body["reason"]) == ("not_claimed", "not_claimed") and body["explanation"]


def test_the_dashboard_draws_the_fresh_evidence_the_research_read_as_trends(client, run_jobs):
    line = strong_item()
    line["evidence"].append(evidence(analyser.FRESH_DAYS + 5, value=10))  # too old to back anything: not drawn
    load(line)
    find(client)
    claim(client)
    run_jobs()
    trends = client.get("/api/dashboard").get_json()["trends"]
    assert [(t["metric"], t["source"], [p["value"] for p in t["points"]]) for t in trends] == [
        ("interest_index", "google_trends", [50, 50]), ("monthly_searches", "search_volume", [22400])]
    assert trends[0]["points"][0]["date"] == ago(90).isoformat()


def test_new_evidence_makes_the_research_stale_and_it_is_refreshed(client, run_jobs):
    load(strong_item())
    find(client)
    client.get("/api/offer")
    run_jobs()
    first = Research.get().researched_at
    line = strong_item()
    line["evidence"].append({**evidence(1, "supplier_quote", 14.0, "supplier_quote"), "metric": "unit_price_quote"})
    load(line)
    stale = client.get("/api/offer").get_json()
    assert stale["status"] == "ok" and stale["refreshing"] is True and stale["cost"] == 11.2
    run_jobs()
    fresh = client.get("/api/offer").get_json()
    assert fresh["refreshing"] is False and fresh["cost"] == 14.0
    assert Research.get().researched_at >= first and Research.select().count() == 1


def test_the_dashboard_gives_the_verdict_with_facts_and_sources(client, run_jobs):
    load(strong_item())
    find(client)
    claim(client)
    run_jobs()
    body = client.get("/api/dashboard").get_json()
    assert (body["status"], body["product_id"], body["verdict"], body["rule"]) == ("ok", "strong", "go", "strong")
    facts = {f["id"]: f for f in body["facts"]}
    assert facts["margin_pct"]["value"] == 51.39 and facts["margin_pct"]["source"]["type"] == "offer"
    assert facts["demand"]["value"] == "high" and facts["demand"]["source"]["metric"] == "monthly_searches"
    assert {"type": "catalog", "field": "price"} in body["sources"]
    assert {"type": "evidence", "date": ago(10).isoformat(), "source": "search_volume",
            "metric": "monthly_searches"} in body["sources"]
    assert body["offer"]["break_even_roas"] == 1.95


@pytest.mark.parametrize("price,cost,expected,rule", [
    # 10 - 7.50 - 4.50 - 0.59 = -2.59: each sale loses money (the gate's catalog margin, 25 %, still serves it).
    (10.0, 7.50, "pass", "loses_money"),
    # 20 - 10 - 4.50 - 0.88 = 4.62: 23.1 %, above 15 % and under the 30 % target.
    (20.0, 10.0, "test_small", "mixed"),
    # 26 - 10 - 4.50 - 1.05 = 10.45: 40.19 %, interest readings of 50 (demand medium), three fresh rows.
    (26.0, 10.0, "go", "strong"),
])
def test_dashboard_verdicts_through_http(client, run_jobs, price, cost, expected, rule):
    load(item("p1", price=price, cost=cost))
    assert find(client).get_json()["product_id"] == "p1"
    claim(client)
    run_jobs()
    body = client.get("/api/dashboard").get_json()
    assert (body["verdict"], body["rule"]) == (expected, rule), body["because"]


def test_reaching_the_dashboard_records_the_milestone_and_qualifies_the_referral(founder, run_jobs):
    load(strong_item(), item("other", rank=10))
    sharer = founder()
    sharer.post("/api/account", json={"email": "sharer@x.com"})
    run_jobs()
    sharer.get(path_of(last_link("sharer@x.com")))
    code = referrals.code_for(session_of(sharer))
    before = sharer.get("/api/usage").get_json()
    assert before["referral_multiplier"] == 1.0
    friend = founder()
    friend.get(f"/r/{code}")
    friend.post("/api/account", json={"email": "friend@x.com"})
    run_jobs()
    friend.get(path_of(last_link("friend@x.com")))
    assert sharer.get("/api/usage").get_json()["referral_multiplier"] == 1.0  # joined, not yet qualified
    find(friend)
    claim(friend)
    run_jobs()
    assert friend.get("/api/dashboard").get_json()["status"] == "ok"
    friend_account = session_of(friend).account_id
    assert milestones.reached(milestones.REACHED_DASHBOARD, account_id=friend_account)
    after = sharer.get("/api/usage").get_json()
    assert after["referral_multiplier"] == 2.0 and after["multiplier"] > before["multiplier"]


def test_a_friend_who_reached_the_dashboard_before_signing_in_qualifies_on_sign_in(founder, run_jobs):
    load(strong_item())
    sharer = founder()
    sharer.get("/api/health")
    code = referrals.code_for(session_of(sharer))
    friend = founder()
    friend.get(f"/r/{code}")
    find(friend)
    claim(friend)
    run_jobs()
    assert friend.get("/api/dashboard").get_json()["status"] == "ok"
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_of(friend).id)
    friend.post("/api/account", json={"email": "early@x.com"})
    run_jobs()
    friend.get(path_of(last_link("early@x.com")))
    sharer.post("/api/account", json={"email": "late-sharer@x.com"})
    assert referrals.qualified_count(session_of(sharer).account_id) == 1


def test_a_dashboard_without_a_verdict_records_nothing(client):
    catalog(1)
    client.get("/api/dashboard")
    assert not milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_of(client).id)


def test_the_analysis_of_the_session_product_cites_its_evidence(client, run_jobs):
    load(strong_item())
    find(client)
    client.get("/api/analysis")
    run_jobs()
    body = client.get("/api/analysis").get_json()
    assert body["status"] == "ok" and body["product_id"] == "strong"
    assert levels(body) == {"demand": "high", "competition": "unknown", "margin": "high", "risk": "low"}
    competition = next(f for f in body["figures"] if f["id"] == "competition")
    assert competition["no_evidence"] is True and competition["because"].startswith("No evidence")


def test_session_b_never_sees_session_a_analysis_or_offer(founder, run_jobs):
    load(strong_item(), item("second", rank=10))
    first, second = founder(), founder()
    find(first)
    claim(first)
    find(second)
    run_jobs()
    second.get("/api/offer")
    run_jobs()
    assert first.get("/api/offer").get_json()["product_id"] == "strong"
    assert second.get("/api/offer").get_json()["product_id"] == "second"
    assert second.get("/api/analysis").get_json()["product_id"] == "second"
    assert second.get("/api/dashboard").get_json()["product_id"] == "second"


def test_launch_facts_are_computed_from_the_records(client, run_jobs):
    load(strong_item())
    empty = client.get("/api/launch").get_json()
    assert empty["status"] == "ok" and empty["product_id"] is None and empty["product_name"] is None
    assert [f["id"] for f in empty["facts"]] == [
        "product_claimed", "offer_researched", "store_built", "store_published", "domain_connected",
        "payments_ready", "supplier_connected", "sample_ordered", "ad_balance_funded", "support_address_set"]
    assert not any(f["true_today"] for f in empty["facts"])
    find(client)
    held = {f["id"]: f for f in client.get("/api/launch").get_json()["facts"]}
    assert not held["product_claimed"]["true_today"] and "have not claimed" in held["product_claimed"]["detail"]
    claim(client)
    run_jobs()
    answer = client.get("/api/launch").get_json()
    claimed = {f["id"]: f for f in answer["facts"]}
    assert claimed["product_claimed"]["true_today"] and claimed["offer_researched"]["true_today"]
    # The product by its name, on the answer and in the facts' words.
    name = Product.get_by_id(answer["product_id"]).name
    assert answer["product_name"] == name and claimed["product_claimed"]["detail"] == f"You claimed {name}."
    assert not claimed["store_built"]["true_today"] and claimed["store_built"]["detail"]


def test_an_offer_closes_the_watches_on_its_product_and_mails_the_watchers(founder, run_jobs):
    load(strong_item())
    owner, watcher = founder(), founder()
    find(owner)
    claim(owner)
    body = watcher.post("/api/notify_me", json={"email": "w@x.com", "product_id": "strong"}).get_json()
    assert body["status"] == "watching", body
    run_jobs()
    assert owner.get("/api/offer").get_json()["status"] == "ok"
    run_jobs()
    watches = watcher.get("/api/notify_me").get_json()["watches"]
    assert watches[0]["state"] != "watching" and watches[0]["notified_at"]
    from models.discovery import Watch
    assert Watch.get().closed_because == "offer_ready"


# --- POST /api/analyze -----------------------------------------------------------------------

def test_analyze_refuses_an_empty_request(client):
    refusal(client.post("/api/analyze", json={}), 400, "nothing_to_analyze")
    refusal(client.post("/api/analyze", json={"name": "  ", "description": ""}), 400, "nothing_to_analyze")
    refusal(client.post("/api/analyze", json={"name": "x" * 201}), 400, "invalid_name")
    refusal(client.post("/api/analyze", json={"description": 5}), 400, "invalid_description")


def test_analyze_reads_a_description_through_the_closest_catalog_product(client):
    line = strong_item(name="Magnetic Knife Strip")
    line["description"] = "An acacia bar that holds knives on the wall."
    load(line, item("towel", name="Bamboo Bath Towel", rank=10))
    body = client.post("/api/analyze", json={"description": "a wall strip to hold my kitchen knives"}).get_json()
    assert body["status"] == "ok" and body["matched"]["product_id"] == "strong"
    assert levels(body)["demand"] == "high" and "closest catalog product" in body["basis"]


def test_analyze_of_something_the_catalog_does_not_know_says_no_evidence(client):
    catalog(2)
    body = client.post("/api/analyze", json={"name": "Quantum zeppelin polish"}).get_json()
    assert body["matched"] is None and body["matches"] == []
    assert all(f["no_evidence"] and f["level"] == "unknown" for f in body["figures"])


def test_analyze_never_reads_a_product_claimed_by_another_founder(founder, run_jobs):
    line = strong_item(name="Magnetic Knife Strip")
    load(line, item("towel", name="Bamboo Bath Towel", rank=10))
    owner = founder()
    find(owner)
    claim(owner)
    run_jobs()
    other = founder()
    body = other.post("/api/analyze", json={"name": "magnetic knife strip"}).get_json()
    assert body["matched"] is None
    mine = owner.post("/api/analyze", json={"name": "magnetic knife strip"}).get_json()
    assert mine["matched"]["product_id"] == "strong"
