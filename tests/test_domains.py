"""Domains (decisions.md, Domains; spec 4.7): the sandbox registrar's names, prices and
suggestions, GET /api/domains (suggest and quote, and each refusal), the domain orders a
payment settles (start, connect, fail; races and repeats), the `domain_connected` launch
fact, adoption on sign-in, and one founder never seeing another's domain."""
from __future__ import annotations

import pytest

from integrations.registrar import InvalidDomain, display, normalize, registrar_for
from integrations.registrar.sandbox import BASE_PRICES, SandboxRegistrar, candidates, price_minor, words
from models.domain import DomainOrder
from services import domains
from services.errors import Refused
from tests.conftest import SETTINGS
from tests.factories import catalog, claim, claimed_founder, demo_item, find, order, refusal, session_of, store_founder
from tests.factories import save_address as save
from tests.helpers import in_threads
from tests.mailbox import last_link, path_of

REGISTRAR = SandboxRegistrar()


def quote_of(client, domain):
    return client.get("/api/domains", query_string={"domain": domain})


def ok(response) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    return body


def facts_of(client) -> dict:
    return {f["id"]: f for f in client.get("/api/launch").get_json()["facts"]}


# --- Names ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("given", "name"), [
    ("shop.com", "shop.com"), ("Shop.COM", "shop.com"), ("  knife-strip.shop ", "knife-strip.shop"),
    ("shop.com.", "shop.com"), ("a.io", "a.io"), ("b\u00fccher.shop", "xn--bcher-kva.shop"),
    ("B\u00dcCHER.shop", "xn--bcher-kva.shop"), ("xn--bcher-kva.shop", "xn--bcher-kva.shop"),
    ("\uff53\uff48\uff4f\uff50.com", "shop.com"), ("shop\u3002com", "shop.com"),
    ("shop.c\u200bom", "shop.com"),  # UTS 46 drops a zero-width space, as browsers do; the answer names shop.com
    ("123.com", "123.com"),
    ("a" * 63 + ".com", "a" * 63 + ".com"), ("shop.example.com", "shop.example.com"),
    (".".join(["a" * 63] * 3 + ["b" * 61]), ".".join(["a" * 63] * 3 + ["b" * 61])),
])
def test_names_are_normalized_to_lower_case_ascii(given, name):
    assert normalize(given) == name
    assert len(name) <= 253


@pytest.mark.parametrize("given", [
    "", "   ", "shop", ".com", "shop.", "shop..com", ".shop.com", "-shop.com", "shop-.com", "sh_op.com",
    "shop.com..", "ab--cd.com", "xn--.com", "xn--zz.com", "shop com.com", "http://shop.com", "shop.com/x",
    "shop.com:443", "me@shop.com", "shop.123", "a" * 64 + ".com", ".".join(["a" * 63] * 4 + ["com"]),
    "sh\u00f6p\u2603!.com", "\u0000.com", "x" * 5000, "\U0001f600.com", "\u00e9.-com",
])
def test_malformed_names_are_invalid(given):
    with pytest.raises(InvalidDomain) as refused:
        normalize(given)
    assert str(refused.value)


def test_punycode_names_read_back_in_unicode():
    assert display("xn--bcher-kva.shop") == "b\u00fccher.shop"
    assert display("shop.com") == "shop.com"


# --- The sandbox registrar ------------------------------------------------------------------------

def test_the_settings_choose_the_sandbox_registrar():
    assert registrar_for(SETTINGS).name == "sandbox"


def test_prices_follow_the_tld_and_the_names_length():
    assert REGISTRAR.quote("knifestrip.com").price_minor == BASE_PRICES["com"] == 1299
    assert REGISTRAR.quote("knifestrip.shop").price_minor == BASE_PRICES["shop"]
    assert [REGISTRAR.quote(f"{'k' * n}.com").price_minor for n in (1, 3, 4, 5, 6, 40)] == [
        1299 * 8, 1299 * 8, 1299 * 4, 1299 * 2, 1299, 1299]
    assert all(REGISTRAR.quote(f"name.{tld}").currency == "USD" for tld in BASE_PRICES)
    assert REGISTRAR.quote("xn--bcher-kva.shop").price_minor == price_minor("xn--bcher-kva", "shop")
    # The same question always gets the same answer.
    assert REGISTRAR.quote("knifestrip.com") == REGISTRAR.quote("knifestrip.com")


