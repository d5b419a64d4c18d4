"""Customer orders and revenue (spec 4.7; decisions.md, "Commerce and payments"):
POST /api/store/checkout, GET /api/store/confirm, GET /api/tracking, GET /api/revenue."""
from marshmallow import Schema, fields, validate

from api import bounds
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
    "When a store sells (issue 47): a published store sells until its founder pauses or retires the product (a "
    "product in draft, ready or live sells once its store is published; the README's test purchase relies on it). "
    "A paused or retired product stops selling: starting a checkout for it, by POST /api/store/checkout or the buy "
    "box's form, is refused 409 `product_not_on_sale` (no order is opened, nothing is charged), and its published "
    "store's buy box shows, instead of the form, \"This product is not on sale right now, so it cannot be "
    "ordered.\" Whether the product is on sale is part of the store's published pointer "
    "(services/store/published.py), which the transition moves after its commit, so every process renders the "
    "pages again and their ETags change. The transition also sends a `close_checkouts` job: each order of the "
    "product still open has its checkout closed at the provider (the sandbox's page then says the shop closed it; "
    "a Stripe session is expired), and the order becomes `expired`, its payment's error \"closed: not on sale\". "
    "A customer who paid before the close is paid as any other (the provider took the money; the founder fulfils "
    "or refunds). Resuming reopens sales for new checkouts; closed ones stay closed.",
    "GET /api/store/confirm?order_id= (public: the customer may have no cookie) asks the provider and answers 200 "
    "{status: ok, order_id, state: open | paid | failed | expired, product_id, quantity, amount_minor, currency, "
    "paid_at, provider_answered}; provider_answered false (with an explanation) when the provider did not answer "
    "in time: nothing changed. An unknown id is 400 `order_not_found`. The customer's email is not in this answer.",
    "After paying, the provider's landing redirect sends the customer to /store/{slug}/thanks?order={id}: the page "
    "asks the provider too and says paid, not yet confirmed, declined, cancelled (the customer cancelled on the "
    "payment page), closed (the product stopped selling) or expired (not paid within its day), with the order's "
    "8-character number, in the store's own look (its "
    "palette, header and navigation, footer, and the product's photo); on a paid order its script sends "
    "the `paid` funnel event (browser-reported, unverified; revenue comes from the payment ledger only).",
    "GET /api/tracking (session) lists the paid orders of the founder's stores (the products they claimed), newest "
    "first: 200 {status: ok, orders: [{order_id, order_number, product_id, product_name, state, expired_because, email, quantity, unit_price_minor, "
    "amount_minor, profit_minor, currency, store_version, created_at, paid_at, shipping, shipping_lines, receipt, "
    "receipt_sent_at}], checkouts: [the same rows], profit_basis} (limit 1-200, default 50), or 200 {status: "
    "no_orders_yet, reason, explanation, orders: [], checkouts, profit_basis}. "
    "shipping is {name, line1, line2, city, region, postal_code, country (ISO 3166-1 alpha-2)} or null (no address "
    "collected: not paid yet, or paid before addresses were collected); shipping_lines is the same address as the "
    "lines of a label. receipt says what became of the customer's receipt: not_paid, sending (paid; its mail job "
    "has not mailed it yet), sent, or refused (the mail server refused the address for good). ?order_id= answers "
    "that one order, or 400 `order_not_found` when it is not an order of the founder's stores.",
    "A customer order's checkout collects a shipping address in one of SHIPPING_COUNTRIES (default US, CA, GB, IE, "
    "FR, DE, NL, BE, LU, AT, CH, ES, PT, IT, DK, SE, NO, FI, PL, CZ, AU, NZ, JP, SG): on the sandbox's hosted page "
    "(see its decisions), or, with PAYMENT_PROVIDER=stripe, on Stripe's page through the Checkout Session's "
    "shipping_address_collection.allowed_countries (a code Stripe does not ship to makes Stripe refuse the session: "
    "payment_unavailable, nothing charged). The provider answers the address with the payment's state; it is stored "
    "on the order in the transaction that marks it paid (Stripe: collected_information.shipping_details, or the "
    "top-level shipping_details of API versions before 2025-03-31; its `state` is the region; a field a country "
    "does not use may be empty). The address is the founder's to see (GET /api/tracking, the Orders screen, the "
    "new-order mail) and the customer's (the receipt); GET /api/store/confirm and the thank-you page, open to anyone "
    "holding the order id, do not show it.",
    "Mail after a sale: the transaction that marks an order paid creates one `order_mail` job (subject "
    "receipt:{order id}); the caller that committed it sends it (the landing and back redirects, GET "
    "/api/store/confirm, the thank-you page, the notification's payment_confirm job, the clock's re-check), so "
    "however many confirmations race, one job exists and nothing is sent for a payment declined, expired or still "
    "open. The job mails the customer a receipt (store name, product, quantity at unit price, total and currency, "
    "order number, paid date, shipping address, the thank-you page's address, the store's support address when it "
    "has one) and the founder a new-order notice (the same, with the customer's address and a link to the Orders "
    "screen), through the mailer (the outbox, or SMTP_URL), as plain text and autoescaped HTML. Each mail is marked "
    "on the order once the server took it and is never sent again by a later run; only a worker that dies between "
    "the server's acceptance and the mark can send one twice. A mailer that cannot take mail is tried again after "
    "10 s, 1, 5, 15, 30, 60 and 120 minutes (8 attempts); a mail the server refuses for good is not retried (the "
    "receipt reads `refused`). The notice goes to the address of the account that claimed the product, once "
    "verified; a founder with no account (anonymous) or an address never proven gets no notice, by design: the "
    "notice carries a customer's name and address, and the order is on the Orders screen all the same.",
    "The thank-you page of a paid order gives the order number and says \"A receipt was sent to\" the customer's "
    "address only once the mail server took it; until then it says the receipt has not been mailed yet and is being "
    "sent, and it says so when the server refused the address. It shows the address masked (b…@example.com) and "
    "not where the order ships: anyone holding the order id may open the page.",
    "An order is what a customer paid for (issue 47): GET /api/tracking's `orders` are the paid orders only, "
    "newest first (at most `limit`), and `checkouts` lists apart, newest first (at most `limit`), the checkouts "
    "customers opened and did not pay: open (awaiting payment), failed (declined) or expired, in the same row shape; "
    "an expired one says why in expired_because: cancelled (its customer cancelled on the payment page: the checkout "
    "ended before its day was over, and not by the shop), not_on_sale (closed when the product stopped selling) or "
    "timed_out (not paid within its day). Each row has order_number, the first 8 characters of order_id: the number "
    "the Orders screen, the thank-you page and the order mails show. status is no_orders_yet while no order is paid, "
    "with the checkouts still listed and counted in the explanation. ?order_id= answers that one row in `orders` "
    "when paid, else in `checkouts`. Each row has profit_minor: what a paid order leaves at the founder's offer, "
    "amount - quantity x (the offer's unit cost + shipping) - (amount x OFFER_FEE_PCT / 100 + OFFER_FEE_FIXED), "
    "each part rounded to cents, in the order's minor units; the unit cost is the one GET /api/offer answers (the "
    "connected supplier's, when one counts for the product), so the Orders screen and the offer read one figure. "
    "profit_minor is null for a checkout, for a product without an offer yet, and for an order in another "
    "currency than the offer's; profit_basis says the rule in words. The Orders screen and the assistant count "
    "paid orders only (the assistant's orders cite: {kind: orders, count (paid orders), open_checkouts, route}).",
    "GET /api/revenue (session) answers {status: ok, stores: [{product_id, product_name, currency, confirmed_minor, "
    "orders}]}: "
    "confirmed (provider-paid) revenue per store and currency, in minor units, from running totals kept in the "
    "transaction that credits each payment (one query, whatever the number of orders).",
]


