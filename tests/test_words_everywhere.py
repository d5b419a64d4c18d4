"""Words a founder reads, the last of issue 47 point 6, through HTTP: the analysis and the
store's proposals name a series by its words and its source and say their days in the one style
(services/day_words.py: "5 December 2026"), never a row's keys or an ISO date; the 3D preview
and the app's progress say what is happening for the founder, never that the service waits for
a worker; the assistant calls an own product's price the founder's own; and the app writes
every time in the one style (words.js), never the browser's locale style. The app's screens
themselves are read in Chromium: tests/browser/test_one_time_style_journey.py."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from models.job import WorkerBeat
from services.day_words import day_words
from tests.conftest import ROOT
from tests.factories import TODAY, TRENDING, claim, claimed_founder, find, item, load, refusal, saved

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
MACHINERY = re.compile(r"\bworkers?\b", re.I)
APP = ROOT / "api" / "static" / "app"


def ago(days: int) -> str:
    return (TODAY - timedelta(days=days)).isoformat()


def line(pid: str, evidence: list[tuple[int, str, str, float]]) -> dict:
    """A catalog line whose evidence is (days ago, source, metric, value) readings."""
    return item(pid, rank=1000) | {"evidence": [{"date": ago(days), "source": source, "metric": metric,
                                                 "value": value, "note": ""}
                                                for days, source, metric, value in evidence]}


RISING = [(90, "google_trends", "interest_index", 40), (40, "google_trends", "interest_index", 40),
          (10, "google_trends", "interest_index", 60)]


def figure(body: dict, name: str) -> dict:
    return next(f for f in body["figures"] if f["id"] == name)


# --- The analysis and the store's proposals -------------------------------------------------------

def test_the_analysis_names_a_moving_series_by_its_source_and_says_its_days_in_words(founder, run_jobs):
    # Search interest rising (40 -> 60), and competing listings read only long ago.
    load(line("p00", [*RISING, (200, "etsy_listings", "listings_count", 300)]))
    client = founder()
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    run_jobs()  # the research
    body = client.get("/api/analysis").get_json()
    assert body["status"] == "ok", body
    demand = figure(body, "demand")["because"]
    assert f"Search interest index (Google Trends) is rising, +50% since {day_words(ago(40))}." in demand
    competition = figure(body, "competition")["because"]
    assert f"(the newest, from {day_words(ago(200))}, is older)" in competition
    for because in (demand, competition):
        assert not ISO_DAY.search(because) and "google_trends" not in because, because


def test_a_proposal_says_its_days_in_words(founder):
    load(line("p00", RISING))
    client = founder()
    find(client)  # a held product is enough to propose
    body = client.post("/api/intent", json=TRENDING).get_json()
    assert body["status"] == "proposed", body
    assert body["because"].startswith(f"Google Trends reports search interest index 60 on {day_words(ago(10))}, "
                                      f"up from 40 on {day_words(ago(40))} (+50%): "), body["because"]
    assert not ISO_DAY.search(body["because"])
    assert body["source_row"]["date"] == ago(10)  # the row itself keeps its ISO date: it is data


def test_a_refused_proposal_names_the_falling_readings_by_their_words_and_days(founder):
    load(line("p00", [(40, "google_trends", "interest_index", 80), (5, "google_trends", "interest_index", 50)]))
    client = founder()
    find(client)
    refused = refusal(client.post("/api/intent", json=TRENDING), 200, "no_row_justifies_this")
    explanation = refused["explanation"]
    assert f"The newest reading is falling: search interest index -37.5% since {day_words(ago(40))}." in explanation
    assert "interest_index" not in explanation and not ISO_DAY.search(explanation), explanation


# --- The machinery's words -------------------------------------------------------------------------

def test_the_3d_preview_with_no_worker_heard_from_says_what_happens_not_who_runs_it(founder):
    load(item("kitchen-avocado-slicer-3in1"))
    client = founder()
    find(client)
    assert WorkerBeat.select().count() == 0  # no worker heard from: the preview cannot be built now
    body = client.get("/api/model").get_json()
    assert (body["status"], body["reason"]) == ("no_worker", "no_worker")
    assert "shown as its photograph" in body["explanation"] and "by itself" in body["explanation"]
    assert not MACHINERY.search(body["explanation"]), body["explanation"]


def _said_in(source: str) -> list[str]:
    """The lines of a script that are not comments (what a screen can show lives there)."""
    return [text for text in source.splitlines() if not text.strip().startswith(("//", "*", "/*"))]


def test_no_screen_of_the_app_and_no_lesson_speaks_of_workers():
    said = [f"{path.relative_to(ROOT)}: {text.strip()}" for path in sorted(APP.rglob("*.js"))
            for text in _said_in(path.read_text(encoding="utf-8")) if MACHINERY.search(text)]
    said += [f"{path.relative_to(ROOT)}: {text.strip()}" for path in sorted((ROOT / "curriculum").rglob("*.md"))
             for text in path.read_text(encoding="utf-8").splitlines() if MACHINERY.search(text)]
    assert not said, "\n".join(said)


# --- One style for every time on a screen ----------------------------------------------------------

# The browser's locale styles: toLocaleString and its kin with a date or time style write
# "Dec 5, 2026, 12:00 PM" in one browser and "05/12/2026" in another.
LOCALE_TIME = re.compile(r"toLocale(?:Date|Time)String|\b(?:dateStyle|timeStyle)\b")


def test_the_app_writes_no_time_in_the_browsers_locale_style():
    found = [f"{path.relative_to(ROOT)}: {text.strip()}" for path in sorted(APP.rglob("*.js"))
             for text in _said_in(path.read_text(encoding="utf-8")) if LOCALE_TIME.search(text)]
    assert not found, "\n".join(found)


# --- The assistant and an own product's price ------------------------------------------------------

def ask_price(client) -> dict:
    response = client.post("/api/intent", json={"message": "what is my price?"})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["kind"] == "answer", body
    return body


@pytest.mark.usefixtures("worker")  # the assistant reads the sentence in a job the route waits on
def test_the_assistant_calls_an_own_products_price_the_founders_own(client):
    load(item("c1", name="Espresso Cup", category="Kitchen", price=20.0))
    created = client.post("/api/product", json={"name": "Hand-thrown Espresso Cups", "price": 38.0, "cost": 11.5,
                                                "description": "Two stoneware espresso cups, glazed by hand."})
    assert created.get_json()["status"] == "created", created.get_data(as_text=True)
    body = ask_price(client)
    assert body["answer"].startswith("Your price for Hand-thrown Espresso Cups is $38.00 (the price you set)."), body
    assert "catalog" not in body["answer"] and "offer" not in body["answer"]
    assert body["cites"][0]["own"] is True and body["cites"][0]["product_id"] == created.get_json()["product_id"]


@pytest.mark.usefixtures("worker")
def test_the_assistant_calls_a_price_the_founder_set_theirs_and_the_catalogs_price_an_offer(founder):
    client = claimed_founder(founder)
    body = ask_price(client)
    cite = body["cites"][0]
    assert f"${cite['price']:.2f} (your offer)." in body["answer"] and cite["own"] is False, body
    saved(client, price=45.0)
    body = ask_price(client)
    assert "$45.00 (the price you set)." in body["answer"] and body["cites"][0]["own"] is True, body
