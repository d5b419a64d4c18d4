"""Customer orders and revenue (spec 4.7; decisions.md, "Commerce and payments"):
POST /api/store/checkout, GET /api/store/confirm, GET /api/tracking, GET /api/revenue."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services.commerce import orders

bp = Blueprint("commerce", __name__, description="Customer orders and revenue.")

DECISIONS: list[str] = [
    "POST /api/store/checkout {product_id, quantity (1-99, default 1), email} (the customer's session) opens an "
    "order against the store's published version at that version's price and starts its payment: 200 {status: "
    "checkout_started, order_id, checkout_url}. The order row and its payment exist before the answer; send the "
    "customer to checkout_url. A store that is not published is 409 `store_not_published`; an unknown product 400 "
    "`unknown_product`; a bad quantity 400 `invalid_quantity`; a bad address 400 `invalid_email`; payments off, a "
    "store built before payments were on, or a provider that cannot start 200 `payment_unavailable` (nothing is "
    "charged; when the order row was written it is marked failed and the answer carries order_id).",
    "The store's buy box posts the same fields as a form to POST /store/{slug}/checkout, which answers 303 to the "
    "provider's page, or a short HTML page with the refusal's sentence.",
    "GET /api/store/confirm?order_id= (public: the customer may have no cookie) asks the provider and answers 200 "
    "{status: ok, order_id, state: open | paid | failed | expired, product_id, quantity, amount_minor, currency, "
    "paid_at, provider_answered}; provider_answered false (with an explanation) when the provider did not answer "
    "in time: nothing changed. An unknown id is 400 `order_not_found`. The customer's email is not in this answer.",
    "After paying, the provider's landing redirect sends the customer to /store/{slug}/thanks?order={id}: the page "
    "asks the provider too and says paid, not yet confirmed, declined or expired; on a paid order its script sends "
    "the `paid` funnel event (browser-reported, unverified; revenue comes from the payment ledger only).",
    "GET /api/tracking (session) lists the orders of the founder's stores (the products they claimed), newest "
    "first: 200 {status: ok, orders: [{order_id, product_id, state, email, quantity, unit_price_minor, "
    "amount_minor, currency, store_version, created_at, paid_at}]} (limit 1-200, default 50), or 200 {status: "
    "no_orders_yet, reason, explanation, orders: []}. ?order_id= answers that one order, or 400 `order_not_found` "
    "when it is not an order of the founder's stores.",
    "GET /api/revenue (session) answers {status: ok, stores: [{product_id, currency, confirmed_minor, orders}]}: "
    "confirmed (provider-paid) revenue per store and currency, in minor units, from running totals kept in the "
    "transaction that credits each payment (one query, whatever the number of orders).",
]


class CheckoutBody(Schema):
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120),
                               metadata={"reason": "unknown_product"})
    quantity = fields.Integer(load_default=1, metadata={"reason": "invalid_quantity"})
    email = fields.String(required=True, validate=validate.Length(max=320), metadata={"reason": "invalid_email"})


class CheckoutAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["checkout_started"]})
    order_id = fields.String(required=True)
    checkout_url = fields.String(required=True)


class ConfirmQuery(Schema):
    order_id = fields.String(required=True, validate=validate.Length(min=1, max=64),
                             metadata={"reason": "order_not_found"})


class ConfirmAnswer(Schema):
    status = fields.String(required=True)
    order_id = fields.String(required=True)
    state = fields.String(required=True, metadata={"enum": ["open", "paid", "failed", "expired"]})
    product_id = fields.String(required=True)
    quantity = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    paid_at = fields.String(allow_none=True)
    provider_answered = fields.Boolean(required=True)
    explanation = fields.String()


class TrackingQuery(Schema):
    order_id = fields.String(validate=validate.Length(min=1, max=64), metadata={"reason": "order_not_found"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class ShippingAddress(Schema):
    name = fields.String(required=True)
    line1 = fields.String(required=True)
    line2 = fields.String(allow_none=True)
    city = fields.String(required=True)
    region = fields.String(allow_none=True)
    postal_code = fields.String(required=True)
    country = fields.String(required=True, metadata={"description": "ISO 3166-1 alpha-2"})


class OrderRow(Schema):
    order_id = fields.String(required=True)
    product_id = fields.String(required=True)
    state = fields.String(required=True)
    email = fields.String(required=True)
    quantity = fields.Integer(required=True)
    unit_price_minor = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    store_version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    paid_at = fields.String(allow_none=True)
    shipping = fields.Nested(ShippingAddress, allow_none=True, required=True)
    shipping_lines = fields.List(fields.String(), required=True,
                                 metadata={"description": "The address as the lines of a label (empty: none)"})
    receipt = fields.String(required=True, metadata={"enum": ["not_paid", "sending", "sent", "refused"]})
    receipt_sent_at = fields.String(allow_none=True)


class TrackingAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "no_orders_yet"]})
    reason = fields.String()
    explanation = fields.String()
    orders = fields.List(fields.Nested(OrderRow), required=True)


class RevenueRow(Schema):
    product_id = fields.String(required=True)
    currency = fields.String(required=True)
    confirmed_minor = fields.Integer(required=True)
    orders = fields.Integer(required=True)


class RevenueAnswer(Schema):
    status = fields.String(required=True)
    stores = fields.List(fields.Nested(RevenueRow), required=True)


@bp.post("/api/store/checkout")
@bp.declare(changes_state=True,
            refuses={400: ["invalid_quantity", "invalid_email", "unknown_product"], 409: ["store_not_published"],
                     200: ["payment_unavailable"]})
@bp.arguments(CheckoutBody)
@bp.response(200, CheckoutAnswer)
def store_checkout_api(body):
    """Opens a customer order against a published store and starts its payment."""
    return orders.open_order(session=current_session(), product_id=body["product_id"], quantity=body["quantity"],
                             email=body["email"])


@bp.get("/api/store/confirm")
@bp.declare(changes_state=False, session=False, refuses={400: ["order_not_found"]})
@bp.arguments(ConfirmQuery, location="query")
@bp.response(200, ConfirmAnswer)
def store_confirm(query):
    """Asks the payment provider about an order; marks it paid and credits revenue once."""
    answer, follow_ups = orders.confirm_order(order_id=query["order_id"])
    send_all(follow_ups)  # the order's mail job, when this call made it paid
    return answer


@bp.get("/api/tracking")
@bp.declare(changes_state=False, refuses={400: ["order_not_found"]})
@bp.arguments(TrackingQuery, location="query")
@bp.response(200, TrackingAnswer)
def tracking(query):
    """The orders of the founder's own stores, newest first."""
    return orders.tracking(session=current_session(), order_id=query.get("order_id"), limit=query["limit"])


@bp.get("/api/revenue")
@bp.declare(changes_state=False)
@bp.response(200, RevenueAnswer)
def revenue():
    """Confirmed revenue per store and currency."""
    return orders.revenue(session=current_session())