@pytest.mark.parametrize(("domain", "why"), [
    ("taken.com", "taken"), ("mistaken.shop", "taken"), ("shop-taken-here.io", "taken"),
    ("knifestrip.xyz", "unsupported"), ("knifestrip.co.uk", "unsupported"), ("123.456.museum", "unsupported"),
    ("shop.knifestrip.com", "subdomain"),
])
def test_taken_unsupported_and_deeper_names_are_not_available(domain, why):
    found = REGISTRAR.quote(domain)
    assert (found.available, found.price_minor, found.currency, found.unavailable) == (False, None, None, why)


def test_suggestions_are_made_from_the_words_deterministic_deduplicated_and_available_first():
    found = REGISTRAR.suggest("The Magnetic Knife Strip for your kitchen!", 60)
    assert words("The Magnetic Knife Strip for your kitchen!") == ["magnetic", "knife", "strip", "kitchen"]
    names = [q.domain for q in found]
    assert len(names) == len(set(names))
    assert {"magneticknife.com", "stripkitchen.shop", "getstripkitchen.com"} <= set(names)
    assert found == REGISTRAR.suggest("The Magnetic Knife Strip for your kitchen!", 60)
    assert REGISTRAR.suggest("The Magnetic Knife Strip for your kitchen!", 5) == found[:5]
    assert all(q.available for q in found)

    mixed = REGISTRAR.suggest("taken knife strip", 100)
    flags = [q.available for q in mixed]
    assert flags == sorted(flags, reverse=True) and True in flags and False in flags
    assert all(("taken" in q.domain) != q.available for q in mixed)


def test_suggestions_from_odd_words():
    assert words("Küchen-Messer Ständer") == ["kuchen", "messer", "stander"]
    assert REGISTRAR.suggest("!!! ??? \u2603", 10) == [] and REGISTRAR.suggest("the for and", 10) == []
    assert [q.domain for q in REGISTRAR.suggest("knife", 3)] == ["knife.com", "getknife.com", "theknife.com"]
    long_words = " ".join(["x" * 40] * 4)
    assert all(len(name.split(".")[0]) <= 63 for name in candidates(long_words))
    assert all(normalize(name) == name for name in candidates("Magnetic Knife Strip " * 50))


# --- GET /api/domains -------------------------------------------------------------------------------

def test_a_query_answers_suggestions_with_their_prices(client):
    body = ok(client.get("/api/domains", query_string={"q": "magnetic knife strip"}))
    assert body["query"] == "magnetic knife strip" and body["connected"] is None
    assert len(body["suggestions"]) == domains.DEFAULT_SUGGESTIONS
    first = body["suggestions"][0]
    assert first == {"domain": "magneticknifestrip.com", "available": True, "price_minor": 1299, "currency": "USD"}
    assert {"magneticknife.com", "knifestrip.com", "getknifestrip.com"} <= {s["domain"] for s in body["suggestions"]}
    assert len(ok(client.get("/api/domains?q=magnetic+knife&limit=3"))["suggestions"]) == 3


def test_taken_suggestions_come_last_without_a_price(client):
    body = ok(client.get("/api/domains", query_string={"q": "taken knives", "limit": 30}))
    taken = [s for s in body["suggestions"] if "taken" in s["domain"]]
    assert taken and all(s == {**s, "available": False, "price_minor": None, "currency": None} for s in taken)
    assert body["suggestions"][-len(taken):] == taken


def test_without_a_query_the_claimed_products_name_is_used(founder):
    client = claimed_founder(founder, demo_item(name="Magnetic Knife Strip"))
    body = ok(client.get("/api/domains"))
    assert body["query"] == "Magnetic Knife Strip"
    assert body["suggestions"][0]["domain"] == "magneticknifestrip.com"
    assert ok(client.get("/api/domains?q="))["query"] == "Magnetic Knife Strip"


def test_without_a_query_or_a_claim_it_is_not_claimed(client):
    catalog(2)
    body = refusal(client.get("/api/domains"), 200, "not_claimed")
    assert "?q=" in body["explanation"]
    find(client)  # a hold is not a claim
    refusal(client.get("/api/domains"), 200, "not_claimed")


def test_words_without_letters_are_no_query_terms(client):
    refusal(client.get("/api/domains", query_string={"q": "!!! ???"}), 200, "no_query_terms")


@pytest.mark.parametrize("sent", ["?limit=0", "?limit=31", "?limit=x", "?q=" + "a" * 201])
def test_bad_limits_and_long_queries_are_400(client, sent):
    refusal(client.get("/api/domains" + sent), 400, "invalid_request")


