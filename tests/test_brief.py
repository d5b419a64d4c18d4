"""The nightly research brief (spec 4.3 use_research_brief, 4.7 GET /api/brief; decisions.md):
made by the clock's job and by the CLI, one per UTC day, each kind of item, the gate crossed
both ways, never_run, and discovery seeded by the brief."""
import json
from datetime import UTC, datetime, timedelta

import pytest

from config import SettingsError, load_settings
from integrations.locks import get_locks
from models.brief import Brief
from models.clock import clock
from models.job import Job
from services import brief as briefs
from services import evidence_gate
from tests.conftest import SETTINGS
from tests.factories import TODAY, catalog, claim, discover, find, item, load
from tests.helpers import in_threads
from workers.clock import DailyAt, Scheduler

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

DAY = timedelta(days=1)


def get_brief(client):
    response = client.get("/api/brief")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def items_of(body) -> dict:
    assert body["status"] == "ok", body
    kinds = [entry["kind"] for entry in body["brief"]["items"]]
    assert kinds == ["new_evidence", "crossed_gate", "new_claims", "candidates"]
    return {entry["kind"]: entry for entry in body["brief"]["items"]}


def run_cli(app, *args) -> str:
    result = app.test_cli_runner().invoke(args=["brief", "run", *args])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def run_clock_job(run_jobs):
    """What the clock does at BRIEF_HOUR_UTC: the nightly_brief message, then the brief job."""
    from jobs.brief import nightly_brief

    nightly_brief.send()
    run_jobs()


def next_day(days=1):
    clock.advance(days=days)


# --- never_run, the job and the CLI ---------------------------------------------------------------

def test_before_any_brief_the_answer_is_never_run_for_anyone(client):
    response = client.get("/api/brief")
    assert response.status_code == 200
    body = response.get_json()
    assert (body["status"], body["reason"]) == ("never_run", "never_run")
    assert "03:00 UTC" in body["explanation"] and "every night" in body["explanation"]
    assert "never_run" in client.get("/api/reasons").get_json()["reasons"]


def test_the_clocks_job_makes_the_first_brief_on_the_worker(client, run_jobs):
    catalog(3)
    run_clock_job(run_jobs)
    body = get_brief(client)
    assert body["brief"]["day"] == TODAY.isoformat()
    assert body["brief"]["generated_at"] == "2026-11-22T12:00:00Z"
    # The first brief looks back BRIEF_LOOKBACK_DAYS (7) whole days, up to (not including) today.
    assert body["brief"]["window"] == {"start": (TODAY - 7 * DAY).isoformat(), "end": TODAY.isoformat()}
    items = items_of(body)
    assert items["crossed_gate"]["baseline"] is True and items["crossed_gate"]["clearing"] == 3
    assert [p["product_id"] for p in items["candidates"]["products"]] == ["p00", "p01", "p02"]
    job = Job.get(Job.kind == "brief")
    assert job.status == Job.DONE and job.subject == f"brief:{TODAY.isoformat()}"
    assert job.result["made"] is True and job.result["summary"].startswith(f"brief {TODAY.isoformat()} generated")


def test_the_cli_makes_the_brief_and_prints_one_line(app, client):
    catalog(2)
    line = run_cli(app)
    assert line == (f"brief {TODAY.isoformat()} generated at 2026-11-22T12:00:00Z (window 2026-11-15 to 2026-11-22): "
                    "0 new evidence rows on 0 products, baseline of the evidence gate recorded, 0 new claims, "
                    "2 of 2 unclaimed candidates listed")
    assert get_brief(client)["brief"]["day"] == TODAY.isoformat()


def test_one_brief_per_day_whoever_runs_it_and_force_makes_it_again(app, client, run_jobs):
    from jobs.send import start

    catalog(2)
    run_clock_job(run_jobs)
    clock.advance(hours=2)
    again = run_cli(app)  # the CLI the same day answers the brief the clock's job made
    assert again.startswith(f"brief {TODAY.isoformat()} already generated at 2026-11-22T12:00:00Z")
    assert again.endswith("(--force makes it again)")
    # A second job for the day (a retry, a clock that fired before the first finished) makes nothing.
    start(kind=briefs.BRIEF, subject=briefs.subject(TODAY), payload={"day": TODAY.isoformat()})
    run_jobs()
    assert [job.result["made"] for job in Job.select().where(Job.kind == "brief").order_by(Job.created_at)] == [
        True, False]
    assert Brief.select().count() == 1
    forced = run_cli(app, "--force")
    assert forced.startswith(f"brief {TODAY.isoformat()} generated at 2026-11-22T14:00:00Z (window 2026-11-15 to")
    assert Brief.select().count() == 1
    assert get_brief(client)["brief"]["generated_at"] == "2026-11-22T14:00:00Z"


