"""The sandbox payment provider itself: the "bank" behind /pay/sandbox/.

It keeps its own checkouts (SandboxCheckout), lets a customer pay, decline or abandon one
on its hosted page (giving a shipping address when the checkout collects one), answers what
state a checkout is in, refunds (SandboxRefund, one per idempotency key), and owes the
service a signed notification for every settled checkout (SandboxNotification, delivered
over HTTP to the service's notification route by a job, retried until it is taken). An
open checkout expires after a day: the clock's pass (`expire_due`) settles it and owes its
`checkout.expired` notification like any other; reading a checkout never writes.

A refund settles at once by default (`refund_outcome`). Like the card networks behind a
real provider, the sandbox can also hold one (pending, settled later by `settle_refund`)
or fail or cancel it; tests swap `refund_outcome` to play those, as Stripe's test cards do.

Nothing else in the service reads these tables: the service talks to the sandbox only
through the provider seam (integrations/payments/sandbox.py), as it would to Stripe.

Notifications are signed like the billing webhook: `Sandbox-Signature: t=<unix>,v1=<hex
HMAC-SHA256 of "<t>." + body>`, keyed with a secret derived from SECRET_KEY (both sides of
the sandbox live in this service, so they share it without another setting).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import urllib.error
import urllib.request
from dataclasses import asdict
from datetime import timedelta

import peewee as pw

from integrations import signatures
from integrations.payments import (
    EXPIRED,
    FAILED,
    OPEN,
    PAID,
    CheckoutRequest,
    ProviderRefused,
    ProviderUnavailable,
    ShippingAddress,
)
from models.clock import clock, utcnow
from models.db import UNAVAILABLE, transaction
from models.payment import SandboxCheckout, SandboxNotification, SandboxRefund

SIGNATURE_HEADER = "Sandbox-Signature"
CHECKOUT_LIFETIME = timedelta(hours=24)
ACTIONS = {"pay": PAID, "decline": FAILED, "abandon": EXPIRED}
EVENT_TYPES = {PAID: "checkout.paid", FAILED: "checkout.failed", EXPIRED: "checkout.expired"}


def signing_secret(secret_key: str) -> bytes:
    """The notification key: derived from SECRET_KEY, never the key itself."""
    return hmac.new(secret_key.encode("utf-8"), b"sandbox-payments-notifications", hashlib.sha256).digest()


def signature_header(*, key: bytes, payload: bytes, timestamp: int | None = None) -> str:
    moment = int(clock.time()) if timestamp is None else timestamp
    return f"t={moment},v1={signatures.sign(key=key, timestamp=moment, payload=payload)}"


def _guarded(fn):
    """The sandbox's database is the provider's server: when it cannot answer, the
    provider is unavailable (not a bug of the caller)."""

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UNAVAILABLE as exc:
            raise ProviderUnavailable(f"the sandbox provider could not answer ({type(exc).__name__})") from None

    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


@_guarded
def create(request: CheckoutRequest) -> SandboxCheckout:
    """Opens a checkout the customer can pay on the hosted page for a day."""
    if request.amount_minor <= 0 or len(request.currency) != 3:
        raise ProviderRefused("the amount must be positive and the currency a three-letter code")
    now = utcnow()
    with transaction():
        return SandboxCheckout.create(
            id=f"cs_sbx_{secrets.token_hex(12)}", reference=request.reference, amount_minor=request.amount_minor,
            currency=request.currency.upper(), description=request.description[:300],
            customer_email=request.customer_email, success_url=request.success_url, cancel_url=request.cancel_url,
            logo_url=request.logo_url, state=OPEN, created_at=now, expires_at=now + CHECKOUT_LIFETIME,
            shipping_countries=list(request.shipping_countries) if request.shipping_countries else None)


@_guarded
def find(checkout_id: str) -> SandboxCheckout | None:
    """The checkout as recorded (a read: it writes nothing; the clock expires, `expire_due`)."""
    return SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_id)


def state_of(row: SandboxCheckout) -> str:
    """The checkout's state as the provider answers it: an open one past its day is expired
    from that moment on (it can no longer be paid), though the clock's next pass is what
    records it and owes its notification."""
    return EXPIRED if row.state == OPEN and row.expires_at <= utcnow() else row.state


@_guarded
def expire_due(*, limit: int = 200) -> list[str]:
    """Expires the open checkouts past their day, each once (the conditional UPDATE of
    `settle`: two clocks, or a customer abandoning at the same moment, settle it once);
    answers the ids of the notifications the expiries owe."""
    due = (SandboxCheckout.select(SandboxCheckout.id)
           .where(SandboxCheckout.state == OPEN, SandboxCheckout.expires_at <= utcnow())
           .order_by(SandboxCheckout.expires_at).limit(limit))
    owed = []
    for row in list(due):
        # Expiry is abandoning on the customer's behalf: the same state and event.
        _row, event_id = settle(row.id, "abandon")
        if event_id is not None:
            owed.append(event_id)
    return owed


@_guarded
def close(checkout_id: str) -> SandboxCheckout | None:
    """The shop closes an open checkout before it is paid (a conditional UPDATE: a customer
    paying at the same moment settles it first, or not at all). It is expired from then on,
    and its page says the shop closed it. No notification is owed: the shop asked, and reads
    the answer (Stripe's expire answers the session the same way). Answers the checkout as
    it is now (None: no such checkout)."""
    now = utcnow()
    with transaction():
        (SandboxCheckout.update(state=EXPIRED, settled_at=now, closed_by_shop=True)
         .where(SandboxCheckout.id == checkout_id, SandboxCheckout.state == OPEN).execute())
        return SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_id)


@_guarded
def ships_to(checkout_id: str) -> tuple[str, ...] | None:
    """The countries an open checkout's page takes a shipping address in (None: it takes
    none, or the checkout is no longer open)."""
    row = SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_id)
    if row is None or row.state != OPEN or not row.shipping_countries:
        return None
    return tuple(row.shipping_countries)


@_guarded
def settle(checkout_id: str, action: str,
           shipping: ShippingAddress | None = None) -> tuple[SandboxCheckout | None, str | None]:
    """The customer's choice on the hosted page: pay, decline or abandon. Only an open
    checkout settles, once (a conditional UPDATE), and only abandoning once its day is
    over; answers the checkout and the id of the notification the settlement owes (None
    when nothing changed). Paying a checkout that
    collects a shipping address takes one, in one of its countries (ProviderRefused
    otherwise: the page checks the form first, so this guards the bank's own rule)."""
    state = ACTIONS[action]
    now = utcnow()
    with transaction():
        changes = {"state": state, "settled_at": now}
        if state == PAID:
            changes["payment_ref"] = f"pi_sbx_{secrets.token_hex(12)}"
            row = SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_id)
            if row is not None and row.state == OPEN and row.shipping_countries:
                if shipping is None or shipping.country not in row.shipping_countries:
                    raise ProviderRefused("this checkout ships only to an address in one of its countries")
                changes["shipping"] = asdict(shipping)
        still_open = (SandboxCheckout.id == checkout_id) & (SandboxCheckout.state == OPEN)
        if state != EXPIRED:
            still_open &= SandboxCheckout.expires_at > now
        settled = SandboxCheckout.update(**changes).where(still_open).execute()
        row = SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_id)
        if not settled or row is None:
            return row, None
        event_id = f"evt_sbx_{secrets.token_hex(12)}"
        payload = json.dumps({"id": event_id, "type": EVENT_TYPES[state], "created": int(clock.time()),
                              "data": {"checkout": row.id, "reference": row.reference}},
                             separators=(",", ":")).encode("utf-8")
        SandboxNotification.create(id=event_id, checkout=row.id, type=EVENT_TYPES[state],
                                   payload=payload.decode("utf-8"), created_at=now)
    return row, event_id


