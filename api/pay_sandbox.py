"""The sandbox payment provider's own face (PAYMENT_PROVIDER=sandbox): the hosted checkout
page a customer pays on, and its state API. It stands in for a remote provider's site,
so it reads only the sandbox's records (services/commerce/sandbox_pages.py) and never the
service's payments or orders."""
from flask import Response, redirect, render_template
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import sent_session
from jobs.send import send_all
from services.commerce import payments, sandbox_pages
from services.commerce.shipping import FIELDS
from services.errors import Refused
from services.money import display

bp = Blueprint("pay_sandbox", __name__, description="The sandbox payment provider (hosted checkout and state API).")

DECISIONS: list[str] = [
    "The sandbox provider's hosted page GET /pay/sandbox/checkout/{id} shows the amount, what is bought and three "
    "buttons: pay, decline (the card is declined: the checkout fails for good) and abandon (\"Cancel and go back\": the "
    "checkout expires, and from then on its page says the customer cancelled it). Its form posts {action: pay | decline | abandon} to the same path and answers 303 to the "
    "success URL (pay) or the cancel URL (decline, abandon); only an open checkout settles, once. An open checkout "
    "expires after 24 hours: from then on the page and the state API say expired and it can no longer be paid or "
    "declined, and the clock's `expire_sandbox_checkouts` pass (every minute) records the expiry and owes its "
    "`checkout.expired` notification, delivered once like any other; reading a checkout writes nothing. "
    "GET /pay/sandbox/v1/checkouts/{id} answers {id, object: checkout, state: open | paid "
    "| failed | expired, amount_minor, currency, reference, payment_ref, refunded_minor, created_at, expires_at, "
    "shipping}; "
    "an unknown id (or another provider configured) is 404 `not_found`. refunded_minor counts the refunds "
    "pending or succeeded (a refund that fails or is canceled frees its amount again).",
    "A checkout opened for a customer order collects a shipping address on the hosted page (samples, domains and "
    "plans collect none): full name, address line 1, line 2 (optional), city, state/province/region (optional), "
    "postal code and a country chosen from SHIPPING_COUNTRIES (the same list Stripe's page is given). The form posts "
    "them with {action: pay} as name, line1, line2, city, region, postal_code, country. Runs of whitespace become "
    "one space; name and lines hold at most 200 characters, city and region 100, postal code 20; control "
    "characters and the marks that reorder text are refused. A payment whose address is missing or unusable is not "
    "taken: 400 with the page again, as the customer filled it, the faulty fields marked aria-invalid and the "
    "refusal (data-reason `invalid_shipping_address`) naming every fault; the checkout stays open. Declining or "
    "cancelling needs no address. The provider keeps the address with the checkout and answers it in its state "
    "(the seam's CheckoutState.shipping), which the service stores on the order when it confirms the payment. The "
    "state API's `shipping` holds it only for the session that started the checkout (the ff_session cookie of the "
    "customer who opened the order; the route reads the cookie and never issues one); to anyone else holding the id, "
    "and for an order opened from a store's buy box (no session), it is null, and the hosted page of a paid checkout "
    "names no address either. A checkout id is a bearer value "
    "passed in links and browser history, and it is never written to the log (the path shows `<cut>`).",
    "The sandbox provider keeps its records in the service's database: when that database cannot answer, its "
    "hosted page, its form and its state API answer 503 `database_unavailable` (JSON, as every route of the "
    "service does then) and settle nothing; the service's side of a payment treats that as a provider that did "
    "not answer and asks again later.",
    "Sandbox refunds: one per idempotency key (the same key answers the same refund, and a key reused for another "
    "amount or payment is refused), never more than was paid. They succeed at once; the sandbox bank can also "
    "hold one pending and settle it later as succeeded, failed or canceled, as a card network would (the tests "
    "play those answers; no page or route exposes them).",
]

PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'none'")


class ActionForm(Schema):
    action = fields.String(required=True, validate=validate.OneOf(["pay", "decline", "abandon"]))
    # The shipping address, when the checkout collects one; checked by the page's service
    # (services/commerce/shipping.py), which answers the page again with what is wrong.
    name = fields.String()
    line1 = fields.String()
    line2 = fields.String()
    city = fields.String()
    region = fields.String()
    postal_code = fields.String()
    country = fields.String()


class CheckoutStateAnswer(Schema):
    id = fields.String(required=True)
    object = fields.String(required=True)
    state = fields.String(required=True, metadata={"enum": ["open", "paid", "failed", "expired"]})
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    reference = fields.String(required=True)
    payment_ref = fields.String(allow_none=True)
    refunded_minor = fields.Integer(required=True)
    created_at = fields.String(required=True)
    expires_at = fields.String(required=True)
    shipping = fields.Dict(allow_none=True, required=True,
                           metadata={"description": "{name, line1, line2, city, region, postal_code, country} the "
                                                    "customer gave when paying; null when none was collected"})


_HTML = {"type": "string", "description": "The hosted checkout page"}
_REDIRECT = {"Location": {"schema": {"type": "string"}}}


def _page(checkout: dict, *, status: int = 200, form: dict | None = None, refusal: Refused | None = None) -> Response:
    html = render_template("pay/checkout.html", checkout=checkout, fields=FIELDS, form=form or {},
                           refusal=refusal, faulty=set(refusal.fields.get("fields", ())) if refusal else set(),
                           amount=display(checkout["amount_minor"], checkout["currency"]))
    response = Response(html, status=status, mimetype="text/html")
    response.headers["Content-Security-Policy"] = PAGE_CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/pay/sandbox/checkout/<checkout_id>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def sandbox_checkout_page(checkout_id):
    """The sandbox provider's hosted checkout page."""
    checkout = sandbox_pages.checkout_page(checkout_id)
    if not _started_here(checkout_id):
        checkout["shipping_lines"] = []  # a paid checkout's address: as in the state API, below
    return _page(checkout)


@bp.post("/pay/sandbox/checkout/<checkout_id>")
@bp.declare(changes_state=True, session=False, form=True,
            refuses={404: ["not_found"], 400: ["invalid_shipping_address"]})
@bp.arguments(ActionForm, location="form")
@bp.response(303, headers=_REDIRECT)
def sandbox_checkout_action(form, checkout_id):
    """The customer's choice: pay (with the shipping address, when the checkout collects one), decline or abandon."""
    try:
        target, job = sandbox_pages.settle(checkout_id, form["action"], form)
    except Refused as refusal:
        if refusal.reason == "database_unavailable":
            raise  # 503, as every route answers while the database is away
        # The page again, as the customer filled it, with the refusal's sentence: nothing was
        # charged (an unknown checkout has no page: checkout_page refuses it, 404).
        return _page(sandbox_pages.checkout_page(checkout_id), status=400, form=form, refusal=refusal)
    send_all([job])
    return redirect(target, 303)


@bp.get("/pay/sandbox/v1/checkouts/<checkout_id>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, CheckoutStateAnswer)
def sandbox_checkout_state(checkout_id):
    """The sandbox provider's state API: a checkout as the provider sees it; the customer's
    address only to the session that started the checkout."""
    state = sandbox_pages.state_api(checkout_id)
    if not _started_here(checkout_id):
        state["shipping"] = None
    return state


def _started_here(checkout_id: str) -> bool:
    """Whether the request's session started the checkout. The id is a bearer value that
    passes through links, a browser's history and its referrers: holding it must not be
    enough to read where a customer lives. (The service's own side reads the address through
    the payment seam, never through these routes.)"""
    session = sent_session()
    return payments.started_by(checkout_id, session.id if session is not None else None)