def test_the_clocks_message_starts_no_job_when_the_days_brief_exists(app, run_jobs):
    run_cli(app)
    run_clock_job(run_jobs)
    assert not Job.select().where(Job.kind == "brief").exists()


def test_runs_racing_for_one_day_make_one_brief():
    catalog(3)
    made = in_threads(4, lambda i: briefs.generate()[1])
    assert sorted(made) == [False, False, False, True]
    assert Brief.select().count() == 1


def test_a_retry_that_runs_after_a_later_brief_makes_nothing(app, client):
    next_day()
    run_cli(app)
    assert briefs.run(day=TODAY.isoformat())["day"] == (TODAY + DAY).isoformat()
    assert [b.day for b in Brief.select()] == [TODAY + DAY]


# --- The window and new evidence --------------------------------------------------------------------

def test_new_evidence_lists_rows_dated_in_the_window_grouped_per_product(app, client):
    fresh = item("fresh", rank=10, days=(1, 3, 10))
    fresh["evidence"][0].update(source="amazon_bsr", metric="rank", value=312)
    load(fresh, item("old", rank=90, days=(8, 30)), item("today", days=(0, 40)))
    run_cli(app)
    evidence = items_of(get_brief(client))["new_evidence"]
    assert (evidence["rows_total"], evidence["products_total"], evidence["left_out"]) == (2, 1, 0)
    [product] = evidence["products"]
    assert product == {
        "product_id": "fresh", "name": "Product fresh", "category": "Home & Kitchen", "rows_total": 2, "left_out": 0,
        "rows": [{"date": (TODAY - DAY).isoformat(), "source": "amazon_bsr", "metric": "rank", "value": 312.0},
                 {"date": (TODAY - 3 * DAY).isoformat(), "source": "google_trends", "metric": "interest_index",
                  "value": 50.0}]}
    assert "source" in evidence["basis"]

    # The next brief starts where this one ended: today's row (dated 0 days ago) is new tomorrow.
    next_day()
    run_cli(app)
    body = get_brief(client)
    assert body["brief"]["window"] == {"start": TODAY.isoformat(), "end": (TODAY + DAY).isoformat()}
    evidence = items_of(body)["new_evidence"]
    assert [(p["product_id"], p["rows_total"]) for p in evidence["products"]] == [("today", 1)]


def test_new_evidence_is_capped_and_says_how_much_was_left_out(app, client):
    busy = item("busy", rank=1, days=tuple(range(1, 8)) + (1, 2, 3, 4, 5))  # 12 rows in the window
    others = [item(f"e{n:02d}", rank=100 - n, days=(2, 30)) for n in range(briefs.MAX_EVIDENCE_PRODUCTS + 4)]
    load(busy, *others)
    run_cli(app)
    evidence = items_of(get_brief(client))["new_evidence"]
    assert evidence["products_total"] == briefs.MAX_EVIDENCE_PRODUCTS + 5
    assert len(evidence["products"]) == briefs.MAX_EVIDENCE_PRODUCTS and evidence["left_out"] == 5
    top = evidence["products"][0]  # the most new rows first, then by rank
    assert (top["product_id"], top["rows_total"], len(top["rows"]), top["left_out"]) == ("busy", 12, 10, 2)
    assert [row["date"] for row in top["rows"]] == sorted((row["date"] for row in top["rows"]), reverse=True)
    assert [p["product_id"] for p in evidence["products"][1:4]] == ["e00", "e01", "e02"]


def test_the_lookback_setting_sets_the_first_window(app, client, settings_with):
    settings_with(brief_lookback_days=2)
    load(item("fresh", days=(1, 3)))
    run_cli(app)
    body = get_brief(client)
    assert body["brief"]["window"]["start"] == (TODAY - 2 * DAY).isoformat()
    assert items_of(body)["new_evidence"]["rows_total"] == 1


# --- Crossing the evidence gate -------------------------------------------------------------------

