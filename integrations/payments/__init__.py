"""The payment provider seam: create a checkout, ask for its state, verify a notification,
refund, ask for a refund's state.

The service never decides that money moved. It opens a checkout with the provider, sends
the browser to the provider's page, and later asks the provider what happened (or reads a
notification the provider signed). Two providers sit behind this interface:

- `sandbox` (default): a provider built into the service (integrations/payments/
  sandbox_bank.py, with its hosted page under /pay/sandbox/). The adapter in sandbox.py
  talks to it only through the calls below, so the same code paths run offline.
- `stripe`: Stripe Checkout Sessions through the official library (stripe_provider.py).

`provider_for(settings)` answers the configured provider, or None when payments are
switched off (PAYMENT_PROVIDER=off).

Failures: `ProviderUnavailable` means the provider could not answer now (timeout, 5xx,
network): nothing is known and the caller tries again later. `NotificationRejected` means a
notification is unsigned (`unsigned`) or its signature is wrong or stale (`bad_signature`):
it changes nothing.

Refunds: `refund` takes an idempotency key; asked again with the same key (an answer that
was lost, a process that died before recording it) the provider answers the refund the
first call made and moves no more money. `refund_state` answers a refund as it stands now
(a refund may be pending for days, and may still fail or be canceled).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol

# Checkout states every provider's answer is mapped onto.
OPEN = "open"        # created; the customer has not paid (yet)
PAID = "paid"        # the provider holds the money
FAILED = "failed"    # declined for good
EXPIRED = "expired"  # abandoned or timed out; it can no longer be paid
STATES = (OPEN, PAID, FAILED, EXPIRED)

# Refund states every provider's answer is mapped onto.
REFUND_PENDING = "pending"      # accepted, not settled yet (on its way, or waiting for an action)
REFUND_SUCCEEDED = "succeeded"  # the money went back
REFUND_FAILED = "failed"        # the money could not go back (a closed card, say); nothing moved
REFUND_CANCELED = "canceled"    # stopped before it settled; nothing moved
REFUND_STATES = (REFUND_PENDING, REFUND_SUCCEEDED, REFUND_FAILED, REFUND_CANCELED)

# Currencies whose minor unit is the major unit (ISO 4217 exponent 0).
ZERO_DECIMAL = frozenset({"BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND",
                          "VUV", "XAF", "XOF", "XPF"})


def minor_units(amount, currency: str) -> int:
    """An amount in major units (Decimal, float or str) as an integer of minor units."""
    from decimal import ROUND_HALF_UP, Decimal

    exponent = 0 if currency.upper() in ZERO_DECIMAL else 2
    return int((Decimal(str(amount)) * (10 ** exponent)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class ShippingAddress:
    """Where the customer asked their order shipped, as the provider's page collected it."""

    name: str
    line1: str
    city: str
    postal_code: str
    country: str               # ISO 3166-1 alpha-2, upper case
    line2: str | None = None
    region: str | None = None  # state, province or county, where the country uses one


@dataclass(frozen=True)
class CheckoutRequest:
    reference: str            # our payment id; the provider keeps it and hands it back
    amount_minor: int         # > 0
    currency: str             # ISO 4217, upper case
    description: str          # one line the customer sees on the provider's page
    success_url: str          # where the browser goes after paying (proves nothing by itself)
    cancel_url: str           # where the browser goes when the customer gives up
    customer_email: str | None = None
    logo_url: str | None = None
    # The countries a shipping address may be in, when the provider's page is to collect
    # one (a customer order); None: no address is collected (samples, domains, plans).
    shipping_countries: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Checkout:
    provider_ref: str  # the provider's id of this checkout
    url: str           # the provider's page where the customer pays


@dataclass(frozen=True)
class CheckoutState:
    provider_ref: str
    state: str                   # one of STATES
    amount_minor: int | None     # what the provider says was (or is to be) paid
    currency: str | None
    payment_ref: str | None = None  # the provider's id of the captured payment, once PAID
    reference: str | None = None    # our payment id, as we gave it
    shipping: ShippingAddress | None = None  # the address the customer gave, when one was collected


@dataclass(frozen=True)
class Notification:
    event_id: str
    provider_ref: str  # the checkout it concerns; the service asks for its state
    type: str
    reference: str | None = None


@dataclass(frozen=True)
class RefundAnswer:
    ref: str                   # the provider's id of the refund
    state: str                 # one of REFUND_STATES
    amount_minor: int | None   # what the refund returns
    failure_reason: str | None = None  # the provider's reason, when it failed or was canceled


class ProviderUnavailable(Exception):
    """The provider did not answer in time or answered with a server error; nothing is
    known about the payment. Try again later."""


class ProviderRefused(Exception):
    """The provider refused the request for good (bad amount, unknown checkout...)."""


class NotificationRejected(Exception):
    """A notification that must change nothing: `kind` is `unsigned` (no signature header)
    or `bad_signature` (malformed, stale or wrong)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class PaymentProvider(Protocol):
    name: str
    # The request header that carries the notification's signature.
    signature_header: str

    def create_checkout(self, request: CheckoutRequest) -> Checkout: ...

    def checkout_state(self, provider_ref: str) -> CheckoutState: ...

    def verify_notification(self, *, payload: bytes, headers: Mapping[str, str]) -> Notification: ...

    def refund(self, *, payment_ref: str, key: str, amount_minor: int | None = None) -> RefundAnswer: ...

    def refund_state(self, refund_ref: str) -> RefundAnswer: ...


PROVIDERS = ("sandbox", "stripe", "off")


def provider_for(settings) -> PaymentProvider | None:
    """The configured provider (None when PAYMENT_PROVIDER=off)."""
    name = settings.payment_provider
    if name == "off":
        return None
    if name == "stripe":
        from integrations.payments.stripe_provider import StripeProvider

        return StripeProvider(secret_key=settings.stripe_secret_key, webhook_secret=settings.stripe_webhook_secret,
                              timeout_seconds=settings.payment_timeout_seconds)
    from integrations.payments.sandbox import SandboxProvider

    return SandboxProvider(settings)
