"""Suppliers (spec 4.7 GET /api/suppliers, GET, POST /api/supplier-connection; decisions.md
Commerce and payments; the decisions in api/suppliers.py): the offer lines of a product from
the supplier feed (similar goods, marked, only for a product no line offers), the connected
offer line, one founder never seeing another's, adoption on sign-in, the
`supplier_connected` launch fact, and the feed with its generator and the suppliers' ratings."""
from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict

import pytest

from config import ROOT
from integrations import suppliers as seam
from integrations.suppliers import feed as feed_reader
from models.clock import clock
from models.supplier import SupplierConnection
from services import suppliers
from services.sessions import prune_anonymous_sessions
from tests.conftest import SETTINGS
from tests.factories import (
    DEMO_CATALOG,
    FEED,
    KNIFE_STRIP,
    OFFERS,
    claimed_founder,
    connect,
    connect_line,
    demo_product,
    item,
    line_of,
    load,
    new_account,
    refusal,
    session_of,
    sign_in,
)
from tests.factories import DEMO_PRODUCTS as DEMO
from tests.factories import save_address as save
from tests.helpers import in_threads
from tests.mailbox import last_link, path_of

OPTION_FIELDS = {"supplier", "sku", "product_id", "name", "unit_cost", "currency", "shipping_days", "moq", "rating",
                 "ships_from"}


PRODUCTS = [line for line in FEED if "price" in line]  # the feed's own products, each one supplier's offer
BY_SKU = {line["sku"]: line for line in FEED}
FIRST = FEED[0]  # sf-00001-long-cat-tunnel, "Long Cat Tunnel, Blue"


def options(client, product):
    return client.get("/api/suppliers", query_string={"product": product} if product is not None else {})


def ok_options(client, product, match="exact") -> dict:
    response = options(client, product)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok" and body["match"] == match, body
    assert body["options"] and all(set(option) == OPTION_FIELDS for option in body["options"])
    return body


def as_option(line: dict) -> dict:
    """A feed line as GET /api/suppliers answers it."""
    return {"supplier": line["supplier"], "sku": line["sku"], "product_id": line["product_id"], "name": line["name"],
            "unit_cost": line["cost"], "currency": line["currency"], "shipping_days": line["lead_time_days"],
            "moq": line["moq"], "rating": line["rating"], "ships_from": line["ships_from"]}


def disconnect(client):
    return client.post("/api/supplier-connection", json={"action": "disconnect"})


def connection(client) -> dict:
    response = client.get("/api/supplier-connection")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def lines_named(*words) -> list[dict]:
    """Feed lines whose name has every one of the words (a check independent of the seam)."""
    return [line for line in FEED if all(word in line["name"].lower() for word in words)]


NO_TERMS = {"unit_cost": None, "currency": None, "moq": None, "minimum_order_quantity": None,
            "minimum_order_total": None}
NOT_CONNECTED = {"status": "not_connected", "supplier": None, "sku": None, "name": None, "offers_product_id": None,
                 "product_id": None, "connected_at": None, **NO_TERMS}


# --- The bundled feed, its generator and the ratings ----------------------------------------------

def test_every_demo_catalog_product_has_2_to_5_offers_from_different_suppliers_around_its_cost():
    skus = [line["sku"] for line in FEED]
    assert len(skus) == len(set(skus))  # a SKU names one line in the whole feed
    counts = set()
    for product_id, product in DEMO.items():
        offers = OFFERS[product_id]
        counts.add(len(offers))
        assert 2 <= len(offers) <= 5, product_id
        assert len({line["supplier"] for line in offers}) == len(offers), product_id
        for line in offers:
            assert "price" not in line  # an offer of a catalog product, not a product of the feed
            assert line["name"] == product["name"] and line["currency"] == product["currency"]
            assert 0.7 * product["cost"] <= line["cost"] <= 1.3 * product["cost"], line
            assert line["moq"] > 0 and 1 <= line["lead_time_days"] <= 60 and len(line["ships_from"]) == 2, line
    assert counts == {2, 3, 4, 5}  # not the same number for every product
    assert len(DEMO) == 72 and len(PRODUCTS) == 3000


