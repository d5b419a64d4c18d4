"""Refunds recorded as the provider settled them (issue 19, point 7; reliability guide,
Faults: "a refund is recorded as the provider settled it; a refund interrupted half-way ends
refunded once").

A refund is owed when a founder pays for a domain that another store connected first. The
sandbox tests go through that flow (the checkout route, the provider's page, the landing)
and count the refunds the sandbox bank made; the Stripe tests run the same service code
against recorded Stripe answers (tests/fixtures/stripe/), never the network."""
from __future__ import annotations

from datetime import timedelta

import pytest

from integrations.payments import ProviderRefused, ProviderUnavailable, sandbox_bank
from integrations.payments.sandbox import SandboxProvider
from integrations.payments.stripe_provider import StripeProvider
from models.clock import clock, utcnow
from models.domain import DomainOrder
from models.payment import Payment, SandboxCheckout, SandboxRefund
from services import domains
from services.commerce import payments
from services.commerce.payments import MAX_REFUND_ATTEMPTS, REFUND_BACKOFF, REFUND_STALE, recheck_refunds
from tests.conftest import SETTINGS
from tests.factories import demo_item, session_of, store_founder
from tests.helpers import in_threads
from tests.stand_ins import INTENT_ID, SESSION_ID, WEBHOOK_SECRET, RecordedStripe

PAST_STALE = REFUND_STALE + timedelta(seconds=1)


class ProcessDied(Exception):
    """Stands for a process that stops (a kill, a crash) right after the provider answered."""


def dies_after_asking(monkeypatch, provider_class):
    """The provider makes the refund, then the process asking dies before it records the
    answer. Answers a function that lets the next process live."""
    real = provider_class.refund

    def refund_then_die(self, **kwargs):
        real(self, **kwargs)
        raise ProcessDied()

    monkeypatch.setattr(provider_class, "refund", refund_then_die)
    return lambda: monkeypatch.setattr(provider_class, "refund", real)


@pytest.fixture
def owed(founder, run_jobs):
    """A founder (p01's store) who paid for a domain that p00's store connected while they
    were on the provider's page: their payment is paid at the provider and, once confirmed,
    owes a refund. Its notification is not sent, so only what each test does confirms it.
    Answers (the founder's client, the payment id)."""
    first = store_founder(founder, run_jobs, demo_item("p00"))
    second = store_founder(founder, run_jobs, demo_item("p01"))
    started = second.post("/api/domains/checkout", json={"domain": "twice.shop"}).get_json()
    assert started["status"] == "checkout_started", started
    taken = domains.start_domain_order(session=session_of(first), domain="twice.shop")
    assert domains.connect_paid_domain(domain_order_id=taken.id) is True
    payment_id = DomainOrder.get_by_id(started["domain_order_id"]).payment_id
    sandbox_bank.settle(Payment.get_by_id(payment_id).provider_ref, "pay")
    return second, payment_id


def land(client, payment_id):
    """The founder's browser back from the provider's page: the landing asks the provider."""
    assert client.get(f"/pay/landing?payment={payment_id}").status_code == 303


def refund_of(payment_id) -> tuple:
    row = Payment.get_by_id(payment_id)
    return row.refund_state, row.refund_attempt, row.refund_error


def bank_refunds(payment_id) -> list[SandboxRefund]:
    checkout = Payment.get_by_id(payment_id).provider_ref
    return list(SandboxRefund.select().where(SandboxRefund.checkout == checkout).order_by(SandboxRefund.created_at))


def refunded_at_bank(payment_id) -> int:
    return SandboxCheckout.get_by_id(Payment.get_by_id(payment_id).provider_ref).refunded_minor


def bank_answers(monkeypatch, *answers):
    """The sandbox bank answers the next refunds with these (state, reason), then succeeds."""
    queue = list(answers)
    monkeypatch.setattr(sandbox_bank, "refund_outcome",
                        lambda checkout, amount: queue.pop(0) if queue else (SandboxRefund.SUCCEEDED, None))


# --- The sandbox provider -------------------------------------------------------------------


