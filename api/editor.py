"""The store editor: its versions and draft, undo, redo and go-to-version, and publishing
the draft (spec 4.4 editor, 4.7 ai/edit and editor/publish)."""
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from api.store import StoreAnswer
from jobs.send import send_all
from services.errors import Refused
from services.meter import METER_REFUSALS, metered
from services.store import builds, editor, edits, state
from services.store.document import COPY_FIELDS

bp = Blueprint("editor", __name__, description="The store editor.")

MAX_MESSAGE = 2000
EDIT_BUCKET = "website_edit"

DECISIONS: list[str] = [
    "Store versions form a history: each version names the one it was made from, and the store has a draft (the "
    "version the editor shows, previews and publishes; the newest unless moved). POST /api/ai/edit with "
    "`direction: undo` moves the draft to its parent, `redo` to the newest version made from it, `version: n` to "
    "version n; moving writes no version and is not metered. Answers {status: edited, product_id, version (the "
    "draft now), moved, diff: []}; 200 `nothing_to_undo`, `nothing_to_redo`, `no_history` (one version only), "
    "`no_direction` (another direction), `unknown_version`. The next change is made from the draft.",
    f"POST /api/ai/edit needs a signed-in account (401 `no_account`). A `message` (at most {MAX_MESSAGE} "
    "characters: 400 `message_too_long`; blank with no direction or version: 400 `no_message`; a `field` the "
    "store copy does not have: 200 `unknown_field`) is a plain-language edit of the draft, run by the AI backend "
    "in a `store_edit` job: the whole copy as it should read afterwards (and a leading section when asked), "
    "applied as a new version made from the draft. Answers {status: edited, version, diff (the RFC 6902 patch)}. "
    "It is charged to `website_edit` (spec 8.1; 429 at the limit) only when a version results: every refusal is "
    "refunded: 200 `no_diff` (nothing would change), `too_long` (a field past its bounds), `unbacked_claim` (a "
    "sentence the product record cannot back, named, with `unbacked`), `editor_unavailable` (words outside the "
    "request grammar both editors share (services/plain_requests.py: shorten, lengthen, mention, remove, replace, "
    "set, lead with, tone, price, add a question; requests joined by and/then/;/a full stop applied together as "
    "one version): refused whole, with `examples`, the three understood requests nearest to the words, filled from "
    "the founder's store), `cli_unavailable` (the model could not be reached, "
    "after the AI jobs' retries: see the store's decisions), `cli_failed` (the model failed, or answered no valid "
    "copy), `unknown_diff` (the edit "
    "names a section the store does not have), `invalid_price` (a new price outside 0.01 to 100,000; a price "
    "within them is kept as the founder's own price, as POST /api/product does, and the copy is tidied of the "
    "old one); 409 `build_in_progress` "
    "while a build, publish, change or another edit runs.",
    "GET /api/editor/versions answers {status: ok, product_id, draft_version, published_version, versions: "
    "[{number, created_at, summary, parent, draft, published}]} newest first; GET /api/editor/versions/<n> one "
    "version with its `document` and its RFC 6902 `patch` from its parent (400 `unknown_version`); GET "
    "/api/editor/draft the draft with its document and preview_url. All 409 `not_started` before the first build "
    "and 200 `not_claimed` with no product held or claimed (a held product's store is edited like a claimed "
    "one's). POST /api/editor/publish publishes the draft exactly as POST /api/store/publish does (409 "
    "`claim_required` on a hold).",
    "Plain words without a model (issue 50): one grammar for the store and the ad editor; its parts are named by a "
    "founder's words (\"tagline\": the line under the headline; \"description\": the About text in a store, the "
    "description line in an ad). A \"mention\" that states a return window, shipping time, guarantee or where the "
    "business ships saves it as the founder's statement (business settings) in the same transaction as the new "
    "version; a refused edit states nothing. A \"shorter\" text keeps whole words and the product's name "
    "(copy_text.shorter). With a model backend the task's `current.requests` carries the grammar's reading, and "
    "the answer's rewritten fields must read whole (no trailing ellipsis, no word or product name cut short): "
    "otherwise the model is asked again with why, then the edit is refused `cli_failed` in words (never a schema "
    "path).",
]


class EditBody(Schema):
    message = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100_000))
    field = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=80))
    version = fields.Integer(load_default=None, allow_none=True, strict=True)
    direction = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40))


class EditAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["edited"]})
    product_id = fields.String(required=True)
    version = fields.Integer(required=True)
    moved = fields.String()
    diff = fields.List(fields.Dict(), required=True)


class VersionEntry(Schema):
    number = fields.Integer(required=True)
    created_at = fields.String(required=True)
    summary = fields.String(required=True)
    parent = fields.Integer(required=True, allow_none=True)
    draft = fields.Boolean(required=True)
    published = fields.Boolean(required=True)