def refund_outcome(checkout: SandboxCheckout, amount_minor: int) -> tuple[str, str | None]:
    """How the sandbox answers a new refund: (state, failure reason). It succeeds at once."""
    return SandboxRefund.SUCCEEDED, None


@_guarded
def refund(payment_ref: str, amount_minor: int | None, key: str) -> SandboxRefund:
    """Refunds a paid checkout, in part or in full (never more than was paid, counting the
    refunds not failed or canceled). A refund asked again under the same key answers the
    first one, and moves nothing more."""
    with transaction():
        earlier = SandboxRefund.get_or_none(SandboxRefund.key == key)
        if earlier is not None:
            return _replayed(earlier, payment_ref, amount_minor)
        row = SandboxCheckout.get_or_none(SandboxCheckout.payment_ref == payment_ref)
        if row is None or row.state != PAID:
            raise ProviderRefused("no paid checkout has that payment reference")
        amount = row.amount_minor - row.refunded_minor if amount_minor is None else amount_minor
        if amount <= 0 or row.refunded_minor + amount > row.amount_minor:
            raise ProviderRefused("a refund cannot exceed what was paid")
        state, failure = refund_outcome(row, amount)
        now = utcnow()
        try:
            # A savepoint: the same key asked at once by another caller (who committed
            # first) must not abort this transaction on PostgreSQL; its refund is the answer.
            with transaction():
                made = SandboxRefund.create(id=f"re_sbx_{secrets.token_hex(12)}", key=key, checkout=row.id,
                                            payment_ref=payment_ref, amount_minor=amount, state=state,
                                            failure_reason=failure, created_at=now,
                                            settled_at=None if state == SandboxRefund.PENDING else now)
        except pw.IntegrityError:
            return _replayed(SandboxRefund.get(SandboxRefund.key == key), payment_ref, amount_minor)
        if state in (SandboxRefund.PENDING, SandboxRefund.SUCCEEDED):
            # The cap holds under concurrent refunds of one checkout: one conditional UPDATE.
            taken = (SandboxCheckout.update(refunded_minor=SandboxCheckout.refunded_minor + amount)
                     .where(SandboxCheckout.id == row.id,
                            SandboxCheckout.refunded_minor + amount <= SandboxCheckout.amount_minor).execute())
            if not taken:
                raise ProviderRefused("a refund cannot exceed what was paid")  # the whole transaction rolls back
    return made


