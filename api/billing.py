"""Billing provider callbacks: POST /api/billing/webhook (spec 5.17, 6; decisions.md).

The provider calls this server to server, so the route is exempt from the cross-site guard
and authenticates by an HMAC signature over the raw body instead. The signature is checked
before anything reads the body: an unsigned or forged message is never parsed.
"""
from functools import wraps

from flask import request
from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_load, validate, validates_schema

from api.routing import Blueprint
from config import get_settings
from services.billing import PLAN_CHANGED, SIGNATURE_HEADER, WINDOW_SECONDS, receive_event, verify_signature

bp = Blueprint("billing", __name__, description="Billing provider callbacks.")

DECISIONS: list[str] = [
    f"Billing webhook signature: the provider sends `{SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>`, where v1 is "
    "the lowercase or uppercase hex HMAC-SHA256, keyed with BILLING_WEBHOOK_SECRET (UTF-8), of the ASCII bytes "
    "`<t>.` followed by the raw request body exactly as sent. Several `v1=` values may be given (to rotate the "
    "secret, sign with both); one match is enough. Other keys in the header are ignored. The timestamp must be "
    f"within {WINDOW_SECONDS} seconds of the service's clock, either way. The body is JSON with Content-Type "
    "application/json.",
    "Billing webhook checks, in order: BILLING_WEBHOOK_SECRET unset answers 503 `billing_unconfigured`; no "
    f"{SIGNATURE_HEADER} header 400 `unsigned_callback`; a header that is present but blank, malformed, out of "
    "the time window or matching no signature 403 `bad_signature`; only then is the body read: not JSON 400 "
    "`invalid_json`, a missing or mistyped field 400 `invalid_request` (`invalid_email` for the email, "
    "`unknown_tier` for a tier that is missing or not free, pro, max5 or max20). Nothing changes on any of these.",
    "Billing webhook event: `{id, type, data}`; `id` (1-200 characters) is the provider's event id. For type "
    "`plan.changed`, data is `{email, tier: free|pro|max5|max20, term_ends_at: ISO 8601 or null}` (a time with an offset is "
    "converted to UTC; one without is read as UTC). The account is found by email, case-insensitively. A paid tier with term_ends_at null has no end; past "
    "term_ends_at the account reads as free. For tier free, term_ends_at is ignored (free has no end date).",
    "Billing webhook answers (all HTTP 200, so the provider stops retrying): a fresh plan.changed event "
    "`{status: applied, event_id, tier, term_ends_at}`; an event id already applied `{status: duplicate, "
    "event_id}` and nothing changes (any number of concurrent deliveries apply once: recording the id and "
    "changing the plan are one transaction keyed on the id); another event type `{status: ignored, event_id, "
    "reason: unknown_event_type, explanation}`; an email with no account `{status: ignored, event_id, reason: "
    "unknown_account, explanation}`. Ignored events are not recorded, so sending one again after the account "
    "exists applies it.",
    "Billing webhook ordering: an event may carry `created` (unix seconds, when the provider made it; arrival "
    "time when absent). Each event sets the whole plan (tier and term end) unless the plan in force comes from a "
    "newer event: then it answers `{status: stale, event_id, explanation}`, is recorded (its replays are "
    "duplicates) and changes nothing. Events with the same `created` apply in arrival order.",
]


class PlanChangedSchema(Schema):
    class Meta:
        # A provider's payload carries more than the three fields read here; they are ignored,
        # as on the event itself (a callback keeps ignoring unknown fields: api/routing.py).
        unknown = EXCLUDE

    email = fields.String(required=True, validate=validate.Length(min=1, max=320), metadata={"reason": "invalid_email"})
    tier = fields.String(required=True, metadata={"reason": "unknown_tier"})
    term_ends_at = fields.DateTime(allow_none=True, load_default=None,
                                   metadata={"description": "ISO 8601 UTC; null = no end"})


class BillingEventSchema(Schema):
    id = fields.String(required=True, validate=validate.Length(min=1, max=200))
    type = fields.String(required=True, validate=validate.Length(min=1, max=100),
                         metadata={"description": "plan.changed is acted on; other types are acknowledged and ignored"})
    data = fields.Dict(load_default=dict, metadata={"description": "for plan.changed: PlanChanged",
                                                    "schema": PlanChangedSchema})
    created = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0, max=10**11),
                             metadata={"description": "unix seconds when the provider made the event"})

    @validates_schema
    def _plan_changed_data(self, event, **kwargs):
        if event.get("type") == PLAN_CHANGED:
            problems = PlanChangedSchema().validate(event.get("data") or {})
            if problems:
                raise ValidationError({"data": problems})

    @post_load
    def _load_plan(self, event, **kwargs):
        if event["type"] == PLAN_CHANGED:
            event["data"] = PlanChangedSchema().load(event["data"])
        return event


class WebhookAnswerSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["applied", "duplicate", "ignored", "stale"]})
    event_id = fields.String(required=True)
    tier = fields.String(metadata={"description": "applied: the tier set"})
    term_ends_at = fields.String(allow_none=True, metadata={"description": "applied: the term end set, ISO 8601 UTC"})
    reason = fields.String(metadata={"description": "ignored: unknown_event_type or unknown_account"})
    explanation = fields.String()


def signed_by_the_billing_provider(view):
    """Checks the signature before anything reads the body (it wraps the declared view, so it
    runs first; `wraps` carries the declaration over to the routed function)."""

    @wraps(view)
    def check(*args, **kwargs):
        verify_signature(secret=get_settings().billing_webhook_secret, header=request.headers.get(SIGNATURE_HEADER),
                         payload=request.get_data(cache=True))
        return view(*args, **kwargs)

    return check


@bp.post("/api/billing/webhook")
@signed_by_the_billing_provider
@bp.declare(changes_state=True, callback=True, session=False,
            refuses={400: ["unsigned_callback", "unknown_tier", "invalid_email"], 403: ["bad_signature"],
                     503: ["billing_unconfigured"]},
            headers={"Billing-Signature": "t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.' + raw body>"})
@bp.arguments(BillingEventSchema)
@bp.response(200, WebhookAnswerSchema)
def billing_webhook(event):
    """Applies a signed plan change from the billing provider, once per event id.

    Server to server; info.x-decisions gives the Billing-Signature scheme, event and answers.
    """
    return receive_event(event_id=event["id"], type=event["type"], data=event["data"], created=event["created"])
