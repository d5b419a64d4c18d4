"""Payments through the provider seam: starting one, asking the provider about it, and
doing what it was for exactly once.

The rules (spec 5.17; decisions.md, "Commerce and payments"):
- The payment row (and the order, sample or domain order it pays for) is committed before
  the provider is asked for a checkout, so nothing the customer can pay is unrecorded.
- Nothing is credited from a redirect or a notification alone: `confirm` asks the provider
  for the checkout's state and acts on that answer.
- A payment turns paid once: a conditional UPDATE (`state <> 'paid'`) in the transaction
  that also runs the purpose's `paid` step. Concurrent confirmations wait on the row and
  then find it paid, so revenue is credited once however often a confirmation is replayed.
- A provider that cannot answer changes nothing; the next confirmation (the landing page,
  GET /api/store/confirm, the notification job's retry) tries again.
"""
from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Callable

from config import get_settings
from integrations.payments import (EXPIRED, FAILED, PAID, CheckoutRequest, NotificationRejected, ProviderRefused,
                                   ProviderUnavailable, provider_for)
from models.clock import utcnow
from models.db import transaction
from models.payment import Payment
from services.errors import Refused, TransientError
from services.jobs import create_job

log = logging.getLogger("services.payments")

CONFIRM_JOB = "payment_confirm"


@dataclass(frozen=True)
class Purpose:
    """What a purpose does when its payment is paid, or fails; both run inside the
    transaction that changes the payment's state, once."""

    paid: Callable[[Payment], None]
    failed: Callable[[Payment], None]
    # Where the founder's (or customer's) browser goes after the provider's page.
    landing: Callable[[Payment, str], str]


PURPOSES: dict[str, Purpose] = {}


def purpose(name: str, *, paid, failed, landing) -> None:
    """Registers what a purpose does (each area registers its own)."""
    if name not in Payment.PURPOSES or name in PURPOSES:
        raise ValueError(f"bad or repeated payment purpose {name!r}")
    PURPOSES[name] = Purpose(paid=paid, failed=failed, landing=landing)


def provider():
    return provider_for(get_settings())


def configured() -> bool:
    """Whether any payment can start on this service (PAYMENT_PROVIDER is not off)."""
    return get_settings().payment_provider != "off"


def new_payment(*, purpose: str, subject: str, amount_minor: int, currency: str, session_id: int | None,
                account_id: int | None) -> Payment:
    """Records a payment about to start (call inside the caller's transaction)."""
    return Payment.create(id=secrets.token_hex(16), purpose=purpose, subject=subject, amount_minor=amount_minor,
                          currency=currency.upper(), session=session_id, account=account_id,
                          provider=get_settings().payment_provider, state=Payment.OPEN, created_at=utcnow())


def open_checkout(payment: Payment, *, description: str, customer_email: str | None = None) -> str:
    """Asks the provider for a checkout for a recorded payment (after its commit) and answers
    the URL to send the browser to. When the provider cannot start one, the payment and what
    it pays for are marked failed and `payment_unavailable` is raised: nothing was charged."""
    chosen = provider()
    base = get_settings().base_url
    try:
        if chosen is None:
            raise ProviderRefused("payments are switched off")
        checkout = chosen.create_checkout(CheckoutRequest(
            reference=payment.id, amount_minor=payment.amount_minor, currency=payment.currency,
            description=description, customer_email=customer_email,
            success_url=f"{base}/pay/landing?payment={payment.id}", cancel_url=f"{base}/pay/back?payment={payment.id}",
            logo_url=f"{base}/pay/logo.svg"))
    except (ProviderUnavailable, ProviderRefused) as exc:
        log.warning("payment could not start", extra={"fields": {"payment_id": payment.id, "error": type(exc).__name__}})
        _fail(payment.id, FAILED, error="could_not_start")
        raise Refused("payment_unavailable", "The payment provider could not start this payment, so nothing was "
                                             "charged. Try again in a moment.", payment_id=payment.id) from None
    with transaction():
        Payment.update(provider_ref=checkout.provider_ref, checkout_url=checkout.url).where(
            Payment.id == payment.id).execute()
    return checkout.url