def _replayed(earlier: SandboxRefund, payment_ref: str, amount_minor: int | None) -> SandboxRefund:
    if earlier.payment_ref != payment_ref or (amount_minor is not None and amount_minor != earlier.amount_minor):
        raise ProviderRefused("that idempotency key was used for another refund")
    return earlier


@_guarded
def find_refund(refund_id: str) -> SandboxRefund | None:
    return SandboxRefund.get_or_none(SandboxRefund.id == refund_id)


@_guarded
def settle_refund(refund_id: str, state: str, failure_reason: str | None = None) -> bool:
    """The card network's later answer to a pending refund: succeeded, failed or canceled
    (a refund that did not go back frees its amount again). False when it was not pending."""
    if state not in (SandboxRefund.SUCCEEDED, SandboxRefund.FAILED, SandboxRefund.CANCELED):
        raise ValueError(f"a refund cannot settle as {state!r}")
    with transaction():
        settled = (SandboxRefund.update(state=state, failure_reason=failure_reason, settled_at=utcnow())
                   .where(SandboxRefund.id == refund_id, SandboxRefund.state == SandboxRefund.PENDING).execute())
        if settled and state != SandboxRefund.SUCCEEDED:
            row = SandboxRefund.get_by_id(refund_id)
            SandboxCheckout.update(refunded_minor=SandboxCheckout.refunded_minor - row.amount_minor).where(
                SandboxCheckout.id == row.checkout).execute()
    return bool(settled)


def deliver(notification_id: str, *, notify_url: str, key: bytes, timeout: float) -> bool:
    """Sends one notification to the service's notification route; True once it was taken
    (any 2xx). Raises ProviderUnavailable when the route could not be reached or answered
    a server error, so the delivery job tries again later."""
    row = SandboxNotification.get_or_none(SandboxNotification.id == notification_id)
    if row is None or row.delivered_at is not None:
        return True
    SandboxNotification.update(attempts=SandboxNotification.attempts + 1).where(
        SandboxNotification.id == notification_id).execute()
    body = row.payload.encode("utf-8")
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: signature_header(key=key, payload=body),
               "User-Agent": "sandbox-payments/1"}
    status = transport(notify_url, body, headers, timeout)
    if status >= 500:
        raise ProviderUnavailable(f"the notification route answered {status}")
    SandboxNotification.update(delivered_at=utcnow()).where(SandboxNotification.id == notification_id).execute()
    # A 4xx means the service refused it for good (a bad signature, say): retrying will not help.
    return 200 <= status < 300


def http_post(url: str, body: bytes, headers: dict, timeout: float) -> int:
    """POSTs over the network; answers the HTTP status (ProviderUnavailable when unreachable)."""
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 (our own http(s) URL)
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError) as exc:
        raise ProviderUnavailable(f"the notification route could not be reached ({type(exc).__name__})") from None


# How notifications travel: the network. Tests that run no server swap in the app's own
# WSGI interface (the test client), which is the same request without a socket.
transport = http_post


def notification(notification_id: str) -> SandboxNotification | None:
    return SandboxNotification.get_or_none(SandboxNotification.id == notification_id)