def test_products_crossing_the_gate_either_way_are_reported_once(app, client):
    load(item("stays", rank=90), item("drops", rank=80), item("joins", rank=70, cost=29.0),
         item("ages", rank=60, days=(10, 539)))
    run_cli(app)
    crossed = items_of(get_brief(client))["crossed_gate"]
    assert crossed["baseline"] is True and crossed["products"] == [] and crossed["clearing"] == 3

    next_day(2)
    # Reloaded: "drops" now has a thin margin, "joins" a good one; "new" arrives clearing, "weak"
    # arrives not clearing; "ages" loses its 539-day-old row to time alone.
    load(item("drops", rank=80, cost=29.0), item("joins", rank=70), item("new", rank=75), item("weak", cost=29.0))
    run_cli(app)
    crossed = items_of(get_brief(client))["crossed_gate"]
    assert crossed["baseline"] is False
    assert (crossed["crossed_in"], crossed["crossed_out"], crossed["left_out"]) == (2, 2, 0)
    moved = [(p["product_id"], p["direction"], p.get("why_not")) for p in crossed["products"]]
    assert moved == [("new", "in", None), ("joins", "in", None),
                     ("drops", "out", "thin_margin"), ("ages", "out", "old_evidence")]
    drops = crossed["products"][2]
    assert drops["margin_pct"] == 3.33 and drops["evidence_count"] == 3 and drops["category"] == "Home & Kitchen"
    assert crossed["gate"] == {"on": (TODAY + 2 * DAY).isoformat(), "min_rows": 2, "max_age_days": 540,
                               "min_margin_pct": 20, "cutoff": (TODAY + 2 * DAY - 540 * DAY).isoformat()}
    assert crossed["clearing"] == 3  # stays, joins, new

    # A forced rerun the same day reports the same crossings; the next day, none are left.
    run_cli(app, "--force")
    assert items_of(get_brief(client))["crossed_gate"]["products"] == crossed["products"]
    next_day()
    run_cli(app)
    assert items_of(get_brief(client))["crossed_gate"]["products"] == []


def test_a_product_that_crosses_and_comes_back_before_the_brief_is_not_reported(app, client):
    load(item("flip"))
    run_cli(app)
    next_day()
    load(item("flip", cost=29.0))
    briefs.record_gate(day=TODAY + DAY, prev_day=TODAY, gate=evidence_gate.current_gate())  # a run that stopped
    load(item("flip"))
    run_cli(app)
    crossed = items_of(get_brief(client))["crossed_gate"]
    assert crossed["products"] == [] and crossed["crossed_out"] == 0


def test_a_run_that_stopped_half_way_still_reports_every_crossing(app, client):
    load(item("a"), item("b"))
    run_cli(app)
    next_day()
    load(item("a", cost=29.0), item("b", cost=29.0))
    # The first attempt stored the new verdicts and died before writing the brief.
    assert briefs.record_gate(day=TODAY + DAY, prev_day=TODAY, gate=evidence_gate.current_gate()) == 2
    run_cli(app)
    crossed = items_of(get_brief(client))["crossed_gate"]
    assert [(p["product_id"], p["direction"]) for p in crossed["products"]] == [("a", "out"), ("b", "out")]


def test_the_gate_is_walked_in_batches(app, client, monkeypatch):
    monkeypatch.setattr(briefs, "GATE_BATCH", 3)
    load(*[item(f"g{n}", cost=29.0) for n in range(10)])
    run_cli(app)
    next_day()
    load(*[item(f"g{n}") for n in range(10)])
    run_cli(app)
    crossed = items_of(get_brief(client))["crossed_gate"]
    assert crossed["crossed_in"] == 10 and sorted(p["product_id"] for p in crossed["products"]) == [
        f"g{n}" for n in range(10)]


# --- Claims and candidates ---------------------------------------------------------------------

def test_new_claims_are_counted_per_category_and_never_say_who(app, founder):
    load(item("k1", rank=90, category="Kitchen"), item("k2", rank=80, category="Kitchen"),
         item("g1", rank=70, category="Garden"), item("g2", rank=60, category="Garden"))
    alice, bob, carol = founder(), founder(), founder()
    for who, pid in ((alice, "k1"), (bob, "k2"), (carol, "g1")):
        assert find(who).get_json()["product_id"] == pid
        assert claim(who).get_json()["status"] == "claimed"
    run_cli(app)
    # Claims made today fall in tomorrow's window.
    assert items_of(get_brief(alice))["new_claims"]["total"] == 0
    next_day()
    run_cli(app)
    response = alice.get("/api/brief")
    claims = items_of(response.get_json())["new_claims"]
    assert claims["total"] == 3 and claims["left_out"] == 0
    assert claims["by_category"] == [{"category": "Kitchen", "claims": 2}, {"category": "Garden", "claims": 1}]
    text = response.get_data(as_text=True)
    assert not any(who.get_cookie("ff_session").value in text for who in (alice, bob, carol))
    assert "session" not in text and "account" not in text and "k1" not in text


