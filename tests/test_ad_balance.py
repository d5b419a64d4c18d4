"""The ad balance (issue 24, points 4 and 6; decisions.md "Growth"): a top-up is a payment
through the provider, the balance moves once when the provider says it is paid however often
that is confirmed, never from the retired confirmation route; declined, abandoned and
expired checkouts credit nothing; founders never see each other's money; a session's
balance becomes its account's; the launch fact reads the ledger."""
from __future__ import annotations

from datetime import timedelta

import pytest

from integrations.payments import ProviderUnavailable, sandbox_bank
from models.ad_balance import AdLedgerEntry, AdTopup
from models.clock import clock, utcnow
from models.payment import Payment, SandboxCheckout, SandboxNotification
from services.commerce.payments import confirm
from services.sessions import prune_anonymous_sessions
from tests.conftest import SETTINGS
from tests.factories import choose, follow, path_of, refusal, session_of, signed
from tests.growth_factories import balance_of, fact, topup, topup_payment
from tests.helpers import in_threads
from tests.mailbox import sign_in_here


def paid(client, answer: dict) -> str:
    """Pays a top-up on the sandbox's hosted page and comes back; answers where the browser lands."""
    return follow(client, choose(client, answer["checkout_url"], "pay")).headers["Location"]


def test_an_empty_balance_answers_its_bounds_and_nothing_else(client):
    assert balance_of(client) == {"status": "ok", "currency": "USD", "balance_minor": 0, "ledger": [], "pending": [],
                                  "min_minor": 500, "max_minor": 500000, "topups_available": True}


def test_a_topup_credits_the_balance_only_once_the_provider_says_it_is_paid(client):
    answer = topup(client, 2500)
    assert answer["amount_minor"] == 2500 and answer["currency"] == "USD" and answer["checkout_url"]
    # Recorded before the provider was asked, pending, and not yet money.
    payment = topup_payment(answer)
    assert (payment.purpose, payment.amount_minor, payment.currency) == ("ad_topup", 2500, "USD")
    before = balance_of(client)
    assert before["balance_minor"] == 0 and before["ledger"] == []
    [pending] = before["pending"]
    assert (pending["topup_id"], pending["amount_minor"], pending["currency"], pending["checkout_url"]) == (
        answer["topup_id"], 2500, "USD", answer["checkout_url"])
    assert fact(client, "ad_balance_funded")["true_today"] is False

    assert paid(client, answer) == f"/#/app/growth?topup={answer['topup_id']}"
    after = balance_of(client)
    assert after["balance_minor"] == 2500 and after["pending"] == []
    [entry] = after["ledger"]
    assert (entry["kind"], entry["amount_minor"], entry["balance_minor"], entry["topup_id"]) == (
        "topup", 2500, 2500, answer["topup_id"])
    assert AdTopup.get_by_id(answer["topup_id"]).state == "paid"
    funded = fact(client, "ad_balance_funded")
    assert funded["true_today"] is True and "$25.00" in funded["detail"]


def test_two_topups_add_up_and_the_ledger_says_what_each_left(client):
    first, second = topup(client, 1000), topup(client, 4000)
    paid(client, second)
    paid(client, first)
    body = balance_of(client)
    assert body["balance_minor"] == 5000
    assert [(e["topup_id"], e["amount_minor"], e["balance_minor"]) for e in body["ledger"]] == [
        (first["topup_id"], 1000, 5000), (second["topup_id"], 4000, 4000)]  # newest first


def test_a_topup_confirmed_again_and_again_credits_once(client, run_jobs):
    answer = topup(client, 1500)
    paid(client, answer)
    payment_id = topup_payment(answer).id
    for _ in range(5):
        assert client.get(f"/pay/landing?payment={payment_id}").headers["Location"].endswith(answer["topup_id"])
        confirm(payment_id)
    run_jobs()  # the provider's own notification, confirmed by its job
    assert balance_of(client)["balance_minor"] == 1500
    assert AdLedgerEntry.select().count() == 1


