"""The Stripe provider against recorded Stripe answers (tests/fixtures/stripe/), never the
network: a stand-in HTTP client checks what the adapter sends and answers the recording."""
import hashlib
import hmac
import json
import time

import pytest
import requests
import stripe

from config import Settings, SettingsError, load_settings
from integrations.payments import (
    EXPIRED,
    FAILED,
    OPEN,
    PAID,
    Checkout,
    CheckoutRequest,
    CheckoutState,
    Notification,
    NotificationRejected,
    ProviderRefused,
    ProviderUnavailable,
    RefundAnswer,
    ShippingAddress,
    provider_for,
)
from integrations.payments.stripe_provider import StripeProvider
from tests.stand_ins import INTENT_ID, SECRET_KEY, SESSION_ID, WEBHOOK_SECRET, RecordedStripe, provider, recorded


class Unreachable(stripe.HTTPClient):
    """A client whose every request fails the way RequestsClient reports a lost connection."""
    name = "unreachable"

    def request(self, method, url, headers, post_data=None):
        raise stripe.APIConnectionError("Unexpected error communicating with Stripe. (Network error: ConnectionError)",
                                        should_retry=True)

    def close(self):
        pass


def checkout_request(**changes):
    fields = dict(reference="pay_7Qk2", amount_minor=2499, currency="EUR", description="Walnut desk lamp",
                  success_url="https://shop.example.test/s/lamp-co/checkout/done?payment=pay_7Qk2",
                  cancel_url="https://shop.example.test/s/lamp-co/checkout/cancelled?payment=pay_7Qk2",
                  customer_email="ada@example.test", logo_url="https://shop.example.test/s/lamp-co/logo.png")
    return CheckoutRequest(**{**fields, **changes})


# Checkout

def test_create_checkout_sends_one_line_item_and_answers_the_session_page():
    http = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))

    checkout = provider(http).create_checkout(checkout_request())

    assert checkout == Checkout(provider_ref=SESSION_ID, url=json.loads(recorded("checkout_session_create.json"))["url"])
    [sent] = http.sent
    assert sent["host"] == "api.stripe.com"
    assert sent["form"] == {
        "mode": "payment",
        "line_items[0][price_data][currency]": "eur",
        "line_items[0][price_data][unit_amount]": "2499",
        "line_items[0][price_data][product_data][name]": "Walnut desk lamp",
        "line_items[0][price_data][product_data][images][0]": "https://shop.example.test/s/lamp-co/logo.png",
        "line_items[0][quantity]": "1",
        "success_url": "https://shop.example.test/s/lamp-co/checkout/done?payment=pay_7Qk2",
        "cancel_url": "https://shop.example.test/s/lamp-co/checkout/cancelled?payment=pay_7Qk2",
        "client_reference_id": "pay_7Qk2",
        "metadata[reference]": "pay_7Qk2",
        "customer_email": "ada@example.test",
    }
    assert sent["headers"]["Authorization"] == f"Bearer {SECRET_KEY}"
    assert sent["headers"]["Content-Type"] == "application/x-www-form-urlencoded"


def test_create_checkout_leaves_out_email_and_logo_when_not_given():
    http = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))

    provider(http).create_checkout(checkout_request(customer_email=None, logo_url=None, currency="JPY",
                                                    amount_minor=3000))

    form = http.sent[0]["form"]
    assert "customer_email" not in form
    assert not any("images" in key for key in form)
    assert form["line_items[0][price_data][currency]"] == "jpy"
    assert form["line_items[0][price_data][unit_amount]"] == "3000"


def test_a_three_decimal_currency_goes_to_stripe_in_tens_of_its_minor_unit_and_is_refused_otherwise():
    http = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))
    provider(http).create_checkout(checkout_request(currency="KWD", amount_minor=12340))  # 12.340 KWD
    assert http.sent[0]["form"]["line_items[0][price_data][unit_amount]"] == "12340"

    unasked = RecordedStripe()  # no answer recorded: any request fails the test
    with pytest.raises(ProviderRefused, match=r"KWD only in whole hundredths .* not 12345 minor units"):
        provider(unasked).create_checkout(checkout_request(currency="KWD", amount_minor=12345))
    assert unasked.sent == []


