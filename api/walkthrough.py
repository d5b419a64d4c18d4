"""The walkthrough (spec 4.7 GET /api/walkthrough, POST /api/walkthrough/advance and
/dismiss; decisions.md "Walkthrough"): the launch facts as steps, and where the founder is
in them: services/walkthrough.py."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services import walkthrough

bp = Blueprint("walkthrough", __name__, description="The walkthrough: the launch steps and where you are in them.")

DECISIONS: list[str] = [
    "GET /api/walkthrough (optional: a session is enough; signed in, the account's) answers 200 {status: ok, steps: "
    "[{id, title, done, detail, route}], position, dismissed}. The steps are the launch facts of GET /api/launch, "
    "in their order, `id` the fact's id, `title` the step in a founder's words, `done` the fact true today, "
    "`detail` the fact's own sentence, `route` the screen of the app where it is done. `position` is the index of "
    "the founder's current step (0 to the last); until they first move it is the first step not done (the last "
    "when all are).",
    "POST /api/walkthrough/advance {direction: forward | back} moves the position one step, clamped to the steps "
    "(forward at the last step and back at the first change nothing), and answers as GET. Another direction, or "
    "none, is 400 `invalid_direction`. The position is stored per founder (the session's; on sign-in it becomes "
    "the account's unless the account has one already) and moved by one conditional UPDATE, so clicks at once "
    "each count and never pass an end.",
    "POST /api/walkthrough/dismiss (no body) records dismissed: true and answers as GET; GET keeps answering, "
    "dismissed true, and advancing still moves the position. Dismissing twice changes nothing more.",
]


class Step(Schema):
    id = fields.String(required=True, metadata={"description": "The launch fact's id"})
    title = fields.String(required=True)
    done = fields.Boolean(required=True)
    detail = fields.String(required=True, metadata={"description": "Why the fact is or is not true today"})
    route = fields.String(required=True, metadata={"description": "The screen of the app where the step is done"})


class WalkthroughAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    steps = fields.List(fields.Nested(Step), required=True)
    position = fields.Integer(required=True)
    dismissed = fields.Boolean(required=True)


class AdvanceBody(Schema):
    direction = fields.String(required=True, validate=validate.OneOf(walkthrough.DIRECTIONS),
                              metadata={"reason": "invalid_direction"})


@bp.get("/api/walkthrough")
@bp.declare(changes_state=False)
@bp.response(200, WalkthroughAnswer)
def walkthrough_show():
    """The steps to launch, each done or not, and your place in them."""
    return walkthrough.show(session=current_session())


@bp.post("/api/walkthrough/advance")
@bp.declare(changes_state=True, refuses={400: ["invalid_direction"]})
@bp.arguments(AdvanceBody)
@bp.response(200, WalkthroughAnswer)
def walkthrough_advance(body):
    """Moves you one step forward or back."""
    return walkthrough.advance(session=current_session(), direction=body["direction"])


@bp.post("/api/walkthrough/dismiss")
@bp.declare(changes_state=True, no_body=True)
@bp.response(200, WalkthroughAnswer)
def walkthrough_dismiss():
    """Dismisses the walkthrough."""
    return walkthrough.dismiss(session=current_session())
