"""The credit meter: GET /api/usage (spec 8). The gate itself (services.meter.spend and
metered) runs inside the metered routes and jobs, immediately before the expensive call."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from api.session import current_session
from services.meter import usage

bp = Blueprint("usage", __name__, description="The credit meter.")

DECISIONS: list[str] = [
    "The credit meter's subject is the account. A session with no account is not metered (spec 5.11: no subject "
    "to meter): metered calls neither spend nor refuse for it, and GET /api/usage answers account false with an "
    "empty feature list (tier free, multiplier 0.1, referral_multiplier 1.0: what a new account starts with).",
    "Meter windows are fixed integer boundaries of epoch time: the five-hour window is floor(t / 18000), the week "
    "floor(t / 604800) (weeks start Thursday 00:00 UTC, the epoch's weekday); resets_at = (index + 1) x size, in "
    "whole epoch seconds. A five-hour window can straddle a week boundary; each window resets on its own.",
    "Meter limits are the pro figure x the tier multiplier x the referral multiplier, computed exactly and rounded "
    "half up to a whole number of credits, for both windows (weekly caps of other tiers scale the pro weekly "
    "figure the same way). A call is allowed when used + cost <= limit in both windows, so with a limit that is "
    "not a multiple of the cost `used` can stop short of `limit`.",
    "Check and spend of both windows is one conditional UPDATE; a refused call spends nothing in either window.",
    "When both windows are exhausted, the refusal names the one whose resets_at is later (weekly_limit_reached on "
    "a tie), so backing off until resets_at is enough; GET /api/usage reports the same window in "
    "exhausted_window.",
    "Refunds: a metered call that ends in a refusal or in an error that changed nothing gives its credits back, "
    "into the windows it spent from (a window that has moved on is left alone; counts never go below zero); a "
    "metered call that changed something keeps its cost.",
    "A 429 meter refusal also carries `bucket` (the feature's id, as in GET /api/usage `features[].feature`) "
    "beside `feature` (its display name). `ways_up` always has the referral entry (with your_referrals, "
    "your_multiplier and cap 4.0, also at the cap) and an upgrade entry naming the next tier; max20 has no tier "
    "above it, so no upgrade entry.",
    "GET /api/usage lists every bucket every time, in the order of spec 8.1; `feature` is the bucket id and "
    "`name` its display name. A count of an elapsed window reads as 0.",
]


class FeatureUsageSchema(Schema):
    feature = fields.String(required=True, metadata={"description": "Bucket id", "enum": [
        "website_edit", "growth_edit", "find", "ad", "support"]})
    name = fields.String(required=True, metadata={"description": "Display name of the feature"})
    cost = fields.Integer(required=True, metadata={"description": "Credits per call"})
    used_5h = fields.Integer(required=True)
    limit_5h = fields.Integer(required=True)
    used_week = fields.Integer(required=True)
    limit_week = fields.Integer(required=True)
    resets_at_5h = fields.Integer(required=True, metadata={"description": "Epoch seconds"})
    resets_at_week = fields.Integer(required=True, metadata={"description": "Epoch seconds"})
    allowed = fields.Boolean(required=True, metadata={"description": "One more call would be allowed now"})
    exhausted_window = fields.String(required=True, allow_none=True, metadata={"enum": ["5h", "week", None]})


class UsageSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    account = fields.Boolean(required=True, metadata={"description": "False: no subject to meter"})
    tier = fields.String(required=True, metadata={"enum": ["free", "pro", "max5", "max20"]})
    tier_label = fields.String(required=True)
    multiplier = fields.Float(required=True, metadata={"description": "Tier x referral: what the limits were scaled by"})
    referral_multiplier = fields.Float(required=True)
    features = fields.List(fields.Nested(FeatureUsageSchema), required=True)


@bp.get("/api/usage")
@bp.declare(changes_state=False)
@bp.response(200, UsageSchema)
def read_usage():
    """Reads the credit meter of the session's account without spending: every feature's use, limits and resets."""
    return usage(current_session().account_id)  # dumped by UsageSchema (the response decorator)