def test_each_provider_names_the_origin_of_its_checkout_page():
    assert provider(RecordedStripe()).checkout_origin == "https://checkout.stripe.com"
    sandbox = provider_for(Settings().but(base_url="https://pay.example.test/app", payment_provider="sandbox"))
    assert sandbox.checkout_origin == "https://pay.example.test"
    assert provider_for(Settings().but(payment_provider="off")) is None


def test_create_checkout_asks_stripe_to_collect_a_shipping_address_in_the_countries_given():
    http = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))

    provider(http).create_checkout(checkout_request(shipping_countries=("US", "GB", "JP")))

    form = http.sent[0]["form"]
    assert {k: v for k, v in form.items() if k.startswith("shipping")} == {
        "shipping_address_collection[allowed_countries][0]": "US",
        "shipping_address_collection[allowed_countries][1]": "GB",
        "shipping_address_collection[allowed_countries][2]": "JP",
    }


def test_create_checkout_collects_no_address_when_no_countries_are_given():
    http = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))

    provider(http).create_checkout(checkout_request())

    assert not any(key.startswith("shipping") for key in http.sent[0]["form"])


def test_each_provider_sends_its_own_key_and_sets_nothing_on_the_library():
    first = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))
    second = RecordedStripe(("post", "/v1/checkout/sessions", "checkout_session_create.json", 200))

    provider(first, secret_key="sk_test_first").create_checkout(checkout_request())
    provider(second, secret_key="sk_test_second").create_checkout(checkout_request())

    assert first.sent[0]["headers"]["Authorization"] == "Bearer sk_test_first"
    assert second.sent[0]["headers"]["Authorization"] == "Bearer sk_test_second"
    assert stripe.api_key is None


# State

@pytest.mark.parametrize("fixture, state, payment_ref", [
    ("checkout_session_open.json", OPEN, None),
    ("checkout_session_paid.json", PAID, INTENT_ID),
    ("checkout_session_expired.json", EXPIRED, None),
    # A delayed method (a bank debit) still on its way: complete, unpaid, intent processing.
    ("checkout_session_processing.json", OPEN, None),
    # ...and one that failed: the intent wants another payment method, the session is done.
    ("checkout_session_async_failed.json", FAILED, None),
])
def test_checkout_state_maps_the_session(fixture, state, payment_ref):
    http = RecordedStripe(("get", f"/v1/checkout/sessions/{SESSION_ID}", fixture, 200))

    answer = provider(http).checkout_state(SESSION_ID)

    assert answer == CheckoutState(provider_ref=SESSION_ID, state=state, amount_minor=2499, currency="EUR",
                                   payment_ref=payment_ref, reference="pay_7Qk2")
    assert http.sent[0]["query"] == {"expand[0]": ["payment_intent"]}


def test_closing_an_open_checkout_expires_the_session_and_answers_it_expired():
    http = RecordedStripe(("post", f"/v1/checkout/sessions/{SESSION_ID}/expire", "checkout_session_expired.json", 200),
                          ("get", f"/v1/checkout/sessions/{SESSION_ID}", "checkout_session_expired.json", 200))

    answer = provider(http).close_checkout(SESSION_ID)

    assert answer.state == EXPIRED and answer.provider_ref == SESSION_ID
    assert [sent["method"] for sent in http.sent] == ["post", "get"]


def test_closing_a_checkout_paid_a_moment_before_answers_it_paid():
    """Stripe refuses to expire a session that is no longer open; its state says it was paid."""
    http = RecordedStripe(("post", f"/v1/checkout/sessions/{SESSION_ID}/expire", "error_400_session_not_open.json", 400),
                          ("get", f"/v1/checkout/sessions/{SESSION_ID}", "checkout_session_paid.json", 200))

    answer = provider(http).close_checkout(SESSION_ID)

    assert answer.state == PAID and answer.payment_ref == INTENT_ID