def test_a_quote_answers_the_price(client):
    assert ok(quote_of(client, "KnifeStrip.shop")) == {
        "status": "ok", "domain": "knifestrip.shop", "available": True, "price_minor": 2999, "currency": "USD",
        "connected": None}
    assert ok(quote_of(client, "b\u00fccher.com"))["domain"] == "xn--bcher-kva.com"
    # domain wins over q
    assert ok(client.get("/api/domains?q=knife&domain=knife.io"))["domain"] == "knife.io"


@pytest.mark.parametrize(("domain", "words_in_explanation"), [
    ("taken.com", "registered"), ("mistaken.shop", "registered"), ("knifestrip.xyz", ".xyz"),
    ("shop.knifestrip.com", "knifestrip.com"),
])
def test_a_name_that_cannot_be_bought_is_200_not_available(client, domain, words_in_explanation):
    body = refusal(quote_of(client, domain), 200, "not_available")
    assert body["domain"] == domain and words_in_explanation in body["explanation"]
    assert "price_minor" not in body


@pytest.mark.parametrize("domain", ["", "shop", "shop..com", "-x.com", "http://x.com", "x" * 64 + ".com",
                                    "x" * 1001, "sh op.com", "a.b.c." * 60 + "com"])
def test_a_malformed_name_is_400_invalid_domain(client, domain):
    body = refusal(quote_of(client, domain), 400, "invalid_domain")
    assert body["explanation"]


# --- Orders, connection and the launch fact ---------------------------------------------------------

def test_an_order_needs_a_claim_and_a_built_store(founder, run_jobs):
    catalog(2)
    stranger = founder()
    stranger.get("/api/domains?q=x")  # a session, nothing claimed
    with pytest.raises(Refused) as refused:
        order(stranger, "knifestrip.com")
    assert refused.value.reason == "not_claimed"
    client = founder()
    find(client)
    claim(client)
    with pytest.raises(Refused) as refused:
        order(client, "knifestrip.com")
    assert refused.value.reason == "not_started"
    assert DomainOrder.select().count() == 0


def test_an_order_of_a_name_that_cannot_be_bought_is_refused(founder, run_jobs):
    client = store_founder(founder, run_jobs)
    for domain, reason in [("taken.com", "not_available"), ("x.xyz", "not_available"), ("x..com", "invalid_domain")]:
        with pytest.raises(Refused) as refused:
            order(client, domain)
        assert refused.value.reason == reason
    assert DomainOrder.select().count() == 0


def test_start_connect_and_the_launch_fact(founder, run_jobs):
    client = store_founder(founder, run_jobs)
    fact = facts_of(client)["domain_connected"]
    assert fact["true_today"] is False and "Domains screen" in fact["detail"] and "/api/" not in fact["detail"]

    row = order(client, "Knife-Strip.SHOP")
    assert (row.state, row.domain, row.price_minor, row.currency, row.product_id) == (
        "pending", "knife-strip.shop", 2999, "USD", "p00")
    assert len(row.id) == 32 and row.payment_id is None and row.connected_at is None
    assert ok(client.get("/api/domains?q=knife"))["connected"] is None  # pending is not connected

    assert domains.connect_paid_domain(domain_order_id=row.id) is True
    assert domains.connect_paid_domain(domain_order_id=row.id) is True  # a repeat changes nothing
    stored = DomainOrder.get_by_id(row.id)
    assert stored.state == "connected" and stored.connected_at is not None
    assert domains.fail_domain_order(domain_order_id=row.id) is False  # a connected order stays connected
    assert DomainOrder.get_by_id(row.id).state == "connected"

    fact = facts_of(client)["domain_connected"]
    assert fact["true_today"] is True and "knife-strip.shop" in fact["detail"]
    assert ok(client.get("/api/domains?q=knife"))["connected"] == "knife-strip.shop"
    assert ok(quote_of(client, "knife.com"))["connected"] == "knife-strip.shop"
    # It is no longer for sale on this service, to its owner either.
    body = refusal(quote_of(client, "knife-strip.shop"), 200, "not_available")
    assert "your store" in body["explanation"]
    suggested = ok(client.get("/api/domains", query_string={"q": "knife strip", "limit": 30}))["suggestions"]
    assert {"domain": "knife-strip.shop", "available": False, "price_minor": None, "currency": None} in suggested


