"""Stripe behind the payment seam: Checkout Sessions, their state, signed webhooks, refunds
and their state.

Each provider holds its own `stripe.StripeClient` (its own key, HTTP client and timeout), so
nothing is set on the `stripe` module and two providers in one process never share a key.

The library retries nothing (max_network_retries=0): a call that times out or meets a
server error raises ProviderUnavailable at once and the service asks again later, so a
web request never waits for more than one timeout. A checkout created by a call whose
answer was lost is harmless: nobody is sent to its page and Stripe expires it unpaid.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import contextmanager

import stripe

from integrations.payments import (
    EXPIRED,
    FAILED,
    OPEN,
    PAID,
    REFUND_CANCELED,
    REFUND_FAILED,
    REFUND_PENDING,
    REFUND_SUCCEEDED,
    Checkout,
    CheckoutRequest,
    CheckoutState,
    Notification,
    NotificationRejected,
    ProviderRefused,
    ProviderUnavailable,
    RefundAnswer,
    ShippingAddress,
    minor_digits,
)

# Seconds a signed webhook stays acceptable after Stripe signed it (Stripe's own default);
# older ones are refused as replays.
SIGNATURE_TOLERANCE_SECONDS = 300

# The events the service acts on: each concerns one Checkout Session, whose state the service
# then asks for. Every other event type answers a Notification with an empty provider_ref.
CHECKOUT_EVENTS = frozenset({
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "checkout.session.expired",
})

# A complete session whose payment intent is back at one of these statuses cannot be paid
# any more (a delayed method such as a bank debit failed): it is FAILED, not OPEN.
_FAILED_INTENT_STATUSES = frozenset({"requires_payment_method", "canceled"})

# A refund's status, as the seam names it. requires_action (some payment methods need the
# customer's bank details before the money can go back) is still pending: nothing is back yet.
_REFUND_STATES = {"succeeded": REFUND_SUCCEEDED, "pending": REFUND_PENDING, "requires_action": REFUND_PENDING,
                  "failed": REFUND_FAILED, "canceled": REFUND_CANCELED}

# Stripe masks most of a key it quotes in an error message; this removes what it leaves, so
# no part of a key or webhook secret reaches an exception message or a log.
_SECRET = re.compile(r"\b(?:sk|rk|pk)_(?:test|live)_[*\w]*|\bwhsec_\w*")


class StripeProvider:
    name = "stripe"
    signature_header = "Stripe-Signature"
    checkout_origin = "https://checkout.stripe.com"

    def __init__(self, *, secret_key: str, webhook_secret: str, timeout_seconds: float,
                 http_client: stripe.HTTPClient | None = None):
        if not secret_key or not webhook_secret:
            raise ValueError("StripeProvider needs a secret key and a webhook secret")
        self._webhook_secret = webhook_secret
        self._client = stripe.StripeClient(
            secret_key,
            http_client=http_client or stripe.RequestsClient(timeout=timeout_seconds),
            max_network_retries=0,
        )

    def __repr__(self) -> str:
        # Never the default repr: the client holds the key, and reprs end up in logs.
        return "StripeProvider()"

    def create_checkout(self, request: CheckoutRequest) -> Checkout:
        """Opens a Checkout Session for one line: the description at the amount asked."""
        if minor_digits(request.currency) == 3 and request.amount_minor % 10:
            # Stripe takes three-decimal currencies (BHD, JOD, KWD, OMR, TND) in steps of ten
            # minor units only; refused here, clearly, rather than by an opaque 400 from Stripe.
            raise ProviderRefused(f"Stripe charges {request.currency.upper()} only in whole hundredths (the third "
                                  f"decimal must be 0), not {request.amount_minor} minor units")
        product = {"name": request.description}
        if request.logo_url:
            product["images"] = [request.logo_url]
        params = {
            "mode": "payment",
            "line_items": [{
                "price_data": {"currency": request.currency.lower(), "unit_amount": request.amount_minor,
                               "product_data": product},
                "quantity": 1,
            }],
            "success_url": request.success_url,
            "cancel_url": request.cancel_url,
            "client_reference_id": request.reference,
            "metadata": {"reference": request.reference},
        }
        if request.customer_email:
            params["customer_email"] = request.customer_email
        if request.shipping_countries:
            # Stripe's page asks for the address (and a state or province where the country
            # has them) and refuses one outside these countries.
            params["shipping_address_collection"] = {"allowed_countries": list(request.shipping_countries)}
        with _mapped_errors("creating a checkout"):
            session = self._client.v1.checkout.sessions.create(params=params)
        return Checkout(provider_ref=session.id, url=session.url)

    def checkout_state(self, provider_ref: str) -> CheckoutState:
        """Asks Stripe for the session and maps it onto OPEN, PAID, FAILED or EXPIRED."""
        # The payment intent comes expanded: its status is the only way to tell a delayed
        # payment that failed from one still on its way.
        with _mapped_errors("reading a checkout"):
            found = self._client.v1.checkout.sessions.retrieve(provider_ref, params={"expand": ["payment_intent"]})
        session = found.to_dict()
        intent = session.get("payment_intent")
        intent_id = intent.get("id") if isinstance(intent, dict) else intent
        intent_status = intent.get("status") if isinstance(intent, dict) else None
        payment_ref = None
        if session.get("payment_status") in ("paid", "no_payment_required"):
            state, payment_ref = PAID, intent_id
        elif session.get("status") == "expired":
            state = EXPIRED
        elif session.get("status") == "complete" and intent_status in _FAILED_INTENT_STATUSES:
            state = FAILED
        else:
            state = OPEN
        currency = session.get("currency")
        return CheckoutState(provider_ref=session["id"], state=state, amount_minor=session.get("amount_total"),
                             currency=currency.upper() if currency else None, payment_ref=payment_ref,
                             reference=session.get("client_reference_id"), shipping=_shipping(session))

    def close_checkout(self, provider_ref: str) -> CheckoutState:
        """Expires an open session, so it can no longer be paid (Stripe's page then says it
        expired), and answers its state. Stripe refuses to expire a session that is no longer
        open (paid a moment before, or expired already): its state says what became of it."""
        try:
            with _mapped_errors("closing a checkout"):
                self._client.v1.checkout.sessions.expire(provider_ref)
        except ProviderRefused:
            pass  # not open: read below (an unknown session is refused there too)
        return self.checkout_state(provider_ref)

    def verify_notification(self, *, payload: bytes, headers: Mapping[str, str]) -> Notification:
        """Checks the Stripe-Signature of a webhook and answers the session it concerns.

        Only the four checkout.session events in CHECKOUT_EVENTS name a session; any other
        event answers a Notification with an empty provider_ref, which the service ignores.
        """
        signature = _header(headers, self.signature_header)
        if not signature:
            raise NotificationRejected("unsigned", "the notification has no Stripe-Signature header")
        try:
            event = self._client.construct_event(payload, signature, self._webhook_secret,
                                                 tolerance=SIGNATURE_TOLERANCE_SECONDS)
        except stripe.SignatureVerificationError:
            raise NotificationRejected("bad_signature", "the Stripe-Signature is malformed, stale or wrong") from None
        except ValueError:
            # A correctly signed body that is not a Stripe event (or not UTF-8 JSON at all).
            raise NotificationRejected("bad_signature", "the signed notification is not a Stripe event") from None
        if event.type not in CHECKOUT_EVENTS:
            return Notification(event_id=event.id, provider_ref="", type=event.type)
        session = event.to_dict()["data"]["object"]
        return Notification(event_id=event.id, provider_ref=session["id"], type=event.type,
                            reference=session.get("client_reference_id"))

    def refund(self, *, payment_ref: str, key: str, amount_minor: int | None = None) -> RefundAnswer:
        """Refunds the payment intent, all of it or amount_minor of it, under the caller's key."""
        params = {"payment_intent": payment_ref}
        if amount_minor is not None:
            params["amount"] = amount_minor
        # The key makes a refund asked again (a lost answer, a process that died before it
        # recorded the answer) replay the first one instead of refunding twice: Stripe keeps
        # keys for 24 hours and answers the first call's saved response. Past that, Stripe
        # still refuses to refund more than the charge has left.
        with _mapped_errors("refunding a payment"):
            refund = self._client.v1.refunds.create(params=params, options={"idempotency_key": key})
        return _refund_answer(refund)

    def refund_state(self, refund_ref: str) -> RefundAnswer:
        """Asks Stripe for a refund as it stands now (a replayed create answers it as it was)."""
        with _mapped_errors("reading a refund"):
            refund = self._client.v1.refunds.retrieve(refund_ref)
        return _refund_answer(refund)


