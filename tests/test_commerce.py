"""Customer orders through HTTP, end to end through the sandbox payment provider's hosted
page (issue 13, points 1-3; spec 5.17; reliability guide): pay, decline, abandon; a
success URL reached without paying; forged and unsigned notifications; a notification
for a tab that was closed; confirmations and notifications replayed concurrently; a
provider that is slow, failing or cannot start; the upgrade start; isolation."""
from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from integrations.payments import ProviderUnavailable, ShippingAddress, sandbox_bank
from models.account import Account
from models.payment import CustomerOrder, Payment, RevenueCredit, SandboxCheckout, SandboxNotification
from tests.conftest import SETTINGS
from tests.factories import (
    ADDRESS,
    built,
    checkout,
    choose,
    claimed_founder,
    confirm,
    follow,
    path_of,
    payment_of,
    refusal,
    revenue_of,
    signed,
    slug,
    started,
)
from tests.helpers import in_threads

PRICE_MINOR = 3000  # the store price of demo_item, 30.00 USD (tests/factories.item)


SHIPPED_TO = ShippingAddress(name="Ada Lovelace", line1="12 Analytical Row", line2="Flat 3", city="London",
                             postal_code="N1 7AA", country="GB")


# --- The customer's journey through the hosted page ------------------------------------------


def test_a_customer_pays_on_the_hosted_page_and_the_store_is_credited_once(shop, founder, run_jobs):
    customer = founder()
    order = started(customer, quantity=2)
    assert CustomerOrder.get_by_id(order["order_id"]).state == "open"  # the row exists before the redirect
    assert urlsplit(order["checkout_url"]).path.startswith("/pay/sandbox/checkout/cs_sbx_")
    page = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    assert "$60.00" in page and "buyer@example.com" in page

    paid = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})
    assert paid.headers["Location"].endswith(f"/pay/landing?payment={CustomerOrder.get_by_id(order['order_id']).payment}")
    landing = follow(customer, paid)
    assert landing.headers["Location"] == f"/store/{slug()}/thanks?order={order['order_id']}"
    thanks = follow(customer, landing)
    assert thanks.status_code == 200 and "Thank you for your order" in thanks.get_data(as_text=True)
    assert 'data-paid="1"' in thanks.get_data(as_text=True)  # the store's script sends the paid event

    run_jobs()  # the provider's notification arrives too, and changes nothing more
    assert confirm(customer, order["order_id"])["state"] == "paid"
    assert revenue_of(shop) == [{"product_id": "p00", "product_name": "Product p00", "currency": "USD",
                                 "confirmed_minor": 2 * PRICE_MINOR, "orders": 1}]
    assert RevenueCredit.select().count() == 1
    tracked = shop.get("/api/tracking").get_json()
    assert tracked["status"] == "ok"
    assert [(o["order_id"], o["state"], o["quantity"], o["amount_minor"]) for o in tracked["orders"]] == [
        (order["order_id"], "paid", 2, 2 * PRICE_MINOR)]


def test_a_declined_card_fails_the_order_and_credits_nothing(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    back = follow(customer, choose(customer, order["checkout_url"], "decline"))
    assert back.headers["Location"] == f"/store/{slug()}/thanks?order={order['order_id']}&cancelled=1"
    page = follow(customer, back).get_data(as_text=True)
    assert "declined" in page and "data-paid" not in page
    run_jobs()
    assert confirm(customer, order["order_id"])["state"] == "failed"
    assert revenue_of(shop) == []


def test_an_abandoned_checkout_expires_and_credits_nothing(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    follow(customer, choose(customer, order["checkout_url"], "abandon"))
    run_jobs()
    assert confirm(customer, order["order_id"])["state"] == "expired"
    assert revenue_of(shop) == []
    # A settled checkout cannot be paid afterwards.
    again = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})
    assert again.status_code == 303 and "/pay/back" in again.headers["Location"]
    assert confirm(customer, order["order_id"])["state"] == "expired"