class CheckoutBody(Schema):
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120),
                               metadata={"reason": "unknown_product"})
    quantity = fields.Integer(load_default=1, metadata={"reason": "invalid_quantity", "minimum": 1, "maximum": 99})
    email = fields.String(required=True, validate=validate.Length(max=320),
                          metadata={"reason": "invalid_email", **bounds.EMAIL})


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
    order_number = fields.String(required=True, metadata={
        "description": "The order's number as people read it: the first 8 characters of order_id, as the thank-you "
                       "page and the order mails show it"})
    product_id = fields.String(required=True)
    product_name = fields.String(required=True, allow_none=True, metadata={
        "description": "The product's name as its store shows it, for the founder's screens"})
    state = fields.String(required=True)
    expired_because = fields.String(required=True, allow_none=True, metadata={
        "enum": ["cancelled", "not_on_sale", "timed_out", None],
        "description": "Why an expired checkout ended (null for any other state): the customer cancelled on the payment "
                       "page, the shop closed it when the product stopped selling, or it was not paid within its day"})
    email = fields.String(required=True)
    quantity = fields.Integer(required=True)
    unit_price_minor = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    profit_minor = fields.Integer(required=True, allow_none=True, metadata={
        "description": "What a paid order leaves at the founder's offer (its unit cost and shipping per unit, the "
                       "payment fees on the amount), in minor units of currency; null for a checkout not paid, a "
                       "product without an offer, or an order in another currency than the offer's"})
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
    orders = fields.List(fields.Nested(OrderRow), required=True, metadata={
        "description": "The paid orders, newest first"})
    checkouts = fields.List(fields.Nested(OrderRow), required=True, metadata={
        "description": "Checkouts customers opened and did not pay (open, failed, expired), newest first: not orders"})
    profit_basis = fields.String(required=True, metadata={"description": "How profit_minor is computed, in words"})


class RevenueRow(Schema):
    product_id = fields.String(required=True)
    product_name = fields.String(required=True, allow_none=True, metadata={
        "description": "The product's name as its store shows it, for the founder's screens"})
    currency = fields.String(required=True)
    confirmed_minor = fields.Integer(required=True)
    orders = fields.Integer(required=True)


class RevenueAnswer(Schema):
    status = fields.String(required=True)
    stores = fields.List(fields.Nested(RevenueRow), required=True)


@bp.post("/api/store/checkout")
@bp.declare(changes_state=True,
            refuses={400: ["invalid_quantity", "invalid_email", "unknown_product"],
                     409: ["store_not_published", "product_not_on_sale"], 200: ["payment_unavailable"]})
@bp.arguments(CheckoutBody)
@bp.response(200, CheckoutAnswer)
def store_checkout_api(body):
    """Opens a customer order against a published store and starts its payment."""
    return orders.open_order(session=current_session(), product_id=body["product_id"], quantity=body["quantity"],
                             email=body["email"])


@bp.get("/api/store/confirm")
@bp.declare(changes_state=False, refuses={400: ["order_not_found"]})
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
    """The paid orders of the founder's own stores, newest first, and the checkouts not paid, apart."""
    return orders.tracking(session=current_session(), order_id=query.get("order_id"), limit=query["limit"])


@bp.get("/api/revenue")
@bp.declare(changes_state=False)
@bp.response(200, RevenueAnswer)
def revenue():
    """Confirmed revenue per store and currency."""
    return orders.revenue(session=current_session())
