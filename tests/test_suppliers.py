"""Suppliers (spec 4.7 GET /api/suppliers, GET, POST /api/supplier-connection; decisions.md
Commerce and payments; the decisions in api/suppliers.py): options from the supplier feed,
the connected supplier, one founder never seeing another's, adoption on sign-in, the
`supplier_connected` launch fact, and the feed reader with the suppliers' ratings."""
from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict

import pytest

from config import ROOT, use_settings
from integrations import suppliers as seam
from integrations.suppliers import feed as feed_reader
from models.clock import clock
from models.supplier import SupplierConnection
from services import suppliers
from services.sessions import prune_anonymous_sessions
from tests.conftest import SETTINGS
from tests.helpers import in_threads
from tests.mailbox import last_link, path_of
from tests.test_accounts import new_account, save, sign_in
from tests.test_discovery import item, load, refusal, session_of
from tests.test_store import claimed_founder, demo_item

BUNDLED = ROOT / "scripts" / "data" / "supplier_feed.jsonl.gz"
OPTION_FIELDS = {"supplier", "unit_cost", "currency", "shipping_days", "moq", "rating", "ships_from", "sku"}


def bundled_lines() -> list[dict]:
    with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


FEED = bundled_lines()
BY_SKU = {line["sku"]: line for line in FEED}
FIRST = FEED[0]  # sf-00001-long-cat-tunnel, "Long Cat Tunnel, Blue"


@pytest.fixture
def settings_with():
    def change(**changes):
        use_settings(SETTINGS.but(**changes))

    yield change
    use_settings(SETTINGS)


def options(client, product):
    return client.get("/api/suppliers", query_string={"product": product} if product is not None else {})


def ok_options(client, product) -> dict:
    response = options(client, product)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    assert body["options"] and all(set(option) == OPTION_FIELDS for option in body["options"])
    return body


def connect(client, supplier, action="connect"):
    return client.post("/api/supplier-connection", json={"action": action, "supplier": supplier})


def disconnect(client):
    return client.post("/api/supplier-connection", json={"action": "disconnect"})


def connection(client) -> dict:
    response = client.get("/api/supplier-connection")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def lines_named(*words) -> list[dict]:
    """Feed lines whose name has every one of the words (a check independent of the seam)."""
    return [line for line in FEED if all(word in line["name"].lower() for word in words)]


NOT_CONNECTED = {"status": "not_connected", "supplier": None, "product_id": None, "connected_at": None}


# --- The feed and the ratings ------------------------------------------------------------------

def test_every_bundled_line_has_its_suppliers_one_rating_between_3_5_and_5():
    ratings = defaultdict(set)
    for line in FEED:
        assert 3.5 <= line["rating"] <= 5.0 and round(line["rating"], 1) == line["rating"]
        ratings[line["supplier"]].add(line["rating"])
    assert len(FEED) == 3000 and all(len(found) == 1 for found in ratings.values())
    assert len({rating for (rating,) in ratings.values()}) > 3  # not one rating for everyone