def test_reaching_the_success_url_without_paying_credits_nothing(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    payment = payment_of(order["order_id"])
    landing = customer.get(f"/pay/landing?payment={payment.id}")
    page = follow(customer, landing).get_data(as_text=True)
    assert "We are confirming your payment" in page and "data-paid" not in page
    run_jobs()
    assert confirm(customer, order["order_id"])["state"] == "open"
    assert revenue_of(shop) == [] and RevenueCredit.select().count() == 0
    # The thank-you page asks the provider; the address (paid=1, a made-up state) decides nothing.
    fake = customer.get(f"/store/{slug()}/thanks?order={order['order_id']}&paid=1&state=paid")
    assert "Thank you" not in fake.get_data(as_text=True)


def test_an_order_paid_in_a_closed_tab_is_confirmed_by_the_notification(shop, founder, run_jobs, sandbox_wire):
    customer = founder()
    order = started(customer)
    choose(customer, order["checkout_url"], "pay")  # the customer never comes back
    run_jobs()  # the sandbox delivers its signed notification; the service's job asks and credits
    assert [status for _url, _body, status in sandbox_wire] == [200]
    assert CustomerOrder.get_by_id(order["order_id"]).state == "paid"
    assert revenue_of(shop)[0]["confirmed_minor"] == PRICE_MINOR
    assert SandboxNotification.get().delivered_at is not None


# --- Notifications: signatures and replays ---------------------------------------------------


def forged_event(checkout_id: str) -> bytes:
    return json.dumps({"id": "evt_forged", "type": "checkout.paid", "created": int(time.time()),
                       "data": {"checkout": checkout_id}}).encode()


def test_forged_or_unsigned_notifications_change_nothing(shop, founder, run_jobs, client):
    customer = founder()
    order = started(customer)
    checkout_id = payment_of(order["order_id"]).provider_ref
    body = forged_event(checkout_id)
    unsigned = client.post("/pay/notify", data=body, content_type="application/json")
    refusal(unsigned, 400, "unsigned_callback")
    wrong_key = client.post("/pay/notify", data=body, headers=signed(body, key=b"not the key"))
    refusal(wrong_key, 403, "bad_signature")
    stale = client.post("/pay/notify", data=body, headers=signed(body, at=int(time.time()) - 3600))
    refusal(stale, 403, "bad_signature")
    tampered = client.post("/pay/notify", data=body + b" ", headers=signed(body))
    refusal(tampered, 403, "bad_signature")
    # Even a correctly signed notification only makes the service ask: the checkout is unpaid.
    genuine_but_unpaid = client.post("/pay/notify", data=body, headers=signed(body))
    assert genuine_but_unpaid.get_json() == {"status": "accepted", "event_id": "evt_forged"}
    run_jobs()
    assert CustomerOrder.get_by_id(order["order_id"]).state == "open"
    assert revenue_of(shop) == []


def test_a_notification_for_a_checkout_the_service_never_opened_is_ignored(client):
    body = forged_event("cs_sbx_unknown")
    answer = client.post("/pay/notify", data=body, headers=signed(body))
    assert answer.status_code == 200 and answer.get_json()["reason"] == "unknown_payment"


def test_confirmations_and_notifications_replayed_twenty_times_at_once_credit_once(shop, founder, run_jobs, app):
    customer = founder()
    order = started(customer)
    checkout_id = payment_of(order["order_id"]).provider_ref
    choose(customer, order["checkout_url"], "pay")
    body = sandbox_bank.notification(SandboxNotification.get(SandboxNotification.checkout == checkout_id).id).payload
    body = body.encode()

    def replay(i):
        client = app.test_client()
        if i % 2:
            return client.get(f"/api/store/confirm?order_id={order['order_id']}").get_json()["state"]
        return client.post("/pay/notify", data=body, headers=signed(body)).get_json()["status"]

    answers = in_threads(40, replay)
    run_jobs()
    assert set(answers) <= {"paid", "accepted"} and "paid" in answers
    assert RevenueCredit.select().count() == 1
    assert revenue_of(shop) == [{"product_id": "p00", "product_name": "Product p00", "currency": "USD",
                                 "confirmed_minor": PRICE_MINOR, "orders": 1}]
    assert Payment.get_by_id(payment_of(order["order_id"]).id).state == "paid"


# --- A provider that is slow, failing or cannot start ----------------------------------------


def test_a_failing_provider_credits_nothing_and_a_later_confirmation_credits_once(shop, founder, run_jobs,
                                                                                 monkeypatch):
    customer = founder()
    order = started(customer)
    checkout_url = order["checkout_url"]

    def down(*args, **kwargs):
        time.sleep(0.05)  # slow, then nothing: what a timeout looks like from here
        raise ProviderUnavailable("timed out")

    monkeypatch.setattr(sandbox_bank, "find", down)
    customer.post(path_of(checkout_url), data={"action": "pay", **ADDRESS})  # paid at the provider
    answer = confirm(customer, order["order_id"])
    assert answer["state"] == "open" and answer["provider_answered"] is False and answer["explanation"]
    landing = customer.get(f"/pay/landing?payment={payment_of(order['order_id']).id}")
    assert "thanks" in landing.headers["Location"]
    assert revenue_of(shop) == [] and RevenueCredit.select().count() == 0

    monkeypatch.undo()  # the provider is back
    assert confirm(customer, order["order_id"])["state"] == "paid"
    assert confirm(customer, order["order_id"])["state"] == "paid"
    run_jobs()
    assert RevenueCredit.select().count() == 1 and revenue_of(shop)[0]["orders"] == 1


def test_a_notification_that_meets_a_failing_service_then_a_failing_provider_credits_once(
        shop, founder, run_jobs, sandbox_wire, monkeypatch):
    """The tab closed after paying, so only the notification can settle the order; its first
    delivery meets the service answering 503, and the confirmation job it starts meets the
    provider unreachable. Both jobs try again and the order ends paid once, credited once."""
    from models.job import Job
    from services.commerce.payments import CONFIRM_JOB

    delivered, asked = [], []
    through_the_app, find = sandbox_bank.transport, sandbox_bank.find

    def service_down_once(url, body, headers, timeout):
        delivered.append(url)
        return 503 if len(delivered) == 1 else through_the_app(url, body, headers, timeout)

    def provider_down_once(checkout_id):
        asked.append(checkout_id)
        if len(asked) == 1:
            raise ProviderUnavailable("connection refused")
        return find(checkout_id)

    monkeypatch.setattr(sandbox_bank, "transport", service_down_once)
    customer = founder()
    order = started(customer)
    choose(customer, order["checkout_url"], "pay")  # the customer never comes back
    # The provider fails from here on (its hosted page served the customer); the confirmation
    # job comes after the delivery's retry, 2 s later.
    monkeypatch.setattr(sandbox_bank, "find", provider_down_once)
    run_jobs()  # the retries are delayed messages: joined too
    assert len(delivered) == 2 and [status for _url, _body, status in sandbox_wire] == [200]
    notification = SandboxNotification.get()
    assert notification.delivered_at is not None and notification.attempts == 2
    [job] = Job.select().where(Job.kind == CONFIRM_JOB)
    assert (job.status, job.attempt) == (Job.DONE, 2)
    assert CustomerOrder.get_by_id(order["order_id"]).state == "paid"
    assert RevenueCredit.select().count() == 1
    assert revenue_of(shop)[0]["confirmed_minor"] == PRICE_MINOR and revenue_of(shop)[0]["orders"] == 1
    # The customer coming back afterwards changes nothing.
    assert confirm(customer, order["order_id"])["state"] == "paid"
    run_jobs()
    assert RevenueCredit.select().count() == 1


def test_the_sandbox_provider_without_its_database_answers_503_and_settles_nothing(shop, founder, monkeypatch):
    """The sandbox bank keeps its records in the service's database; when that cannot answer
    (sandbox_bank raises ProviderUnavailable then), its page, form and state API answer JSON
    503 `database_unavailable`, never a 500."""
    customer = founder()
    order = started(customer)
    checkout_id = payment_of(order["order_id"]).provider_ref

    def database_away(*args, **kwargs):
        raise ProviderUnavailable("the sandbox provider could not answer (OperationalError)")

    monkeypatch.setattr(sandbox_bank, "find", database_away)
    monkeypatch.setattr(sandbox_bank, "settle", database_away)
    for answer in (customer.get(path_of(order["checkout_url"])),
                   customer.get(f"/pay/sandbox/v1/checkouts/{checkout_id}"),
                   customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})):
        assert answer.status_code == 503 and answer.get_json()["reason"] == "database_unavailable", answer.get_data()
    monkeypatch.undo()
    assert SandboxCheckout.get_by_id(checkout_id).state == "open"
    assert CustomerOrder.get_by_id(order["order_id"]).state == "open"


