"""Samples from suppliers (spec 4.7: POST /api/samples/checkout), paid through the payment
provider, and the founder's sample orders (GET /api/samples)."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services.commerce import samples
from services.commerce.samples import MAX_QUANTITY

bp = Blueprint("samples", __name__, description="Sample orders from suppliers.")

DECISIONS: list[str] = [
    f"POST /api/samples/checkout {{supplier, sku?, quantity (1-{MAX_QUANTITY}, default 1)}} (session) orders a "
    "sample of one offer line through the payment provider: 200 {status: checkout_started, sample_id, "
    "checkout_url, amount_minor, currency, supplier, sku}. The line is named by supplier and sku as GET "
    "/api/suppliers lists them (matched ignoring case and extra spaces). Without sku: the founder's connected "
    "line when it is that supplier's, else that supplier's line of the founder's product (claimed, else held), "
    "else the supplier's only line; a supplier with several other lines is 400 `unknown_offer` (its name alone "
    "never buys one of its other goods). The price is that line's unit cost in the supplier feed times the "
    "quantity, in the line's currency; no shipping is added, and the line's minimum order does not apply to a "
    "sample. A supplier the feed does not know (or none) is 400 `unknown_supplier`; a sku that supplier does not "
    "have 400 `unknown_offer`; a bad quantity 400 `invalid_quantity`; a provider that cannot start 200 "
    "`payment_unavailable` (with sample_id; nothing charged).",
    "GET /api/samples (session) lists the founder's sample orders, newest first (at most 100): {status: ok, "
    "samples: [{sample_id, supplier, sku, name, offers_product_id, product_id, quantity, amount_minor, currency, "
    "state: open | paid | failed | expired, expired_because, created_at, paid_at}]} or {status: no_samples_yet, "
    "reason, explanation, samples: []}: supplier and sku name the line bought, name and offers_product_id what it "
    "offers (null on orders made before migration m0024), product_id the product claimed when ordering. An expired "
    "sample says why in expired_because, as a customer's checkout does in GET /api/tracking (issue 47): cancelled "
    "(the founder cancelled on the payment page: its checkout ended before its 24-hour day was over) or timed_out "
    "(not paid within its day); it is null for any other state. The Suppliers screen says \"Cancelled by you\" or "
    "\"Expired unpaid\" accordingly, never a bare \"Expired\". Another founder's samples are never listed. The "
    "launch fact sample_ordered is true once a sample is paid.",
]


class SampleBody(Schema):
    supplier = fields.String(required=True, validate=validate.Length(min=1, max=200),
                             metadata={"reason": "unknown_supplier"})
    sku = fields.String(allow_none=True, validate=validate.Length(min=1, max=200), metadata={
        "reason": "unknown_offer", "description": "The SKU of the offer line; without it, the connected line or the "
                                                  "supplier's line of your product"})
    quantity = fields.Integer(load_default=1, metadata={"reason": "invalid_quantity", "minimum": 1, "maximum": 10})


class SampleStarted(Schema):
    status = fields.String(required=True, metadata={"enum": ["checkout_started"]})
    sample_id = fields.String(required=True)
    checkout_url = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    supplier = fields.String(required=True)
    sku = fields.String(required=True, metadata={"description": "The SKU of the offer line ordered"})


class SampleRow(Schema):
    sample_id = fields.String(required=True)
    supplier = fields.String(required=True)
    sku = fields.String(allow_none=True)
    name = fields.String(allow_none=True, metadata={"description": "What the line offers"})
    offers_product_id = fields.String(allow_none=True, metadata={"description": "The product the line offers"})
    product_id = fields.String(allow_none=True)
    quantity = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    state = fields.String(required=True, metadata={"enum": ["open", "paid", "failed", "expired"]})
    expired_because = fields.String(required=True, allow_none=True, metadata={
        "enum": ["cancelled", "timed_out", None],
        "description": "Why an expired sample's payment ended (null for any other state): cancelled when the founder "
                       "cancelled on the payment page, timed_out when it was not paid within its day"})
    created_at = fields.String(required=True)
    paid_at = fields.String(allow_none=True)


class SamplesAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "no_samples_yet"]})
    reason = fields.String()
    explanation = fields.String()
    samples = fields.List(fields.Nested(SampleRow), required=True)


@bp.post("/api/samples/checkout")
@bp.declare(changes_state=True, refuses={400: ["unknown_supplier", "unknown_offer", "invalid_quantity"],
                                         200: ["payment_unavailable", "suppliers_unavailable"]})
@bp.arguments(SampleBody)
@bp.response(200, SampleStarted)
def samples_checkout(body):
    """Orders a physical sample of a supplier's offer line through the payment provider."""
    return samples.start_sample(session=current_session(), supplier=body["supplier"], sku=body.get("sku"),
                                quantity=body["quantity"])


@bp.get("/api/samples")
@bp.declare(changes_state=False)
@bp.response(200, SamplesAnswer)
def samples_list():
    """The founder's sample orders."""
    return samples.samples(session=current_session())
