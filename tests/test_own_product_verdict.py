"""A founder's own product in its own words (issue 47, points 5 and 6): its offer and its
dashboard speak of the founder's price and cost, never the catalog's; with no outside evidence
it is not passed for that but worth a small test, and the verdict says what the founder can
learn meanwhile (the margin at their price, where ads break even, their price against similar
catalog products). Every evidence count reads as dated readings, never rows or a gate."""
from decimal import Decimal as D

import pytest

from services.research import verdict
from tests.factories import claim, find, item, load
from tests.own_products import own_product, similar_catalog

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

# Words a founder's own product must never be described with.
CATALOG_WORDS = ("catalog's price", "catalog's cost", "catalog cost", "market price of the catalog record")


def facts_of(board: dict) -> dict:
    return {f["id"]: f for f in board["facts"]}


def words_of(board: dict) -> str:
    """Everything a founder reads of a dashboard: its because and its facts."""
    return " ".join([board["because"], *(f["text"] for f in board["facts"])])


def test_the_offer_of_an_own_product_reads_the_founders_price_and_cost(client, run_jobs):
    similar_catalog()
    product_id = own_product(client, run_jobs)
    offer = client.get("/api/offer").get_json()
    assert (offer["status"], offer["product_id"], offer["own_product"], offer["cost_given"]) == (
        "ok", product_id, True, True)
    inputs = {i["name"]: i for i in offer["inputs"]}
    assert inputs["your_price"]["source"] == {"type": "own", "field": "price"} and inputs["your_price"]["value"] == 38
    assert inputs["your_cost"]["source"] == {"type": "own", "field": "cost"} and inputs["your_cost"]["value"] == 11.5
    assert not {"market_price", "catalog_cost"} & set(inputs)
    assert not [i for i in offer["inputs"] if i["source"]["type"] == "catalog"]
    figures = {f["name"]: f for f in offer["figures"]}
    assert (figures["price"]["formula"], figures["price"]["inputs"]) == ("your own price", ["your_price"])
    assert (figures["cost"]["formula"], figures["cost"]["inputs"]) == ("the unit cost you gave", ["your_cost"])
    assert "your_price" in figures["fees"]["inputs"]
    assert not [f["formula"] for f in offer["figures"] if "catalog" in f["formula"]]
    # The figures are the offer's rules over the founder's figures: 38 - 11.50 - 4.50 - 1.40.
    assert (offer["price"], offer["cost"], offer["unit_margin"], offer["margin_pct"], offer["break_even_roas"]) == (
        38.0, 11.5, 20.6, 54.21, 1.84)


def test_an_own_product_without_outside_evidence_is_worth_a_small_test_not_a_pass(client, run_jobs):
    similar_catalog()
    product_id = own_product(client, run_jobs)
    board = client.get("/api/dashboard").get_json()
    assert (board["status"], board["product_id"], board["own_product"]) == ("ok", product_id, True)
    assert (board["verdict"], board["rule"]) == ("test_small", "no_outside_evidence"), board["because"]
    because = board["because"]
    assert because.startswith("No outside readings yet, so this is no verdict on demand for your own product: test "
                              "it small to get that evidence. Your own figures say:")
    assert "at your price of $38.00 each sale leaves $20.60 (54.21% of the price)" in because
    assert "ads break even at a ROAS of 1.84" in because
    assert ("3 similar catalog products (Kitchen) sell for $20.00 to $45.00, $30.00 in the middle: your price is "
            "above the middle.") in because
    facts = facts_of(board)
    assert facts["price"]["text"] == "Your price: $38.00."
    assert facts["price"]["source"] == {"type": "own", "field": "price"}  # the founder's figure as they gave it
    assert facts["cost"]["text"].startswith("Each unit costs $11.50, the cost you gave:")
    assert (facts["similar_prices"]["value"], facts["similar_prices"]["source"]) == (
        30.0, {"type": "similar", "category": "Kitchen", "products": 3})
    assert facts["evidence_in_window"]["text"] == "No outside readings yet: nothing has measured demand for your own product."
    assert {"type": "own", "field": "price"} in board["sources"] and {"type": "own", "field": "cost"} in board["sources"]
    assert {"type": "similar", "category": "Kitchen", "products": 3} in board["sources"]
    assert not [s for s in board["sources"] if s["type"] == "catalog"]
    words = words_of(board)
    assert not [w for w in (*CATALOG_WORDS, "row(s)", "evidence row", "gate", "Pass") if w in words], words