def test_a_provider_that_cannot_start_a_checkout_charges_nothing(shop, founder, monkeypatch):
    def down(*args, **kwargs):
        raise ProviderUnavailable("connection refused")

    monkeypatch.setattr(sandbox_bank, "create", down)
    answer = checkout(founder())
    body = answer.get_json()
    assert answer.status_code == 200 and body["reason"] == "payment_unavailable" and body["order_id"]
    assert CustomerOrder.get_by_id(body["order_id"]).state == "failed"
    assert SandboxCheckout.select().count() == 0


def test_a_paid_amount_that_differs_from_the_order_is_never_credited(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    SandboxCheckout.update(amount_minor=1).execute()  # the provider will collect something else
    customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})
    run_jobs()  # its notification is confirmed too, and credits nothing either
    assert confirm(customer, order["order_id"])["state"] == "open"
    assert Payment.get_by_id(payment_of(order["order_id"]).id).error == "amount_mismatch"
    assert revenue_of(shop) == []


# --- Refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("body, status, reason", [
    ({"product_id": "p00", "quantity": 0, "email": "a@example.com"}, 400, "invalid_quantity"),
    ({"product_id": "p00", "quantity": 100, "email": "a@example.com"}, 400, "invalid_quantity"),
    ({"product_id": "p00", "quantity": "two", "email": "a@example.com"}, 400, "invalid_quantity"),
    ({"product_id": "p00", "quantity": 1, "email": "not an address"}, 400, "invalid_email"),
    ({"product_id": "nope", "quantity": 1, "email": "a@example.com"}, 400, "unknown_product"),
])
def test_a_bad_checkout_is_refused_and_opens_nothing(shop, founder, body, status, reason):
    refusal(founder().post("/api/store/checkout", json=body), status, reason)
    assert CustomerOrder.select().count() == 0 and Payment.select().count() == 0


