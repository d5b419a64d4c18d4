"""GET /api/health: which build answers, and whether its database, broker and worker do."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from config import get_settings
from jobs.send import broker_status
from services.health import database_status, mail_status, overall_status, worker_status

bp = Blueprint("health", __name__, description="Liveness and which build answers.")

DECISIONS: list[str] = [
    "Inbound mail on several hosts: with REDIS_URL set (the production topology) a local INBOUND_MAILDIR is not "
    "refused at start, because one host running web, workers and clock (make procs) reads its own folder "
    "correctly. Several hosts need IMAP_URL, or one folder every host mounts, declared with INBOUND_DIR_SHARED=1 "
    "(README, Processes in production). Each worker's beat records its host and the mail it reads; /api/health "
    "names the mail source and, when workers on several hosts read folders local to their host, sets "
    "mail.warning and logs a warning naming the hosts (status is left to the database, broker and workers).",
]


class BackendSchema(Schema):
    backend = fields.String(required=True)
    ok = fields.Boolean(required=True)


class WorkerSchema(Schema):
    heard_from = fields.Boolean(required=True)
    last_seen = fields.String(allow_none=True, required=True)
    age_seconds = fields.Float(allow_none=True, required=True)


class MailSchema(Schema):
    source = fields.String(required=True, metadata={"enum": ["imap", "folder"],
                                                    "description": "Where the support desk reads inbound mail."})
    folder = fields.String(allow_none=True, required=True, metadata={"description": "The folder, when it is one."})
    folder_shared = fields.Boolean(required=True, metadata={
        "description": "The folder is declared to be one that every host mounts (INBOUND_DIR_SHARED)."})
    local_folder_hosts = fields.Integer(required=True, metadata={
        "description": "Hosts whose workers, heard from recently, read a folder local to their host."})
    warning = fields.String(allow_none=True, required=True, metadata={
        "description": "Set when workers on several hosts read local folders: mail delivered on one host is "
                       "filed only by that host's workers."})


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "degraded"]})
    build = fields.String(required=True)
    database = fields.Nested(BackendSchema, required=True)
    broker = fields.Nested(BackendSchema, required=True)
    worker = fields.Nested(WorkerSchema, required=True)
    mail = fields.Nested(MailSchema, required=True)


@bp.get("/api/health")
@bp.declare(changes_state=False)
@bp.response(200, HealthSchema)
def health():
    """Says which build answers and whether its database, broker and worker are reachable:
    `ok` only when all three are, `degraded` otherwise (still 200). `mail` names where the
    support desk reads inbound mail, and warns when workers on several hosts read folders
    local to their host (the status stays as the three say)."""
    settings = get_settings()
    database = database_status(settings.database_backend)
    parts = {
        "database": database,
        "broker": broker_status(),
        "worker": worker_status(stale_seconds=settings.worker_stale_seconds, database_ok=database["ok"]),
    }
    mail = mail_status(settings, stale_seconds=settings.worker_stale_seconds, database_ok=database["ok"])
    return {"status": overall_status(**parts), "build": settings.build, **parts, "mail": mail}