def test_the_rating_comes_from_the_suppliers_name_alone():
    import importlib.util
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location("make_supplier_feed", ROOT / "scripts" / "make_supplier_feed.py")
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
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
    (tmp_path / "a.jsonl").write_text("\n".join([json.dumps(good), "not json", json.dumps({"name": "no id"}),
                                                 json.dumps({**good, "product_id": "f-2", "supplier": ""})]) + "\n")
    with gzip.open(tmp_path / "b.jsonl.gz", "wt") as handle:
        handle.write(json.dumps({**good, "product_id": "f-3", "supplier": "Other Supplier", "rating": None}) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    found = seam.options_for("walnut board", source=str(tmp_path))
    assert [(o.product_id, o.currency, o.rating) for o in found] == [("f-1", "USD", 4.2), ("f-3", "USD", None)]
    assert seam.supplier_named("other supplier", source=str(tmp_path)) == "Other Supplier"


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
    refusal(connect(client, "Yiwu Bright Goods"), 409, "suppliers_unavailable")
    assert connection(client) == NOT_CONNECTED


# --- GET /api/suppliers ------------------------------------------------------------------------

def test_a_catalog_product_from_the_feed_has_its_own_supplier_first(client):
    load(item(FIRST["product_id"], name=FIRST["name"]))
    body = ok_options(client, FIRST["product_id"])
    assert body["product"] == {"product_id": FIRST["product_id"], "name": FIRST["name"]}
    assert body["options"][0] == {"supplier": FIRST["supplier"], "unit_cost": FIRST["cost"],
                                  "currency": FIRST["currency"], "shipping_days": FIRST["lead_time_days"],
                                  "moq": FIRST["moq"], "rating": FIRST["rating"], "ships_from": FIRST["ships_from"],
                                  "sku": FIRST["sku"]}
    assert len(body["options"]) == 10
    assert all("tunnel" in BY_SKU[o["sku"]]["name"].lower() for o in body["options"])


def test_a_feed_product_id_not_in_the_catalog_is_answered_from_the_feed(client):
    body = ok_options(client, FIRST["product_id"])
    assert body["product"] == {"product_id": FIRST["product_id"], "name": FIRST["name"]}
    assert body["options"][0]["sku"] == FIRST["sku"]


def test_a_catalog_product_is_matched_by_its_catalog_name(client):
    load(item("p00", name="Fabric Resistance Bands, Set of 3"))
    body = ok_options(client, "p00")
    assert body["product"] == {"product_id": "p00", "name": "Fabric Resistance Bands, Set of 3"}
    names = [BY_SKU[o["sku"]]["name"].lower() for o in body["options"]]
    # Every feed line with all three words comes before those sharing two, cheapest first.
    full = sorted(lines_named("fabric", "resistance", "bands"), key=lambda line: line["cost"])
    assert [o["sku"] for o in body["options"][:len(full)]] == [line["sku"] for line in full]
    assert all("resistance bands" in name and "fabric" not in name for name in names[len(full):])


def test_a_name_gets_the_cheapest_of_the_lines_sharing_the_most_words(client):
    body = ok_options(client, "  Yoga   MAT ")
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

def test_connect_read_and_disconnect(client):
    assert connection(client) == NOT_CONNECTED
    response = connect(client, "  yiwu bright   GOODS ")
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "connected" and body["supplier"] == "Yiwu Bright Goods" and body["product_id"] is None
    assert body["connected_at"].endswith("Z")
    assert connection(client) == body
    assert disconnect(client).get_json() == NOT_CONNECTED
    assert connection(client) == NOT_CONNECTED
    # Disconnecting again changes nothing and says so.
    response = disconnect(client)
    assert (response.status_code, response.get_json()) == (200, NOT_CONNECTED)


def test_connecting_another_supplier_replaces_the_first(client):
    connect(client, "Yiwu Bright Goods")
    assert connect(client, "Porto Cork Supply").get_json()["supplier"] == "Porto Cork Supply"
    assert connection(client)["supplier"] == "Porto Cork Supply"
    assert SupplierConnection.select().count() == 1


def test_an_unknown_or_missing_supplier_is_refused_and_nothing_changes(client):
    connect(client, "Yiwu Bright Goods")
    refusal(connect(client, "Acme Nobody Ltd."), 400, "unknown_supplier")
    refusal(connect(client, "   "), 400, "unknown_supplier")
    refusal(client.post("/api/supplier-connection", json={"action": "connect"}), 400, "unknown_supplier")
    refusal(connect(client, 42), 400, "unknown_supplier")
    assert connection(client)["supplier"] == "Yiwu Bright Goods"


def test_an_unknown_action_is_refused(client):
    refusal(connect(client, "Yiwu Bright Goods", action="subscribe"), 400, "invalid_action")
    refusal(client.post("/api/supplier-connection", json={}), 400, "invalid_action")
    assert connection(client) == NOT_CONNECTED


def test_another_founder_never_sees_or_changes_the_connection(founder):
    a, b = founder(), founder()
    connect(a, "Yiwu Bright Goods")
    assert connection(b) == NOT_CONNECTED
    assert disconnect(b).get_json() == NOT_CONNECTED
    connect(b, "Porto Cork Supply")
    assert connection(a)["supplier"] == "Yiwu Bright Goods"
    assert connection(b)["supplier"] == "Porto Cork Supply"


def test_the_connection_is_for_the_claimed_product(founder):
    client = claimed_founder(founder)
    body = connect(client, "Jaipur Handmade").get_json()
    assert body["product_id"] == "p00" and connection(client)["product_id"] == "p00"


def test_connects_racing_each_other_leave_one_row(client):
    client.get("/api/supplier-connection")  # the session exists from here on
    session = session_of(client)
    names = ["Yiwu Bright Goods", "Porto Cork Supply", "Jaipur Handmade", "Izmir Textiles"] * 3
    answers = in_threads(len(names), lambda i: suppliers.change(session=session, action="connect",
                                                                 supplier=names[i]))
    assert all(answer["status"] == "connected" for answer in answers)
    rows = list(SupplierConnection.select())
    assert len(rows) == 1 and rows[0].supplier in names
    assert connection(client)["supplier"] == rows[0].supplier


def test_an_old_anonymous_session_with_a_connection_is_not_pruned(founder):
    connected, idle = founder(), founder()
    connect(connected, "Yiwu Bright Goods")
    idle.get("/api/supplier-connection")
    clock.advance(days=SETTINGS.anon_session_days + 1)
    assert prune_anonymous_sessions(older_than_days=SETTINGS.anon_session_days) == 1
    assert connection(connected)["supplier"] == "Yiwu Bright Goods"


# --- Accounts: adoption on sign-in ---------------------------------------------------------------

def test_an_anonymous_connection_becomes_the_accounts_when_the_session_signs_in(founder, run_jobs):
    client = founder()
    connect(client, "Yiwu Bright Goods")
    assert save(client, "maker@example.com").status_code == 200
    assert SupplierConnection.get().owner.startswith("session:")  # an unproven address adopts nothing
    run_jobs()
    assert client.get(path_of(last_link("maker@example.com"))).status_code == 303
    assert connection(client)["supplier"] == "Yiwu Bright Goods"
    (row,) = SupplierConnection.select()
    assert row.owner == f"account:{row.account_id}" and row.account_id is not None
    # Another browser signed in to the account sees it too.
    other = founder()
    sign_in(other, run_jobs, "maker@example.com")
    assert connection(other)["supplier"] == "Yiwu Bright Goods"


@pytest.mark.parametrize("last", ["session", "account"])
def test_on_sign_in_the_connection_made_last_stays(founder, run_jobs, last):
    signed_in = new_account(founder, run_jobs, "maker@example.com")
    guest = founder()
    if last == "session":
        connect(signed_in, "Yiwu Bright Goods")
        connect(guest, "Porto Cork Supply")
    else:
        connect(guest, "Porto Cork Supply")
        connect(signed_in, "Yiwu Bright Goods")
    sign_in(guest, run_jobs, "maker@example.com")
    stays = "Porto Cork Supply" if last == "session" else "Yiwu Bright Goods"
    assert connection(guest)["supplier"] == connection(signed_in)["supplier"] == stays
    assert SupplierConnection.select().count() == 1


# --- The launch fact -----------------------------------------------------------------------------

def supplier_fact(client) -> dict:
    facts = client.get("/api/launch").get_json()["facts"]
    return next(fact for fact in facts if fact["id"] == "supplier_connected")


def test_the_launch_fact_turns_true_when_a_supplier_is_connected(founder):
    client = claimed_founder(founder, demo_item())
    assert supplier_fact(client)["true_today"] is False
    connect(client, "Jaipur Handmade")
    fact = supplier_fact(client)
    assert fact["true_today"] is True and "Jaipur Handmade" in fact["detail"]
    disconnect(client)
    assert supplier_fact(client)["true_today"] is False


def test_the_launch_fact_is_true_for_a_connection_made_before_claiming(founder):
    client = founder()
    connect(client, "Izmir Textiles")
    fact = supplier_fact(client)
    assert fact["true_today"] is True and "Izmir Textiles" in fact["detail"]