def test_the_offers_are_those_the_script_makes_from_the_demo_catalog():
    script = _script()
    made = script.offers(script.read_catalog(DEMO_CATALOG), {line["sku"] for line in PRODUCTS})
    assert made == [line for line in FEED if "price" not in line]
    assert made == script.offers(script.read_catalog(DEMO_CATALOG), {line["sku"] for line in PRODUCTS})


def test_every_bundled_line_has_its_suppliers_one_rating_between_3_5_and_5():
    ratings = defaultdict(set)
    for line in FEED:
        assert 3.5 <= line["rating"] <= 5.0 and round(line["rating"], 1) == line["rating"]
        ratings[line["supplier"]].add(line["rating"])
    assert all(len(found) == 1 for found in ratings.values())
    assert len({rating for (rating,) in ratings.values()}) > 3  # not one rating for everyone


def _script():
    import importlib.util
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location("make_supplier_feed", ROOT / "scripts" / "make_supplier_feed.py")
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return script


def test_the_rating_comes_from_the_suppliers_name_alone():
    script = _script()
    assert all(script.supplier_rating(line["supplier"]) == line["rating"] for line in FEED)
    # Rating comes after every draw: the first line is the one the feed always had.
    assert (FIRST["product_id"], FIRST["supplier"], FIRST["sku"], FIRST["moq"], FIRST["lead_time_days"]) == (
        "sf-00001-long-cat-tunnel", "Xiamen Outdoor Works", "SKU-00001-222", 1000, 32)


def test_words_fold_case_and_plurals_and_leave_out_numbers_and_packing_words():
    assert feed_reader.words("Fabric Resistance Bands, Set of 3") == {"fabric", "resistance", "band"}
    assert feed_reader.words("Glass Kitchen Scale, 2-Pack") == {"glass", "kitchen", "scale"}
    assert feed_reader.words("  ") == frozenset()


