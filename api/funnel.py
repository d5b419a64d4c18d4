"""Store metrics (issue 12, point 4): the funnel events a published store's pages send, the
founder's figures over a window of days (spec 2.12), and where the founder is in the app."""
import re

from flask import request
from marshmallow import Schema, ValidationError, fields, validate

from api.errors import ApiError
from api.routing import Blueprint
from api.session import current_session
from services import presence
from services.store import metrics

bp = Blueprint("funnel", __name__, description="Store metrics: funnel events, the editor's metrics, presence.")

TRACK_MAX_BODY = 1024  # bytes: an event is three short strings

DECISIONS: list[str] = [
    "POST /api/track (public, called by the store pages) takes {product_id, event: page_view | add_to_cart | "
    "checkout | paid, session_id} and answers 200 {status: recorded}. Another event is 400 `invalid_event`; a "
    "missing or over-long product_id 400 `no_product_id`; a session_id that is not 8 to 64 characters of "
    f"[A-Za-z0-9_-] 400 `invalid_session_id`; a body over {TRACK_MAX_BODY} bytes 413 `payload_too_large`. "
    "session_id is the visitor's, made up by the store's script and kept in the tab's sessionStorage: the route "
    "neither reads nor issues ff_session (store visitors are not founders): the one spec endpoint kept cookieless, "
    "a deliberate deviation from spec 2.1 recorded with the cookie rule (the cross-cutting decisions).",
    "An event counts once per (product, visitor session_id, event, UTC day): a unique index decides, however many "
    "copies race, and a duplicate is answered {status: recorded} like the first (it is no error).",
    "Events count only for a product whose store is published. For any other product id (unpublished, never "
    "built, unknown) POST /api/track answers 200 {status: ignored, reason: not_published, explanation} and "
    "records nothing: the visitor's page is never shown an error, and whether a store is published is public "
    "anyway (its pages answer 404 until it is).",
    "The store's script is /static/storefront/track.js (no dependencies), loaded by every public store page with "
    "<script src=... defer> and the product id in a data-product-id attribute (no inline script); the public "
    "pages' content security policy adds `script-src 'self'; connect-src 'self'` for it. It sends page_view on "
    "each page load, add_to_cart when the buy form's fields are first used or its button pressed, checkout when "
    "the form is submitted, and paid on the thank-you page of an order the payment provider confirmed (the "
    "server marks the page; the script only reports it). The owner's "
    "preview pages carry no script and keep the policy with no script at all, so a preview never counts.",
    "GET /api/editor/metrics?product_id=&days= (session) answers spec 2.12: {status: ok, product_id, days, since, "
    "until (UTC dates; the window is today and the days-1 days before it), sessions (distinct visitor sessions "
    "with a page_view), cart, checkout, paid (distinct visitor sessions with that event), paid_unverified: true, "
    "explanation}. `paid` counts browser events anyone can send; the payment ledger is the authority on sales. "
    f"days is an integer 1 to {metrics.MAX_DAYS} (default {metrics.DEFAULT_DAYS}; otherwise 400 `invalid_days`). "
    "Without product_id: the founder's claimed product (200 `not_claimed` without one). A product_id that is not "
    "one of the founder's claims (another founder's, or no product at all) is 404 `not_found`, the same answer "
    "for both, so another founder's figures, and whether they exist, are never shown.",
    "POST /api/presence (session) {area, screen}: each 1 to 40 characters of [a-z0-9_-] (else 400 "
    "`invalid_presence`); 200 {status: recorded}. It keeps each session's latest area and screen with the time "
    "(one row per session, overwritten), for support (which screen the founder was on) and for the walkthrough "
    "later; nothing serves it back yet. The browser app sends {area: app, screen: <the screen's name>} each time "
    "it shows a screen, without waiting for the answer.",
]

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
_NAME = re.compile(r"[a-z0-9_-]{1,40}")


def _shaped(pattern: re.Pattern, message: str):
    def check(value: str) -> None:
        if not pattern.fullmatch(value):
            raise ValidationError(message)

    return check


