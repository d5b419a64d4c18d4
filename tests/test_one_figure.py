"""One figure for one fact (issue 47, point 4): the connected supplier's offer line is the
offer's unit cost, with its source and what its minimum order costs up front, and the
offer, the dashboard, the analysis, the orders' profit and the assistant read that one
figure; an order is what a customer paid for (a checkout not paid is listed apart, and
never counted); an outcome's revenue is what Orders confirmed, unless the founder says
otherwise. The decisions are in api/suppliers.py and api/commerce.py."""
from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest

from models.payment import CustomerOrder
from models.supplier import SupplierConnection
from tests.factories import (
    FEED,
    KNIFE_STRIP,
    TODAY,
    built,
    choose,
    claimed_founder,
    connect_line,
    demo_product,
    item,
    line_of,
    load,
    revenue_of,
    started,
)

pytestmark = pytest.mark.usefixtures("frozen_clock")  # the catalog's evidence is dated from tests.factories.NOW

# The knife strip of the demo catalog: its catalog cost is 11.20 USD and its newest supplier
# quote 7.85; the feed's Ningbo Homeware Co. offers it at 8.30 USD, 100 units at least.
NINGBO = line_of(KNIFE_STRIP, 1)
assert (NINGBO["supplier"], NINGBO["cost"], NINGBO["currency"], NINGBO["moq"]) == (
    "Ningbo Homeware Co.", 8.3, "USD", 100)


def cents(value) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def researched(client, run_jobs) -> dict:
    client.get("/api/offer")
    run_jobs()
    offer = client.get("/api/offer").get_json()
    assert offer["status"] == "ok", offer
    return offer


def figure(offer: dict, name: str) -> dict:
    return next(f for f in offer["figures"] if f["name"] == name)


def knife_strip_founder(founder, run_jobs):
    product = demo_product(KNIFE_STRIP)
    # The catalog's own quote, a bulk price below the catalog cost (so not the offer's cost).
    product["evidence"].append({"date": (TODAY - timedelta(days=15)).isoformat(), "source": "supplier_quote",
                                "metric": "unit_price_quote", "value": 7.85, "note": "FOB at a 500-piece MOQ"})
    client = claimed_founder(founder, product)
    return client, researched(client, run_jobs)


# --- The offer's cost ----------------------------------------------------------------------------

def test_connecting_a_supplier_makes_its_unit_cost_the_offers_cost_with_its_source_and_first_order(founder,
                                                                                                    run_jobs):
    client, before = knife_strip_founder(founder, run_jobs)
    assert (before["cost"], before["supplier"]) == (11.2, None)
    assert {"catalog_cost", "supplier_quote"} <= {i["name"] for i in before["inputs"]}

    connect_line(client, NINGBO)
    offer = client.get("/api/offer").get_json()
    assert offer["cost"] == 8.3
    assert figure(offer, "cost")["inputs"] == ["supplier_unit_cost"]
    assert "Ningbo Homeware Co." in figure(offer, "cost")["formula"]
    (source,) = [i["source"] for i in offer["inputs"] if i["name"] == "supplier_unit_cost"]
    assert source == {"type": "supplier", "supplier": "Ningbo Homeware Co.", "sku": NINGBO["sku"], "currency": "USD"}
    # One unit cost: the catalog's and the quote's are no longer figures the offer shows.
    assert not {"catalog_cost", "supplier_quote"} & {i["name"] for i in offer["inputs"]}
    assert offer["supplier"] == {"supplier": "Ningbo Homeware Co.", "sku": NINGBO["sku"], "name": NINGBO["name"],
                                 "unit_cost": 8.3, "currency": "USD", "moq": 100, "minimum_order_quantity": 100,
                                 "minimum_order_total": 830.0, "used_as_cost": True, "explanation": None}
    # Price, shipping and fees do not depend on the cost; what each sale leaves does.
    assert (offer["price"], offer["shipping"], offer["fees"]) == (before["price"], before["shipping"], before["fees"])
    unit_margin = cents(34.99) - cents(8.30) - cents(offer["shipping"]) - cents(offer["fees"])
    assert offer["unit_margin"] == float(unit_margin) == before["unit_margin"] + 2.9
    assert offer["margin_pct"] == float(cents(unit_margin * 100 / cents(34.99)))
    assert offer["break_even_cpa"] == offer["unit_margin"]

    # Disconnected, the offer is the research's again.
    client.post("/api/supplier-connection", json={"action": "disconnect"})
    assert client.get("/api/offer").get_json()["cost"] == 11.2