def test_the_reader_takes_a_folder_of_jsonl_and_gzip_files_and_skips_bad_lines(tmp_path):
    good = {"product_id": "f-1", "name": "Walnut Cutting Board", "supplier": "Ningbo Homeware Co.", "cost": 4.5,
            "currency": "usd", "moq": 100, "lead_time_days": 12, "ships_from": "CN", "sku": "S-1", "rating": 4.2}
    (tmp_path / "a.jsonl").write_text("\n".join([
        json.dumps(good), "not json", json.dumps({"name": "no id"}),
        json.dumps({**good, "product_id": "f-2", "supplier": ""}),
        json.dumps({**good, "product_id": "f-4", "sku": "S" * 121}),  # wider than the rows that record a SKU
    ]) + "\n")
    with gzip.open(tmp_path / "b.jsonl.gz", "wt") as handle:
        handle.write(json.dumps({**good, "product_id": "f-3", "supplier": "Other Supplier", "rating": None}) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    found = seam.similar_goods("walnut board", source=str(tmp_path))
    assert [(o.product_id, o.sku, o.currency, o.rating) for o in found] == [("f-1", "S-1", "USD", 4.2),
                                                                          ("f-3", "S-1", "USD", None)]
    assert seam.supplier_named("other supplier", source=str(tmp_path)) == "Other Supplier"


def test_a_product_has_every_line_that_offers_it_and_a_line_is_named_by_supplier_and_sku(tmp_path):
    base = {"product_id": "mug", "name": "Stoneware Mug", "supplier": "Ningbo Homeware Co.", "sku": "NHC-1",
            "cost": 3.0}
    lines = [base, {**base, "supplier": "Izmir Textiles", "sku": "IT-9", "cost": 2.5},
             {**base, "cost": 9.0},  # the same supplier and SKU again: the first line wins
             {**base, "product_id": "bowl", "name": "Stoneware Bowl", "sku": " nhc-2 "},
             {**base, "product_id": "plate", "name": "Stoneware Plate", "sku": None}]
    (tmp_path / "feed.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    source = str(tmp_path)
    assert [(o.supplier, o.sku, o.unit_cost) for o in seam.offers_for("mug", source=source)] == [
        ("Izmir Textiles", "IT-9", 2.5), ("Ningbo Homeware Co.", "NHC-1", 3.0)]
    assert seam.offer(" ningbo  HOMEWARE co. ", "NHC-2", source=source).product_id == "bowl"
    assert seam.offer("Izmir Textiles", "NHC-1", source=source) is None  # another supplier's SKU
    # A line without a SKU is named by its product id.
    assert seam.offer("Ningbo Homeware Co.", "plate", source=source).name == "Stoneware Plate"
    assert seam.offers_for("cup", source=source) == []


def test_the_feed_is_read_once_and_again_when_a_file_changes(tmp_path):
    path = tmp_path / "feed.jsonl"
    line = {"product_id": "c-1", "name": "Oak Bread Box", "supplier": "Porto Cork Supply", "cost": 9.0}
    path.write_text(json.dumps(line) + "\n")
    first = feed_reader.load(str(path))
    assert feed_reader.load(str(path)) is first
    path.write_text(json.dumps({**line, "cost": 7.0}) + "\n" + json.dumps({**line, "product_id": "c-2"}) + "\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    again = feed_reader.load(str(path))
    assert again is not first and [entry.cost for entry in again.lines] == [7.0, 9.0]


def test_a_url_feed_gives_no_options_and_says_why(client, settings_with):
    settings_with(supplier_feed="http://127.0.0.1:9/feed.jsonl")
    body = options(client, "yoga mat").get_json()
    assert body["status"] == "no_suppliers" and body["reason"] == "suppliers_unavailable" and body["options"] == []
    assert "URL" in body["explanation"]
    refusal(connect(client, "Yiwu Bright Goods", "YBG-1"), 409, "suppliers_unavailable")
    assert connection(client) == NOT_CONNECTED


# --- GET /api/suppliers ------------------------------------------------------------------------

def test_a_claimed_demo_products_options_are_its_own_offer_lines_cheapest_first(founder):
    client = claimed_founder(founder, demo_product())
    body = ok_options(client, KNIFE_STRIP)
    assert body["product"] == {"product_id": KNIFE_STRIP, "name": DEMO[KNIFE_STRIP]["name"]}
    assert "explanation" not in body
    assert {option["product_id"] for option in body["options"]} == {KNIFE_STRIP}
    expected = sorted(OFFERS[KNIFE_STRIP], key=lambda line: (line["cost"], line["supplier"].casefold()))
    assert body["options"] == [as_option(line) for line in expected]


def test_every_demo_catalog_product_is_answered_with_its_own_offers(client):
    load(*[demo_product(product_id) for product_id in DEMO])
    for product_id, product in DEMO.items():
        body = ok_options(client, product_id)
        assert {(o["supplier"], o["sku"]) for o in body["options"]} == {
            (line["supplier"], line["sku"]) for line in OFFERS[product_id]}, product_id
        assert {(o["product_id"], o["currency"]) for o in body["options"]} == {(product_id, product["currency"])}


def test_a_feed_product_id_is_answered_with_its_own_line_alone(client):
    body = ok_options(client, FIRST["product_id"])  # not in the catalog: the feed names it
    assert body["product"] == {"product_id": FIRST["product_id"], "name": FIRST["name"]}
    assert body["options"] == [as_option(FIRST)]
    load(item(FIRST["product_id"], name="Long Cat Tunnel"))  # discovered into the catalog
    body = ok_options(client, FIRST["product_id"])
    assert body["product"] == {"product_id": FIRST["product_id"], "name": "Long Cat Tunnel"}
    assert body["options"] == [as_option(FIRST)]


def test_a_product_no_line_offers_gets_similar_goods_marked_as_such(client):
    load(item("p00", name="Fabric Resistance Bands, Set of 3"))
    body = ok_options(client, "p00", match="similar_goods")
    assert body["product"] == {"product_id": "p00", "name": "Fabric Resistance Bands, Set of 3"}
    assert "similar goods" in body["explanation"] and "Fabric Resistance Bands, Set of 3" in body["explanation"]
    assert all(option["product_id"] != "p00" for option in body["options"])
    names = [BY_SKU[o["sku"]]["name"].lower() for o in body["options"]]
    assert [o["name"].lower() for o in body["options"]] == names
    # Every feed line with all three words comes before those sharing two, cheapest first.
    full = sorted(lines_named("fabric", "resistance", "bands"), key=lambda line: line["cost"])
    assert [o["sku"] for o in body["options"][:len(full)]] == [line["sku"] for line in full]
    assert all("resistance bands" in name and "fabric" not in name for name in names[len(full):])


def test_words_get_the_cheapest_similar_goods_sharing_the_most_words(client):
    body = ok_options(client, "  Yoga   MAT ", match="similar_goods")
    assert body["product"] == {"product_id": None, "name": "Yoga MAT"}
    cheapest = sorted(lines_named("yoga mat"), key=lambda line: (line["cost"], line["product_id"]))[:10]
    assert [o["sku"] for o in body["options"]] == [line["sku"] for line in cheapest]
    costs = [o["unit_cost"] for o in body["options"]]
    assert costs == sorted(costs)


def test_a_blank_or_missing_product_is_refused(client):
    refusal(options(client, None), 400, "no_product_id")
    refusal(options(client, "   "), 400, "no_product_id")


def test_a_product_no_feed_line_resembles_has_no_suppliers(client):
    response = options(client, "Quantum Flux Capacitor")
    assert response.status_code == 200
    body = response.get_json()
    assert body == {"status": "no_suppliers", "reason": "no_suppliers", "explanation": body["explanation"],
                    "product": {"product_id": None, "name": "Quantum Flux Capacitor"}, "options": []}
    assert body["explanation"]


# --- GET, POST /api/supplier-connection --------------------------------------------------------

def test_connect_an_offer_line_read_it_and_disconnect(client):
    line = line_of()
    assert connection(client) == NOT_CONNECTED
    response = connect(client, "  " + line["supplier"].upper() + " ", line["sku"].lower())
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body == {"status": "connected", "supplier": line["supplier"], "sku": line["sku"], "name": line["name"],
                    "offers_product_id": KNIFE_STRIP, "product_id": None, "connected_at": body["connected_at"],
                    # The line's terms as the feed gives them (issue 47): the first order's total up front.
                    "unit_cost": line["cost"], "currency": line["currency"], "moq": line["moq"],
                    "minimum_order_quantity": line["moq"], "minimum_order_total": round(line["cost"] * line["moq"], 2)}
    assert body["connected_at"].endswith("Z")
    assert connection(client) == body
    assert disconnect(client).get_json() == NOT_CONNECTED
    assert connection(client) == NOT_CONNECTED
    # Disconnecting again changes nothing and says so.
    response = disconnect(client)
    assert (response.status_code, response.get_json()) == (200, NOT_CONNECTED)


def test_connecting_another_line_replaces_the_first(client):
    connect_line(client, line_of(n=0))
    other = line_of(n=1)
    connect_line(client, other)
    assert (connection(client)["supplier"], connection(client)["sku"]) == (other["supplier"], other["sku"])
    assert SupplierConnection.select().count() == 1


def test_a_supplier_alone_connects_its_line_of_your_product(founder):
    client = claimed_founder(founder, demo_product())
    line = sorted(OFFERS[KNIFE_STRIP], key=lambda entry: entry["cost"])[-1]
    body = connect(client, line["supplier"]).get_json()
    assert (body["sku"], body["offers_product_id"], body["product_id"]) == (line["sku"], KNIFE_STRIP, KNIFE_STRIP)


def test_a_supplier_alone_with_several_other_goods_is_refused(founder):
    client = founder()  # no product: which of its lines would it be?
    refusal(connect(client, "Yiwu Bright Goods"), 400, "unknown_offer")
    claimed = claimed_founder(founder, demo_product())
    elsewhere = next(name for name in ("Guangzhou PetCare Ltd.", "Hangzhou Silk & Co.", "Dongguan Fitline")
                     if name not in {line["supplier"] for line in OFFERS[KNIFE_STRIP]})
    body = refusal(connect(claimed, elsewhere), 400, "unknown_offer")
    assert "SKU" in body["explanation"]
    assert connection(client) == connection(claimed) == NOT_CONNECTED


def test_a_supplier_with_one_line_is_connected_by_name_alone(client, settings_with, tmp_path):
    line = {"product_id": "solo-1", "name": "Cork Coaster", "supplier": "Solo Cork", "sku": "SC-1", "cost": 1.2}
    (tmp_path / "feed.jsonl").write_text(json.dumps(line) + "\n")
    settings_with(supplier_feed=str(tmp_path))
    body = connect(client, "solo cork").get_json()
    assert (body["supplier"], body["sku"], body["name"]) == ("Solo Cork", "SC-1", "Cork Coaster")


def test_an_unknown_line_or_supplier_is_refused_and_nothing_changes(client):
    line = line_of()
    connect_line(client, line)
    another = next(entry for entry in FEED if entry["supplier"] != line["supplier"])
    refusal(connect(client, line["supplier"], "NO-SUCH-SKU"), 400, "unknown_offer")
    refusal(connect(client, line["supplier"], another["sku"]), 400, "unknown_offer")  # another supplier's SKU
    refusal(connect(client, line["supplier"], "  "), 400, "unknown_offer")
    refusal(connect(client, line["supplier"], 42), 400, "unknown_offer")
    refusal(connect(client, "Acme Nobody Ltd.", line["sku"]), 400, "unknown_supplier")
    refusal(connect(client, "   ", line["sku"]), 400, "unknown_supplier")
    refusal(client.post("/api/supplier-connection", json={"action": "connect", "sku": line["sku"]}), 400,
            "unknown_supplier")
    refusal(connect(client, 42), 400, "unknown_supplier")
    assert (connection(client)["supplier"], connection(client)["sku"]) == (line["supplier"], line["sku"])


def test_an_unknown_action_is_refused(client):
    refusal(connect(client, "Yiwu Bright Goods", action="subscribe"), 400, "invalid_action")
    refusal(client.post("/api/supplier-connection", json={}), 400, "invalid_action")
    assert connection(client) == NOT_CONNECTED


def test_another_founder_never_sees_or_changes_the_connection(founder):
    a, b = founder(), founder()
    first, second = line_of(n=0), line_of(n=1)
    connect_line(a, first)
    assert connection(b) == NOT_CONNECTED
    assert disconnect(b).get_json() == NOT_CONNECTED
    connect_line(b, second)
    assert connection(a)["sku"] == first["sku"]
    assert connection(b)["sku"] == second["sku"]


def test_the_connection_is_for_the_claimed_product(founder):
    client = claimed_founder(founder, demo_product())
    body = connect_line(client, line_of())
    assert body["product_id"] == KNIFE_STRIP and connection(client)["product_id"] == KNIFE_STRIP


def test_connects_racing_each_other_leave_one_row(client):
    client.get("/api/supplier-connection")  # the session exists from here on
    session = session_of(client)
    lines = [line_of(pid, n) for pid in (KNIFE_STRIP, "kitchen-collapsible-silicone-colander") for n in range(2)] * 3
    answers = in_threads(len(lines), lambda i: suppliers.change(session=session, action="connect",
                                                                supplier=lines[i]["supplier"], sku=lines[i]["sku"]))
    assert all(answer["status"] == "connected" for answer in answers)
    rows = list(SupplierConnection.select())
    assert len(rows) == 1 and (rows[0].supplier, rows[0].sku) in {(line["supplier"], line["sku"]) for line in lines}
    assert connection(client)["sku"] == rows[0].sku


def test_an_old_anonymous_session_with_a_connection_is_not_pruned(founder):
    connected, idle = founder(), founder()
    connect_line(connected, line_of())
    idle.get("/api/supplier-connection")
    clock.advance(days=SETTINGS.anon_session_days + 1)
    assert prune_anonymous_sessions(older_than_days=SETTINGS.anon_session_days) == 1
    assert connection(connected)["sku"] == line_of()["sku"]


# --- Accounts: adoption on sign-in ---------------------------------------------------------------

def test_an_anonymous_connection_becomes_the_accounts_when_the_session_signs_in(founder, run_jobs):
    client = founder()
    line = line_of()
    connect_line(client, line)
    assert save(client, "maker@example.com").status_code == 200
    assert SupplierConnection.get().owner.startswith("session:")  # an unproven address adopts nothing
    run_jobs()
    assert client.get(path_of(last_link("maker@example.com"))).status_code == 303
    assert connection(client)["sku"] == line["sku"]
    (row,) = SupplierConnection.select()
    assert row.owner == f"account:{row.account_id}" and row.account_id is not None
    # Another browser signed in to the account sees it too.
    other = founder()
    sign_in(other, run_jobs, "maker@example.com")
    assert (connection(other)["supplier"], connection(other)["sku"]) == (line["supplier"], line["sku"])


@pytest.mark.parametrize("last", ["session", "account"])
def test_on_sign_in_the_connection_made_last_stays(founder, run_jobs, last):
    signed_in = new_account(founder, run_jobs, "maker@example.com")
    guest = founder()
    theirs, mine = line_of(n=0), line_of(n=1)
    if last == "session":
        connect_line(signed_in, theirs)
        connect_line(guest, mine)
    else:
        connect_line(guest, mine)
        connect_line(signed_in, theirs)
    sign_in(guest, run_jobs, "maker@example.com")
    stays = mine if last == "session" else theirs
    assert connection(guest)["sku"] == connection(signed_in)["sku"] == stays["sku"]
    assert SupplierConnection.select().count() == 1


# --- The launch fact -----------------------------------------------------------------------------

def supplier_fact(client) -> dict:
    facts = client.get("/api/launch").get_json()["facts"]
    return next(fact for fact in facts if fact["id"] == "supplier_connected")


def test_the_launch_fact_turns_true_when_an_offer_line_is_connected(founder):
    client = claimed_founder(founder, demo_product())
    assert supplier_fact(client)["true_today"] is False
    line = line_of()
    connect_line(client, line)
    fact = supplier_fact(client)
    assert fact["true_today"] is True and f"{line['supplier']} ({line['sku']})" in fact["detail"]
    disconnect(client)
    assert supplier_fact(client)["true_today"] is False


def test_the_launch_fact_is_true_for_a_connection_made_before_claiming(founder):
    client = founder()
    line = line_of()
    connect_line(client, line)
    fact = supplier_fact(client)
    assert fact["true_today"] is True and line["supplier"] in fact["detail"]


def test_a_connection_made_before_offer_lines_answers_no_line_and_still_counts(founder):
    client = claimed_founder(founder, demo_product())
    line = line_of()
    connect_line(client, line)
    SupplierConnection.update(sku=None, name=None, offers_product_id=None).execute()  # as m0024 left it
    body = connection(client)
    assert (body["status"], body["supplier"], body["sku"], body["name"], body["offers_product_id"]) == (
        "connected", line["supplier"], None, None, None)
    assert supplier_fact(client)["true_today"] is True
    # A sample by its supplier's name alone is that supplier's line of the product, never another of its goods.
    answer = client.post("/api/samples/checkout", json={"supplier": line["supplier"]}).get_json()
    assert answer["sku"] == line["sku"]