def test_a_sandbox_refund_that_succeeds_is_recorded_refunded_once(owed):
    client, payment_id = owed
    land(client, payment_id)
    row = Payment.get_by_id(payment_id)
    assert (row.state, row.refund_state, row.refund_attempt, row.refund_error, row.error) == (
        "paid", "refunded", 1, None, None)
    assert row.refund_requested_at is not None and row.refund_retry_at is None
    [made] = bank_refunds(payment_id)
    assert (made.id, made.state, made.key) == (row.refund_ref, "succeeded", f"refund:{payment_id}:1")
    assert refunded_at_bank(payment_id) == row.amount_minor
    assert DomainOrder.get(DomainOrder.payment_id == payment_id).state == "failed"
    land(client, payment_id)
    clock.advance(hours=7)
    assert recheck_refunds() == 0
    assert len(bank_refunds(payment_id)) == 1 and refund_of(payment_id)[0] == "refunded"


def test_a_pending_sandbox_refund_stays_pending_until_the_provider_settles_it(owed, monkeypatch):
    client, payment_id = owed
    bank_answers(monkeypatch, (SandboxRefund.PENDING, None))
    land(client, payment_id)
    row = Payment.get_by_id(payment_id)
    assert (row.refund_state, row.refund_ref) == ("pending", bank_refunds(payment_id)[0].id)
    assert recheck_refunds() == 0  # asked again only after a while
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 0  # the provider still says pending
    assert refund_of(payment_id)[0] == "pending"

    assert sandbox_bank.settle_refund(row.refund_ref, SandboxRefund.SUCCEEDED) is True
    assert recheck_refunds() == 0  # asked a moment ago
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id) == ("refunded", 1, None)
    assert len(bank_refunds(payment_id)) == 1 and refunded_at_bank(payment_id) == row.amount_minor


def test_a_failed_sandbox_refund_is_due_again_with_the_providers_reason_and_the_clock_retries_it(owed, monkeypatch):
    client, payment_id = owed
    bank_answers(monkeypatch, (SandboxRefund.FAILED, "expired_or_canceled_card"))
    land(client, payment_id)
    row = Payment.get_by_id(payment_id)
    assert refund_of(payment_id) == ("due", 2, "failed: expired_or_canceled_card")
    [failed] = bank_refunds(payment_id)
    assert row.refund_ref == failed.id and refunded_at_bank(payment_id) == 0  # nothing went back
    assert row.refund_retry_at == row.refund_updated_at + REFUND_BACKOFF[0]

    land(client, payment_id)  # a confirmation during the pause asks nothing
    clock.advance((REFUND_BACKOFF[0] - timedelta(minutes=1)).total_seconds())
    assert recheck_refunds() == 0 and len(bank_refunds(payment_id)) == 1
    clock.advance(minutes=2)
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    first, second = bank_refunds(payment_id)
    assert (first.state, second.state) == ("failed", "succeeded")
    assert (first.key, second.key) == (f"refund:{payment_id}:1", f"refund:{payment_id}:2")
    assert Payment.get_by_id(payment_id).refund_ref == second.id
    assert refunded_at_bank(payment_id) == row.amount_minor  # once
    assert recheck_refunds() == 0