def test_an_unpublished_store_takes_no_orders(founder, run_jobs):
    owner = claimed_founder(founder)
    built(owner, run_jobs)
    refusal(checkout(founder()), 409, "store_not_published")


def test_an_unknown_order_is_not_found(client):
    refusal(client.get("/api/store/confirm?order_id=nope"), 400, "order_not_found")


def test_with_payments_off_nothing_can_start(shop, founder, settings_with):
    settings_with(payment_provider="off")
    assert checkout(founder()).get_json()["reason"] == "payment_unavailable"
    page = founder().get(f"/store/{slug()}/product").get_data(as_text=True)
    assert re.search(r"<fieldset[^>]* disabled", page)
    assert CustomerOrder.select().count() == 0


# --- The buy box's form ----------------------------------------------------------------------


def test_the_buy_box_form_opens_an_order_and_sends_the_customer_to_the_provider(shop, founder):
    customer = founder()
    page = customer.get(f"/store/{slug()}/product").get_data(as_text=True)
    assert "checkout" in page and not re.search(r"<fieldset[^>]* disabled", page)
    answer = customer.post(f"/store/{slug()}/checkout",
                           data={"product_id": "p00", "quantity": "3", "email": "form@example.com"})
    assert answer.status_code == 303 and "/pay/sandbox/checkout/" in answer.headers["Location"]
    order = CustomerOrder.get()
    assert (order.quantity, order.email, order.amount_minor) == (3, "form@example.com", 3 * PRICE_MINOR)
    assert "ff_session" not in answer.headers.get("Set-Cookie", "")


