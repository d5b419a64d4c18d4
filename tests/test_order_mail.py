"""Mail after a sale, and an address to ship to (issue 20, point 7), through HTTP: the hosted
page collects the shipping address (refusing a missing or unusable one on the page), the
order keeps it and the founder's tracking answers it; a paid order mails one receipt to
the customer and one notice to the founder (verified account only) through the outbox or
an SMTP server, however many confirmations race; nothing for a declined or abandoned
payment; the thank-you page says the receipt was sent only once it was; a Stripe session's
recorded shipping details reach the order."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from integrations.mail.render import render
from integrations.payments import ProviderRefused, sandbox_bank
from models.clock import utcnow
from models.job import Job
from models.payment import CustomerOrder, Payment, SandboxCheckout, SandboxNotification
from models.store import StoreVersion
from services.commerce import order_mail
from services.errors import TransientError
from tests.factories import (
    ADDRESS,
    built,
    choose,
    claim,
    demo_item,
    find,
    follow,
    load,
    path_of,
    payment_of,
    revenue_of,
    signed,
    slug,
    started,
)
from tests.helpers import in_threads
from tests.mailbox import html_of, messages_to, text_of
from tests.stand_ins import Recorder, parse

FOUNDER = "maker@example.com"
CUSTOMER = "buyer@example.com"
ADDRESS_LINES = ["Ada Lovelace", "12 Analytical Row", "Flat 3", "London, N1 7AA", "United Kingdom"]


def publish(owner, run_jobs):
    built(owner, run_jobs)
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    return owner


@pytest.fixture
def signed_shop(signed_in, run_jobs):
    """A signed-in founder (a verified account) whose store for p00 is built and published."""
    load(demo_item())
    owner = signed_in(FOUNDER)
    find(owner)
    assert claim(owner).get_json()["status"] == "claimed"
    return publish(owner, run_jobs)


@pytest.fixture
def anonymous_shop(founder, run_jobs):
    """A founder who never gave an address, with a published store for p00."""
    load(demo_item())
    owner = founder()
    find(owner)
    assert claim(owner).get_json()["status"] == "claimed"
    return publish(owner, run_jobs)


def receipts(address=CUSTOMER) -> list:
    return [m for m in messages_to(address) if m["Subject"].startswith("Your receipt from")]


def notices(address=FOUNDER) -> list:
    return [m for m in messages_to(address) if m["Subject"].startswith("New order in")]


def store_names() -> tuple[str, str]:
    """The store's and the product's names, as the published version the customer bought from says."""
    document = StoreVersion.get(StoreVersion.store == "p00").document
    return document["business"]["name"], document["product"]["name"]


def paid_order(customer, *, quantity=2, address=ADDRESS) -> dict:
    order = started(customer, quantity=quantity, email=CUSTOMER)
    landing = follow(customer, choose(customer, order["checkout_url"], "pay", address))
    assert "/thanks?order=" in landing.headers["Location"]
    return order


# --- The receipt and the founder's notice ----------------------------------------------------


def test_a_paid_order_mails_the_customer_one_receipt_and_the_founder_one_notice(signed_shop, founder, run_jobs):
    order = paid_order(founder())
    run_jobs()
    store_name, product_name = store_names()
    [receipt] = receipts()
    assert receipt["Subject"] == f"Your receipt from {store_name}: 2 × {product_name}"
    text = text_of(receipt)
    for said in (store_name, product_name, "Quantity: 2 at $30.00 each", "Total paid: $60.00 (USD)",
                 f"Order number: {order['order_id'][:8]}", *ADDRESS_LINES):
        assert said in text, said
    assert f"http://localhost/store/{slug()}/thanks?order={order['order_id']}" in text
    assert "London, N1 7AA" in html_of(receipt) and order["order_id"] in html_of(receipt)

    [notice] = notices()
    assert notice["Subject"] == f"New order in {store_name}: 2 × {product_name}, $60.00"
    text = text_of(notice)
    for said in (f"Order number: {order['order_id'][:8]}", "Total paid: $60.00 (USD)", f"Customer: {CUSTOMER}",
                 "Ship it to:", *ADDRESS_LINES, "http://localhost/#/app/orders"):
        assert said in text, said

    stored = CustomerOrder.get_by_id(order["order_id"])
    assert stored.receipt_sent_at is not None and stored.notice_sent_at is not None
    [job] = Job.select().where(Job.kind == order_mail.ORDER_MAIL)
    assert (job.subject, job.status) == (f"receipt:{order['order_id']}", Job.DONE)
    assert job.result == {"receipt": "sent", "notice": "sent"}


def test_confirmations_notifications_landings_and_the_clock_twenty_times_at_once_mail_once(
        signed_shop, founder, run_jobs, app):
    from jobs.maintenance import recheck_payments

    customer = founder()
    order = started(customer, email=CUSTOMER)
    payment_id = payment_of(order["order_id"]).id
    choose(customer, order["checkout_url"], "pay")  # paid at the provider; nobody has asked yet
    body = SandboxNotification.get(SandboxNotification.checkout == payment_of(order["order_id"]).provider_ref).payload
    body = body.encode()
    # Old enough for the clock's re-check to ask about it too.
    Payment.update(created_at=utcnow() - timedelta(minutes=11)).where(Payment.id == payment_id).execute()

    def confirm_somehow(i):
        client = app.test_client()
        if i % 4 == 0:
            return client.get(f"/api/store/confirm?order_id={order['order_id']}").status_code
        if i % 4 == 1:
            return client.post("/pay/notify", data=body, headers=signed(body)).status_code
        if i % 4 == 2:
            return client.get(f"/pay/landing?payment={payment_id}").status_code
        recheck_payments.fn()  # the clock's actor, run in this thread
        return 200

    answers = in_threads(20, confirm_somehow)
    run_jobs()
    assert set(answers) <= {200, 303}
    assert Job.select().where(Job.kind == order_mail.ORDER_MAIL).count() == 1
    assert len(receipts()) == 1 and len(notices()) == 1
    assert revenue_of(signed_shop)[0]["orders"] == 1
    # Asked again afterwards, nothing is mailed again.
    assert app.test_client().get(f"/api/store/confirm?order_id={order['order_id']}").get_json()["state"] == "paid"
    run_jobs()
    assert len(receipts()) == 1 and len(notices()) == 1


@pytest.mark.parametrize("action, state", [("decline", "failed"), ("abandon", "expired")])
def test_a_declined_or_abandoned_payment_mails_nothing(signed_shop, founder, run_jobs, action, state):
    customer = founder()
    order = started(customer, email=CUSTOMER)
    follow(customer, choose(customer, order["checkout_url"], action, {}))  # no address needed to leave
    run_jobs()
    assert CustomerOrder.get_by_id(order["order_id"]).state == state
    assert receipts() == [] and notices() == []
    assert Job.select().where(Job.kind == order_mail.ORDER_MAIL).count() == 0
    # Not paid, so not an order (issue 47): the founder sees it among the checkouts not paid.
    tracked = signed_shop.get("/api/tracking").get_json()
    assert tracked["orders"] == []
    (checkout,) = tracked["checkouts"]
    assert (checkout["receipt"], checkout["shipping"], checkout["shipping_lines"]) == ("not_paid", None, [])


def test_an_anonymous_founder_gets_no_notice_and_the_customer_still_a_receipt(anonymous_shop, founder, run_jobs):
    order = paid_order(founder())
    run_jobs()
    assert len(receipts()) == 1
    job = Job.get(Job.kind == order_mail.ORDER_MAIL)
    assert job.result == {"receipt": "sent", "notice": "no_founder_account"}
    assert CustomerOrder.get_by_id(order["order_id"]).notice_sent_at is None


def test_a_run_after_the_mailer_was_down_sends_only_what_is_not_sent_yet(signed_shop, founder, held_worker,
                                                                        settings_with):
    order = paid_order(founder())  # its mail job waits: the worker is paused
    settings_with(smtp_url="smtp://127.0.0.1:9")  # nothing listens there: the mailer is down
    with pytest.raises(TransientError):
        order_mail.send_order_mail(order["order_id"])
    assert CustomerOrder.get_by_id(order["order_id"]).receipt_sent_at is None

    settings_with()  # the mailer is back (the suite's outbox)
    assert order_mail.send_order_mail(order["order_id"]) == {"receipt": "sent", "notice": "sent"}
    assert order_mail.send_order_mail(order["order_id"]) == {"receipt": "sent_before", "notice": "sent_before"}
    assert len(receipts()) == 1 and len(notices()) == 1


def test_the_mail_after_a_sale_goes_through_smtp_when_smtp_url_is_set(signed_shop, founder, run_jobs,
                                                                     smtp_server, settings_with):
    handler = Recorder()
    server = smtp_server(handler)
    settings_with(smtp_url=f"smtp://127.0.0.1:{server.port}")
    order = paid_order(founder(), quantity=1)
    run_jobs()
    got = {mail["rcpt_tos"][0]: parse(mail["content"]) for mail in handler.received}
    assert sorted(got) == [CUSTOMER, FOUNDER]
    assert got[CUSTOMER]["Subject"].startswith("Your receipt from")
    assert f"Order number: {order['order_id'][:8]}" in text_of(got[CUSTOMER])
    assert "12 Analytical Row" in text_of(got[FOUNDER]) and got[FOUNDER]["Subject"].startswith("New order in")
    assert receipts() == [] and notices() == []  # nothing went to the outbox


def test_a_receipt_the_mail_server_refuses_is_said_so_on_the_thank_you_page(signed_shop, founder, run_jobs,
                                                                           smtp_server, settings_with):
    server = smtp_server(Recorder(refuse={"RCPT": "550 5.1.1 No such mailbox"}))
    settings_with(smtp_url=f"smtp://127.0.0.1:{server.port}")
    customer = founder()
    order = paid_order(customer)
    run_jobs()
    job = Job.get(Job.kind == order_mail.ORDER_MAIL)
    assert (job.status, job.result) == (Job.DONE, {"receipt": "refused", "notice": "refused"})
    page = customer.get(f"/store/{slug()}/thanks?order={order['order_id']}").get_data(as_text=True)
    assert 'data-receipt="refused"' in page and "was sent" not in page
    assert signed_shop.get("/api/tracking").get_json()["orders"][0]["receipt"] == "refused"


@pytest.mark.parametrize("path", ["confirm", "landing", "thanks", "notification", "clock"])
def test_whichever_confirmation_makes_the_order_paid_sends_its_mail_job(signed_shop, founder, held_worker, run_jobs,
                                                                        app, path):
    """The mail job is created in the paid transaction and sent by the caller that committed
    it: were any of these callers to forget, the job would sit queued (the tests run no reaper)."""
    from jobs.maintenance import recheck_payments

    customer = founder()
    order = started(customer, email=CUSTOMER)
    payment = payment_of(order["order_id"])
    choose(customer, order["checkout_url"], "pay")  # paid at the provider; its notification waits with the worker
    client = app.test_client()
    if path == "confirm":
        assert client.get(f"/api/store/confirm?order_id={order['order_id']}").get_json()["state"] == "paid"
    elif path == "landing":
        assert client.get(f"/pay/landing?payment={payment.id}").status_code == 303
    elif path == "thanks":
        assert 'data-order-state="paid"' in client.get(f"/store/{slug()}/thanks?order={order['order_id']}").get_data(
            as_text=True)
    elif path == "notification":
        body = SandboxNotification.get().payload.encode()
        assert client.post("/pay/notify", data=body, headers=signed(body)).get_json()["status"] == "accepted"
    else:
        Payment.update(created_at=utcnow() - timedelta(minutes=11)).where(Payment.id == payment.id).execute()
        recheck_payments.fn()
    held_worker.resume()
    run_jobs()
    assert CustomerOrder.get_by_id(order["order_id"]).state == "paid"
    [job] = Job.select().where(Job.kind == order_mail.ORDER_MAIL)
    assert job.status == Job.DONE, job.status
    assert len(receipts()) == 1 and len(notices()) == 1


def test_the_thank_you_page_says_the_receipt_was_sent_only_once_it_was(signed_shop, founder, held_worker, run_jobs):
    customer = founder()
    order = started(customer, email=CUSTOMER)
    landing = follow(customer, choose(customer, order["checkout_url"], "pay"))
    page = follow(customer, landing).get_data(as_text=True)
    assert "Thank you for your order" in page and f'<span class="order-id">{order["order_id"][:8]}</span>' in page
    assert 'data-receipt="sending"' in page and "has not been mailed yet" in page and "was sent" not in page

    held_worker.resume()
    run_jobs()
    page = customer.get(f"/store/{slug()}/thanks?order={order['order_id']}").get_data(as_text=True)
    assert 'data-receipt="sent"' in page and "A receipt was sent to b…@example.com." in page
    # Anyone with the order's link may open the page: it names neither the whole address nor where it ships.
    assert CUSTOMER not in page and "Analytical" not in page


# --- The address on the hosted page, the order and the founder's tracking --------------------


def test_the_address_given_on_the_hosted_page_reaches_the_order_and_the_founders_tracking(signed_shop, founder,
                                                                                       run_jobs):
    customer = founder()
    order = started(customer, email=CUSTOMER)
    page = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    assert "Shipping address" in page and 'autocomplete="shipping postal-code"' in page
    assert '<option value="GB">United Kingdom</option>' in page
    follow(customer, choose(customer, order["checkout_url"], "pay", {**ADDRESS, "name": "  Ada   Lovelace "}))
    run_jobs()
    tracked = signed_shop.get(f"/api/tracking?order_id={order['order_id']}").get_json()["orders"][0]
    assert tracked["shipping"] == {"name": "Ada Lovelace", "line1": "12 Analytical Row", "line2": "Flat 3",
                                   "city": "London", "region": None, "postal_code": "N1 7AA", "country": "GB"}
    assert tracked["shipping_lines"] == ADDRESS_LINES
    assert tracked["receipt"] == "sent" and tracked["receipt_sent_at"]
    # The provider kept the address with its checkout, and its state API answers it.
    state = customer.get(f"/pay/sandbox/v1/checkouts/{payment_of(order['order_id']).provider_ref}").get_json()
    assert state["shipping"]["line1"] == "12 Analytical Row" and state["shipping"]["country"] == "GB"
    # Another founder sees none of it; the public confirmation names no address either.
    assert founder().get("/api/tracking").get_json()["orders"] == []
    assert "shipping" not in customer.get(f"/api/store/confirm?order_id={order['order_id']}").get_json()


@pytest.mark.parametrize("changes, named", [
    ({"name": "", "city": " ", "postal_code": ""}, ["Full name is missing", "City is missing",
                                                     "Postal code is missing"]),
    ({"country": ""}, ["Country is missing"]),
    ({"country": "KP"}, ["This shop does not ship to that country"]),
    ({"line1": "x" * 201}, ["Address is longer than 200 characters"]),
    # (A NUL never reaches the page: any form field with one is refused at the edge, tests/test_bad_input.py.)
    ({"line1": "12 Analytical Row\x07"}, ["Address holds characters an address cannot"]),
    ({"name": "Ada \u202eecalevoL"}, ["Full name holds characters an address cannot"]),
])
def test_a_missing_or_unusable_address_is_refused_on_the_hosted_page(signed_shop, founder, run_jobs, changes, named):
    customer = founder()
    order = started(customer, email=CUSTOMER)
    answer = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS, **changes})
    assert answer.status_code == 400 and answer.mimetype == "text/html"
    page = answer.get_data(as_text=True)
    assert 'data-reason="invalid_shipping_address"' in page and "Nothing was charged" in page
    for said in named:
        assert said in page, said
    assert 'aria-invalid="true"' in page and 'value="Flat 3"' in page  # the form as the customer filled it
    assert answer.headers["Cache-Control"] == "private, no-store"
    run_jobs()
    assert SandboxCheckout.get().state == "open" and CustomerOrder.get_by_id(order["order_id"]).state == "open"
    assert SandboxNotification.select().count() == 0 and receipts() == []
    with pytest.raises(ProviderRefused):  # the bank itself takes no payment of it without an address
        sandbox_bank.settle(SandboxCheckout.get().id, "pay")
    # Corrected, it pays.
    follow(customer, choose(customer, order["checkout_url"], "pay"))
    assert CustomerOrder.get_by_id(order["order_id"]).state == "paid"


def test_a_page_that_collects_no_address_pays_without_one(signed_shop, run_jobs):
    """Samples, domains and plans ship nothing: their hosted page asks for no address."""
    answer = signed_shop.post("/pay/upgrade", json={"tier": "pro"}).get_json()
    page = signed_shop.get(path_of(answer["checkout_url"])).get_data(as_text=True)
    assert "Shipping address" not in page
    paid = signed_shop.post(path_of(answer["checkout_url"]), data={"action": "pay"})
    assert paid.status_code == 303 and "/pay/landing" in paid.headers["Location"]
    assert SandboxCheckout.get().shipping is None


def test_the_shipping_countries_setting_is_what_the_page_offers(signed_shop, founder, settings_with):
    settings_with(shipping_countries=("JP", "SG"))
    customer = founder()
    order = started(customer, email=CUSTOMER)
    page = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    assert re.findall(r'<option value="([A-Z]{2})"', page) == ["JP", "SG"]
    refused = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})  # GB
    assert refused.status_code == 400 and "does not ship to that country" in refused.get_data(as_text=True)


# --- Stripe: the recorded session's shipping details reach the order --------------------------


def test_a_stripe_session_with_shipping_details_maps_to_the_order(signed_shop, run_jobs, settings_with, monkeypatch):
    from services.commerce import payments
    from tests.stand_ins import SESSION_ID, RecordedStripe, provider

    settings_with(payment_provider="stripe", stripe_secret_key="sk_test_x", stripe_webhook_secret="whsec_x")
    http = RecordedStripe(("get", f"/v1/checkout/sessions/{SESSION_ID}", "checkout_session_paid_shipping.json", 200))
    monkeypatch.setattr(payments, "provider", lambda: provider(http))
    # The order and payment the recording answers for (payment pay_7Qk2: 24.99 EUR, checkout SESSION_ID).
    Payment.create(id="pay_7Qk2", purpose=Payment.ORDER, subject="order-stripe-1", amount_minor=2499, currency="EUR",
                   provider="stripe", provider_ref=SESSION_ID, state=Payment.OPEN, created_at=utcnow())
    CustomerOrder.create(id="order-stripe-1", product="p00", email="ada@example.test", quantity=1,
                         unit_price_minor=2499, amount_minor=2499, currency="EUR", store_version=1,
                         payment="pay_7Qk2", state=CustomerOrder.OPEN, created_at=utcnow())

    answer = signed_shop.get("/api/store/confirm?order_id=order-stripe-1").get_json()
    assert answer["state"] == "paid"
    run_jobs()
    tracked = signed_shop.get("/api/tracking?order_id=order-stripe-1").get_json()["orders"][0]
    assert tracked["shipping"] == {"name": "Grace Hopper", "line1": "1 Compiler Way", "line2": "Suite 200",
                                   "city": "Arlington", "region": "VA", "postal_code": "22201", "country": "US"}
    [receipt] = receipts("ada@example.test")
    assert "Arlington, VA, 22201" in text_of(receipt) and "United States" in text_of(receipt)
    assert "Total paid: €24.99 (EUR)" in text_of(receipt)


# --- The templates --------------------------------------------------------------------------


def test_the_mails_escape_what_founders_and_customers_wrote_in_html_only():
    facts = {"store_name": "<b>Shop</b>", "support_email": None, "product_name": "<script>x()</script>", "quantity": 1,
             "unit_price": "$1.00", "amount": "$1.00", "currency": "USD", "order_id": "o1", "order_number": "o1", "paid_on": "1 May 2026",
             "customer_email": "a@example.com", "address_lines": ["<img src=x onerror=y()>"],
             "order_link": "http://localhost/store/s/thanks?order=o1&x=1", "orders_link": "http://localhost/#/app/orders"}
    for template in ("order_receipt", "order_notice"):
        subject, text, html = render(template, **facts)
        assert "\n" not in subject and "<script>x()</script>" in subject
        assert "<script>" not in html and "&lt;script&gt;x()&lt;/script&gt;" in html and "<img" not in html
        assert "<script>x()</script>" in text and "<img src=x onerror=y()>" in text
    assert 'href="http://localhost/store/s/thanks?order=o1&amp;x=1"' in render("order_receipt", **facts)[2]

