"""Evidence from any catalog (issue 20, point 4): a catalog whose metric names all differ
from the demo catalog's, loaded from its JSONL file, runs the whole editing journey through
HTTP. Find, claim, research: the analysis and the verdict read its rows; build: the store's
evidence section shows them; intents: proposals are backed by them, a rising series is said,
a falling one justifies nothing."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from models.store import StoreVersion
from services.catalog import load_catalog_file
from services.day_words import day_words
from services.store.render import render_page
from tests.factories import TODAY, built, claim, find, load, refusal

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

DEMO_METRICS = {"interest_index", "monthly_searches", "bsr_rank", "weekly_views", "monthly_mentions",
                "unit_price_quote", "listings_count", "reviews"}
OTHER_METRICS = {"search_interest", "units_sold_30d", "hashtag_views", "mentions_30d", "orders_30d", "category_rank"}
TRENDING = {"surface": "home", "requested": "Show shoppers that it is trending"}


def ago(days: int) -> str:
    return (TODAY - timedelta(days=days)).isoformat()


def ev(days, source, metric, value, note=""):
    return {"date": ago(days), "source": source, "metric": metric, "value": value, "note": note}


def line(pid, rank, evidence):
    return {"product_id": pid, "name": f"Gadget {pid}", "description": f"A handy gadget, model {pid}.",
            "category": "Gadgets", "price": 40.0, "cost": 10.0, "currency": "USD",
            "images": ["/static/demo/kitchen-magnetic-knife-strip-1.svg"], "rank": rank, "evidence": evidence}


def other_catalog() -> list[dict]:
    """Six products. o00 (found first) leads its peers on every metric, and its search
    interest is rising; o01's demand series are all falling; o02-o05 are single readings."""
    strong = line("o00", 1000, [
        ev(90, "trends_feed", "search_interest", 40, "Interest in the category was modest in the summer."),
        ev(30, "trends_feed", "search_interest", 55),
        ev(3, "trends_feed", "search_interest", 72),
        ev(20, "marketplace_feed", "units_sold_30d", 1200),
        ev(15, "social_feed", "hashtag_views", 2_400_000),
        ev(12, "forum_feed", "mentions_30d", 340),
        ev(10, "shop_feed", "orders_30d", 310),
        ev(8, "marketplace_feed", "category_rank", 12),
    ])
    falling = line("o01", 990, [
        ev(40, "trends_feed", "search_interest", 80), ev(5, "trends_feed", "search_interest", 50),
        ev(40, "shop_feed", "orders_30d", 200), ev(6, "shop_feed", "orders_30d", 120),
        ev(40, "marketplace_feed", "category_rank", 30), ev(6, "marketplace_feed", "category_rank", 90),
        ev(9, "social_feed", "hashtag_views", 90_000),
    ])
    weaker = [line(f"o0{n}", 900 - n, [
        ev(14, "trends_feed", "search_interest", 20 + n), ev(14, "marketplace_feed", "units_sold_30d", 100 * n),
        ev(14, "social_feed", "hashtag_views", 100_000 * n), ev(14, "forum_feed", "mentions_30d", 10 * n),
        ev(14, "shop_feed", "orders_30d", 20 * n), ev(14, "marketplace_feed", "category_rank", 100 * n),
    ]) for n in range(2, 6)]
    return [strong, falling, *weaker]


@pytest.fixture
def catalog_file(tmp_path):
    path = tmp_path / "other_catalog.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in other_catalog()))
    metrics = {e["metric"] for item in other_catalog() for e in item["evidence"]}
    assert metrics == OTHER_METRICS and not metrics & DEMO_METRICS  # no demo name anywhere
    report = load_catalog_file(path)
    assert (report.products, report.evidence) == (6, 39)
    return path


def claimed(founder, run_jobs, expected):
    client = founder()
    assert find(client).get_json()["product_id"] == expected
    assert claim(client).get_json()["status"] == "claimed"
    run_jobs()  # the research job
    return client


def figure(body, name):
    return next(f for f in body["figures"] if f["id"] == name)


def test_analysis_and_verdict_read_a_catalog_with_other_metric_names(founder, run_jobs, catalog_file):
    client = claimed(founder, run_jobs, "o00")
    body = client.get("/api/analysis").get_json()
    assert body["status"] == "ok" and body["product_id"] == "o00"
    demand = figure(body, "demand")
    assert (demand["level"], demand["no_evidence"]) == ("high", False)
    assert {c["metric"] for c in demand["evidence"]} == OTHER_METRICS  # every one backs demand, newest reading each
    signals = {s["metric"]: s for s in demand["signals"]}
    assert signals["search_interest"] == {
        "metric": "search_interest", "source": "trends_feed", "kind": "count", "roles": ["demand"],
        "lower_is_better": False, "direction": "rising", "change_pct": 30.9, "level": "high", "level_basis": "peers",
        "peers": 5}  # (72 - 55) / 55 = +30.9 %, and 72 tops the five other products' readings
    assert (signals["category_rank"]["kind"], signals["category_rank"]["lower_is_better"],
            signals["category_rank"]["level"]) == ("rank", True, "high")  # 12 is the best (lowest) of all
    assert signals["mentions_30d"]["roles"] == ["demand", "talk"]
    assert signals["hashtag_views"]["direction"] == "single"
    assert "against 5 other catalog products' readings" in demand["because"]
    # In a founder's words (issue 47, point 6): the source's name and the day, not the row's keys.
    assert "Search interest (Trends feed) is rising, +30.9% since " + day_words(ago(30)) + "." in demand["because"]
    assert figure(body, "competition")["no_evidence"]  # nothing here counts listings or reviews
    risk = figure(body, "risk")
    assert (risk["level"], risk["falling"]) == ("low", [])

    dashboard = client.get("/api/dashboard").get_json()
    assert (dashboard["verdict"], dashboard["rule"]) == ("go", "strong")
    fact = next(f for f in dashboard["facts"] if f["id"] == "demand")
    assert fact["value"] == "high" and fact["source"]["type"] == "evidence"
    assert fact["source"]["metric"] in OTHER_METRICS
    cited = {s.get("metric") for s in dashboard["sources"] if s["type"] == "evidence"}
    assert OTHER_METRICS <= cited


