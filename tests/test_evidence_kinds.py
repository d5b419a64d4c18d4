"""The evidence classifier (services/evidence_kinds.py): each published rule pinned on plain
rows, whatever a catalog calls its metrics: kind (rank, money, rate, duration, else count),
roles, direction of a series, level against a scale or the catalog's peers, and rows that
are not dated numbers ignored."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services import evidence_kinds as kinds

DAY = date(2026, 11, 22)


def row(days_ago, value, metric="units_sold_30d", source="shop_feed"):
    return {"date": (DAY - timedelta(days=days_ago)).isoformat(), "source": source, "metric": metric, "value": value,
            "note": ""}


# --- Kind and roles --------------------------------------------------------------------------

@pytest.mark.parametrize("metric,kind", [
    ("category_rank", kinds.RANK), ("bsr_rank", kinds.RANK), ("searchPosition", kinds.RANK), ("BSR", kinds.RANK),
    ("unit_price_quote", kinds.MONEY), ("supplier_cost", kinds.MONEY), ("competitor_price", kinds.MONEY),
    ("return_rate", kinds.RATE), ("ctr_pct", kinds.RATE), ("market_share", kinds.RATE),
    ("shipping_days", kinds.DURATION), ("lead_time", kinds.DURATION),
    # A window is not a duration, and anything else numeric is a count or level.
    ("units_sold_30d", kinds.COUNT), ("orders_30d", kinds.COUNT), ("mentions_30d", kinds.COUNT),
    ("hashtag_views", kinds.COUNT), ("search_interest", kinds.COUNT), ("interest_index", kinds.COUNT),
    ("monthly_searches", kinds.COUNT), ("listings_count", kinds.COUNT), ("shares", kinds.COUNT),
])
def test_the_kind_is_read_from_the_words_of_the_name(metric, kind):
    assert kinds.kind_of(metric) == kind


def test_a_rank_is_better_lower_and_nothing_else_is():
    assert kinds.lower_is_better("category_rank") and kinds.lower_is_better("bsr_rank")
    assert not any(kinds.lower_is_better(m) for m in ("units_sold_30d", "hashtag_views", "search_interest"))


def test_fractions_between_0_and_1_are_a_rate_by_their_data_whatever_the_name():
    assert kinds.kind_of("add_to_cart", [0.031, 0.042]) == kinds.RATE
    assert kinds.kind_of("add_to_cart", [0, 1, 1]) == kinds.COUNT  # whole numbers count
    assert kinds.kind_of("add_to_cart", [0.5, 3.0]) == kinds.COUNT  # one reading above 1 is no fraction


@pytest.mark.parametrize("metric,roles", [
    ("search_interest", {kinds.DEMAND}), ("units_sold_30d", {kinds.DEMAND}), ("category_rank", {kinds.DEMAND}),
    ("mentions_30d", {kinds.DEMAND, kinds.TALK}), ("monthly_mentions", {kinds.DEMAND, kinds.TALK}),
    ("listings_count", {kinds.COMPETITION}), ("sellers", {kinds.COMPETITION}),
    ("reviews", {kinds.COMPETITION, kinds.REVIEWS}), ("star_rating", {kinds.REVIEWS}),
    ("unit_price_quote", {kinds.PRICE}), ("shipping_days", {kinds.DELIVERY}), ("lead_time", set()),
    ("return_rate", {kinds.RETURNS}), ("conversion_rate", set()),
])
def test_roles_say_what_a_metric_can_back(metric, roles):
    assert kinds.roles_of(metric) == roles


def test_money_is_private_and_nothing_else_is():
    assert kinds.private("unit_price_quote") and kinds.private("supplier_cost") and kinds.private("competitor_price")
    assert not any(kinds.private(m) for m in ("units_sold_30d", "category_rank", "return_rate", "shipping_days"))


@pytest.mark.parametrize("metric,label", [
    ("units_sold_30d", "units sold over 30 days"), ("mentions_30d", "mentions over 30 days"),
    ("hashtag_views", "hashtag views"), ("category_rank", "category rank"), ("views_1w", "views over 1 week"),
    ("bsr_rank", "best-seller rank"), ("unitsSold", "units sold"),
])
def test_labels_are_the_name_in_words(metric, label):
    assert kinds.label(metric) == label


# --- Direction ---------------------------------------------------------------------------------

def test_a_count_rises_falls_or_holds_by_its_newest_reading_against_the_one_before():
    rising = kinds.classify("units_sold_30d", [row(60, 100), row(30, 120), row(3, 150)])
    assert (rising.direction, rising.change_pct, rising.before.value, rising.newest.value) == ("rising", 25.0, 120, 150)
    falling = kinds.classify("units_sold_30d", [row(30, 150), row(3, 120)])
    assert (falling.direction, falling.change_pct) == ("falling", -20.0)
    steady = kinds.classify("units_sold_30d", [row(30, 150), row(3, 121)])
    assert (steady.direction, steady.change_pct) == ("steady", -19.3)


def test_a_rank_rises_when_its_number_falls():
    climbing = kinds.classify("category_rank", [row(30, 50, "category_rank"), row(3, 12, "category_rank")])
    assert (climbing.kind, climbing.direction, climbing.change_pct) == ("rank", "rising", -76.0)
    slipping = kinds.classify("category_rank", [row(30, 12, "category_rank"), row(3, 50, "category_rank")])
    assert slipping.direction == "falling"


def test_a_single_reading_tells_no_direction():
    one = kinds.classify("hashtag_views", [row(3, 2_400_000, "hashtag_views")])
    assert (one.direction, one.change_pct, one.before, one.newest.value) == ("single", None, None, 2_400_000)


def test_a_series_is_one_metric_from_one_source():
    rows = [row(30, 100, source="a"), row(20, 10, source="b"), row(3, 130, source="a")]
    found = kinds.classify("units_sold_30d", rows)
    assert (found.newest.source, found.direction, found.before.value) == ("a", "rising", 100)
    assert set(kinds.series(rows)) == {("a", "units_sold_30d"), ("b", "units_sold_30d")}


def test_from_zero_the_direction_has_no_percentage():
    found = kinds.classify("orders_30d", [row(30, 0, "orders_30d"), row(3, 4, "orders_30d")])
    assert (found.direction, found.change_pct) == ("rising", None)


# --- Rows that are not dated numbers ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"value": "lots"}, {"value": None}, {"value": True}, {"value": float("nan")}, {"value": float("inf")},
    {"date": None}, {"date": "last week"}, {"date": ""}, {"metric": None},
])
def test_rows_without_a_date_or_a_finite_number_are_ignored(bad):
    rows = [row(30, 100), {**row(3, 900), **bad}]
    assert kinds.readings(rows) == [kinds.Reading(DAY - timedelta(days=30), "shop_feed", "units_sold_30d", 100.0)]
    found = kinds.classify("units_sold_30d", rows)
    assert (found.direction, found.newest.value) == ("single", 100)
    assert kinds.classify("units_sold_30d", [{**row(3, 900), **bad}]) is None


def test_objects_with_attributes_are_read_like_dicts():
    class Evidence:
        date, source, metric, value = DAY, "shop_feed", "orders_30d", 12

    assert kinds.reading(Evidence()) == kinds.Reading(DAY, "shop_feed", "orders_30d", 12.0)


# --- Level -------------------------------------------------------------------------------------

def test_a_metric_with_a_published_scale_reads_against_it():
    assert kinds.level("monthly_searches", 20000) == ("high", "scale")
    assert kinds.level("bsr_rank", 1001) == ("medium", "scale")
    assert kinds.level("bsr_rank", 5001, peers=[1, 2, 3, 4, 5]) == ("low", "scale")  # the scale wins over peers


def test_any_other_metric_reads_against_its_peers_in_the_catalog():
    peers = [100, 200, 300, 400, 500, 600]
    assert kinds.level("units_sold_30d", 450, peers) == ("high", "peers")  # at least 4 of 6
    assert kinds.level("units_sold_30d", 250, peers) == ("medium", "peers")  # 2 of 6
    assert kinds.level("units_sold_30d", 150, peers) == ("low", "peers")  # 1 of 6
    # A rank is as good as the peers it is at or below.
    assert kinds.level("category_rank", 150, peers) == ("high", "peers")
    assert kinds.level("category_rank", 550, peers) == ("low", "peers")


def test_with_too_few_peers_the_level_is_unknown():
    assert kinds.level("units_sold_30d", 10 ** 9, [1] * (kinds.PEERS_MIN - 1)) == ("unknown", "none")
    found = kinds.classify("units_sold_30d", [row(3, 5)], peers=[1, 2, 3, 4])
    assert (found.level, found.basis, found.peers) == ("high", "peers", 4)
    alone = kinds.classify("units_sold_30d", [row(3, 5)])
    assert (alone.level, alone.basis, alone.peers) == ("unknown", "none", 0)


def test_classify_all_takes_every_metric_once():
    rows = [row(30, 1, "orders_30d"), row(3, 2, "orders_30d"), row(3, 9, "category_rank"), row(3, "n/a", "junk")]
    found = kinds.classify_all(rows)
    assert sorted(found) == ["category_rank", "orders_30d"]
    assert found["orders_30d"].summary() == {
        "metric": "orders_30d", "source": "shop_feed", "kind": "count", "roles": ["demand"], "lower_is_better": False,
        "direction": "rising", "change_pct": 100.0, "level": "unknown", "level_basis": "none", "peers": 0}


# --- Trends: the series the app draws ------------------------------------------------------

def test_trends_are_series_per_metric_and_source_longest_first_each_oldest_first_and_capped():
    rows = ([row(d, 100 - d, "interest_index", "google_trends") for d in range(30, 0, -1)]  # 30 readings
            + [row(5, 1800, "bsr_rank", "amazon"), row(50, 2400, "bsr_rank", "amazon")]
            + [row(7, 22400, "monthly_searches", "search_volume")]
            + [row(3, "n/a", "monthly_searches", "search_volume"), row(2, 9, "")])  # not dated numbers: left out
    trends = kinds.trends(rows)
    assert [(t["metric"], t["source"], len(t["points"])) for t in trends] == [
        ("interest_index", "google_trends", kinds.TREND_POINTS), ("bsr_rank", "amazon", 2),
        ("monthly_searches", "search_volume", 1)]
    newest = trends[0]["points"]
    assert newest[0] == {"date": (DAY - timedelta(days=kinds.TREND_POINTS)).isoformat(), "value": 100 - kinds.TREND_POINTS}
    assert newest[-1] == {"date": (DAY - timedelta(days=1)).isoformat(), "value": 99}
    assert trends[1]["points"] == [{"date": (DAY - timedelta(days=50)).isoformat(), "value": 2400},
                                   {"date": (DAY - timedelta(days=5)).isoformat(), "value": 1800}]
    assert (trends[1]["label"], trends[1]["lower_is_better"]) == ("best-seller rank", True)
    assert (trends[0]["label"], trends[0]["lower_is_better"]) == ("search interest index", False)
    many = [row(1, 1, f"metric_{n}", "s") for n in range(kinds.TREND_SERIES + 2)]
    assert len(kinds.trends(many)) == kinds.TREND_SERIES
    assert kinds.trends([]) == []
