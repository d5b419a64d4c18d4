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
- What a paid purpose starts in the background (a customer order's receipt) is a job row
  created in the paid transaction; `confirm` and the functions around it answer those jobs
  and their caller (a route, an actor) sends them after the commit, so a job is sent only
  by the one confirmation that marked the payment paid.
- A refund (a paid purpose that could not be fulfilled) is recorded as the provider
  settled it, in its own columns (`refund_state`...): see "Refunds" below.
"""
from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from config import get_settings
from integrations.payments import (
    EXPIRED,
    FAILED,
    PAID,
    REFUND_PENDING,
    REFUND_SUCCEEDED,
    CheckoutRequest,
    CheckoutState,
    NotificationRejected,
    ProviderRefused,
    ProviderUnavailable,
    RefundAnswer,
    provider_for,
    switched_on,
)
from models.clock import utcnow
from models.db import transaction
from models.job import Job
from models.payment import Payment
from services.errors import Refused, TransientError
from services.jobs import create_job

log = logging.getLogger("services.payments")

CONFIRM_JOB = "payment_confirm"

# An expired payment's error when its customer cancelled on the provider's page, so that the
# thank-you page and Orders say "cancelled" rather than "expired". Neither provider says who
# ended a checkout, but both expire an unpaid one only once its day is over (the sandbox's
# CHECKOUT_LIFETIME, Stripe's default expires_at): one that ends sooner, with no reason of
# the shop's (closing it when the product went off sale gives its own), was ended by the
# customer: the sandbox page's "Cancel and go back". An expiry first heard of after the day
# reads as timed out, whoever ended it.
CANCELLED_BY_CUSTOMER = "cancelled by the customer"
CHECKOUT_DAY = timedelta(hours=24)


@dataclass(frozen=True)
class Purpose:
    """What a purpose does when its payment is paid, or fails; both run inside the
    transaction that changes the payment's state, once. `paid` is given the provider's
    answer too (an order keeps the shipping address it carries) and answers the jobs it
    created in that transaction (None: none), for the caller of `confirm` to send."""

    paid: Callable[[Payment, CheckoutState], Iterable[Job] | None]
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
    """Whether any payment can start on this service: what the store's buy box, the launch
    check and every purchase ask (the seam decides, `switched_on`)."""
    return switched_on(get_settings())


def checkout_origin() -> str | None:
    """The origin of the configured provider's hosted checkout page (None: payments off)."""
    chosen = provider()
    return chosen.checkout_origin if chosen is not None else None


def started_by(provider_ref: str, session_id: int | None) -> bool:
    """Whether the session started the payment of that provider checkout (a customer's
    session for an order they opened through the API; never true for no session)."""
    return session_id is not None and Payment.select().where(Payment.provider_ref == provider_ref,
                                                             Payment.session == session_id).exists()


def new_payment(*, purpose: str, subject: str, amount_minor: int, currency: str, session_id: int | None,
                account_id: int | None) -> Payment:
    """Records a payment about to start (call inside the caller's transaction)."""
    return Payment.create(id=secrets.token_hex(16), purpose=purpose, subject=subject, amount_minor=amount_minor,
                          currency=currency.upper(), session=session_id, account=account_id,
                          provider=get_settings().payment_provider, state=Payment.OPEN, created_at=utcnow())


def open_checkout(payment: Payment, *, description: str, customer_email: str | None = None,
                  shipping_countries: tuple[str, ...] | None = None) -> str:
    """Asks the provider for a checkout for a recorded payment (after its commit) and answers
    the URL to send the browser to; its page collects a shipping address in one of
    `shipping_countries` when they are given. When the provider cannot start one, the
    payment and what it pays for are marked failed and `payment_unavailable` is raised:
    nothing was charged."""
    chosen = provider()
    base = get_settings().base_url
    try:
        if chosen is None:
            raise ProviderRefused("payments are switched off")
        checkout = chosen.create_checkout(CheckoutRequest(
            reference=payment.id, amount_minor=payment.amount_minor, currency=payment.currency,
            description=description, customer_email=customer_email,
            success_url=f"{base}/pay/landing?payment={payment.id}", cancel_url=f"{base}/pay/back?payment={payment.id}",
            logo_url=f"{base}/pay/logo.svg", shipping_countries=shipping_countries))
    except (ProviderUnavailable, ProviderRefused) as exc:
        log.warning("payment could not start", extra={"fields": {"payment_id": payment.id, "error": type(exc).__name__}})
        _fail(payment.id, FAILED, error="could_not_start")
        raise Refused("payment_unavailable", "The payment provider could not start this payment, so nothing was "
                                             "charged. Try again in a moment.", payment_id=payment.id) from None
    with transaction():
        Payment.update(provider_ref=checkout.provider_ref, checkout_url=checkout.url).where(
            Payment.id == payment.id).execute()
    return checkout.url


def confirm(payment_id: str) -> tuple[Payment | None, list[Job]]:
    """Asks the provider about a payment and applies its answer; answers the payment as it
    now stands and the jobs its purpose created if this call marked it paid (send them).
    Raises ProviderUnavailable when the provider did not answer."""
    payment = Payment.get_or_none(Payment.id == payment_id)
    if payment is not None and payment.state == Payment.PAID and payment.refund_state == Payment.REFUND_DUE:
        refund_if_due(payment.id)
        return Payment.get_by_id(payment.id), []
    if payment is None or payment.state == Payment.PAID or payment.provider_ref is None:
        return payment, []
    answer = _ask(payment)
    return _apply(payment, answer) if answer is not None else (payment, [])


def close(payment_id: str, *, why: str) -> list[Job]:
    """Closes an open payment's checkout at the provider, so that it can no longer be paid
    (what it pays for stopped: its product is not on sale), and applies the provider's
    answer as `confirm` does: expired, recorded with `why` as the payment's error; or paid,
    when the customer paid before it closed (honoured as any payment: the money was taken).
    Answers the jobs to send. Raises ProviderUnavailable when the provider did not answer."""
    payment = Payment.get_or_none(Payment.id == payment_id)
    if payment is None or payment.state != Payment.OPEN or payment.provider_ref is None:
        return []
    answer = _ask(payment, close=True)
    if answer is None:
        return []
    log.info("checkout closed", extra={"fields": {"payment_id": payment.id, "state": answer.state, "why": why}})
    return _apply(payment, answer, error=why)[1]


def _ask(payment: Payment, *, close: bool = False) -> CheckoutState | None:
    """The payment's own provider's answer about its checkout: its state, or (`close`) its
    state once closed; None when this deployment no longer talks to that provider or the
    provider does not know the checkout. Raises ProviderUnavailable."""
    chosen = provider()
    if chosen is None or chosen.name != payment.provider:
        return None  # started with a provider this deployment no longer talks to
    try:
        return (chosen.close_checkout if close else chosen.checkout_state)(payment.provider_ref)
    except ProviderRefused:
        log.warning("provider does not know a payment", extra={"fields": {"payment_id": payment.id}})
        return None


def _apply(payment: Payment, answer: CheckoutState, *, error: str | None = None) -> tuple[Payment, list[Job]]:
    """Applies the provider's answer about a payment (`error`: why, when it failed or expired)."""
    if answer.reference is not None and answer.reference != payment.id:
        log.error("provider answered for another payment", extra={"fields": {"payment_id": payment.id}})
        return payment, []
    jobs: list[Job] = []
    if answer.state == PAID:
        if answer.amount_minor != payment.amount_minor or (answer.currency or "").upper() != payment.currency:
            # Never credit what the provider did not collect as asked; a person must look.
            log.error("paid amount differs from the payment", extra={"fields": {"payment_id": payment.id}})
            Payment.update(error="amount_mismatch", checked_at=utcnow()).where(Payment.id == payment.id).execute()
            return Payment.get_by_id(payment.id), []
        refund_state, jobs = _mark_paid(payment.id, answer)
        if refund_state == Payment.REFUND_DUE:
            refund_if_due(payment.id)
    elif answer.state in (FAILED, EXPIRED):
        _fail(payment.id, answer.state, error=error or _why_expired(payment, answer.state))
    else:
        Payment.update(checked_at=utcnow()).where(Payment.id == payment.id).execute()
    return Payment.get_by_id(payment.id), jobs


def _why_expired(payment: Payment, state: str) -> str | None:
    """CANCELLED_BY_CUSTOMER for a checkout that expired before its day was over; None otherwise."""
    if state == EXPIRED and utcnow() < payment.created_at + CHECKOUT_DAY:
        return CANCELLED_BY_CUSTOMER
    return None


def confirm_quietly(payment_id: str) -> tuple[Payment | None, bool, list[Job]]:
    """`confirm`, reporting a provider that did not answer instead of raising: (payment,
    answered, jobs to send)."""
    try:
        payment, jobs = confirm(payment_id)
        return payment, True, jobs
    except ProviderUnavailable:
        log.warning("provider did not answer", extra={"fields": {"payment_id": payment_id}})
        return Payment.get_or_none(Payment.id == payment_id), False, []


def confirm_in_job(payment_id: str) -> tuple[dict, list[Job]]:
    """The notification job's work: confirm, and try again later when the provider is down.
    Answers the job's result and the jobs to send."""
    try:
        payment, jobs = confirm(payment_id)
    except ProviderUnavailable as exc:
        raise TransientError(str(exc)) from None
    return {"state": payment.state if payment else None}, jobs


def _mark_paid(payment_id: str, answer: CheckoutState) -> tuple[str | None, list[Job]]:
    """Marks the payment paid and runs its purpose, once; answers, when this call did it,
    the payment's refund state (due: the purpose could not be fulfilled) and the jobs the
    purpose created in the same transaction."""
    now = utcnow()
    with transaction():
        # The only way a payment becomes paid. On PostgreSQL a concurrent confirmation
        # blocks on this row until the first commits, then re-reads `state` and updates
        # nothing, so `paid` below runs once (and creates its jobs once).
        changed = (Payment.update(state=Payment.PAID, payment_ref=answer.payment_ref, paid_at=now, checked_at=now,
                                  error=None)
                   .where(Payment.id == payment_id, Payment.state != Payment.PAID).execute())
        if not changed:
            return None, []
        payment = Payment.get_by_id(payment_id)
        jobs = [job for job in PURPOSES[payment.purpose].paid(payment, answer) or () if job is not None]
    log.info("payment confirmed", extra={"fields": {"payment_id": payment_id, "purpose": payment.purpose}})
    return Payment.get_by_id(payment_id).refund_state, jobs


RECHECK_AFTER = timedelta(minutes=10)  # a customer is usually back (or notified) by then
RECHECK_FOR = timedelta(days=2)  # past this, an open checkout has long expired at the provider


def recheck_open_payments(*, limit: int = 200) -> tuple[int, list[Job]]:
    """Asks the provider about payments still open after RECHECK_AFTER (a notification that
    never arrived, a tab closed before the landing); the clock runs it every 10 minutes,
    with `recheck_refunds`. Answers how many payments changed state, and the jobs to send."""
    now = utcnow()
    stale = (Payment.select(Payment.id).where(
        Payment.state == Payment.OPEN, Payment.provider_ref.is_null(False),
        Payment.created_at <= now - RECHECK_AFTER, Payment.created_at > now - RECHECK_FOR,
        Payment.checked_at.is_null() | (Payment.checked_at <= now - RECHECK_AFTER))
        .order_by(Payment.created_at).limit(limit))
    changed, jobs = 0, []
    for row in list(stale):
        payment, _answered, created = confirm_quietly(row.id)
        changed += payment is not None and payment.state != Payment.OPEN
        jobs.extend(created)
    # Open with no provider checkout: the database went away between the payment's commit and the
    # provider's answer, so its customer was told it could not start and got nothing to pay. Failed
    # as a provider refusing it would have failed it (with what it pays for), not left open for ever.
    never_opened = Payment.select(Payment.id).where(Payment.state == Payment.OPEN, Payment.provider_ref.is_null(),
                                                    Payment.created_at <= now - RECHECK_AFTER).limit(limit)
    changed += sum(_fail(row.id, FAILED, error="could_not_start") for row in list(never_opened))
    return changed, jobs


# --- Refunds ------------------------------------------------------------------------------
#
# A refund owed moves through Payment.refund_state by conditional UPDATEs, each checked by
# its row count, so one caller at a time asks the provider and money goes back once:
#
#   due -> refunding               one caller takes it (refund_if_due)
#   refunding -> refunded | pending   what the provider answered
#   pending -> refunded            asked again by the clock (`refund_state`)
#   refunding | pending -> due     refused, failed or canceled: the next attempt, after REFUND_BACKOFF
#                      -> failed   ...or, past MAX_REFUND_ATTEMPTS, for good (a person looks)
#   refunding -> due               the provider did not answer: nothing is known, same attempt
#   refunding, unchanged for REFUND_STALE -> asked again under the same key (its caller died)
#
# The idempotency key names the payment and the attempt: asking again within an attempt
# (a lost answer, a caller that died after asking) answers the refund already made; only a
# provider's "no" moves to a new attempt, and so to a new key.

# The pause after each "no" before the next attempt; after the last attempt, the refund fails.
REFUND_BACKOFF = (timedelta(minutes=10), timedelta(hours=1), timedelta(hours=6))
MAX_REFUND_ATTEMPTS = len(REFUND_BACKOFF) + 1
# A caller still alive is back from the provider within one PAYMENT_TIMEOUT_SECONDS; a
# `refunding` row unchanged for this long lost its caller. Pending ones are asked as often.
REFUND_STALE = timedelta(minutes=5)


def refund_key(payment: Payment) -> str:
    return f"refund:{payment.id}:{payment.refund_attempt}"


def owe_refund(payment: Payment) -> None:
    """Marks a payment whose purpose could not be fulfilled (inside the paid transaction):
    the money goes back once the transaction commits (`refund_if_due`)."""
    now = utcnow()
    Payment.update(refund_state=Payment.REFUND_DUE, refund_attempt=1, refund_requested_at=now, refund_updated_at=now,
                   refund_retry_at=None).where(Payment.id == payment.id, Payment.refund_state.is_null()).execute()
    log.warning("payment paid but not fulfilled; refund due", extra={"fields": {"payment_id": payment.id}})


def refund_if_due(payment_id: str) -> None:
    """Asks the provider to refund a paid payment whose refund is due (and whose pause after
    a refusal is over), once: the conditional UPDATE to `refunding` lets one caller ask."""
    now = utcnow()
    taken = (Payment.update(refund_state=Payment.REFUNDING, refund_updated_at=now)
             .where(Payment.id == payment_id, Payment.refund_state == Payment.REFUND_DUE,
                    Payment.state == Payment.PAID,
                    Payment.refund_retry_at.is_null() | (Payment.refund_retry_at <= now)).execute())
    if taken:
        _ask_for_refund(payment_id, taken_at=now)


def _ask_for_refund(payment_id: str, *, taken_at) -> None:
    """Asks the provider for the refund of the attempt under way and records its answer."""
    payment = Payment.get_by_id(payment_id)
    # Only the caller that took the row at `taken_at` records: one that stalled past
    # REFUND_STALE, while the clock asked again, finds its take gone and writes nothing.
    mine = (Payment.id == payment_id, Payment.refund_state == Payment.REFUNDING,
            Payment.refund_updated_at == taken_at, Payment.refund_attempt == payment.refund_attempt)
    chosen = provider()
    try:
        if chosen is None or chosen.name != payment.provider or not payment.payment_ref:
            raise ProviderRefused(f"no {payment.provider} provider is configured here to refund this payment")
        answer = chosen.refund(payment_ref=payment.payment_ref, amount_minor=payment.amount_minor,
                               key=refund_key(payment))
    except ProviderUnavailable as exc:
        # Nothing is known (the refund may have been made): due again under the same
        # attempt, so the next try, under the same key, answers that refund if it exists.
        log.warning("refund not answered", extra={"fields": {"payment_id": payment_id, "error": type(exc).__name__}})
        Payment.update(refund_state=Payment.REFUND_DUE, refund_updated_at=utcnow(), refund_retry_at=None).where(
            *mine).execute()
        return
    except ProviderRefused as exc:
        _record_refusal(payment, "refused", str(exc), ref=None, where=mine)
        return
    _record_answer(payment, answer, where=mine)


def _record_answer(payment: Payment, answer: RefundAnswer, *, where) -> None:
    """Records what the provider said of the refund: refunded, pending, or a refusal."""
    if answer.amount_minor is not None and answer.amount_minor != payment.amount_minor:
        log.error("refund amount differs from the payment", extra={"fields": {"payment_id": payment.id}})
    if answer.state == REFUND_SUCCEEDED:
        state = Payment.REFUNDED
    elif answer.state == REFUND_PENDING:
        state = Payment.REFUND_PENDING
    else:
        _record_refusal(payment, answer.state, answer.failure_reason, ref=answer.ref, where=where)
        return
    recorded = (Payment.update(refund_state=state, refund_ref=answer.ref, refund_updated_at=utcnow())
                .where(*where).execute())
    if recorded:
        log.info("refund answered", extra={"fields": {"payment_id": payment.id, "refund_state": state,
                                                      "refund_ref": answer.ref}})


def _record_refusal(payment: Payment, what: str, reason: str | None, *, ref: str | None, where) -> None:
    """The provider said no (refused, or the refund failed or was canceled): nothing went
    back. The next attempt follows after REFUND_BACKOFF; past the last, the refund fails."""
    now = utcnow()
    changes = {"refund_error": (f"{what}: {reason}" if reason else what)[:255], "refund_updated_at": now}
    if ref:
        changes["refund_ref"] = ref
    attempt = payment.refund_attempt
    if attempt >= MAX_REFUND_ATTEMPTS:
        changes["refund_state"] = Payment.REFUND_FAILED
    else:
        changes.update(refund_state=Payment.REFUND_DUE, refund_attempt=attempt + 1,
                       refund_retry_at=now + REFUND_BACKOFF[attempt - 1])
    if not Payment.update(**changes).where(*where).execute():
        return
    fields = {"payment_id": payment.id, "attempt": attempt, "refund_error": changes["refund_error"]}
    if changes["refund_state"] == Payment.REFUND_FAILED:
        log.error("refund failed for good; a person must return the money", extra={"fields": fields})
    else:
        log.warning("refund not made; another attempt follows", extra={"fields": fields})


def _check_pending(payment_id: str) -> None:
    """Asks the provider how a pending refund stands now, and records it."""
    payment = Payment.get_by_id(payment_id)
    chosen = provider()
    if chosen is None or chosen.name != payment.provider or not payment.refund_ref:
        return
    mine = (Payment.id == payment_id, Payment.refund_state == Payment.REFUND_PENDING,
            Payment.refund_attempt == payment.refund_attempt)
    try:
        answer = chosen.refund_state(payment.refund_ref)
    except ProviderUnavailable:
        return
    except ProviderRefused:
        # The provider does not know the refund it named: asking for another could return
        # the money twice, so it stays pending and a person looks.
        log.error("provider does not know a pending refund", extra={"fields": {"payment_id": payment_id}})
        Payment.update(refund_updated_at=utcnow()).where(*mine).execute()
        return
    if answer.state == REFUND_PENDING:
        Payment.update(refund_updated_at=utcnow()).where(*mine).execute()
        return
    _record_answer(payment, answer, where=mine)


def recheck_refunds(*, limit: int = 200) -> int:
    """The clock's work on refunds (every 10 minutes): makes the refunds due whose pause is
    over, asks again for those left `refunding` by a caller that died (same key: the
    provider answers the refund already made) and asks how pending ones stand. Answers how
    many refunds changed state."""
    now = utcnow()
    stale = now - REFUND_STALE
    due = (Payment.refund_state == Payment.REFUND_DUE) & (
        Payment.refund_retry_at.is_null() | (Payment.refund_retry_at <= now))
    left = Payment.refund_state.in_((Payment.REFUNDING, Payment.REFUND_PENDING)) & (Payment.refund_updated_at <= stale)
    rows = list(Payment.select(Payment.id, Payment.refund_state).where(Payment.state == Payment.PAID, due | left)
                .order_by(Payment.refund_updated_at).limit(limit))
    changed = 0
    for row in rows:
        if row.refund_state == Payment.REFUND_DUE:
            refund_if_due(row.id)
        elif row.refund_state == Payment.REFUND_PENDING:
            _check_pending(row.id)
        elif (Payment.update(refund_updated_at=now)
              .where(Payment.id == row.id, Payment.refund_state == Payment.REFUNDING,
                     Payment.refund_updated_at <= stale).execute()):
            # Taken over from a caller that died (or stalled) after asking, or before.
            log.warning("refund left half-way; asking again", extra={"fields": {"payment_id": row.id}})
            _ask_for_refund(row.id, taken_at=now)
        changed += Payment.get_by_id(row.id).refund_state != row.refund_state
    return changed


def _fail(payment_id: str, state: str, *, error: str | None = None) -> bool:
    with transaction():
        changed = (Payment.update(state=state, error=error, checked_at=utcnow())
                   .where(Payment.id == payment_id, Payment.state == Payment.OPEN).execute())
        if changed:
            payment = Payment.get_by_id(payment_id)
            PURPOSES[payment.purpose].failed(payment)
    return bool(changed)


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


def landing_target(payment_id: str, *, cancelled: bool) -> tuple[str, list[Job]]:
    """Where the browser goes back to from the provider's page, after asking the provider
    (a redirect proves nothing; the answer does); and the jobs to send."""
    payment, _answered, jobs = confirm_quietly(payment_id)
    if payment is None:
        return "/#/app/home", jobs
    return PURPOSES[payment.purpose].landing(payment, "cancelled" if cancelled else "returned"), jobs
