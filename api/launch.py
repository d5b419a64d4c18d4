"""The launch state machine of the founder's claimed product (spec 4.7, decisions.md:
POST /api/product-launch)."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import launch_state

bp = Blueprint("launch", __name__, description="The launch state of the founder's claimed product.")


def _needs(action: str) -> str:
    needs = launch_state.TRANSITIONS[action].needs
    return ", ".join(needs) if needs else "no launch fact"


DECISIONS: list[str] = [
    "POST /api/product-launch {action: " + " | ".join(launch_state.ACTIONS) + "} moves the launch state of the "
    "session's claimed product (none resolved: 200 `not_claimed`; a hold is not enough: 409 `claim_required`). States: draft -> ready -> live <-> "
    "paused -> retired; one state per product (a product has one founder: claims are exclusive), `draft` until "
    "the first transition. prepare: draft -> ready; launch: ready -> live; pause: live -> paused; resume: "
    "paused -> live; retire: draft, ready, live or paused -> retired (final). Another action, or none: 400 "
    "`invalid_action`.",
    "Each transition needs the launch facts of GET /api/launch that its step depends on, true today: "
    + "; ".join(f"{action} needs {_needs(action)}" for action in launch_state.ACTIONS) + ". Ready means the "
    "product is yours, its offer is known and a store shows it; live means customers can reach the store and pay. "
    "payments_ready is true once payments are on (PAYMENT_PROVIDER is not `off`) and the claimed product's "
    "published store was built with its buy box open; until then nothing can launch or resume, and the refusal "
    "names the fact that is false rather than pretending. Pausing and retiring need no fact (stopping is always "
    "allowed).",
    "A transition whose facts are not all true is refused 409 {status: refused, reason: launch_blocked, "
    "explanation, blocked_by: [the false fact ids, in the launch facts' order], state, action, allowed, blocked}; "
    "nothing changes. An action that is not a step from the current state (pause from draft, anything from "
    "retired) is refused 409 `invalid_transition` with the current `state`, the `action`, and `allowed` / "
    "`blocked` as below.",
    "The answer (200) is {status: ok, product_id, state, previous (the state before the last transition; null "
    "before the first), allowed: [the actions from this state whose facts are all true today], blocked: {action: "
    "[false fact ids]} for the actions from this state that wait on facts, changed_at (null before the first "
    "transition)}. GET /api/launch answers the same object as `launch_state` (null while the session has "
    "claimed nothing). A history of transitions is not kept; changed_at is the last one's time.",
    "Transitions are conditional updates (WHERE state = the state read): of two requests racing from the same "
    "state exactly one applies; the other decides again from the state it then finds (so a second prepare is "
    "refused `invalid_transition` from ready).",
]


class ProductLaunchBody(Schema):
    action = fields.String(required=True, validate=validate.OneOf(launch_state.ACTIONS),
                           metadata={"reason": "invalid_action"})


class LaunchStateSchema(Schema):
    product_id = fields.String(required=True)
    state = fields.String(required=True, metadata={"enum": list(launch_state.STATES)})
    previous = fields.String(required=True, allow_none=True, metadata={"enum": list(launch_state.STATES)})
    allowed = fields.List(fields.String(metadata={"enum": launch_state.ACTIONS}), required=True,
                          metadata={"description": "The actions from this state that can run today"})
    blocked = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True,
                          metadata={"description": "For each action from this state that cannot run today, the "
                                                   "launch facts it waits on"})
    changed_at = fields.String(required=True, allow_none=True)


class ProductLaunchAnswer(LaunchStateSchema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})


@bp.post("/api/product-launch")
@bp.declare(changes_state=True, refuses={200: ["not_claimed"], 409: ["launch_blocked", "invalid_transition",
                                                                      "claim_required"]})
@bp.arguments(ProductLaunchBody)
@bp.response(200, ProductLaunchAnswer)
def product_launch(body):
    """Moves the launch state of the founder's claimed product: prepare, launch, pause, resume or retire."""
    answer, jobs = launch_state.transition(session=current_session(), action=body["action"])
    send_all(jobs)
    return answer
