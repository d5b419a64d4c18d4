"""The payment provider's callback paths (spec 4.7, internal paths; 5.17): the landing and
back routes the provider sends the browser to, the instant-notification route the
provider calls, the upgrade-start route, and the logo the provider's page shows.

None of them trusts the browser: landing and back only redirect, after asking the provider
what happened (a redirect alone never credits anything). The notification route is called
server to server, so it is exempt from the cross-site guard and checked by signature
before its body is read.
"""
from pathlib import Path

from flask import current_app, redirect, request, send_from_directory
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services.commerce.payments import landing_target, receive_notification
from services.commerce.upgrade import CURRENCY, PRICES_MINOR, start_upgrade

bp = Blueprint("pay", __name__, description="Payment provider callbacks and the upgrade start.")

DECISIONS: list[str] = [
    "Payments go through PAYMENT_PROVIDER: `sandbox` (default; a provider served by this service under "
    "/pay/sandbox/, with a hosted checkout page where the customer pays, declines or abandons, a state API at GET "
    "/pay/sandbox/v1/checkouts/{id}, and signed notifications), `stripe` (Checkout Sessions) or `off` (no payment "
    "can start: checkouts answer `payment_unavailable`, the upgrade start 500 `billing_unconfigured`, store buy "
    "boxes are shown closed).",
    "Every payment is a row committed before the provider is asked for a checkout; the provider is given "
    "success URL /pay/landing?payment={id} and cancel URL /pay/back?payment={id}. Both answer 303: they ask the "
    "provider for the checkout's state first (a redirect alone never credits anything), then send the browser to "
    "the store's thank-you page (orders) or the app screen the payment started from.",
    "POST /pay/notify is the provider's instant notification (server to server; no cookie, no cross-site check). "
    "Its signature is checked before the body is read: no signature header 400 `unsigned_callback`; a malformed, "
    "stale (over 300 s) or wrong one 403 `bad_signature`; payments off 500 `billing_unconfigured`. A verified "
    "notification answers 200 {status: accepted, event_id} and queues a `payment_confirm` job that asks the "
    "provider and credits once; a checkout the service never opened answers 200 {status: ignored, reason: "
    "unknown_payment}. Sandbox notifications carry `Sandbox-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "
    "'<t>.' + body>` (key derived from SECRET_KEY); Stripe's carry `Stripe-Signature`.",
    "A payment turns paid once: one conditional UPDATE (state <> paid) in the transaction that does what it was "
    "for (credit the order's store, connect a domain, mark a sample ordered, set a plan). Confirmations and "
    "notifications replayed any number of times, concurrently or not, credit once. A provider that is slow or "
    "failing changes nothing; the next confirmation (landing, GET /api/store/confirm, the job's retries at 5, 30 "
    "and 120 s, and the clock's re-check every 10 minutes of payments open for over 10 minutes and under 2 days) "
    "tries again. A paid amount or currency that differs from the payment's is never credited. A payment still "
    "open after 10 minutes with no provider checkout recorded (the database or the process went away between its "
    "commit and the provider's answer being written; its customer was told it could not start and was given no "
    "checkout) is failed by that re-check, with what it pays for (an order turns `failed`), as a provider "
    "refusing it would have failed it: nothing was charged, and nothing stays open for ever.",
    "PAYMENT_PROVIDER=stripe: each payment is a Stripe Checkout Session (one line item: the description at the "
    "amount in the payment's currency; client_reference_id and metadata.reference carry the payment id). The "
    "webhook at /pay/notify acts on checkout.session.completed, checkout.session.async_payment_succeeded, "
    "checkout.session.async_payment_failed and checkout.session.expired (others are acknowledged and ignored), "
    "after checking Stripe-Signature (300 s tolerance); the state always comes from retrieving the session: "
    "payment_status paid or no_payment_required is paid, an expired session expired, a complete session whose "
    "delayed payment failed failed, anything else open. Stripe unreachable, rate limiting or failing (409, 429, "
    "5xx) counts as unavailable (try later); another 4xx is final. Calls time out after PAYMENT_TIMEOUT_SECONDS and "
    "are not retried inside a request. Refunds carry the Idempotency-Key refund:{payment id}:{attempt}, so a "
    "refund asked again within an attempt (within Stripe's 24 hours) replays the first; past that, Stripe refuses "
    "to refund more than the charge has left. Refund statuses map as succeeded -> succeeded, pending and "
    "requires_action -> pending, failed -> failed (with Stripe's failure_reason), canceled -> canceled; a pending "
    "refund is read back with GET /v1/refunds/{id}.",
    "Refunds (a purpose paid but not fulfilled: a domain another store connected first) are recorded as the "
    "provider settled them, on the payment's own refund columns (refund_state, refund_attempt, refund_ref, "
    "refund_error, refund_requested_at, refund_updated_at, refund_retry_at), never in `error`. refund_state: "
    "null (none owed), due, refunding (one caller, chosen by a conditional UPDATE, is asking the provider), "
    "pending (the provider accepted it; nothing is back yet), refunded (the provider says it succeeded), failed "
    "(given up: a person returns the money). The refund is asked right after the payment's confirmation commits, "
    "under the idempotency key refund:{payment id}:{attempt}. A provider that does not answer leaves it due under "
    "the same attempt (the next confirmation or the clock asks again; the same key answers the refund if it was "
    "made). A refusal, a failed or a canceled refund records the provider's reason in refund_error and makes the "
    "next attempt (a new key) due after 10 minutes, 1 hour, then 6 hours; the fourth `no` ends it failed. Every "
    "10 minutes the clock makes due refunds whose pause is over, asks again (same key) for a refund left "
    "`refunding` for over 5 minutes (its caller died after or before asking: it ends refunded once), and asks the "
    "provider how refunds pending for over 5 minutes stand. Every change is a conditional UPDATE checked by its "
    "row count; a caller that stalled past 5 minutes finds its take gone and records nothing.",
    "POST /pay/upgrade {tier: pro | max5 | max20} (signed-in account) starts a month of that plan: 200 {status: "
    "checkout_started, payment_id, checkout_url, tier, amount_minor, currency}; prices per month: "
    + ", ".join(f"{tier} {minor / 100:.2f} {CURRENCY}" for tier, minor in PRICES_MINOR.items())
    + ". Once paid, the plan is set through the billing webhook's path (apply_plan_change, event id "
    "`payment:<id>`, term 30 days). Another tier 400 `unknown_tier`; no account 401 `no_account`; payments off "
    "500 `billing_unconfigured`; a provider that cannot start 200 `payment_unavailable`.",
]