def confirm(payment_id: str) -> Payment | None:
    """Asks the provider about a payment and applies its answer; answers the payment as it
    now stands. Raises ProviderUnavailable when the provider did not answer."""
    payment = Payment.get_or_none(Payment.id == payment_id)
    if payment is not None and payment.state == Payment.PAID and payment.error == REFUND_DUE:
        refund_if_due(payment.id)
        return Payment.get_by_id(payment.id)
    if payment is None or payment.state == Payment.PAID or payment.provider_ref is None:
        return payment
    chosen = provider()
    if chosen is None or chosen.name != payment.provider:
        return payment  # started with a provider this deployment no longer talks to
    try:
        answer = chosen.checkout_state(payment.provider_ref)
    except ProviderRefused:
        log.warning("provider does not know a payment", extra={"fields": {"payment_id": payment.id}})
        return payment
    if answer.reference is not None and answer.reference != payment.id:
        log.error("provider answered for another payment", extra={"fields": {"payment_id": payment.id}})
        return payment
    if answer.state == PAID:
        if answer.amount_minor != payment.amount_minor or (answer.currency or "").upper() != payment.currency:
            # Never credit what the provider did not collect as asked; a person must look.
            log.error("paid amount differs from the payment", extra={"fields": {"payment_id": payment.id}})
            Payment.update(error="amount_mismatch", checked_at=utcnow()).where(Payment.id == payment.id).execute()
            return Payment.get_by_id(payment.id)
        if _mark_paid(payment.id, answer.payment_ref) == REFUND_DUE:
            refund_if_due(payment.id)
    elif answer.state in (FAILED, EXPIRED):
        _fail(payment.id, answer.state)
    else:
        Payment.update(checked_at=utcnow()).where(Payment.id == payment.id).execute()
    return Payment.get_by_id(payment.id)


def confirm_quietly(payment_id: str) -> tuple[Payment | None, bool]:
    """`confirm`, reporting a provider that did not answer instead of raising: (payment, answered)."""
    try:
        return confirm(payment_id), True
    except ProviderUnavailable:
        log.warning("provider did not answer", extra={"fields": {"payment_id": payment_id}})
        return Payment.get_or_none(Payment.id == payment_id), False


def confirm_in_job(payment_id: str) -> dict:
    """The notification job's work: confirm, and try again later when the provider is down."""
    try:
        payment = confirm(payment_id)
    except ProviderUnavailable as exc:
        raise TransientError(str(exc)) from None
    return {"state": payment.state if payment else None}


def _mark_paid(payment_id: str, payment_ref: str | None) -> str | None:
    """Marks the payment paid and runs its purpose, once; answers the payment's error mark
    when this call did it (refund_due: the purpose could not be fulfilled)."""
    now = utcnow()
    with transaction():
        # The only way a payment becomes paid. On PostgreSQL a concurrent confirmation
        # blocks on this row until the first commits, then re-reads `state` and updates
        # nothing, so `paid` below runs once.
        changed = (Payment.update(state=Payment.PAID, payment_ref=payment_ref, paid_at=now, checked_at=now, error=None)
                   .where(Payment.id == payment_id, Payment.state != Payment.PAID).execute())
        if not changed:
            return None
        payment = Payment.get_by_id(payment_id)
        PURPOSES[payment.purpose].paid(payment)
    log.info("payment confirmed", extra={"fields": {"payment_id": payment_id, "purpose": payment.purpose}})
    return Payment.get_by_id(payment_id).error


REFUND_DUE, REFUNDING, REFUNDED = "refund_due", "refunding", "refunded"


def owe_refund(payment: Payment) -> None:
    """Marks a payment whose purpose could not be fulfilled (inside the paid transaction):
    the money goes back once the transaction commits (`refund_if_due`)."""
    Payment.update(error=REFUND_DUE).where(Payment.id == payment.id).execute()
    log.warning("payment paid but not fulfilled; refund due", extra={"fields": {"payment_id": payment.id}})


