"""What a founder buys through the payment provider (issue 13, points 4-6): samples from a
supplier and a domain for the store, each paid on the sandbox's hosted page and only then
recorded as bought; the launch facts they make true; isolation between founders."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from integrations import suppliers as feed
from integrations.payments import ProviderUnavailable, sandbox_bank
from models.domain import DomainOrder
from models.payment import Payment, SampleOrder, SandboxCheckout, SandboxRefund
from tests.test_commerce import choose, confirm, follow, path_of  # noqa: F401
from tests.test_discovery import refusal
from tests.test_store import built, claimed_founder, demo_item


@pytest.fixture
def owner(founder, run_jobs):
    """A founder with a claimed product (p00) and a built store."""
    client = claimed_founder(founder)
    built(client, run_jobs)
    return client


def a_supplier() -> feed.SupplierOption:
    return feed.offers_of(feed.options_for("cutting board")[0].supplier)[0]


def fact(client, fact_id):
    return next(f for f in client.get("/api/launch").get_json()["facts"] if f["id"] == fact_id)


# --- Samples --------------------------------------------------------------------------------


def test_a_sample_is_ordered_only_once_the_provider_says_it_is_paid(owner, run_jobs):
    offer = a_supplier()
    answer = owner.post("/api/samples/checkout", json={"supplier": offer.supplier, "quantity": 3}).get_json()
    assert answer["status"] == "checkout_started"
    assert answer["amount_minor"] == round(offer.unit_cost * 100) * 3 and answer["currency"] == offer.currency
    listed = owner.get("/api/samples").get_json()
    assert [(s["state"], s["supplier"], s["quantity"]) for s in listed["samples"]] == [("open", offer.supplier, 3)]
    assert fact(owner, "sample_ordered")["true_today"] is False

    landing = follow(owner, choose(owner, answer["checkout_url"], "pay"))
    assert landing.headers["Location"].startswith("/#/app/suppliers?payment=")
    run_jobs()
    assert owner.get("/api/samples").get_json()["samples"][0]["state"] == "paid"
    assert fact(owner, "sample_ordered")["true_today"] is True


def test_a_declined_sample_is_not_ordered(owner, run_jobs):
    answer = owner.post("/api/samples/checkout", json={"supplier": a_supplier().supplier}).get_json()
    back = follow(owner, choose(owner, answer["checkout_url"], "decline"))
    assert back.headers["Location"].endswith("&cancelled=1")
    run_jobs()
    assert owner.get("/api/samples").get_json()["samples"][0]["state"] == "failed"
    assert fact(owner, "sample_ordered")["true_today"] is False


@pytest.mark.parametrize("body, status, reason", [
    ({"supplier": "Nobody Ltd", "quantity": 1}, 400, "unknown_supplier"),
    ({"supplier": "", "quantity": 1}, 400, "unknown_supplier"),
    ({"quantity": 1}, 400, "unknown_supplier"),
    ({"supplier": "x", "quantity": 0}, 400, "invalid_quantity"),
    ({"supplier": "x", "quantity": 11}, 400, "invalid_quantity"),
])
def test_a_bad_sample_order_is_refused_and_opens_nothing(client, body, status, reason):
    refusal(client.post("/api/samples/checkout", json=body), status, reason)
    assert SampleOrder.select().count() == 0 and Payment.select().count() == 0


def test_a_provider_that_cannot_start_charges_nothing_for_a_sample(owner, monkeypatch):
    monkeypatch.setattr(sandbox_bank, "create", lambda *a, **k: (_ for _ in ()).throw(ProviderUnavailable("down")))
    answer = owner.post("/api/samples/checkout", json={"supplier": a_supplier().supplier}).get_json()
    assert answer["reason"] == "payment_unavailable" and answer["sample_id"]
    assert SampleOrder.get_by_id(answer["sample_id"]).state == "failed"


def test_another_founder_never_sees_your_samples(owner, founder, run_jobs):
    answer = owner.post("/api/samples/checkout", json={"supplier": a_supplier().supplier}).get_json()
    choose(owner, answer["checkout_url"], "pay")
    run_jobs()
    other = founder()
    listed = other.get("/api/samples").get_json()
    assert (listed["status"], listed["reason"], listed["samples"]) == ("no_samples_yet", "no_samples_yet", [])
    assert fact(other, "sample_ordered")["true_today"] is False


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