class VersionsAnswer(Schema):
    status = fields.String(required=True)
    product_id = fields.String(required=True)
    draft_version = fields.Integer(required=True)
    published_version = fields.Integer(required=True, allow_none=True)
    versions = fields.List(fields.Nested(VersionEntry), required=True)


class VersionAnswer(VersionEntry):
    status = fields.String(required=True)
    product_id = fields.String(required=True)
    document = fields.Dict(required=True)
    patch = fields.List(fields.Dict(), required=True)


class HomeSection(Schema):
    section = fields.String(required=True, metadata={"description": "the section's name (hero, benefits, ...)"})
    said = fields.String(required=True, metadata={"description": "the section as the founder's screens name it"})
    shoppers_see = fields.Boolean(required=True, metadata={
        "description": "false: only the founder's preview shows it (the evidence rows, when nothing they back is "
                       "said to shoppers)"})


class DraftAnswer(VersionEntry):
    status = fields.String(required=True)
    product_id = fields.String(required=True)
    document = fields.Dict(required=True)
    preview_url = fields.String(required=True)
    home_sections = fields.List(fields.Nested(HomeSection), required=True, metadata={
        "description": "the draft's home page as its preview shows it, top to bottom: the sections with something "
                       "to show, the lead first (the Store screen draws it)"})


def _claimed() -> str:
    return builds.store_product(current_session())


@bp.post("/api/ai/edit")
@bp.declare(changes_state=True, requires_account=True,
            refuses={400: ["no_message", "message_too_long"], 409: ["not_started", "build_in_progress"],
                     200: ["not_claimed", "nothing_to_undo", "nothing_to_redo", "no_history", "no_direction",
                           "unknown_version", "unknown_field", "editor_unavailable", "no_diff", "too_long",
                           "unbacked_claim", "cli_unavailable", "cli_failed", "unknown_diff", "invalid_price"],
                     429: list(METER_REFUSALS)})
@bp.arguments(EditBody)
@bp.response(200, EditAnswer)
def ai_edit(body):
    """Edits the store in plain language as a new version (metered), or moves its draft (undo, redo, go to a version)."""
    product_id = _claimed()
    if body["version"] is not None or body["direction"] is not None:
        return editor.move(product_id, direction=body["direction"], to=body["version"])
    message = (body["message"] or "").strip()
    if not message:
        raise Refused("no_message")
    if len(message) > MAX_MESSAGE:
        raise Refused("message_too_long", f"An edit is at most {MAX_MESSAGE} characters; this one has {len(message)}.")
    if body["field"] is not None and body["field"] not in COPY_FIELDS:
        raise Refused("unknown_field", f"Your store's copy has no field {body['field'][:40]!r}; it has "
                                       f"{', '.join(COPY_FIELDS)}.")
    session = current_session()
    # Charged before the work, refunded by every refusal: only an edit that made a version costs.
    with metered(session.account_id, EDIT_BUCKET):
        job = edits.start(product_id=product_id, message=message, field=body["field"])
        send_all([job])
        return edits.result(job.id)


@bp.get("/api/editor/versions")
@bp.declare(changes_state=False, refuses={200: ["not_claimed"], 409: ["not_started"]})
@bp.response(200, VersionsAnswer)
def editor_versions():
    """Every version of the founder's store, newest first, with the draft and the published one marked."""
    return editor.versions(_claimed())


@bp.get("/api/editor/versions/<number>")
@bp.declare(changes_state=False, refuses={200: ["not_claimed"], 400: ["unknown_version"], 409: ["not_started"]})
@bp.response(200, VersionAnswer)
def editor_version(number):
    """One version of the founder's store: its document and the patch from the version it was made from."""
    product_id = _claimed()
    if not number.isdigit() or len(number) > 9:
        raise Refused("unknown_version", "A version is named by its number: 1, 2, 3...")
    return editor.version(product_id, int(number))


@bp.get("/api/editor/draft")
@bp.declare(changes_state=False, refuses={200: ["not_claimed"], 409: ["not_started"]})
@bp.response(200, DraftAnswer)
def editor_draft():
    """The draft of the founder's store: the version the editor shows, previews and publishes."""
    return editor.draft(_claimed())


@bp.post("/api/editor/publish")
@bp.declare(changes_state=True, no_body=True,
            refuses={200: ["not_claimed", "generation_failed"], 409: ["not_started", "claim_required"],
                     500: ["verify_failed"]})
@bp.response(200, StoreAnswer)
def editor_publish():
    """Re-checks the draft of the founder's store and publishes it, regenerating it first if needed."""
    job, created, product_id = state.start_publishing(session=current_session())
    send_all([job] if created else [])
    return state.publish_answer(job.id, product_id)