def refund_if_due(payment_id: str) -> None:
    """Refunds a paid payment marked refund_due, once: the conditional UPDATE to
    `refunding` lets one caller ask the provider; when the provider cannot answer, the mark
    goes back to refund_due and the next confirmation tries again."""
    taken = (Payment.update(error=REFUNDING)
             .where(Payment.id == payment_id, Payment.error == REFUND_DUE, Payment.state == Payment.PAID).execute())
    if not taken:
        return
    payment = Payment.get_by_id(payment_id)
    chosen = provider()
    try:
        if chosen is None or chosen.name != payment.provider or not payment.payment_ref:
            raise ProviderRefused("no provider can refund this payment here")
        chosen.refund(payment_ref=payment.payment_ref, amount_minor=payment.amount_minor)
    except (ProviderUnavailable, ProviderRefused) as exc:
        log.warning("refund not made yet", extra={"fields": {"payment_id": payment_id, "error": type(exc).__name__}})
        Payment.update(error=REFUND_DUE).where(Payment.id == payment_id, Payment.error == REFUNDING).execute()
        return
    Payment.update(error=REFUNDED).where(Payment.id == payment_id).execute()
    log.info("payment refunded", extra={"fields": {"payment_id": payment_id}})


RECHECK_AFTER = timedelta(minutes=10)  # a customer is usually back (or notified) by then
RECHECK_FOR = timedelta(days=2)  # past this, an open checkout has long expired at the provider


def recheck_open_payments(*, limit: int = 200) -> int:
    """Asks the provider about payments still open after RECHECK_AFTER (a notification that
    never arrived, a tab closed before the landing) and about refunds still due; the clock
    runs it every 10 minutes. Answers how many payments changed state."""
    now = utcnow()
    stale = (Payment.select(Payment.id).where(
        Payment.state == Payment.OPEN, Payment.provider_ref.is_null(False),
        Payment.created_at <= now - RECHECK_AFTER, Payment.created_at > now - RECHECK_FOR,
        Payment.checked_at.is_null() | (Payment.checked_at <= now - RECHECK_AFTER))
        .order_by(Payment.created_at).limit(limit))
    changed = 0
    for row in list(stale):
        payment, _answered = confirm_quietly(row.id)
        changed += payment is not None and payment.state != Payment.OPEN
    for row in list(Payment.select(Payment.id).where(Payment.state == Payment.PAID, Payment.error == REFUND_DUE)
                    .limit(limit)):
        refund_if_due(row.id)
    return changed


def _fail(payment_id: str, state: str, *, error: str | None = None) -> None:
    with transaction():
        changed = (Payment.update(state=state, error=error, checked_at=utcnow())
                   .where(Payment.id == payment_id, Payment.state == Payment.OPEN).execute())
        if changed:
            payment = Payment.get_by_id(payment_id)
            PURPOSES[payment.purpose].failed(payment)


def receive_notification(*, payload: bytes, headers) -> tuple[dict, str | None]:
    """A notification from the provider: its signature is checked before anything else;
    then the payment it names is confirmed by a job (which asks the provider). Answers the
    reply and the job to send (None when there is nothing to do)."""
    chosen = provider()
    if chosen is None:
        raise Refused("billing_unconfigured", "Payments are not configured on this service, so the notification "
                                              "was not read and nothing changed.")
    try:
        notice = chosen.verify_notification(payload=payload, headers=headers)
    except NotificationRejected as exc:
        if exc.kind == "unsigned":
            raise Refused("unsigned_callback", f"The notification has no {chosen.signature_header} header, so it was "
                                               "not read and nothing changed.") from None
        raise Refused("bad_signature", "The notification's signature does not match its body under the service's "
                                       "key, or is too old, so it was refused and nothing changed.") from None
    payment = Payment.get_or_none(Payment.provider_ref == notice.provider_ref) if notice.provider_ref else None
    if payment is None:
        # Acknowledged (so the provider stops retrying) but acted on by nobody.
        return {"status": "ignored", "event_id": notice.event_id, "reason": "unknown_payment",
                "explanation": "No payment of this service has that checkout, so nothing changed."}, None
    with transaction():
        job, _created = create_job(kind=CONFIRM_JOB, subject=f"payment:{payment.id}", payload={"payment_id": payment.id})
    return {"status": "accepted", "event_id": notice.event_id}, job


def landing_target(payment_id: str, *, cancelled: bool) -> str:
    """Where the browser goes back to from the provider's page, after asking the provider
    (a redirect proves nothing; the answer does)."""
    payment, _answered = confirm_quietly(payment_id)
    if payment is None:
        return "/#/app/home"
    return PURPOSES[payment.purpose].landing(payment, "cancelled" if cancelled else "returned")