class TrackBody(Schema):
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120),
                               metadata={"reason": "no_product_id", "description": "The store's product"})
    event = fields.String(required=True, validate=validate.OneOf(metrics.EVENTS),
                          metadata={"reason": "invalid_event", "enum": list(metrics.EVENTS)})
    session_id = fields.String(required=True, validate=[validate.Length(min=8, max=64),
                                                        _shaped(_SESSION_ID, "8 to 64 of A-Z a-z 0-9 _ -.")],
                               metadata={"reason": "invalid_session_id", "pattern": "^[A-Za-z0-9_-]{8,64}$",
                                         "description": "The visitor's id, made up by the store's script"})
    campaign = fields.String(load_default=None, validate=[validate.Length(min=1, max=64),
                                                          _shaped(metrics.CAMPAIGN, "1 to 64 of A-Z a-z 0-9 _ -.")],
                             metadata={"reason": "invalid_campaign_tag", "pattern": f"^{metrics.CAMPAIGN.pattern}$",
                                       "description": "The utm_campaign of the link the visitor arrived by"})


class TrackAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [metrics.RECORDED, metrics.IGNORED]})
    reason = fields.String(metadata={"enum": ["not_published"]})
    explanation = fields.String()


class MetricsQuery(Schema):
    product_id = fields.String(validate=validate.Length(max=120), metadata={
        "reason": "unknown_product", "description": "One of your claimed products; omit it for your claimed product"})
    days = fields.Integer(validate=validate.Range(min=1, max=metrics.MAX_DAYS), metadata={
        "reason": "invalid_days", "description": f"The window in days, today included (default {metrics.DEFAULT_DAYS})"})


class MetricsAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "not_claimed"]})
    product_id = fields.String()
    days = fields.Integer()
    since = fields.String(metadata={"description": "First UTC day of the window (YYYY-MM-DD)"})
    until = fields.String(metadata={"description": "Last UTC day of the window: today"})
    sessions = fields.Integer(metadata={"description": "Distinct visitor sessions with a page view"})
    cart = fields.Integer(metadata={"description": "Distinct visitor sessions that added to cart"})
    checkout = fields.Integer(metadata={"description": "Distinct visitor sessions that submitted the buy form"})
    paid = fields.Integer(metadata={"description": "Distinct visitor sessions whose browser reported a payment: "
                                                   "unverified"})
    paid_unverified = fields.Boolean(metadata={"description": "Always true: paid counts browser events"})
    reason = fields.String(metadata={"enum": ["not_claimed"]})
    explanation = fields.String()


class PresenceBody(Schema):
    area = fields.String(required=True, validate=[validate.Length(min=1, max=40), _shaped(_NAME, "1 to 40 of a-z 0-9 _ -.")],
                         metadata={"reason": "invalid_presence", "pattern": "^[a-z0-9_-]{1,40}$",
                                   "description": "The part of the service, e.g. app"})
    screen = fields.String(required=True, validate=[validate.Length(min=1, max=40), _shaped(_NAME, "1 to 40 of a-z 0-9 _ -.")],
                           metadata={"reason": "invalid_presence", "pattern": "^[a-z0-9_-]{1,40}$",
                                     "description": "The screen, e.g. store"})


class PresenceAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [presence.RECORDED]})


@bp.post("/api/track")
@bp.declare(changes_state=True, session=False, storefront=True,
            refuses={400: ["invalid_event", "invalid_session_id", "no_product_id"]})
@bp.arguments(TrackBody)
@bp.response(200, TrackAnswer)
def track(body):
    """Records a storefront funnel event of a published store's visitor (once per visitor, event and day)."""
    # Checked after the fields (bad input is a 400 whatever its size, and a field the route does
    # not take is 400 unknown_field): the fields are bounded already, so only a body padded with
    # whitespace or written in \u escapes gets here too large.
    if len(request.get_data(cache=True)) > TRACK_MAX_BODY:
        raise ApiError(413, "payload_too_large")
    return metrics.record_event(product_id=body["product_id"], event=body["event"], visitor_session=body["session_id"],
                                campaign=body["campaign"])


@bp.get("/api/editor/metrics")
@bp.declare(changes_state=False, refuses={200: ["not_claimed"], 400: ["invalid_days", "unknown_product"],
                                          404: ["not_found"]})
@bp.arguments(MetricsQuery, location="query")
@bp.response(200, MetricsAnswer)
def editor_metrics(query):
    """The founder's store funnel over a window of days: sessions, cart, checkout and (unverified) paid."""
    return metrics.metrics(session=current_session(), product_id=query.get("product_id") or None,
                           days=query.get("days", metrics.DEFAULT_DAYS))


@bp.post("/api/presence")
@bp.declare(changes_state=True, refuses={400: ["invalid_presence"]})
@bp.arguments(PresenceBody)
@bp.response(200, PresenceAnswer)
def record_presence(body):
    """Records where the founder is in the app (area and screen), replacing the place before."""
    return presence.record(session=current_session(), area=body["area"], screen=body["screen"])
