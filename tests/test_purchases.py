"""What a founder buys through the payment provider (issue 13, points 4-6; issue 20, point 5):
samples of a supplier's offer line and a domain for the store, each paid on the sandbox's
hosted page and only then recorded as bought; the launch facts they make true; isolation
between founders."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from integrations.payments import ProviderUnavailable, sandbox_bank
from models.domain import DomainOrder
from models.payment import Payment, SampleOrder, SandboxCheckout, SandboxRefund
from tests.factories import (
    KNIFE_STRIP,
    OFFERS,
    built,
    choose,
    claimed_founder,
    connect_line,
    demo_item,
    demo_product,
    follow,
    line_of,
    refusal,
)


@pytest.fixture
def owner(founder, run_jobs):
    """A founder with a claimed product (p00) and a built store."""
    client = claimed_founder(founder)
    built(client, run_jobs)
    return client


@pytest.fixture
def sourcing(founder):
    """A founder who has claimed a demo catalog product, which the bundled feed offers."""
    return claimed_founder(founder, demo_product())


def fact(client, fact_id):
    return next(f for f in client.get("/api/launch").get_json()["facts"] if f["id"] == fact_id)


def sample(client, **body):
    response = client.post("/api/samples/checkout", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert answer["status"] == "checkout_started", answer
    return answer


# --- Samples --------------------------------------------------------------------------------


def test_a_sample_of_the_connected_line_names_its_sku_and_costs_its_unit_cost(sourcing, run_jobs):
    line = line_of(n=1)
    connect_line(sourcing, line)
    answer = sample(sourcing, supplier=line["supplier"], quantity=3)  # the connected line: no SKU needed
    assert (answer["supplier"], answer["sku"]) == (line["supplier"], line["sku"])
    assert answer["amount_minor"] == round(line["cost"] * 100) * 3 and answer["currency"] == line["currency"]
    listed = sourcing.get("/api/samples").get_json()["samples"]
    assert [(s["state"], s["supplier"], s["sku"], s["name"], s["offers_product_id"], s["product_id"], s["quantity"])
            for s in listed] == [("open", line["supplier"], line["sku"], line["name"], KNIFE_STRIP, KNIFE_STRIP, 3)]
    assert fact(sourcing, "sample_ordered")["true_today"] is False

    landing = follow(sourcing, choose(sourcing, answer["checkout_url"], "pay"))
    assert landing.headers["Location"].startswith("/#/app/suppliers?payment=")
    run_jobs()
    assert sourcing.get("/api/samples").get_json()["samples"][0]["state"] == "paid"
    paid = fact(sourcing, "sample_ordered")
    assert paid["true_today"] is True and f"{line['supplier']} ({line['sku']})" in paid["detail"]


def test_a_sample_names_its_line_by_supplier_and_sku(sourcing):
    for line in OFFERS[KNIFE_STRIP]:
        answer = sample(sourcing, supplier=line["supplier"].lower(), sku=line["sku"], quantity=2)
        assert (answer["supplier"], answer["sku"], answer["amount_minor"]) == (
            line["supplier"], line["sku"], round(line["cost"] * 100) * 2)
    listed = sourcing.get("/api/samples").get_json()["samples"]
    assert sorted(s["sku"] for s in listed) == sorted(line["sku"] for line in OFFERS[KNIFE_STRIP])


def test_a_supplier_alone_buys_its_line_of_your_product_never_another_of_its_goods(sourcing):
    for line in OFFERS[KNIFE_STRIP]:
        answer = sample(sourcing, supplier=line["supplier"])
        assert answer["sku"] == line["sku"]
    assert {row.offers_product_id for row in SampleOrder.select()} == {KNIFE_STRIP}
    # A supplier that does not offer your product: which of its goods? Refused, nothing opened.
    others = {"Guangzhou PetCare Ltd.", "Hangzhou Silk & Co.", "Dongguan Fitline"}
    elsewhere = sorted(others - {line["supplier"] for line in OFFERS[KNIFE_STRIP]})[0]
    refusal(sourcing.post("/api/samples/checkout", json={"supplier": elsewhere}), 400, "unknown_offer")
    assert SampleOrder.select().count() == len(OFFERS[KNIFE_STRIP])


def test_a_declined_sample_is_not_ordered(sourcing, run_jobs):
    answer = sample(sourcing, supplier=line_of()["supplier"], sku=line_of()["sku"])
    back = follow(sourcing, choose(sourcing, answer["checkout_url"], "decline"))
    assert back.headers["Location"].endswith("&cancelled=1")
    run_jobs()
    assert sourcing.get("/api/samples").get_json()["samples"][0]["state"] == "failed"
    assert fact(sourcing, "sample_ordered")["true_today"] is False


LINE = line_of()


@pytest.mark.parametrize("body, status, reason", [
    ({"supplier": "Nobody Ltd", "quantity": 1}, 400, "unknown_supplier"),
    ({"supplier": "", "quantity": 1}, 400, "unknown_supplier"),
    ({"quantity": 1}, 400, "unknown_supplier"),
    ({"sku": LINE["sku"], "quantity": 1}, 400, "unknown_supplier"),
    ({"supplier": LINE["supplier"], "sku": "NO-SUCH-SKU"}, 400, "unknown_offer"),
    ({"supplier": LINE["supplier"], "sku": ""}, 400, "unknown_offer"),
    ({"supplier": LINE["supplier"], "sku": 7}, 400, "unknown_offer"),
    ({"supplier": LINE["supplier"]}, 400, "unknown_offer"),  # no product, no connection: which of its goods?
    ({"supplier": "x", "quantity": 0}, 400, "invalid_quantity"),
    ({"supplier": "x", "quantity": 11}, 400, "invalid_quantity"),
])
def test_a_bad_sample_order_is_refused_and_opens_nothing(client, body, status, reason):
    refusal(client.post("/api/samples/checkout", json=body), status, reason)
    assert SampleOrder.select().count() == 0 and Payment.select().count() == 0


def test_a_provider_that_cannot_start_charges_nothing_for_a_sample(sourcing, monkeypatch):
    monkeypatch.setattr(sandbox_bank, "create", lambda *a, **k: (_ for _ in ()).throw(ProviderUnavailable("down")))
    answer = sourcing.post("/api/samples/checkout", json={"supplier": LINE["supplier"], "sku": LINE["sku"]}).get_json()
    assert answer["reason"] == "payment_unavailable" and answer["sample_id"]
    assert SampleOrder.get_by_id(answer["sample_id"]).state == "failed"


def test_another_founder_never_sees_your_samples_or_buys_through_your_connection(sourcing, founder, run_jobs):
    connect_line(sourcing, LINE)
    answer = sample(sourcing, supplier=LINE["supplier"])
    choose(sourcing, answer["checkout_url"], "pay")
    run_jobs()
    other = founder()
    listed = other.get("/api/samples").get_json()
    assert (listed["status"], listed["reason"], listed["samples"]) == ("no_samples_yet", "no_samples_yet", [])
    assert fact(other, "sample_ordered")["true_today"] is False
    # Your connected line is yours: the other founder naming the supplier alone is asked which line.
    refusal(other.post("/api/samples/checkout", json={"supplier": LINE["supplier"]}), 400, "unknown_offer")


# --- Domains --------------------------------------------------------------------------------


def test_a_domain_is_connected_to_the_store_once_its_payment_is_confirmed(owner, run_jobs):
    quote = owner.get("/api/domains?domain=acaciaknives.com").get_json()
    assert quote["status"] == "ok" and quote["available"] is True
    answer = owner.post("/api/domains/checkout", json={"domain": "acaciaknives.com"}).get_json()
    assert answer["status"] == "checkout_started" and answer["amount_minor"] == quote["price_minor"]
    assert owner.get("/api/domains?q=knives").get_json()["connected"] is None  # nothing until it is paid
    assert fact(owner, "domain_connected")["true_today"] is False

    landing = follow(owner, choose(owner, answer["checkout_url"], "pay"))
    assert landing.headers["Location"].startswith("/#/app/domains?payment=")
    run_jobs()
    assert owner.get("/api/domains?q=knives").get_json()["connected"] == "acaciaknives.com"
    assert fact(owner, "domain_connected")["true_today"] is True
    # Bought and connected: nobody can buy it again here.
    assert owner.get("/api/domains?domain=acaciaknives.com").get_json()["reason"] == "not_available"


def test_an_abandoned_domain_payment_connects_nothing(owner, run_jobs):
    answer = owner.post("/api/domains/checkout", json={"domain": "acaciaknives.shop"}).get_json()
    choose(owner, answer["checkout_url"], "abandon")
    run_jobs()
    assert DomainOrder.get_by_id(answer["domain_order_id"]).state == "failed"
    assert fact(owner, "domain_connected")["true_today"] is False


def test_two_founders_paying_for_one_domain_connect_it_once(owner, founder, run_jobs, app):
    second = claimed_founder(founder, demo_item("p01"))
    built(second, run_jobs)
    first_order = owner.post("/api/domains/checkout", json={"domain": "oneforall.com"}).get_json()
    second_order = second.post("/api/domains/checkout", json={"domain": "oneforall.com"}).get_json()
    choose(owner, first_order["checkout_url"], "pay")
    choose(second, second_order["checkout_url"], "pay")

    def confirm_payment(payment_id):
        return app.test_client().get(f"/pay/landing?payment={payment_id}").status_code

    payments = [DomainOrder.get_by_id(o["domain_order_id"]).payment_id for o in (first_order, second_order)]
    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(confirm_payment, payments * 5)) == {303}
    run_jobs()
    states = sorted(DomainOrder.get_by_id(o["domain_order_id"]).state for o in (first_order, second_order))
    assert states == ["connected", "failed"]
    # The second payer's money went back through the provider, once, and the payment says so.
    [refunded] = list(Payment.select().where(Payment.refund_state.is_null(False)))
    assert (refunded.refund_state, refunded.refund_attempt, refunded.error) == ("refunded", 1, None)
    checkout = SandboxCheckout.get(SandboxCheckout.id == refunded.provider_ref)
    assert checkout.refunded_minor == checkout.amount_minor
    [made] = list(SandboxRefund.select())
    assert (made.id, made.state, made.amount_minor) == (refunded.refund_ref, "succeeded", checkout.amount_minor)


@pytest.mark.parametrize("body, status, reason", [
    ({"domain": "not a domain"}, 400, "invalid_domain"),
    ({"domain": "mytakenname.com"}, 200, "not_available"),
])
def test_a_bad_domain_order_is_refused(owner, body, status, reason):
    refusal(owner.post("/api/domains/checkout", json=body), status, reason)
    assert Payment.select().count() == 0


def test_a_domain_needs_a_built_store(founder):
    client = claimed_founder(founder)
    refusal(client.post("/api/domains/checkout", json={"domain": "fresh.com"}), 409, "not_started")
    refusal(founder().post("/api/domains/checkout", json={"domain": "fresh.com"}), 200, "not_claimed")
