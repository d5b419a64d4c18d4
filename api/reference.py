"""Reference routes: the reasons registry, the controls registry and the OpenAPI document."""
from flask import current_app, jsonify
from marshmallow import Schema, fields

from api.openapi import controls
from api.routing import Blueprint
from services.reasons import REASONS

bp = Blueprint("reference", __name__, description="The registries and this document.")


class ReasonsSchema(Schema):
    reasons = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    count = fields.Integer(required=True)


class ControlsSchema(Schema):
    controls = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True)
    count = fields.Integer(required=True)


@bp.get("/api/reasons")
@bp.declare(changes_state=False)
@bp.response(200, ReasonsSchema)
def reasons():
    """Lists every reason code the service can answer with, and its sentence."""
    return {"reasons": {code: reason.sentence for code, reason in sorted(REASONS.items())}, "count": len(REASONS)}


@bp.get("/api/controls")
@bp.declare(changes_state=False)
@bp.response(200, ControlsSchema)
def list_controls():
    """Lists every route the service serves, keyed METHOD /path, with what it does."""
    found = controls(current_app)
    return {"controls": found, "count": len(found)}


@bp.get("/api/openapi.json")
@bp.declare(changes_state=False)
@bp.response(200, {"type": "object"})
def openapi_document():
    """Serves this OpenAPI document, generated from the routes and their schemas."""
    return jsonify(current_app.extensions["openapi"]())
