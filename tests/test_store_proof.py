"""A store that leads with its evidence leads its public home page with what that evidence backs,
in a shopper's words (issue 47, point 3: "Lead the home page with" shows what the page really
leads with). The evidence rows themselves are the founder's research (point 2): the founder's
preview shows them, a shopper never sees a figure, a rank or a research source. What a shopper
reads is services/store/proof.py's: shoppers are looking for the product, as of a month, said
only while a demand series that is not falling backs it."""
from __future__ import annotations

import re
from datetime import timedelta

from services.store.proof import backing_readings, shopper_proof
from tests.factories import TODAY, built, claimed_founder, demo_item
from tests.store_pages import RESEARCH, publish, researched_item, visible


def reading(days_ago: int, value: float, metric="interest_index", source="google_trends") -> dict:
    """An evidence row dated `days_ago` before the tests' today."""
    return {"date": (TODAY - timedelta(days=days_ago)).isoformat(), "source": source, "metric": metric,
            "value": value}


def month_of(days_ago: int) -> str:
    day = TODAY - timedelta(days=days_ago)
    return f"{day.strftime('%B')} {day.year}"


# --- What the rows back -----------------------------------------------------------------------

def test_a_rising_demand_series_says_more_and_more_shoppers_are_looking():
    said = shopper_proof([reading(40, 40), reading(5, 60)], "Knife Strip")
    assert said == {"heading": "Popular right now", "text": "More and more shoppers are looking for Knife Strip.",
                    "as_of": month_of(5)}


def test_a_steady_or_single_reading_says_shoppers_are_looking_without_more_and_more():
    assert shopper_proof([reading(40, 50), reading(5, 52)], "Cups")["text"] == "Shoppers are looking for Cups."
    assert shopper_proof([reading(5, 50)], "Cups")["text"] == "Shoppers are looking for Cups."


def test_a_falling_series_and_rows_that_are_not_demand_back_nothing():
    assert shopper_proof([reading(40, 80), reading(5, 40)], "Cups") is None
    assert shopper_proof([reading(5, 4.5, metric="rating"), reading(5, 7, metric="shipping_days")], "Cups") is None
    assert shopper_proof([], "Cups") is None


def test_a_reading_its_published_scale_calls_low_backs_no_popular():
    # interest_index is low under 40 (services/evidence_kinds.SCALES), even when it rises.
    assert shopper_proof([reading(40, 10), reading(5, 30)], "Cups") is None


def test_a_best_seller_rank_that_improves_is_rising_demand():
    # A rank is better when lower: 900 -> 400 is more shoppers, not fewer.
    said = shopper_proof([reading(40, 900, "bsr_rank", "amazon"), reading(5, 400, "bsr_rank", "amazon")], "Cups")
    assert said["text"].startswith("More and more")


def test_the_readings_behind_the_line_are_the_newest_of_each_backing_series_newest_first():
    rows = [reading(40, 40), reading(10, 60),  # interest rising: backs
            reading(30, 900, "bsr_rank", "amazon"), reading(5, 400, "bsr_rank", "amazon"),  # rank improving: backs
            reading(40, 80, "weekly_views", "tiktok"), reading(3, 10, "weekly_views", "tiktok")]  # falling: not
    assert [(r.metric, r.value) for r in backing_readings(rows)] == [("bsr_rank", 400), ("interest_index", 60)]
    assert backing_readings([reading(40, 80), reading(5, 40)]) == []


# --- On the store's pages ---------------------------------------------------------------------

def home_sections(html: str) -> list[str]:
    return re.findall(r'<section class="section section-([a-z]+)"', html)


def test_a_store_led_with_its_evidence_leads_its_public_home_page_with_the_shoppers_words(founder, run_jobs):
    client = claimed_founder(founder, researched_item())
    built(client, run_jobs)
    ordered = client.post("/api/intent/order", json={"section": "evidence"}).get_json()
    assert ordered["lead"] == "evidence", ordered
    base = publish(client)

    home = client.get(base).get_data(as_text=True)
    assert home_sections(home)[0] == "evidence"
    band = home[home.index('section-evidence'):]
    band = visible(band[:band.index("</section>")])
    assert "Popular right now" in band and "Shoppers are looking for" in band
    # No figure, no rank, no research source: the shopper reads the words the rows back.
    assert RESEARCH.search(visible(home)) is None
    assert not re.search(r"\d", band.replace(month_of(5), "").replace("Product p00", "")), band
    # The founder's preview still shows the research behind it, said to be theirs only.
    preview = client.get(client.get("/api/store").get_json()["preview_url"]).get_data(as_text=True)
    assert "Why this product" in preview and "Only you see this section" in preview


def test_with_falling_demand_the_public_evidence_section_shows_nothing(founder, run_jobs):
    line = demo_item()
    line["evidence"] = [{**reading(days, value), "note": ""} for days, value in ((90, 90), (40, 80), (10, 30))]
    client = claimed_founder(founder, line)
    built(client, run_jobs)
    client.post("/api/intent/order", json={"section": "evidence"})
    home = client.get(publish(client)).get_data(as_text=True)
    assert "evidence" not in home_sections(home) and "Popular right now" not in home


# --- What the Store screen draws --------------------------------------------------------------

def test_the_drafts_home_sections_are_the_sections_its_preview_and_public_page_show(founder, run_jobs):
    client = claimed_founder(founder, researched_item())
    state = built(client, run_jobs)
    draft = client.get("/api/editor/draft").get_json()
    preview = home_sections(client.get(state["preview_url"]).get_data(as_text=True))
    assert [s["section"] for s in draft["home_sections"]] == preview
    assert all(s["said"] and "_" not in s["said"] for s in draft["home_sections"])
    public = home_sections(client.get(publish(client)).get_data(as_text=True))
    assert [s["section"] for s in draft["home_sections"] if s["shoppers_see"]] == public
    # Shoppers see what the steady demand backs; the preview shows the rows behind it.
    assert {s["section"]: s["shoppers_see"] for s in draft["home_sections"]}["evidence"] is True


def test_a_section_with_nothing_to_show_is_on_no_page_and_not_in_the_drawing(founder, run_jobs):
    line = demo_item()
    line["evidence"] = [{**reading(days, value), "note": ""} for days, value in ((90, 90), (40, 80), (10, 30))]
    client = claimed_founder(founder, line)
    state = built(client, run_jobs)
    draft = client.get("/api/editor/draft").get_json()
    said = {s["section"]: s["shoppers_see"] for s in draft["home_sections"]}
    # Falling demand: the rows show in the preview only, and the drawing says so.
    assert said["evidence"] is False
    # Format 1 documents carry no reviews: no page lists the section.
    assert "reviews" not in said and "reviews" not in home_sections(client.get(state["preview_url"]).get_data(
        as_text=True))
