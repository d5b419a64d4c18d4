"""Research runs and the research workspace (spec 4.7, 5.13): both belong to the signed-in
account, and a session without one is answered with the sign-in-to-research sentence."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.discovery import DiscoverBody
from api.errors import SIGN_IN_TO_RESEARCH
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import discovery, workspace

bp = Blueprint("workspace", __name__, description="Research runs and the research workspace of an account.")

MAX_ID = 2**63 - 1  # ids are 64-bit; a larger number cannot name an entry

DECISIONS: list[str] = [
    "GET and POST /api/discovery-research and /api/research-workspace belong to the signed-in account (a session "
    "that opened a sign-in link; an address saved by POST /api/account and not yet proven does not count): every session of that account reads and changes "
    "the same runs and workspace, and no other session, signed in or not, ever sees them. A session without an "
    "account is answered 401 {status: refused, explanation} with no reason code, as spec 5.13 has it (\"none "
    "(explanation only)\"); the explanation is always: " + SIGN_IN_TO_RESEARCH + " It is the service's one refusal "
    "without a reason code (every other refusal is {status, reason, explanation}), and it comes first, before the "
    "body is read, as 401 `no_account` does on the routes that need an account.",
    f"POST /api/discovery-research {{q?, mode?: new|refresh, use_research_brief?}} (validated as for POST "
    f"/api/discover, q at most {discovery.MAX_QUERY_CHARS} characters) starts a run of {discovery.DISCOVER_SCRIPT} "
    "in a worker for the account and answers at once, without waiting: 200 {status: started, ...} when it started "
    "one, or {status: running, ...} with the run already queued or running for the account (one at a time per "
    "account, shared by its sessions; that run's q and mode stand). The rest of the answer is the run's report, "
    "as GET gives it.",
    "GET /api/discovery-research reports the account's latest run: {status: queued|running|done|failed (also as "
    "`state`), job_id, stage, query, mode, use_research_brief, ran (the script when no q), result (null until "
    "finished; then ok on exit code 0, else refused), exit_code, log, stderr (the script's non-blank output lines, "
    "unedited; empty until finished), created_at, started_at, finished_at}, with timed_out, truncated and error as "
    "for POST /api/discover (a failed run never reached an exit: exit_code -1 and error). With no run yet it "
    "answers 200 {status: never_run, explanation}: a state, not a failure.",
    "GET /api/research-workspace answers {status: ok, notes: [{id, text, created_at}], shortlist: [{product_id, "
    "name, added_at}], saved_queries: [{id, query, created_at}]}, each newest first. POST {op, ...} changes it and "
    "answers the whole workspace with `op` (and the new `note` or `saved_query`): add_note {text}, delete_note "
    "{id}, shortlist {product_id}, unshortlist {product_id}, save_query {query}, delete_query {id}.",
    f"Workspace limits: a note is at most {workspace.MAX_NOTE_CHARS} characters (blank or missing: 400 "
    f"`empty_note`; longer: 400 `note_too_long`), a saved query 1 to {discovery.MAX_QUERY_CHARS} characters "
    f"(400 `invalid_query`); an account keeps at most {workspace.MAX_NOTES} notes, {workspace.MAX_SHORTLIST} "
    f"shortlisted products and {workspace.MAX_SAVED_QUERIES} saved queries, and an add past that is 409 "
    "`workspace_full`. Text is kept trimmed of surrounding blanks. A product is shortlisted and a query saved once "
    "per account (a unique index decides, even for two adds at once): adding it again answers ok and keeps the "
    "first entry. Other refusals: 400 `unknown_workspace_op` (no or another op), `no_product_id`, "
    "`unknown_product` (not in the catalog), `invalid_request` (delete_note or delete_query without an id, an id "
    "that is not a positive integer, or a field of the wrong type); 404 `not_found` (no note or saved query of "
    "yours has that id, or the product is not on your shortlist: another account's entries answer exactly like "
    "ones that never existed).",
    "A product claimed by another founder never reaches the workspace: shortlisting it is 409 "
    "`claimed_by_another_founder` (as select and claim answer), and a product shortlisted before someone else "
    "claimed it is left out of the shortlist (and of its count) from then on. Your own claimed product can be "
    "shortlisted.",
]


class ResearchRunBody(DiscoverBody):
    """POST /api/discover's body, field for field."""


class ResearchRunAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": sorted({discovery.STARTED, *discovery.RUN_STATES,
                                                                    discovery.NEVER_RUN})})
    state = fields.String(metadata={"enum": list(discovery.RUN_STATES)})
    job_id = fields.String()
    stage = fields.String(allow_none=True)
    result = fields.String(allow_none=True, metadata={"enum": ["ok", "refused", None]})
    query = fields.String(allow_none=True)
    mode = fields.String(allow_none=True)
    use_research_brief = fields.Boolean()
    ran = fields.String(allow_none=True)
    exit_code = fields.Integer(allow_none=True)
    log = fields.List(fields.String())
    stderr = fields.List(fields.String())
    timed_out = fields.Boolean()
    truncated = fields.Boolean()
    error = fields.String()
    created_at = fields.String()
    started_at = fields.String(allow_none=True)
    finished_at = fields.String(allow_none=True)
    explanation = fields.String()