def test_landings_and_notifications_replayed_twenty_times_at_once_credit_once(client, app, run_jobs):
    answer = topup(client, 1500)
    payment = topup_payment(answer)
    choose(client, answer["checkout_url"], "pay")
    notice = SandboxNotification.get(SandboxNotification.checkout == payment.provider_ref)
    body = sandbox_bank.notification(notice.id).payload.encode()

    def replay(i):
        other = app.test_client()
        if i % 2:
            return other.get(f"/pay/landing?payment={payment.id}").status_code
        return other.post("/pay/notify", data=body, headers=signed(body)).status_code

    answers = in_threads(40, replay)
    run_jobs()
    assert sorted(set(answers)) == [200, 303]
    assert balance_of(client)["balance_minor"] == 1500
    assert AdLedgerEntry.select().count() == 1 and Payment.get_by_id(payment.id).state == "paid"


@pytest.mark.parametrize("action, state", [("decline", "failed"), ("abandon", "expired")])
def test_a_declined_or_abandoned_topup_credits_nothing_and_leaves_the_pending_list(client, run_jobs, action, state):
    answer = topup(client, 1500)
    back = follow(client, choose(client, answer["checkout_url"], action))
    assert back.headers["Location"] == f"/#/app/growth?topup={answer['topup_id']}&cancelled=1"
    run_jobs()
    body = balance_of(client)
    assert (body["balance_minor"], body["ledger"], body["pending"]) == (0, [], [])
    assert AdTopup.get_by_id(answer["topup_id"]).state == state
    assert fact(client, "ad_balance_funded")["true_today"] is False


def test_a_topup_left_past_its_day_expires_and_credits_nothing(client):
    answer = topup(client, 1500)
    payment = topup_payment(answer)
    SandboxCheckout.update(expires_at=utcnow() - timedelta(seconds=1)).where(
        SandboxCheckout.id == payment.provider_ref).execute()
    # Too late to pay: the page sends the founder back, and the provider says it expired.
    late = client.post(path_of(answer["checkout_url"]), data={"action": "pay"})
    assert late.status_code == 303 and "/pay/back?payment=" in late.headers["Location"]
    follow(client, late)
    assert AdTopup.get_by_id(answer["topup_id"]).state == "expired"
    assert balance_of(client)["balance_minor"] == 0 and balance_of(client)["pending"] == []


def test_a_topup_nobody_answered_for_two_days_is_no_longer_pending(client):
    answer = topup(client, 1500)
    AdTopup.update(created_at=utcnow() - timedelta(days=2, minutes=1)).where(
        AdTopup.id == answer["topup_id"]).execute()
    assert balance_of(client)["pending"] == []


def test_the_retired_confirmation_is_410_and_never_credits_a_paid_topup(client, held_worker):
    answer = topup(client, 1500)
    payment = topup_payment(answer)
    choose(client, answer["checkout_url"], "pay")  # paid at the provider; its notification waits in the queue
    assert client.get(f"/pay/sandbox/v1/checkouts/{payment.provider_ref}").get_json()["state"] == "paid"
    queries = [f"topup_id={answer['topup_id']}&status=paid",
               f"payment={payment.id}&paid=1&amount_minor=1500",
               f"session_id={payment.provider_ref}&payment_intent=pi_sbx_1&redirect_status=succeeded", ""]
    for query in queries * 5:
        refusal(client.get(f"/api/adbalance/confirm?{query}"), 410, "legacy_checkout_retired")
    body = balance_of(client)
    assert (body["balance_minor"], body["ledger"]) == (0, [])
    assert [p["topup_id"] for p in body["pending"]] == [answer["topup_id"]]
    assert Payment.get_by_id(payment.id).state == "open" and AdLedgerEntry.select().count() == 0
    # Anyone may call it, and it is still only a refusal.
    refusal(client.application.test_client().get(f"/api/adbalance/confirm?topup_id={answer['topup_id']}"), 410,
            "legacy_checkout_retired")
    # Only the provider's answer credits: the landing asks it, once.
    paid_landing = client.get(f"/pay/landing?payment={payment.id}")
    assert paid_landing.status_code == 303
    assert balance_of(client)["balance_minor"] == 1500


@pytest.mark.parametrize("amount", ["2500", 2500.0, 25.5, True, False, None, [2500], {"minor": 2500}])
def test_an_amount_that_is_not_an_integer_is_400_invalid_amount(client, amount):
    refusal(client.post("/api/adbalance", json={"amount_minor": amount}), 400, "invalid_amount")
    assert Payment.select().count() == 0 and AdTopup.select().count() == 0