def _shipping(session: dict) -> ShippingAddress | None:
    """The shipping address the session collected: `collected_information.shipping_details`
    (API versions from 2025-03-31 on, this library's included) or the top-level
    `shipping_details` older versions answer. None when there is none, or no usable one."""
    collected = session.get("collected_information")
    details = (collected.get("shipping_details") if isinstance(collected, dict) else None) \
        or session.get("shipping_details")
    if not isinstance(details, dict) or not isinstance(details.get("address"), dict):
        return None
    address = details["address"]

    def text(value, limit):
        return " ".join(value.split())[:limit] if isinstance(value, str) and value.strip() else None

    found = {"name": text(details.get("name"), 200), "line1": text(address.get("line1"), 200),
             "city": text(address.get("city"), 100), "postal_code": text(address.get("postal_code"), 20),
             "country": (text(address.get("country"), 2) or "").upper() or None}
    if found["country"] is None or found["line1"] is None:
        return None  # not an address anything could be shipped to
    # Stripe leaves a field empty where the country does not use it (no postal code in
    # Hong Kong, no city in Singapore): empty strings, not missing values.
    return ShippingAddress(**{k: v or "" for k, v in found.items()}, line2=text(address.get("line2"), 200),
                           region=text(address.get("state"), 100))


def _refund_answer(refund: stripe.Refund) -> RefundAnswer:
    body = refund.to_dict()
    # A status this adapter does not know is not money back: pending, and asked again later.
    state = _REFUND_STATES.get(body.get("status"), REFUND_PENDING)
    failure = body.get("failure_reason") if state in (REFUND_FAILED, REFUND_CANCELED) else None
    return RefundAnswer(ref=body["id"], state=state, amount_minor=body.get("amount"), failure_reason=failure)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """The header's value, whatever the case of its name (a plain dict is case-sensitive)."""
    value = headers.get(name)
    if value is None:
        wanted = name.lower()
        value = next((v for k, v in headers.items() if k.lower() == wanted), None)
    return value