def test_closing_a_checkout_stripe_cannot_answer_is_unavailable():
    http = RecordedStripe(("post", f"/v1/checkout/sessions/{SESSION_ID}/expire", "error_500_api_error.json", 500))

    with pytest.raises(ProviderUnavailable):
        provider(http).close_checkout(SESSION_ID)
    assert len(http.sent) == 1  # not read as "not open": the job that closes it asks again later


@pytest.mark.parametrize("fixture, shipping", [
    # This library's API version: the address under collected_information.
    ("checkout_session_paid_shipping.json",
     ShippingAddress(name="Grace Hopper", line1="1 Compiler Way", line2="Suite 200", city="Arlington", region="VA",
                     postal_code="22201", country="US")),
    # Versions before 2025-03-31 answer it at the top level, as shipping_details.
    ("checkout_session_paid_shipping_legacy.json",
     ShippingAddress(name="Ada Lovelace", line1="12 Analytical Row", line2=None, city="London", region=None,
                     postal_code="N1 7AA", country="GB")),
])
def test_a_paid_session_answers_the_shipping_address_it_collected(fixture, shipping):
    http = RecordedStripe(("get", f"/v1/checkout/sessions/{SESSION_ID}", fixture, 200))

    answer = provider(http).checkout_state(SESSION_ID)

    assert answer == CheckoutState(provider_ref=SESSION_ID, state=PAID, amount_minor=2499, currency="EUR",
                                   payment_ref=INTENT_ID, reference="pay_7Qk2", shipping=shipping)


def test_unknown_checkout_is_refused():
    http = RecordedStripe(("get", "/v1/checkout/sessions/cs_test_missing", "error_400_invalid_request.json", 404))

    with pytest.raises(ProviderRefused, match="resource_missing"):
        provider(http).checkout_state("cs_test_missing")


# Refunds

def test_partial_refund_names_the_intent_the_amount_and_the_callers_key():
    http = RecordedStripe(("post", "/v1/refunds", "refund_create.json", 200))

    refund = provider(http).refund(payment_ref=INTENT_ID, amount_minor=1000, key="refund:pay_7Qk2:1")

    assert refund == RefundAnswer(ref="re_3QZ4aBAb4CdEfGhI0aBcDeFg", state="succeeded", amount_minor=1000)
    [sent] = http.sent
    assert sent["form"] == {"payment_intent": INTENT_ID, "amount": "1000"}
    # Asked again after a lost answer, the same refund replays instead of refunding twice.
    assert sent["headers"]["Idempotency-Key"] == "refund:pay_7Qk2:1"


def test_full_refund_sends_no_amount():
    http = RecordedStripe(("post", "/v1/refunds", "refund_create.json", 200))

    provider(http).refund(payment_ref=INTENT_ID, key="refund:pay_7Qk2:2")

    assert http.sent[0]["form"] == {"payment_intent": INTENT_ID}
    assert http.sent[0]["headers"]["Idempotency-Key"] == "refund:pay_7Qk2:2"


# Each status Stripe gives a refund, as the seam names it; a failed or canceled refund
# carries Stripe's reason (failure_reason) when it gave one.
REFUND_ANSWERS = [
    ("refund_succeeded.json", "succeeded", None),
    ("refund_pending.json", "pending", None),
    ("refund_requires_action.json", "pending", None),
    ("refund_failed.json", "failed", "expired_or_canceled_card"),
    ("refund_canceled.json", "canceled", None),
]


@pytest.mark.parametrize("fixture, state, failure", REFUND_ANSWERS)
def test_a_refund_answers_the_state_stripe_gave_it(fixture, state, failure):
    http = RecordedStripe(("post", "/v1/refunds", fixture, 200))

    answer = provider(http).refund(payment_ref=INTENT_ID, amount_minor=2499, key="refund:pay_7Qk2:1")

    assert answer == RefundAnswer(ref=json.loads(recorded(fixture))["id"], state=state, amount_minor=2499,
                                  failure_reason=failure)