def test_candidates_are_the_best_unclaimed_products_that_clear_the_gate(app, client, founder):
    catalog(13)
    load(item("thin", rank=5000, cost=29.0))
    taker = founder()
    assert find(taker).get_json()["product_id"] == "p00"
    assert claim(taker).get_json()["status"] == "claimed"
    run_cli(app)
    best = items_of(get_brief(client))["candidates"]
    assert best["total"] == 12 and best["left_out"] == 2
    assert [p["product_id"] for p in best["products"]] == [f"p{n:02d}" for n in range(1, 11)]
    assert best["products"][0] == {"product_id": "p01", "name": "Product p01", "category": "Home & Kitchen",
                                   "rank": 999.0, "price": 30.0, "cost": 10.0, "currency": "USD",
                                   "margin_pct": 66.67, "evidence_count": 3,
                                   "evidence_latest": (TODAY - 10 * DAY).isoformat()}


# --- The clock ---------------------------------------------------------------------------------------

def _epoch(moment: datetime) -> float:
    return moment.replace(tzinfo=UTC).timestamp()


def test_the_clock_fires_the_brief_once_a_day_at_its_hour(client, broker, run_jobs):
    catalog(2)
    day = TODAY + DAY
    clocks = [Scheduler(broker, [DailyAt("nightly_brief", SETTINGS.brief_hour_utc)], get_locks(SETTINGS.redis_url))
              for _ in range(2)]

    def tick(hour, minute=0, which=0):
        moment = datetime.combine(day, datetime.min.time()) + timedelta(hours=hour, minutes=minute)
        clock.freeze(moment)
        fired = clocks[which].tick(_epoch(moment))
        run_jobs()
        return fired

    # Started at 01:00: the night before was missed, so its brief is made at once.
    assert tick(1) == ["nightly_brief"]
    assert [b.day for b in Brief.select()] == [TODAY]
    assert tick(2, 59) == [] and tick(2, 59, which=1) == []  # the second clock finds that slot fired
    assert tick(3) == ["nightly_brief"] and tick(3, 1, which=1) == []
    assert [b.day for b in Brief.select().order_by(Brief.day)] == [TODAY, day]
    assert tick(23, 59) == [] and tick(23, 59, which=1) == []
    assert Brief.select().count() == 2 and Job.select().where(Job.kind == "brief").count() == 2
    assert get_brief(client)["brief"]["window"] == {"start": TODAY.isoformat(), "end": day.isoformat()}


def test_brief_settings_are_validated():
    settings = load_settings({"SECRET_KEY": "x" * 32})
    assert (settings.brief_hour_utc, settings.brief_lookback_days) == (3, 7)
    assert load_settings({"SECRET_KEY": "x" * 32, "BRIEF_HOUR_UTC": "0"}).brief_hour_utc == 0
    for env in ({"BRIEF_HOUR_UTC": "24"}, {"BRIEF_HOUR_UTC": "-1"}, {"BRIEF_HOUR_UTC": "3am"},
                {"BRIEF_LOOKBACK_DAYS": "0"}):
        with pytest.raises(SettingsError) as caught:
            load_settings({"SECRET_KEY": "x" * 32, **env})
        assert str(caught.value).startswith(next(iter(env)))


# --- Discovery seeded by the brief -------------------------------------------------------------------

def test_discover_with_the_brief_keeps_its_products_and_their_categories(app, client, run_jobs, settings_with,
                                                                         tmp_path):
    load(item("g-best", rank=90, category="Garden"), item("g-thin", rank=95, category="Garden", cost=29.0),
         item("k-best", rank=10, category="Kitchen"))
    run_cli(app)
    feed = [item("g-best", rank=90, category="Garden", days=(1, 2, 3)), item("g-new", rank=50, category="Garden"),
            item("k-new", rank=99, category="Kitchen"), item("toys-new", rank=99, category="Toys")]
    (tmp_path / "feed.jsonl").write_text("".join(json.dumps(line) + "\n" for line in feed))
    settings_with(supplier_feed=str(tmp_path))
    body = discover(client, use_research_brief=True, mode="refresh")
    assert body["status"] == "ok" and body["stderr"] == [], body
    assert [line.split()[:2] for line in body["log"][:-1]] == [["added", "k-new"], ["updated", "g-best"],
                                                               ["added", "g-new"]]
    assert ("matched (the research brief of 2026-11-22: 2 products in 2 categories)" in body["log"][-1])
    assert "4 feed products read, 3 matched" in body["log"][-1]

    # With a query too, both must match.
    body = discover(client, q="g-new", use_research_brief=True)
    assert 'matched (the query "g-new" and the research brief of 2026-11-22' in body["log"][-1]
