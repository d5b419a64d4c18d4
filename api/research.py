"""Research and verdict (spec 2.13, 4.7): so far the outcome of a claimed product and the
published track record."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services import outcomes

bp = Blueprint("research", __name__, description="What the service knows about a founder's product.")

MAX_AMOUNT = 1_000_000_000  # an amount past a billion is a typo, not an outcome
MAX_NOTE = 2000

DECISIONS: list[str] = [
    "POST /api/outcome {spend?, revenue?, note?} attaches an outcome to the session's claimed product (the resolver's "
    f"claim): spend and revenue are non-negative amounts up to {MAX_AMOUNT:,} in the product's currency (rounded to "
    f"cents), note at most {MAX_NOTE} characters. 200 {{status: recorded, outcome: {{product_id, spend, revenue, note, "
    "result: win|miss, declared_at}}}}; one outcome per claim, and a later declaration replaces the figures it sends "
    "and keeps the rest. 400 `nothing_to_record` (neither spend nor revenue), `invalid_outcome` (a negative, "
    "non-numeric or too large amount, or a note that is not text), `no_claim` (the session only holds a product), "
    "`no_claim_record` (no product at all).",
    f"GET /api/track-record (public): {{status: ok, hit_rate, wins, misses, pending, basis: {{outcomes, definition}}}}. "
    + outcomes.DEFINITION + " hit_rate is null with no declared outcome.",
]


def _amount():
    return fields.Float(allow_none=True, load_default=None, validate=validate.Range(min=0, max=MAX_AMOUNT),
                        metadata={"reason": "invalid_outcome"})


class OutcomeBody(Schema):
    spend = _amount()
    revenue = _amount()
    note = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=MAX_NOTE),
                         metadata={"reason": "invalid_outcome"})


class OutcomeSchema(Schema):
    product_id = fields.String(required=True)
    spend = fields.Float(required=True, allow_none=True)
    revenue = fields.Float(required=True, allow_none=True)
    note = fields.String(required=True, allow_none=True)
    result = fields.String(required=True, metadata={"enum": [outcomes.WIN, outcomes.MISS]})
    declared_at = fields.String(required=True)


class RecordedAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["recorded"]})
    outcome = fields.Nested(OutcomeSchema, required=True)


class BasisSchema(Schema):
    outcomes = fields.Integer(required=True)
    definition = fields.String(required=True)


class TrackRecordAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    hit_rate = fields.Float(required=True, allow_none=True, metadata={"description": "A fraction from 0 to 1"})
    wins = fields.Integer(required=True)
    misses = fields.Integer(required=True)
    pending = fields.Integer(required=True)
    basis = fields.Nested(BasisSchema, required=True)


@bp.post("/api/outcome")
@bp.declare(changes_state=True, refuses={400: ["nothing_to_record", "invalid_outcome", "no_claim", "no_claim_record"]})
@bp.arguments(OutcomeBody)
@bp.response(200, RecordedAnswer)
def record_outcome(body):
    """Declares the outcome (spend, revenue) of the session's claimed product."""
    return outcomes.record_outcome(session=current_session(), spend=body["spend"], revenue=body["revenue"],
                                   note=body["note"])


@bp.get("/api/track-record")
@bp.declare(changes_state=False, session=False)
@bp.response(200, TrackRecordAnswer)
def track_record():
    """Publishes the hit rate over declared outcomes, wins, misses and pending claims, with its basis."""
    return outcomes.track_record()