@pytest.mark.parametrize("fixture, state, failure", REFUND_ANSWERS)
def test_a_refunds_state_is_read_back_from_stripe(fixture, state, failure):
    refund_id = json.loads(recorded(fixture))["id"]
    http = RecordedStripe(("get", f"/v1/refunds/{refund_id}", fixture, 200))

    answer = provider(http).refund_state(refund_id)

    assert (answer.ref, answer.state, answer.failure_reason) == (refund_id, state, failure)
    assert http.sent[0]["method"] == "get" and "Idempotency-Key" not in http.sent[0]["headers"]


def test_an_unknown_refund_is_refused_and_a_lost_connection_unavailable():
    http = RecordedStripe(("get", "/v1/refunds/re_missing", "error_400_invalid_request.json", 404))
    with pytest.raises(ProviderRefused, match="resource_missing"):
        provider(http).refund_state("re_missing")
    with pytest.raises(ProviderUnavailable):
        provider(Unreachable()).refund_state("re_3QZ4aBAb4CdEfGhI0aBcDeFg")


# Failures

@pytest.mark.parametrize("fixture, status, error", [
    ("error_500_api_error.json", 500, ProviderUnavailable),
    ("error_500_api_error.json", 503, ProviderUnavailable),
    ("error_429_rate_limit.json", 429, ProviderUnavailable),
    ("error_400_invalid_request.json", 400, ProviderRefused),
    ("error_401_authentication.json", 401, ProviderRefused),
])
def test_stripe_error_answers_map_to_unavailable_or_refused(fixture, status, error):
    http = RecordedStripe(("post", "/v1/checkout/sessions", fixture, status))

    with pytest.raises(error) as raised:
        provider(http).create_checkout(checkout_request())

    assert len(http.sent) == 1  # the library retries nothing; the service asks again later
    assert "req_Rec0rdedAnsw3r" in str(raised.value)


def test_no_part_of_the_secret_key_reaches_the_error_message():
    http = RecordedStripe(("post", "/v1/refunds", "error_401_authentication.json", 401))

    with pytest.raises(ProviderRefused) as raised:
        provider(http).refund(payment_ref=INTENT_ID, key="refund:pay_7Qk2:1")

    message = str(raised.value)
    assert "sk_test" not in message and "3kQ9" not in message and SECRET_KEY not in message
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_lost_connection_is_unavailable():
    with pytest.raises(ProviderUnavailable):
        provider(Unreachable()).checkout_state(SESSION_ID)


@pytest.mark.parametrize("failure", [requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError])
def test_timeout_of_the_default_client_is_unavailable_and_uses_the_setting(monkeypatch, failure):
    calls = []

    def request(session, method, url, **kwargs):
        calls.append(kwargs)
        raise failure("no answer from api.stripe.com")

    monkeypatch.setattr(requests.Session, "request", request)
    stripe_provider = StripeProvider(secret_key=SECRET_KEY, webhook_secret=WEBHOOK_SECRET, timeout_seconds=7)

    with pytest.raises(ProviderUnavailable):
        stripe_provider.create_checkout(checkout_request())

    assert [call["timeout"] for call in calls] == [7]


# Webhooks

