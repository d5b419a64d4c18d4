"""GET /api/health: which build answers, and whether its database, broker and worker do."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from config import get_settings
from jobs.send import broker_status
from services.health import database_status, overall_status, worker_status

bp = Blueprint("health", __name__, description="Liveness and which build answers.")


class BackendSchema(Schema):
    backend = fields.String(required=True)
    ok = fields.Boolean(required=True)


class WorkerSchema(Schema):
    heard_from = fields.Boolean(required=True)
    last_seen = fields.String(allow_none=True, required=True)
    age_seconds = fields.Float(allow_none=True, required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "degraded"]})
    build = fields.String(required=True)
    database = fields.Nested(BackendSchema, required=True)
    broker = fields.Nested(BackendSchema, required=True)
    worker = fields.Nested(WorkerSchema, required=True)


@bp.get("/api/health")
@bp.declare(changes_state=False)
@bp.response(200, HealthSchema)
def health():
    """Says which build answers and whether its database, broker and worker are reachable:
    `ok` only when all three are, `degraded` otherwise (still 200)."""
    settings = get_settings()
    parts = {
        "database": database_status(settings.database_backend),
        "broker": broker_status(),
        "worker": worker_status(stale_seconds=settings.worker_stale_seconds),
    }
    return {"status": overall_status(**parts), "build": settings.build, **parts}