def test_a_missing_amount_is_400_invalid_amount(client):
    refusal(client.post("/api/adbalance", json={}), 400, "invalid_amount")
    # A misspelt amount is named for what it is (tests/test_unknown_fields.py), not as a missing one.
    body = refusal(client.post("/api/adbalance", json={"amount": 2500}), 400, "unknown_field")
    assert body["field"] == "amount" and "did you mean 'amount_minor'?" in body["explanation"]
    assert Payment.select().count() == 0


@pytest.mark.parametrize("amount", [499, 0, -500, 500001, 9_000_000_000])
def test_an_amount_outside_the_bounds_is_400_amount_out_of_bounds(client, amount):
    body = refusal(client.post("/api/adbalance", json={"amount_minor": amount}), 400, "amount_out_of_bounds")
    assert (body["min_minor"], body["max_minor"]) == (500, 500000)
    assert Payment.select().count() == 0 and AdTopup.select().count() == 0


@pytest.mark.parametrize("amount", [500, 500000])
def test_the_bounds_themselves_are_accepted(client, amount):
    assert topup(client, amount)["amount_minor"] == amount


def test_with_payments_off_a_topup_is_refused_and_nothing_is_recorded(client, settings_with):
    settings_with(payment_provider="off")
    body = refusal(client.post("/api/adbalance", json={"amount_minor": 2500}), 200, "payment_unavailable")
    assert "switched off" in body["explanation"]
    assert Payment.select().count() == 0 and AdTopup.select().count() == 0
    assert balance_of(client)["topups_available"] is False


def test_a_provider_that_cannot_start_charges_nothing_and_leaves_nothing_pending(client, monkeypatch):
    monkeypatch.setattr(sandbox_bank, "create", lambda *a, **k: (_ for _ in ()).throw(ProviderUnavailable("down")))
    body = refusal(client.post("/api/adbalance", json={"amount_minor": 2500}), 200, "payment_unavailable")
    assert AdTopup.get_by_id(body["topup_id"]).state == "failed"
    assert balance_of(client)["pending"] == [] and balance_of(client)["balance_minor"] == 0


def test_another_founder_never_sees_your_balance_ledger_or_pending_topups(founder):
    mine, theirs = founder(), founder()
    paid(mine, topup(mine, 3000))
    waiting = topup(mine, 700)
    assert balance_of(mine)["balance_minor"] == 3000 and len(balance_of(mine)["pending"]) == 1
    body = balance_of(theirs)
    assert (body["balance_minor"], body["ledger"], body["pending"]) == (0, [], [])
    assert fact(theirs, "ad_balance_funded")["true_today"] is False
    # Paying the other founder's pending checkout credits that founder, never the payer.
    paid(theirs, waiting)
    assert balance_of(theirs)["balance_minor"] == 0 and balance_of(mine)["balance_minor"] == 3700


def test_a_sessions_balance_and_pending_topups_become_its_accounts_on_sign_in(founder, run_jobs):
    browser = founder()
    paid(browser, topup(browser, 2000))
    later = topup(browser, 1000)
    sign_in_here(browser, run_jobs, "adbuyer@example.com")
    paid(browser, later)  # started before signing in, paid after: the account's too
    assert balance_of(browser)["balance_minor"] == 3000
    elsewhere = founder()
    sign_in_here(elsewhere, run_jobs, "adbuyer@example.com")
    body = balance_of(elsewhere)
    assert body["balance_minor"] == 3000 and [e["balance_minor"] for e in body["ledger"]] == [3000, 2000]
    assert fact(elsewhere, "ad_balance_funded")["true_today"] is True
    assert balance_of(founder())["balance_minor"] == 0


def test_an_old_anonymous_session_that_topped_up_is_never_pruned(client):
    topup(client, 1500)
    clock.advance(days=SETTINGS.anon_session_days + 1)
    assert prune_anonymous_sessions(older_than_days=SETTINGS.anon_session_days) == 0
    assert AdTopup.get().session_id == session_of(client).id