def test_a_pending_refund_the_provider_cancels_is_due_again_and_then_refunded(owed, monkeypatch):
    client, payment_id = owed
    bank_answers(monkeypatch, (SandboxRefund.PENDING, None))
    land(client, payment_id)
    pending = Payment.get_by_id(payment_id).refund_ref
    assert refunded_at_bank(payment_id) == Payment.get_by_id(payment_id).amount_minor  # held for the refund
    assert sandbox_bank.settle_refund(pending, SandboxRefund.CANCELED) is True
    assert refunded_at_bank(payment_id) == 0
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id) == ("due", 2, "canceled")
    clock.advance(REFUND_BACKOFF[0].total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    assert [r.state for r in bank_refunds(payment_id)] == ["canceled", "succeeded"]


def test_a_refused_refund_stays_due_and_the_clock_makes_it_once(owed, monkeypatch):
    client, payment_id = owed
    real = sandbox_bank.refund
    refusals = []

    def refuses_once(payment_ref, amount_minor, key):
        if not refusals:
            refusals.append(key)
            raise ProviderRefused("the sandbox is refusing refunds today")
        return real(payment_ref, amount_minor, key)

    monkeypatch.setattr(sandbox_bank, "refund", refuses_once)
    land(client, payment_id)
    assert refund_of(payment_id) == ("due", 2, "refused: the sandbox is refusing refunds today")
    assert bank_refunds(payment_id) == [] and Payment.get_by_id(payment_id).refund_ref is None
    assert recheck_refunds() == 0  # the pause after a refusal
    clock.advance((REFUND_BACKOFF[0] + timedelta(seconds=1)).total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    [made] = bank_refunds(payment_id)
    assert made.key == f"refund:{payment_id}:2" and refusals == [f"refund:{payment_id}:1"]
    assert refunded_at_bank(payment_id) == Payment.get_by_id(payment_id).amount_minor


def test_a_provider_that_does_not_answer_leaves_the_refund_due_under_the_same_key(owed, monkeypatch):
    client, payment_id = owed
    real = sandbox_bank.refund
    monkeypatch.setattr(sandbox_bank, "refund", lambda *a: (_ for _ in ()).throw(ProviderUnavailable("down")))
    land(client, payment_id)
    assert refund_of(payment_id) == ("due", 1, None)  # nothing known, no pause: not the provider's "no"
    monkeypatch.setattr(sandbox_bank, "refund", real)
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    [made] = bank_refunds(payment_id)
    assert made.key == f"refund:{payment_id}:1"


def test_a_refund_that_keeps_failing_ends_failed_after_the_last_attempt(owed, monkeypatch):
    client, payment_id = owed
    bank_answers(monkeypatch, *[(SandboxRefund.FAILED, "declined")] * MAX_REFUND_ATTEMPTS)
    land(client, payment_id)
    for pause in REFUND_BACKOFF:
        assert refund_of(payment_id)[0] == "due"
        clock.advance((pause + timedelta(seconds=1)).total_seconds())
        recheck_refunds()
    row = Payment.get_by_id(payment_id)
    assert (row.refund_state, row.refund_attempt, row.refund_error) == ("failed", MAX_REFUND_ATTEMPTS,
                                                                        "failed: declined")
    assert [r.state for r in bank_refunds(payment_id)] == ["failed"] * MAX_REFUND_ATTEMPTS
    assert row.refund_ref == bank_refunds(payment_id)[-1].id and refunded_at_bank(payment_id) == 0
    clock.advance(days=2)
    land(client, payment_id)
    assert recheck_refunds() == 0 and len(bank_refunds(payment_id)) == MAX_REFUND_ATTEMPTS


def test_a_refund_interrupted_after_the_provider_made_it_ends_refunded_once(owed, monkeypatch):
    _client, payment_id = owed
    live_again = dies_after_asking(monkeypatch, SandboxProvider)
    with pytest.raises(ProcessDied):
        payments.confirm(payment_id)  # marks it paid, asks for the refund, and dies before recording
    live_again()
    row = Payment.get_by_id(payment_id)
    assert (row.state, row.refund_state, row.refund_ref) == ("paid", "refunding", None)
    [made] = bank_refunds(payment_id)
    assert made.state == "succeeded" and refunded_at_bank(payment_id) == row.amount_minor

    payments.confirm(payment_id)  # another confirmation leaves a refund under way alone
    assert recheck_refunds() == 0  # its caller may still be on its way back
    assert refund_of(payment_id)[0] == "refunding"
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 1
    row = Payment.get_by_id(payment_id)
    assert (row.refund_state, row.refund_ref, row.refund_attempt) == ("refunded", made.id, 1)
    # Asked again under the same key, the bank answered the refund it had made: one refund, paid back once.
    assert [r.id for r in bank_refunds(payment_id)] == [made.id]
    assert refunded_at_bank(payment_id) == row.amount_minor


def test_a_caller_that_stalled_while_the_clock_finished_its_refund_records_nothing(owed, monkeypatch):
    client, payment_id = owed
    real = sandbox_bank.refund

    def stalls_then_times_out(payment_ref, amount_minor, key):
        # While this caller waits on the provider, the clock finds the refund left half-way
        # and finishes it; then this caller's call times out.
        monkeypatch.setattr(sandbox_bank, "refund", real)
        clock.advance(PAST_STALE.total_seconds())
        assert recheck_refunds() == 1
        raise ProviderUnavailable("timed out")

    monkeypatch.setattr(sandbox_bank, "refund", stalls_then_times_out)
    land(client, payment_id)
    assert refund_of(payment_id) == ("refunded", 1, None)  # its late "due again" was not written
    assert len(bank_refunds(payment_id)) == 1


def test_concurrent_confirmations_and_re_checks_make_one_refund(owed, monkeypatch):
    client, payment_id = owed
    real = sandbox_bank.refund
    monkeypatch.setattr(sandbox_bank, "refund", lambda *a: (_ for _ in ()).throw(ProviderUnavailable("down")))
    land(client, payment_id)
    assert refund_of(payment_id) == ("due", 1, None)
    monkeypatch.setattr(sandbox_bank, "refund", real)
    in_threads(12, lambda i: recheck_refunds() if i % 2 else payments.confirm(payment_id))
    assert refund_of(payment_id)[0] == "refunded"
    assert len(bank_refunds(payment_id)) == 1
    assert refunded_at_bank(payment_id) == Payment.get_by_id(payment_id).amount_minor


def test_the_sandbox_answers_a_refund_asked_again_under_its_key_and_refuses_a_reused_key(owed):
    client, payment_id = owed
    land(client, payment_id)
    row = Payment.get_by_id(payment_id)
    provider = SandboxProvider(SETTINGS)
    again = provider.refund(payment_ref=row.payment_ref, amount_minor=row.amount_minor, key=payments.refund_key(row))
    assert (again.ref, again.state, again.amount_minor) == (row.refund_ref, "succeeded", row.amount_minor)
    assert provider.refund_state(row.refund_ref) == again
    with pytest.raises(ProviderRefused):
        provider.refund(payment_ref=row.payment_ref, amount_minor=1, key=payments.refund_key(row))
    with pytest.raises(ProviderRefused):
        provider.refund_state("re_sbx_nope")
    assert len(bank_refunds(payment_id)) == 1 and refunded_at_bank(payment_id) == row.amount_minor


# --- Stripe, against recorded answers ----------------------------------------------------------


@pytest.fixture
def stripe_refund(monkeypatch):
    """A paid Stripe payment (2499 EUR) that owes a refund, and the recorded answers Stripe
    gives the service: call it with the answers expected, in order."""
    payment = Payment.create(id="a" * 32, purpose=Payment.DOMAIN, subject="b" * 32, amount_minor=2499, currency="EUR",
                             provider="stripe", provider_ref=SESSION_ID, state=Payment.PAID, payment_ref=INTENT_ID,
                             created_at=utcnow(), paid_at=utcnow())
    payments.owe_refund(payment)
    http = RecordedStripe()
    stripe = StripeProvider(secret_key="sk_test_recorded", webhook_secret=WEBHOOK_SECRET, timeout_seconds=7,
                            http_client=http)
    monkeypatch.setattr(payments, "provider", lambda: stripe)

    def answers(*recorded):
        http.answers.extend(recorded)
        return http

    return payment.id, answers


def create(fixture, status=200):
    return "post", "/v1/refunds", fixture, status


def retrieve(refund_id, fixture):
    return "get", f"/v1/refunds/{refund_id}", fixture, 200


def test_a_stripe_refund_that_succeeded_is_recorded_refunded(stripe_refund):
    payment_id, answers = stripe_refund
    http = answers(create("refund_succeeded.json"))
    payments.refund_if_due(payment_id)
    assert refund_of(payment_id) == ("refunded", 1, None)
    assert Payment.get_by_id(payment_id).refund_ref == "re_3QZ4aBAb4CdEfGhI1SuCcEeD"
    [sent] = http.sent
    assert sent["form"] == {"payment_intent": INTENT_ID, "amount": "2499"}
    assert sent["headers"]["Idempotency-Key"] == f"refund:{payment_id}:1"


def test_a_pending_stripe_refund_is_pending_until_stripe_says_it_succeeded(stripe_refund):
    payment_id, answers = stripe_refund
    pending_id = "re_3QZ4aBAb4CdEfGhI2PeNdInG"
    http = answers(create("refund_pending.json"), retrieve(pending_id, "refund_pending.json"),
                   retrieve(pending_id, "refund_pending_settled.json"))
    payments.refund_if_due(payment_id)
    assert refund_of(payment_id) == ("pending", 1, None)
    assert Payment.get_by_id(payment_id).refund_ref == pending_id
    assert recheck_refunds() == 0 and len(http.sent) == 1
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 0 and refund_of(payment_id)[0] == "pending"
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id) == ("refunded", 1, None)
    assert [s["method"] for s in http.sent] == ["post", "get", "get"] and http.answers == []


def test_requires_action_is_pending_not_refunded(stripe_refund):
    payment_id, answers = stripe_refund
    answers(create("refund_requires_action.json"))
    payments.refund_if_due(payment_id)
    assert refund_of(payment_id) == ("pending", 1, None)


@pytest.mark.parametrize("fixture, status, error", [
    ("refund_failed.json", 200, "failed: expired_or_canceled_card"),
    ("refund_canceled.json", 200, "canceled"),
])
def test_a_failed_or_canceled_stripe_refund_is_due_again_and_the_next_attempt_uses_a_new_key(
        stripe_refund, fixture, status, error):
    payment_id, answers = stripe_refund
    http = answers(create(fixture, status), create("refund_succeeded.json"))
    payments.refund_if_due(payment_id)
    assert refund_of(payment_id) == ("due", 2, error)
    clock.advance((REFUND_BACKOFF[0] + timedelta(seconds=1)).total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    assert [s["headers"]["Idempotency-Key"] for s in http.sent] == [f"refund:{payment_id}:1",
                                                                     f"refund:{payment_id}:2"]


def test_a_refund_stripe_refuses_is_due_again_with_stripes_reason(stripe_refund):
    payment_id, answers = stripe_refund
    answers(create("error_400_charge_already_refunded.json", 400))
    payments.refund_if_due(payment_id)
    state, attempt, error = refund_of(payment_id)
    assert (state, attempt) == ("due", 2)
    assert error.startswith("refused: Stripe refused refunding a payment") and "charge_already_refunded" in error


def test_stripe_failing_leaves_the_refund_due_under_the_same_key(stripe_refund):
    payment_id, answers = stripe_refund
    http = answers(create("error_500_api_error.json", 500), create("refund_succeeded.json"))
    payments.refund_if_due(payment_id)
    assert refund_of(payment_id) == ("due", 1, None)
    assert recheck_refunds() == 1
    assert refund_of(payment_id)[0] == "refunded"
    keys = {s["headers"]["Idempotency-Key"] for s in http.sent}
    assert keys == {f"refund:{payment_id}:1"}


def test_a_stripe_refund_interrupted_half_way_is_asked_again_under_the_same_key(stripe_refund, monkeypatch):
    payment_id, answers = stripe_refund
    # Stripe replays the first call's answer for the same Idempotency-Key: the recording twice.
    http = answers(create("refund_succeeded.json"), create("refund_succeeded.json"))
    live_again = dies_after_asking(monkeypatch, StripeProvider)
    with pytest.raises(ProcessDied):
        payments.refund_if_due(payment_id)
    live_again()
    assert refund_of(payment_id)[0] == "refunding"
    clock.advance(PAST_STALE.total_seconds())
    assert recheck_refunds() == 1
    assert refund_of(payment_id) == ("refunded", 1, None)
    assert [s["headers"]["Idempotency-Key"] for s in http.sent] == [f"refund:{payment_id}:1"] * 2