def test_the_dashboard_and_the_analysis_read_the_suppliers_cost(founder, run_jobs):
    client, _ = knife_strip_founder(founder, run_jobs)
    board = client.get("/api/dashboard").get_json()
    (cost,) = [f for f in board["facts"] if f["id"] == "cost"]
    assert "$11.20" in cost["text"] and "connect a supplier" in cost["text"]

    connect_line(client, NINGBO)
    offer = client.get("/api/offer").get_json()
    board = client.get("/api/dashboard").get_json()
    assert board["offer"]["cost"] == offer["cost"] == 8.3
    assert board["offer"]["unit_margin"] == offer["unit_margin"]
    facts = {f["id"]: f for f in board["facts"]}
    assert facts["cost"]["text"] == ("Each unit costs $8.30 from your supplier Ningbo Homeware Co. (SKU "
                                     f"{NINGBO['sku']}); their minimum order of 100 units costs $830.00 up front.")
    assert facts["unit_margin"]["value"] == offer["unit_margin"]
    assert f"A margin of {offer['margin_pct']:g}%" in facts["margin"]["text"]
    assert {"type": "supplier", "supplier": "Ningbo Homeware Co.", "sku": NINGBO["sku"],
            "currency": "USD"} in board["sources"]
    analysis = client.get("/api/analysis").get_json()
    (margin,) = [f for f in analysis["figures"] if f["id"] == "margin"]
    assert margin["value"] == offer["margin_pct"]


def test_a_supplier_priced_in_another_currency_is_not_the_cost_and_the_offer_says_why(founder, run_jobs):
    product = item("p00", rank=1000, name="Long Cat Tunnel")
    product["currency"] = "EUR"
    client = claimed_founder(founder, product)
    before = researched(client, run_jobs)
    line = next(line for line in FEED if line["currency"] == "USD" and "Tunnel" in line["name"])
    connect_line(client, line)
    offer = client.get("/api/offer").get_json()
    assert {k: offer[k] for k in ("cost", "unit_margin", "inputs")} == {
        k: before[k] for k in ("cost", "unit_margin", "inputs")}
    assert offer["supplier"]["used_as_cost"] is False
    assert "USD" in offer["supplier"]["explanation"] and "EUR" in offer["supplier"]["explanation"]


def test_a_connection_made_for_another_product_is_not_this_products_cost(founder, run_jobs):
    client, before = knife_strip_founder(founder, run_jobs)
    connect_line(client, NINGBO)
    assert client.get("/api/offer").get_json()["cost"] == 8.3
    # The connection names the product claimed when connecting: another product's offer
    # does not count it.
    load(item("p01"))
    SupplierConnection.update(product="p01").execute()
    assert client.get("/api/offer").get_json()["cost"] == before["cost"] == 11.2


# --- Orders: paid ones, with profit; checkouts apart -----------------------------------------

def knife_strip_store(founder, run_jobs):
    client, offer = knife_strip_founder(founder, run_jobs)
    built(client, run_jobs)
    assert client.post("/api/store/publish").get_json()["status"] == "published"
    return client, offer


def profit_minor(offer: dict, *, quantity: int, amount: Decimal) -> int:
    """Hand-computed: the amount less cost and shipping per unit, less 2.9% + 0.30 of fees."""
    fees = cents(amount * Decimal("2.9") / 100) + cents("0.30")
    profit = amount - quantity * (cents(offer["cost"]) + cents(offer["shipping"])) - fees
    return int(profit * 100)


