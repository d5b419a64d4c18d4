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
switched off (PAYMENT_PROVIDER=off; `switched_on` is the one place that decides). Each
provider names the origin of its hosted checkout page (`checkout_origin`), which the
storefront's Content-Security-Policy lets its buy form lead to.

Amounts cross the seam in minor units. How many a currency has is Babel's currency data
(CLDR, which follows ISO 4217: JPY and CLP 0, USD and EUR 2, KWD and BHD 3); `minor_units`
and `major_units` convert with it, and the service formats amounts for people from the same
data (services/money.py), so what is charged and what is shown never disagree.

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

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol

from babel.numbers import get_currency_precision

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


def minor_digits(currency: str) -> int:
    """How many digits a currency's minor unit has (JPY 0, USD 2, KWD 3): Babel's (CLDR's)
    currency data, the one table the service charges and shows amounts by."""
    return get_currency_precision(currency.upper())


def minor_units(amount, currency: str) -> int:
    """An amount in major units (Decimal, float or str) as an integer of minor units,
    rounded half up to the currency's minor unit (12.5 JPY is 13 yen)."""
    return int(Decimal(str(amount)).scaleb(minor_digits(currency)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def major_units(amount_minor: int, currency: str) -> Decimal:
    """An integer of minor units as the exact amount in major units (1999 USD is 19.99)."""
    return Decimal(int(amount_minor)).scaleb(-minor_digits(currency))


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
    # The scheme and host of the provider's hosted checkout page ("https://checkout.stripe.com").
    checkout_origin: str

    def create_checkout(self, request: CheckoutRequest) -> Checkout: ...

    def checkout_state(self, provider_ref: str) -> CheckoutState: ...

    # Closes an open checkout so that it can no longer be paid (the shop stopped selling), and
    # answers its state after: EXPIRED once closed, PAID when the customer paid first.
    def close_checkout(self, provider_ref: str) -> CheckoutState: ...

    def verify_notification(self, *, payload: bytes, headers: Mapping[str, str]) -> Notification: ...

    def refund(self, *, payment_ref: str, key: str, amount_minor: int | None = None) -> RefundAnswer: ...

    def refund_state(self, refund_ref: str) -> RefundAnswer: ...


def switched_on(settings) -> bool:
    """Whether payments can start on this deployment (PAYMENT_PROVIDER is not off)."""
    return settings.payment_provider != "off"


def provider_for(settings) -> PaymentProvider | None:
    """The configured provider (None when payments are switched off)."""
    if not switched_on(settings):
        return None
    name = settings.payment_provider
    if name == "stripe":
        from integrations.payments.stripe_provider import StripeProvider

        return StripeProvider(secret_key=settings.stripe_secret_key, webhook_secret=settings.stripe_webhook_secret,
                              timeout_seconds=settings.payment_timeout_seconds)
    from integrations.payments.sandbox import SandboxProvider

    return SandboxProvider(settings)
