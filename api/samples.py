"""Samples from suppliers (spec 4.7: POST /api/samples/checkout), paid through the payment
provider, and the founder's sample orders (GET /api/samples)."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services.commerce import samples
from services.commerce.samples import MAX_QUANTITY

bp = Blueprint("samples", __name__, description="Sample orders from suppliers.")

DECISIONS: list[str] = [
    f"POST /api/samples/checkout {{supplier, quantity (1-{MAX_QUANTITY}, default 1)}} (session) orders a sample "
    "through the payment provider: 200 {status: checkout_started, sample_id, checkout_url, amount_minor, "
    "currency}. The price is the supplier's unit cost in the supplier feed times the quantity (its line for the "
    "founder's claimed product when it has one, else its cheapest line), in that line's currency; no shipping is "
    "added. A supplier the feed does not know is 400 `unknown_supplier`; a bad quantity 400 `invalid_quantity`; "
    "a provider that cannot start 200 `payment_unavailable` (with sample_id; nothing charged).",
    "GET /api/samples (session) lists the founder's sample orders, newest first (at most 100): {status: ok, "
    "samples: [{sample_id, supplier, sku, product_id, quantity, amount_minor, currency, state: open | paid | "
    "failed | expired, created_at, paid_at}]} or {status: no_samples_yet, reason, explanation, samples: []}. "
    "Another founder's samples are never listed. The launch fact sample_ordered is true once a sample is paid.",
]


class SampleBody(Schema):
    supplier = fields.String(required=True, validate=validate.Length(min=1, max=200),
                             metadata={"reason": "unknown_supplier"})
    quantity = fields.Integer(load_default=1, metadata={"reason": "invalid_quantity"})


class SampleStarted(Schema):
    status = fields.String(required=True, metadata={"enum": ["checkout_started"]})
    sample_id = fields.String(required=True)
    checkout_url = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)


class SampleRow(Schema):
    sample_id = fields.String(required=True)
    supplier = fields.String(required=True)
    sku = fields.String(allow_none=True)
    product_id = fields.String(allow_none=True)
    quantity = fields.Integer(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    state = fields.String(required=True, metadata={"enum": ["open", "paid", "failed", "expired"]})
    created_at = fields.String(required=True)
    paid_at = fields.String(allow_none=True)


class SamplesAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "no_samples_yet"]})
    reason = fields.String()
    explanation = fields.String()
    samples = fields.List(fields.Nested(SampleRow), required=True)


@bp.post("/api/samples/checkout")
@bp.declare(changes_state=True, refuses={400: ["unknown_supplier", "invalid_quantity"],
                                         200: ["payment_unavailable", "suppliers_unavailable"]})
@bp.arguments(SampleBody)
@bp.response(200, SampleStarted)
def samples_checkout(body):
    """Orders a physical sample from a supplier through the payment provider."""
    return samples.start_sample(session=current_session(), supplier=body["supplier"], quantity=body["quantity"])


@bp.get("/api/samples")
@bp.declare(changes_state=False)
@bp.response(200, SamplesAnswer)
def samples_list():
    """The founder's sample orders."""
    return samples.samples(session=current_session())
