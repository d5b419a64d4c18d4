"""A sample's payment says why it ended (issue 47, point 6), through HTTP: a founder who
cancels a sample's payment on the provider's page reads, in GET /api/samples, `expired` with
`expired_because: cancelled`, as a customer's cancelled checkout reads in GET /api/tracking;
one left unpaid past its day reads `timed_out`; an open, a paid or a declined sample has no
expiry reason. The field is documented in the OpenAPI document."""
from __future__ import annotations

from datetime import timedelta

import pytest

from jobs.payments import expire_sandbox_checkouts
from models.clock import utcnow
from models.payment import Payment, SampleOrder, SandboxCheckout
from services.commerce import payments
from tests.factories import choose, claimed_founder, demo_product, follow, line_of

LINE = line_of()


@pytest.fixture
def sourcing(founder):
    """A founder (a cookie jar of their own) who claimed a demo catalog product the bundled
    feed offers."""
    return claimed_founder(founder, demo_product())


def order_sample(client) -> dict:
    response = client.post("/api/samples/checkout", json={"supplier": LINE["supplier"], "sku": LINE["sku"]})
    answer = response.get_json()
    assert response.status_code == 200 and answer["status"] == "checkout_started", answer
    return answer


def listed(client) -> dict[str, tuple[str, str | None]]:
    """The founder's samples as GET /api/samples answers them: id -> (state, expired_because)."""
    body = client.get("/api/samples").get_json()
    assert body["status"] == "ok", body
    return {row["sample_id"]: (row["state"], row["expired_because"]) for row in body["samples"]}


def payment_of(sample_id: str) -> Payment:
    return Payment.get_by_id(SampleOrder.get_by_id(sample_id).payment)


def test_a_sample_its_founder_cancelled_on_the_payment_page_says_cancelled_not_expired(sourcing, founder, run_jobs):
    answer = order_sample(sourcing)
    assert listed(sourcing) == {answer["sample_id"]: ("open", None)}

    back = choose(sourcing, answer["checkout_url"], "abandon", {})  # "Cancel and go back"
    assert back.status_code == 303 and "/pay/back?payment=" in back.headers["Location"]
    landing = follow(sourcing, back)
    assert landing.headers["Location"] == f"/#/app/suppliers?payment={payment_of(answer['sample_id']).id}&cancelled=1"
    assert listed(sourcing) == {answer["sample_id"]: ("expired", "cancelled")}
    run_jobs()  # the provider's notification of the expiry changes nothing of that

    payment = payment_of(answer["sample_id"])
    assert (payment.state, payment.error) == (Payment.EXPIRED, payments.CANCELLED_BY_CUSTOMER)
    assert listed(sourcing) == {answer["sample_id"]: ("expired", "cancelled")}
    # Another founder's jar sees none of it.
    assert founder().get("/api/samples").get_json()["samples"] == []


def test_a_sample_left_unpaid_past_its_day_says_timed_out(sourcing, run_jobs):
    late, fresh = order_sample(sourcing), order_sample(sourcing)
    # A day later: the provider's checkout and the payment are both past their day.
    SandboxCheckout.update(expires_at=utcnow() - timedelta(seconds=1)).where(
        SandboxCheckout.id == payment_of(late["sample_id"]).provider_ref).execute()
    Payment.update(created_at=utcnow() - timedelta(days=1, minutes=1)).where(
        Payment.id == payment_of(late["sample_id"]).id).execute()

    expire_sandbox_checkouts.fn()  # the clock's pass: the sandbox notifies the service, which asks
    run_jobs()

    assert payment_of(late["sample_id"]).state == Payment.EXPIRED
    assert listed(sourcing) == {late["sample_id"]: ("expired", "timed_out"), fresh["sample_id"]: ("open", None)}


def test_a_paid_or_declined_sample_has_no_expiry_reason(sourcing, run_jobs):
    paid, declined = order_sample(sourcing), order_sample(sourcing)
    follow(sourcing, choose(sourcing, paid["checkout_url"], "pay", {}))
    follow(sourcing, choose(sourcing, declined["checkout_url"], "decline", {}))
    run_jobs()
    assert listed(sourcing) == {paid["sample_id"]: ("paid", None), declined["sample_id"]: ("failed", None)}


def test_the_samples_answer_documents_expired_because(client):
    document = client.get("/api/openapi.json").get_json()
    row = document["components"]["schemas"]["SampleRow"]
    field = row["properties"]["expired_because"]
    assert "expired_because" in row["required"]
    assert set(field["enum"]) == {"cancelled", "timed_out", None}
    assert "cancelled on the payment page" in field["description"] and "timed_out" in field["description"]