def test_a_falling_series_of_another_catalog_raises_the_risk_and_justifies_no_demand_proposal(founder, run_jobs,
                                                                                             catalog_file):
    claimed(founder, run_jobs, "o00")  # the first founder takes o00
    client = claimed(founder, run_jobs, "o01")
    risk = figure(client.get("/api/analysis").get_json(), "risk")
    assert risk["level"] == "high"
    assert {(f["metric"], f["change_pct"]) for f in risk["falling"]} == {
        ("search_interest", -37.5), ("orders_30d", -40.0), ("category_rank", 200.0)}  # a rank that rose in number
    dashboard = client.get("/api/dashboard").get_json()
    assert (dashboard["verdict"], dashboard["rule"]) == ("test_small", "mixed") and "risk is high" in dashboard["because"]
    # Only hashtag_views is not falling, and it is the newest demand row left: it backs the proposal.
    body = client.post("/api/intent", json=TRENDING).get_json()
    assert body["source_row"] == {"date": ago(9), "source": "social_feed", "metric": "hashtag_views",
                                  "value": 90000.0}
    # Without it, only falling series are left: nothing is proposed, and the refusal says why.
    load(line("o01", 990, [e for e in other_catalog()[1]["evidence"] if e["metric"] != "hashtag_views"]))
    refused = refusal(client.post("/api/intent", json=TRENDING), 200, "no_row_justifies_this")
    assert "it would need a demand reading" in refused["explanation"]
    since = day_words(ago(40))  # the metrics' labels and the day in words, never the row's keys
    for falling in (f"search interest -37.5% since {since}", f"orders over 30 days -40% since {since}",
                    f"category rank +200% since {since}"):
        assert falling in refused["explanation"]


def test_the_editing_journey_runs_on_a_catalog_with_other_metric_names(founder, run_jobs, catalog_file):
    client = claimed(founder, run_jobs, "o00")
    state = built(client, run_jobs)

    # The store's evidence section: the six newest rows, in words a shopper reads.
    document = StoreVersion.get(StoreVersion.store == "o00", StoreVersion.number == 1).document
    shown = document["evidence"]
    assert [r["metric"] for r in shown] == ["search_interest", "category_rank", "orders_30d", "mentions_30d",
                                            "hashtag_views", "units_sold_30d"]
    assert shown[-1] == {"date": ago(20), "source": "marketplace_feed", "metric": "units_sold_30d", "value": 1200.0,
                         "text": "marketplace_feed reports 1,200 units sold over 30 days.",
                         "label": "units sold over 30 days"}
    page = client.get(state["preview_url"]).get_data(as_text=True)
    assert "Why this product" in page
    for words in ("Units sold over 30 days: <strong>1,200</strong>", "Hashtag views: <strong>2,400,000</strong>",
                  "Category rank: <strong>12</strong>", "Search interest: <strong>72</strong>"):
        assert words in page
    # Only the founder's preview shows the rows; the copy tells shoppers none of them (issue 47).
    assert "Search interest for products like this" not in page
    public = render_page(document, "home", base_path="/store/s", origin="http://localhost")
    assert "Why this product" not in public and "Search interest" not in public

    # Proposals backed by those rows.
    body = client.post("/api/intent", json=TRENDING).get_json()
    assert body["status"] == "proposed"
    assert body["source_row"] == {"date": ago(3), "source": "trends_feed", "metric": "search_interest", "value": 72.0}
    assert body["because"].startswith(f"Trends feed reports search interest 72 on {day_words(ago(3))}, up from 55 on "
                                      f"{day_words(ago(30))} (+30.9%): ")
    applied = client.post("/api/intent/apply", json={"intent_change": body["proposal"]["intent_change"]})
    assert applied.status_code == 200, applied.get_data(as_text=True)
    assert (applied.get_json()["status"], applied.get_json()["lead"], applied.get_json()["version"]) == (
        "applied", "evidence", 2)
    preview = client.get(state["preview_url"]).get_data(as_text=True)
    assert preview.index("Why this product") < preview.index("What you get")

    questions = client.post("/api/intent", json={"surface": "home", "requested": "Lead with questions"}).get_json()
    assert questions["source_row"]["metric"] == "mentions_30d" and questions["proposal"]["lead"] == "faq"
    bestseller = client.post("/api/intent", json={"surface": "home", "requested": "Show it is a bestseller"})
    assert bestseller.get_json()["source_row"]["metric"] == "search_interest"
    no_reviews = refusal(client.post("/api/intent", json={"surface": "home", "requested": "Lead with reviews"}), 200,
                         "no_row_justifies_this")
    assert "review count or rating" in no_reviews["explanation"]
