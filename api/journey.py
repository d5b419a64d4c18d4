"""Journey carriers (spec 4.7 POST /api/journey, POST /api/journey/[id]/consume; decisions.md
"Journey carrier"): a screen of the app handed from one device to another:
services/journey.py."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services import journey

bp = Blueprint("journey", __name__, description="Journey carriers: continue on another device.")

DECISIONS: list[str] = [
    f"POST /api/journey {{route, data?}} (public; the caller's session is recorded as the issuer) answers 200 "
    f"{{status: ok, id, expires_at, url}}: `id` is 128 random bits in hex (only its SHA-256 is stored), valid "
    f"{journey.CARRIER_MINUTES} minutes; `url` is the app's link that opens it ({journey.CONTINUE_PATH}<id>). "
    f"`route` must be a route of the app, written as links write it: `#/app/<screen>`, `/app/<screen>` or "
    f"`/#/app/<screen>` (issue 51.4; all three are stored, and consumed, as `#/app/<screen>`), more path "
    f"segments, an optional plain query, at most "
    f"{journey.MAX_ROUTE} characters, never a scheme, host or `//` (400 `invalid_route`); `data`, when given, one "
    f"JSON object of at most {journey.MAX_DATA_BYTES} bytes as compact JSON (400 `invalid_journey_data`).",
    "POST /api/journey/<id>/consume (no body) answers 200 {status: ok, route, data} once; after that 409 "
    "`already_consumed`; an id never issued, malformed or past its expiry is 404 `not_found` (an expired carrier "
    "alike whether it was consumed or not). Any session may consume it (the point is another device). The "
    "consume is one conditional UPDATE (WHERE not consumed AND not expired): of any number of consumes at once "
    "exactly one succeeds. The id is a bearer value: the request log (and the log of a failure) names the path "
    "as `/api/journey/<cut>/consume`, whatever the method or answer (logformat.logged_path).",
    "Carriers are deleted a day after they expire, when a new one is issued.",
]


class JourneyBody(Schema):
    route = fields.String(required=True, validate=validate.Length(min=1, max=journey.MAX_ROUTE),
                          metadata={"reason": "invalid_route", "description": "A route of the app: #/app/..., /app/... or "
                                                                             "/#/app/... (kept as #/app/...)",
                                    "pattern": f"^{journey.ROUTE_SHAPE.pattern}$"})
    data = fields.Dict(load_default=None, allow_none=True, metadata={"reason": "invalid_journey_data",
                                                                     "description": "A small JSON object"})


class JourneyIssued(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    id = fields.String(required=True)
    expires_at = fields.String(required=True)
    url = fields.String(required=True, metadata={"description": "The app's link that opens the carrier"})


class JourneyConsumed(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    route = fields.String(required=True)
    data = fields.Dict(required=True, allow_none=True)


@bp.post("/api/journey")
@bp.declare(changes_state=True, refuses={400: ["invalid_route", "invalid_journey_data"]})
@bp.arguments(JourneyBody)
@bp.response(200, JourneyIssued)
def journey_issue(body):
    """Issues a single-use carrier of a screen of the app, for 15 minutes."""
    return journey.issue(session=current_session(), route=body["route"], data=body["data"])


@bp.post("/api/journey/<carrier_id>/consume")
@bp.declare(changes_state=True, no_body=True, refuses={404: ["not_found"], 409: ["already_consumed"]})
@bp.response(200, JourneyConsumed)
def journey_consume(carrier_id):
    """Opens a carrier once: its route and data."""
    current_session()  # a session route: the cookie is read (and issued) as everywhere
    return journey.consume(carrier_id=carrier_id)