class PaymentQuery(Schema):
    payment = fields.String(required=True, validate=validate.Length(min=1, max=64))


class UpgradeBody(Schema):
    tier = fields.String(required=True, validate=validate.Length(min=1, max=20),
                         metadata={"reason": "unknown_tier", "enum": list(PRICES_MINOR)})


class CheckoutStartedAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["checkout_started"]})
    payment_id = fields.String(required=True)
    checkout_url = fields.String(required=True)
    tier = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)


class NotificationAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["accepted", "ignored"]})
    event_id = fields.String(required=True)
    reason = fields.String()
    explanation = fields.String()


_REDIRECT = {"Location": {"schema": {"type": "string"}}}


# Landing and back are reached by a redirect from the provider's site (a cross-site
# navigation), so they are declared as not changing state: what they do is ask the
# provider, which any number of repeats may do without harm.
@bp.get("/pay/landing")
@bp.declare(changes_state=False, session=False)
@bp.arguments(PaymentQuery, location="query")
@bp.response(303, headers=_REDIRECT)
def pay_landing(query):
    """Where the provider sends the browser after paying: asks the provider, then redirects."""
    target, follow_ups = landing_target(query["payment"], cancelled=False)
    send_all(follow_ups)
    return redirect(target, 303)


@bp.get("/pay/back")
@bp.declare(changes_state=False, session=False)
@bp.arguments(PaymentQuery, location="query")
@bp.response(303, headers=_REDIRECT)
def pay_back(query):
    """Where the provider sends the browser when the customer gives up: asks, then redirects."""
    target, follow_ups = landing_target(query["payment"], cancelled=True)
    send_all(follow_ups)
    return redirect(target, 303)


@bp.post("/pay/notify")
@bp.declare(changes_state=True, callback=True, session=False, no_body=True,
            refuses={400: ["unsigned_callback"], 403: ["bad_signature"], 500: ["billing_unconfigured"]},
            headers={"Sandbox-Signature": "sandbox: t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.' + raw body>",
                     "Stripe-Signature": "stripe: Stripe's scheme"})
@bp.response(200, NotificationAnswer)
def pay_notify():
    """The provider's instant notification: verified, then confirmed by a job that asks the provider."""
    answer, job = receive_notification(payload=request.get_data(cache=True), headers=request.headers)
    send_all([job] if job is not None else [])
    return answer


@bp.post("/pay/upgrade")
@bp.declare(changes_state=True, requires_account=True,
            refuses={400: ["unknown_tier"], 401: ["no_account"], 500: ["billing_unconfigured"],
                     200: ["payment_unavailable"]})
@bp.arguments(UpgradeBody)
@bp.response(200, CheckoutStartedAnswer)
def pay_upgrade(body):
    """Starts paying for a month of a paid plan through the provider."""
    return start_upgrade(session=current_session(), tier=body["tier"])


@bp.get("/pay/logo.svg")
@bp.declare(changes_state=False, session=False)
@bp.response(200, {"type": "string", "format": "binary", "description": "SVG"}, content_type="image/svg+xml")
def pay_logo():
    """The service's logo, shown on the provider's checkout page."""
    response = send_from_directory(Path(current_app.static_folder) / "pay", "logo.svg", mimetype="image/svg+xml", max_age=86400)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