def signed(payload: bytes, *, secret=WEBHOOK_SECRET, at=None) -> str:
    """The Stripe-Signature header Stripe sends: t=<unix time>,v1=<HMAC-SHA256 of "t.payload">."""
    at = int(time.time()) if at is None else at
    mac = hmac.new(secret.encode(), f"{at}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={at},v1={mac}"


def webhook_provider():
    return provider(RecordedStripe())  # verifying a webhook never calls Stripe


def test_signed_checkout_event_names_its_session():
    payload = recorded("event_checkout_session_completed.json").encode()

    notification = webhook_provider().verify_notification(payload=payload,
                                                          headers={"Stripe-Signature": signed(payload)})

    assert notification == Notification(event_id="evt_1QZ4aCAb4CdEfGhIq2RsTuVw", provider_ref=SESSION_ID,
                                        type="checkout.session.completed", reference="pay_7Qk2")


@pytest.mark.parametrize("event_type", ["checkout.session.async_payment_succeeded",
                                        "checkout.session.async_payment_failed", "checkout.session.expired"])
def test_every_checkout_event_names_its_session(event_type):
    event = json.loads(recorded("event_checkout_session_completed.json"))
    payload = json.dumps({**event, "type": event_type}).encode()

    notification = webhook_provider().verify_notification(payload=payload,
                                                          headers={"stripe-signature": signed(payload)})

    assert (notification.provider_ref, notification.type) == (SESSION_ID, event_type)


def test_other_events_name_no_checkout():
    payload = recorded("event_charge_refunded.json").encode()

    notification = webhook_provider().verify_notification(payload=payload,
                                                          headers={"Stripe-Signature": signed(payload)})

    assert notification == Notification(event_id="evt_3QZ4aBAb4CdEfGhI0zYxWvUt", provider_ref="",
                                        type="charge.refunded")


def test_notification_without_signature_is_unsigned():
    payload = recorded("event_checkout_session_completed.json").encode()

    with pytest.raises(NotificationRejected) as raised:
        webhook_provider().verify_notification(payload=payload, headers={"Content-Type": "application/json"})

    assert raised.value.kind == "unsigned"


def _completed():
    return recorded("event_checkout_session_completed.json").encode()


@pytest.mark.parametrize("payload, header", [
    (_completed(), signed(_completed(), secret="whsec_someone_else")),
    # Signed as Stripe sent it, then the amount changed on the way.
    (_completed().replace(b'"amount_total": 2499', b'"amount_total": 1'), signed(_completed())),
    (_completed(), signed(_completed(), at=int(time.time()) - 301)),
    (_completed(), "t=soon,v1=nothing"),
    (_completed(), "v1=" + "0" * 64),
], ids=["wrong_secret", "tampered_body", "stale", "malformed", "no_timestamp"])
def test_bad_signatures_are_rejected(payload, header):
    with pytest.raises(NotificationRejected) as raised:
        webhook_provider().verify_notification(payload=payload, headers={"Stripe-Signature": header})

    assert raised.value.kind == "bad_signature"


def test_signed_body_that_is_not_an_event_is_rejected():
    payload = b"<html>not json</html>"

    with pytest.raises(NotificationRejected) as raised:
        webhook_provider().verify_notification(payload=payload, headers={"Stripe-Signature": signed(payload)})

    assert raised.value.kind == "bad_signature"


# Settings

def test_provider_for_stripe_settings_is_a_stripe_provider():
    settings = Settings().but(payment_provider="stripe", stripe_secret_key="sk_test_x", stripe_webhook_secret="whsec_x")

    chosen = provider_for(settings)

    assert isinstance(chosen, StripeProvider)
    assert (chosen.name, chosen.signature_header) == ("stripe", "Stripe-Signature")
    assert "sk_test_x" not in repr(chosen) and "whsec_x" not in repr(chosen)


def test_stripe_settings_load_from_the_environment():
    settings = load_settings({"SECRET_KEY": "x" * 32, "PAYMENT_PROVIDER": "stripe", "STRIPE_SECRET_KEY": "sk_test_x",
                              "STRIPE_WEBHOOK_SECRET": "whsec_x", "PAYMENT_TIMEOUT_SECONDS": "5"})

    assert isinstance(provider_for(settings), StripeProvider)
    assert "sk_test_x" not in repr(settings) and "whsec_x" not in repr(settings)


@pytest.mark.parametrize("env, named", [
    ({"PAYMENT_PROVIDER": "stripe"}, "STRIPE_SECRET_KEY"),
    ({"PAYMENT_PROVIDER": "stripe", "STRIPE_WEBHOOK_SECRET": "whsec_x"}, "STRIPE_SECRET_KEY"),
    ({"PAYMENT_PROVIDER": "stripe", "STRIPE_SECRET_KEY": "sk_test_x"}, "STRIPE_WEBHOOK_SECRET"),
    ({"PAYMENT_PROVIDER": "bogus"}, "PAYMENT_PROVIDER"),
])
def test_stripe_without_its_keys_or_an_unknown_provider_stops_the_start(env, named):
    with pytest.raises(SettingsError, match=named):
        load_settings({"SECRET_KEY": "x" * 32, **env})