def test_a_failed_payment_fails_the_order_once(founder, run_jobs):
    client = store_founder(founder, run_jobs)
    row = order(client, "knifestrip.com")
    assert domains.fail_domain_order(domain_order_id=row.id) is True
    assert domains.fail_domain_order(domain_order_id=row.id) is False
    assert domains.connect_paid_domain(domain_order_id=row.id) is False
    assert DomainOrder.get_by_id(row.id).state == "failed"
    assert facts_of(client)["domain_connected"]["true_today"] is False
    assert domains.connect_paid_domain(domain_order_id="0" * 32) is False
    assert domains.fail_domain_order(domain_order_id="0" * 32) is False


def test_two_orders_for_one_domain_connect_only_one(founder, run_jobs):
    first = store_founder(founder, run_jobs, demo_item("p00"))
    second = store_founder(founder, run_jobs, demo_item("p01"))
    a, b = order(first, "knifestrip.com"), order(second, "knifestrip.com")
    assert domains.connect_paid_domain(domain_order_id=a.id) is True
    assert domains.connect_paid_domain(domain_order_id=b.id) is False
    assert DomainOrder.get_by_id(b.id).state == "failed"
    assert domains.connect_paid_domain(domain_order_id=b.id) is False
    assert ok(second.get("/api/domains?q=x"))["connected"] is None
    assert facts_of(second)["domain_connected"]["true_today"] is False
    body = refusal(quote_of(second, "knifestrip.com"), 200, "not_available")
    assert "another store" in body["explanation"]
    with pytest.raises(Refused):
        order(second, "knifestrip.com")


def test_payments_confirming_at_once_for_one_domain_connect_exactly_one(founder, run_jobs):
    clients = [store_founder(founder, run_jobs, demo_item(f"p{n:02d}")) for n in range(4)]
    rows = [order(client, "racing.shop") for client in clients]
    results = in_threads(len(rows), lambda i: domains.connect_paid_domain(domain_order_id=rows[i].id))
    assert sorted(results) == [False, False, False, True]
    states = sorted(DomainOrder.get_by_id(row.id).state for row in rows)
    assert states == ["connected", "failed", "failed", "failed"]


def test_connecting_inside_the_payments_transaction_keeps_that_transaction(founder, run_jobs):
    from models.db import transaction

    first = store_founder(founder, run_jobs, demo_item("p00"))
    second = store_founder(founder, run_jobs, demo_item("p01"))
    a, b = order(first, "knifestrip.com"), order(second, "knifestrip.com")
    domains.connect_paid_domain(domain_order_id=a.id)
    with transaction():
        DomainOrder.update(payment_id="pay_b").where(DomainOrder.id == b.id).execute()
        assert domains.connect_paid_domain(domain_order_id=b.id) is False
        # the caller's own write in the same transaction still commits
    stored = DomainOrder.get_by_id(b.id)
    assert (stored.state, stored.payment_id) == ("failed", "pay_b")


# --- Owners ------------------------------------------------------------------------------------------

def test_another_founder_never_sees_your_domain(founder, run_jobs):
    owner = store_founder(founder, run_jobs, demo_item("p00"))
    row = order(owner, "knifestrip.com")
    domains.connect_paid_domain(domain_order_id=row.id)
    other = store_founder(founder, run_jobs, demo_item("p01"))
    stranger = founder()
    assert ok(other.get("/api/domains?q=x"))["connected"] is None
    assert ok(stranger.get("/api/domains?q=x"))["connected"] is None
    assert ok(quote_of(stranger, "knife.com"))["connected"] is None
    assert facts_of(other)["domain_connected"]["true_today"] is False
    assert "knifestrip.com" not in str(facts_of(other))
    assert domains.connected_domain(domains.owner_of(session_of(other)), "p00") is None
    assert domains.connected_domain(domains.owner_of(session_of(owner)), "p00") == "knifestrip.com"


def test_signing_up_moves_the_sessions_domain_orders_to_the_account(founder, run_jobs):
    client = store_founder(founder, run_jobs)
    row = order(client, "knifestrip.com")
    domains.connect_paid_domain(domain_order_id=row.id)
    assert save(client, "domains@example.com").status_code == 200
    assert DomainOrder.get_by_id(row.id).account_id is None  # an unproven address adopts nothing
    run_jobs()
    assert client.get(path_of(last_link("domains@example.com"))).status_code == 303
    stored = DomainOrder.get_by_id(row.id)
    assert stored.account_id is not None and stored.account_id == session_of(client).account_id
    assert ok(client.get("/api/domains?q=x"))["connected"] == "knifestrip.com"
    assert facts_of(client)["domain_connected"]["true_today"] is True