class NoteSchema(Schema):
    id = fields.Integer(required=True)
    text = fields.String(required=True)
    created_at = fields.String(required=True)


class ShortlistEntrySchema(Schema):
    product_id = fields.String(required=True)
    name = fields.String(required=True)
    added_at = fields.String(required=True)


class SavedQuerySchema(Schema):
    id = fields.Integer(required=True)
    query = fields.String(required=True)
    created_at = fields.String(required=True)


class WorkspaceAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    notes = fields.List(fields.Nested(NoteSchema), required=True)
    shortlist = fields.List(fields.Nested(ShortlistEntrySchema), required=True)
    saved_queries = fields.List(fields.Nested(SavedQuerySchema), required=True)
    op = fields.String(metadata={"enum": list(workspace.OPS)})
    note = fields.Nested(NoteSchema)
    saved_query = fields.Nested(SavedQuerySchema)


class WorkspaceBody(Schema):
    op = fields.String(required=True, validate=validate.OneOf(workspace.OPS),
                       metadata={"reason": "unknown_workspace_op"})
    text = fields.String(allow_none=True, load_default=None, metadata={"description": "add_note"})
    id = fields.Integer(allow_none=True, load_default=None, validate=validate.Range(min=1, max=MAX_ID),
                        metadata={"description": "delete_note, delete_query"})
    product_id = fields.String(allow_none=True, load_default=None, metadata={"description": "shortlist, unshortlist"})
    query = fields.String(allow_none=True, load_default=None, metadata={"description": "save_query"})

    # Each op's own field (services/workspace.change): the text of a note or the words of a
    # query with a character that is not a space, a product id, or the id of an entry.
    BODY_RULES = {"anyOf": [
        {"required": ["op", "text"], "properties": {
            "op": {"enum": [workspace.ADD_NOTE]},
            "text": {"type": "string", "pattern": bounds.NOT_BLANK, "maxLength": workspace.MAX_NOTE_CHARS}}},
        {"required": ["op", "id"], "properties": {
            "op": {"enum": [workspace.DELETE_NOTE, workspace.DELETE_QUERY]}, "id": {"type": "integer", "minimum": 1}}},
        {"required": ["op", "product_id"], "properties": {
            "op": {"enum": [workspace.SHORTLIST, workspace.UNSHORTLIST]},
            "product_id": {"type": "string", "minLength": 1}}},
        {"required": ["op", "query"], "properties": {
            "op": {"enum": [workspace.SAVE_QUERY]},
            "query": {"type": "string", "pattern": bounds.NOT_BLANK, "maxLength": workspace.MAX_QUERY_CHARS}}},
    ]}


WORKSPACE_REFUSALS = {
    400: ["unknown_workspace_op", "empty_note", "note_too_long", "invalid_query", "no_product_id", "unknown_product",
          "invalid_request"],
    404: ["not_found"],
    409: ["workspace_full", "claimed_by_another_founder"],
}


@bp.get("/api/discovery-research")
@bp.declare(changes_state=False, sign_in_to_research=True)
@bp.response(200, ResearchRunAnswer)
def research_run():
    """Reports the account's latest discovery research run: its state, stage, times and, once finished, its output."""
    return discovery.run_report(discovery.latest_run(subject=discovery.account_runs(current_session().account_id)))


@bp.post("/api/discovery-research")
@bp.declare(changes_state=True, sign_in_to_research=True)
@bp.arguments(ResearchRunBody)
@bp.response(200, ResearchRunAnswer)
def start_research_run(body):
    """Starts a discovery research run for the account in a worker (or joins the one in progress); does not wait."""
    job, created = discovery.start_discovery(subject=discovery.account_runs(current_session().account_id),
                                             query=body.get("q"), mode=body.get("mode"),
                                             use_research_brief=bool(body.get("use_research_brief")))
    send_all([job] if created else [])
    return discovery.start_report(job, created=created)


@bp.get("/api/research-workspace")
@bp.declare(changes_state=False, sign_in_to_research=True)
@bp.response(200, WorkspaceAnswer)
def research_workspace():
    """Reads the account's research workspace: notes, shortlisted products and saved queries."""
    return workspace.workspace(account_id=current_session().account_id)


@bp.post("/api/research-workspace")
@bp.declare(changes_state=True, sign_in_to_research=True, refuses=WORKSPACE_REFUSALS)
@bp.arguments(WorkspaceBody)
@bp.response(200, WorkspaceAnswer)
def change_research_workspace(body):
    """Adds or deletes a note, shortlists or unshortlists a product, saves or deletes a query; answers the workspace."""
    return workspace.change(account_id=current_session().account_id, **body)