def test_the_buy_box_form_explains_a_refusal_in_a_page(shop, founder):
    answer = founder().post(f"/store/{slug()}/checkout", data={"product_id": "p00", "quantity": "1", "email": "x"})
    assert answer.status_code == 400 and answer.mimetype == "text/html"
    assert "No order was opened" in answer.get_data(as_text=True)
    other = founder().post(f"/store/{slug()}/checkout", data={"product_id": "p01", "email": "a@example.com"})
    assert other.status_code == 404


def test_a_form_posted_from_another_site_opens_nothing(shop, founder):
    answer = founder().post(f"/store/{slug()}/checkout", data={"product_id": "p00", "email": "a@example.com"},
                            headers={"Sec-Fetch-Site": "cross-site"})
    refusal(answer, 403, "cross_site_request")
    assert CustomerOrder.select().count() == 0


# --- The founder's view: tracking, revenue, launch fact, isolation ---------------------------


def test_another_founder_never_sees_your_orders_or_revenue(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    choose(customer, order["checkout_url"], "pay")
    run_jobs()
    other = founder()
    assert other.get("/api/tracking").get_json()["status"] == "no_orders_yet"
    assert revenue_of(other) == []
    refusal(other.get(f"/api/tracking?order_id={order['order_id']}"), 400, "order_not_found")
    # The customer who paid is not the store's founder either.
    assert customer.get("/api/tracking").get_json()["status"] == "no_orders_yet"
    assert shop.get(f"/api/tracking?order_id={order['order_id']}").get_json()["orders"][0]["state"] == "paid"
    # The public confirmation names no customer.
    assert "email" not in confirm(other, order["order_id"])


def test_a_founder_without_orders_is_told_so(shop):
    body = shop.get("/api/tracking").get_json()
    assert body["status"] == "no_orders_yet" and body["orders"] == [] and body["explanation"]


def test_payments_ready_reads_true_once_the_store_is_published(founder, run_jobs, settings_with):
    owner = claimed_founder(founder)
    built(owner, run_jobs)

    def fact():
        return next(f for f in owner.get("/api/launch").get_json()["facts"] if f["id"] == "payments_ready")

    assert fact()["true_today"] is False
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    assert fact()["true_today"] is True
    settings_with(payment_provider="off")
    assert fact()["true_today"] is False


# --- The sandbox provider's own API and the seam ---------------------------------------------


def test_the_sandbox_state_api_answers_as_a_provider(shop, founder, client):
    order = started(founder())
    checkout_id = payment_of(order["order_id"]).provider_ref
    state = client.get(f"/pay/sandbox/v1/checkouts/{checkout_id}").get_json()
    assert (state["state"], state["amount_minor"], state["currency"]) == ("open", PRICE_MINOR, "USD")
    refusal(client.get("/pay/sandbox/v1/checkouts/cs_sbx_nope"), 404, "not_found")
    assert client.get("/pay/sandbox/checkout/cs_sbx_nope").status_code == 404


def test_the_sandbox_refunds_what_was_paid_and_no_more(shop, founder):
    from integrations.payments import ProviderRefused, provider_for

    customer = founder()
    order = started(customer)
    choose(customer, order["checkout_url"], "pay")
    confirm(customer, order["order_id"])
    provider = provider_for(SETTINGS)
    payment_ref = Payment.get_by_id(payment_of(order["order_id"]).id).payment_ref
    assert provider.refund(payment_ref=payment_ref, amount_minor=1000, key="k1").amount_minor == 1000
    assert provider.refund(payment_ref=payment_ref, key="k2").amount_minor == PRICE_MINOR - 1000
    with pytest.raises(ProviderRefused):
        provider.refund(payment_ref=payment_ref, amount_minor=1, key="k3")


# --- Upgrades through the provider -----------------------------------------------------------


def signed_in(founder, run_jobs, email="upgrader@example.com"):
    from tests.factories import new_account

    return new_account(founder, run_jobs, email)


def test_an_upgrade_is_paid_through_the_provider_and_sets_the_plan_once(founder, run_jobs):
    client = signed_in(founder, run_jobs)
    answer = client.post("/pay/upgrade", json={"tier": "pro"}).get_json()
    assert answer["status"] == "checkout_started" and answer["amount_minor"] == 2000
    assert Account.get(Account.email == "upgrader@example.com").tier == "free"  # nothing until it is paid
    landing = follow(client, choose(client, answer["checkout_url"], "pay"))
    assert landing.status_code == 303 and landing.headers["Location"].startswith("/#/app/meter")
    run_jobs()
    account = Account.get(Account.email == "upgrader@example.com")
    assert account.tier == "pro" and account.term_ends_at is not None
    assert client.get(f"/pay/landing?payment={answer['payment_id']}").status_code == 303  # replays change nothing
    assert Account.get_by_id(account.id).term_ends_at == account.term_ends_at


def test_an_upgrade_start_is_refused_as_the_spec_says(founder, run_jobs, settings_with):
    refusal(founder().post("/pay/upgrade", json={"tier": "pro"}), 401, "no_account")
    client = signed_in(founder, run_jobs)
    refusal(client.post("/pay/upgrade", json={"tier": "gold"}), 400, "unknown_tier")
    settings_with(payment_provider="off")
    refusal(client.post("/pay/upgrade", json={"tier": "pro"}), 500, "billing_unconfigured")
    assert Payment.select().count() == 0
    assert Account.get(Account.email == "upgrader@example.com").tier == "free"


def test_the_logo_the_provider_shows_is_served(client):
    answer = client.get("/pay/logo.svg")
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml" and b"<svg" in answer.data


def test_landing_for_an_unknown_payment_goes_home(client):
    answer = client.get("/pay/landing?payment=nope")
    assert answer.status_code == 303 and parse_qs(urlsplit(answer.headers["Location"]).query) == {}


# --- The clock's re-check --------------------------------------------------------------------


def test_a_payment_that_never_reached_the_provider_is_failed_by_the_re_check(shop, founder):
    """The database went away between the order's commit and the provider's checkout being
    written (the fault test's PostgreSQL cut can land there): the order is not left open for ever."""
    from datetime import timedelta

    from models.clock import utcnow
    from services.commerce.payments import recheck_open_payments

    customer = founder()
    cut_short, payable = started(customer), started(customer)
    stranded = payment_of(cut_short["order_id"])
    Payment.update(provider_ref=None, checkout_url=None).where(Payment.id == stranded.id).execute()
    assert recheck_open_payments() == (0, [])  # too recent: its checkout may still be being written
    Payment.update(created_at=utcnow() - timedelta(minutes=11)).execute()
    assert recheck_open_payments() == (1, [])
    assert Payment.get_by_id(stranded.id).state == "failed" and Payment.get_by_id(stranded.id).error == \
        "could_not_start"
    assert CustomerOrder.get_by_id(cut_short["order_id"]).state == "failed"
    assert CustomerOrder.get_by_id(payable["order_id"]).state == "open"  # it has its checkout: left alone
    assert recheck_open_payments() == (0, [])
    assert revenue_of(shop) == []  # nothing was charged: no store has revenue


def test_a_payment_whose_notification_was_lost_is_settled_by_the_re_check(shop, founder):
    from datetime import timedelta

    from models.clock import utcnow
    from services.commerce.payments import recheck_open_payments

    customer = founder()
    paid_order, left_order = started(customer), started(customer)
    # Paid at the provider, but the customer closed the tab and the notification never came.
    sandbox_bank.settle(payment_of(paid_order["order_id"]).provider_ref, "pay", shipping=SHIPPED_TO)
    assert recheck_open_payments() == (0, [])  # too recent: the landing or the notification may still come
    Payment.update(created_at=utcnow() - timedelta(minutes=11)).execute()
    changed, follow_ups = recheck_open_payments()
    assert changed == 1 and [job.subject for job in follow_ups] == [f"receipt:{paid_order['order_id']}"]
    assert CustomerOrder.get_by_id(paid_order["order_id"]).state == "paid"
    assert CustomerOrder.get_by_id(left_order["order_id"]).state == "open"  # still payable: left alone
    assert revenue_of(shop)[0]["confirmed_minor"] == PRICE_MINOR
    assert recheck_open_payments() == (0, [])  # asked again later, it changes nothing