@contextmanager
def _mapped_errors(doing: str):
    """Turns the library's errors into the seam's: unavailable (try later) or refused (for good)."""
    # `from None`: the library's exception carries Stripe's whole answer; the message kept
    # here is scrubbed of secrets, and the original stays out of logged tracebacks.
    try:
        yield
    except (stripe.APIConnectionError, stripe.RateLimitError) as error:
        raise ProviderUnavailable(f"Stripe could not answer {doing}: {_describe(error)}") from None
    except stripe.StripeError as error:
        if _transient(error):
            raise ProviderUnavailable(f"Stripe could not answer {doing}: {_describe(error)}") from None
        raise ProviderRefused(f"Stripe refused {doing}: {_describe(error)}") from None


def _transient(error: stripe.StripeError) -> bool:
    """A server error, a lock conflict (409) or an answer that was not Stripe's JSON."""
    status = error.http_status
    if status is None:
        return isinstance(error, stripe.APIError)
    return status >= 500 or status == 409


def _describe(error: stripe.StripeError) -> str:
    """The error's kind, status, code, request id and Stripe's message, scrubbed of secrets."""
    parts = [type(error).__name__]
    if error.http_status:
        parts.append(f"HTTP {error.http_status}")
    if error.code:
        parts.append(f"code {error.code}")
    if error.request_id:
        parts.append(f"request {error.request_id}")
    message = _SECRET.sub("[redacted]", error.user_message or "").strip()
    return ", ".join(parts) + (f": {message}" if message else "")