def test_orders_are_the_paid_ones_with_their_profit_and_open_checkouts_are_listed_apart(founder, run_jobs):
    shop, offer = knife_strip_store(founder, run_jobs)
    paying, leaving = founder(), founder()
    paid = started(paying, quantity=2, product_id=KNIFE_STRIP)
    choose(paying, paid["checkout_url"], "pay")
    run_jobs()
    opened = started(leaving, quantity=1, product_id=KNIFE_STRIP)  # never paid

    tracked = shop.get("/api/tracking").get_json()
    assert tracked["status"] == "ok"
    assert [(o["order_id"], o["state"]) for o in tracked["orders"]] == [(paid["order_id"], "paid")]
    assert [(c["order_id"], c["state"], c["profit_minor"]) for c in tracked["checkouts"]] == [
        (opened["order_id"], "open", None)]
    (order,) = tracked["orders"]
    amount = Decimal(order["amount_minor"]) / 100
    assert order["profit_minor"] == profit_minor(offer, quantity=2, amount=amount)
    assert revenue_of(shop)[0]["orders"] == 1
    # One checkout asked for by its id is answered where it belongs.
    one = shop.get(f"/api/tracking?order_id={opened['order_id']}").get_json()
    assert (one["orders"], [c["order_id"] for c in one["checkouts"]]) == ([], [opened["order_id"]])

    # The supplier's unit cost is the profit's too.
    connect_line(shop, NINGBO)
    (order,) = shop.get("/api/tracking").get_json()["orders"]
    assert order["profit_minor"] == profit_minor({**offer, "cost": 8.3}, quantity=2, amount=amount)
    assert order["profit_minor"] == profit_minor(offer, quantity=2, amount=amount) + 2 * 290

    # The assistant counts the paid order, and the open checkout apart.
    job = shop.post("/api/intent", json={"message": "how many orders do I have?"})
    assert job.get_json()["cites"][0] == {"kind": "orders", "count": 1, "open_checkouts": 1, "route": "#/app/orders"}


def test_a_store_with_only_an_abandoned_checkout_has_no_orders_yet(founder, run_jobs):
    shop, _offer = knife_strip_store(founder, run_jobs)
    customer = founder()
    opened = started(customer, product_id=KNIFE_STRIP)
    choose(customer, opened["checkout_url"], "abandon")
    run_jobs()
    tracked = shop.get("/api/tracking").get_json()
    assert (tracked["status"], tracked["orders"]) == ("no_orders_yet", [])
    assert [c["order_id"] for c in tracked["checkouts"]] == [opened["order_id"]]
    assert CustomerOrder.get_by_id(opened["order_id"]).state != CustomerOrder.PAID
    assert "1 checkout started and not paid" in tracked["explanation"]


# --- How did it go: the revenue Orders knows -------------------------------------------------

def test_an_outcome_without_revenue_counts_what_the_paid_orders_earned(founder, run_jobs):
    shop, _offer = knife_strip_store(founder, run_jobs)
    customer = founder()
    paid = started(customer, quantity=3, product_id=KNIFE_STRIP)
    choose(customer, paid["checkout_url"], "pay")
    run_jobs()
    confirmed = revenue_of(shop)[0]["confirmed_minor"]
    outcome = shop.post("/api/outcome", json={"spend": 40}).get_json()["outcome"]
    assert (outcome["spend"], outcome["revenue"], outcome["revenue_from_orders"]) == (40.0, confirmed / 100, True)
    # A revenue the founder declares (sales elsewhere too) is theirs to say.
    outcome = shop.post("/api/outcome", json={"revenue": 500}).get_json()["outcome"]
    assert (outcome["spend"], outcome["revenue"], outcome["revenue_from_orders"]) == (40.0, 500.0, False)


def test_an_outcome_without_orders_or_revenue_keeps_asking(founder, run_jobs):
    client, _offer = knife_strip_founder(founder, run_jobs)
    outcome = client.post("/api/outcome", json={"spend": 40}).get_json()["outcome"]
    assert (outcome["revenue"], outcome["revenue_from_orders"]) == (None, False)