def test_an_own_product_with_no_cost_given_says_the_figures_count_it_as_nothing(client, run_jobs):
    similar_catalog()
    own_product(client, run_jobs, cost=None, price=25.0)
    offer = client.get("/api/offer").get_json()
    assert (offer["cost"], offer["cost_given"]) == (0, False)
    cost = next(f for f in offer["figures"] if f["name"] == "cost")
    assert cost["formula"] == "not given yet: counted as 0 until you say what one unit costs you"
    board = client.get("/api/dashboard").get_json()
    assert (board["verdict"], board["rule"]) == ("test_small", "no_outside_evidence")
    assert "You have not said what one unit costs you, so these figures count it as $0.00." in board["because"]
    assert "your price is below the middle" in board["because"]
    assert facts_of(board)["cost"]["text"].startswith("You have not said what one unit costs you, so every figure "
                                                      "counts it as $0.00")


def test_an_own_product_that_loses_money_is_still_passed_by_its_own_figures(client, run_jobs):
    similar_catalog()
    own_product(client, run_jobs, price=10.0, cost=7.5)  # 10 - 7.50 - 4.50 - 0.59: each sale loses money
    board = client.get("/api/dashboard").get_json()
    assert (board["verdict"], board["rule"]) == ("pass", "loses_money"), board["because"]


def test_with_nothing_like_it_in_the_catalog_the_verdict_says_so(client, run_jobs):
    load(item("m1", name="Yoga Mat", category="Sports", price=99.0))
    own_product(client, run_jobs)
    board = client.get("/api/dashboard").get_json()
    assert board["rule"] == "no_outside_evidence"
    assert "No similar catalog product was found to compare your price with." in board["because"]
    fact = facts_of(board)["similar_prices"]
    assert (fact["value"], fact["source"]["type"]) == (None, "none")


def test_a_catalog_product_counts_dated_readings_and_keeps_its_words(client, run_jobs):
    load(item("p1", price=26.0, cost=10.0))
    find(client)
    claim(client)
    run_jobs()
    board = client.get("/api/dashboard").get_json()
    assert (board["verdict"], board["rule"], board["own_product"]) == ("go", "strong", False)
    facts = facts_of(board)
    assert facts["evidence_in_window"]["text"] == "3 dated readings from the last 540 days (a verdict needs at least 2)."
    assert facts["price"]["text"] == "Recommended retail price $26.00."
    assert "the catalog's cost" in facts["cost"]["text"]
    assert facts["risk"]["text"] == "3 dated readings from the last 180 days and no falling demand signal."
    assert "similar_prices" not in facts
    assert client.get("/api/offer").get_json()["own_product"] is False


@pytest.mark.parametrize("rows,words", [
    (1, "Only 1 dated reading from the last 540 days; a verdict needs at least 2."),
    (0, "No dated readings from the last 540 days; a verdict needs at least 2."),
])
def test_too_little_evidence_on_a_catalog_product_still_passes_in_a_founders_words(rows, words):
    inputs = verdict.Inputs(unit_margin=D("10"), margin_pct=D("40"), target_margin_pct=D("30"), demand="high",
                            risk="low", gate_rows=rows, gate_min_rows=2, gate_days=540)
    assert verdict.decide(inputs) == ("pass", "too_little_evidence", words)


def test_the_own_product_rule_is_published_with_the_verdict_rules(client):
    decisions = client.get("/api/openapi.json").get_json()["info"]["x-decisions"]
    dashboard = next(d for d in decisions if d.startswith("GET /api/dashboard:"))
    assert "3. test_small (no_outside_evidence) for a founder's own product" in dashboard
    assert any("Own-product verdict" in d for d in decisions)


SIMILAR = {"category": "Kitchen", "products": 3, "low": 20.0, "median": 30.0, "high": 45.0, "currency": "USD"}


@pytest.mark.parametrize("price,similar,words", [
    ("30.01", SIMILAR, "3 similar catalog products (Kitchen) sell for $20.00 to $45.00, $30.00 in the middle: your "
                       "price is above the middle."),
    ("30.00", SIMILAR, "3 similar catalog products (Kitchen) sell for $20.00 to $45.00, $30.00 in the middle: your "
                       "price is right in the middle."),
    ("29.99", SIMILAR, "3 similar catalog products (Kitchen) sell for $20.00 to $45.00, $30.00 in the middle: your "
                       "price is below the middle."),
    ("30.00", {**SIMILAR, "products": 1, "low": 30.0, "high": 30.0},
     "The one similar catalog product (Kitchen) sells for $30.00: your price is the same."),
    ("12.00", {**SIMILAR, "products": 1, "low": 30.0, "high": 30.0},
     "The one similar catalog product (Kitchen) sells for $30.00: your price is below it."),
    ("12.00", None, "No similar catalog product was found to compare your price with."),
])
def test_the_price_against_similar_products_on_both_sides_of_the_middle(price, similar, words):
    assert verdict.compared_with_similar(D(price), similar) == words
