"""The founder's storefront: build it, follow its stages, publish it (spec 2.7, 4.4, 4.7)."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import ai_tasks
from services.store import builds, document, publish, render, state

bp = Blueprint("store", __name__, description="Storefront generation and publishing.")

_STATUSES = [state.BUILDING, state.PUBLISHING, state.BUILT, state.PUBLISHED, state.FAILED]
# The pages of a store below /store/<slug>/ (home is the address itself).
_PAGES = [render.page_path(page_id) for page_id in render.PAGE_IDS if page_id != "home"]

DECISIONS: list[str] = [
    "A store is built for the session's resolved product, claimed or held (spec 2: one resolver); with neither, "
    "POST /api/store answers 200 {status: not_claimed, reason: not_claimed, explanation} as spec 4.4 says (every "
    "`not_claimed` answer carries `status: not_claimed`, a state rather than a refusal). Building and editing "
    "need no claim; publishing, going live and taking money do (409 `claim_required` on a hold). One store per "
    "product; its address is /store/<slug>/, the slug made from the product's name and a short hash of its id. "
    "A store belongs to the founder who built it: a store built on a hold that lapsed is discarded, unpublished, "
    "when the product's next founder (holding or claiming it) opens or builds its store; until then it is "
    "nobody's to see (its builder's own preview included, once the product is no longer theirs).",
    f"POST /api/store (no body) starts a `{builds.BUILD}` job, or reports the one queued or running (one per "
    "product: the job table's unique index decides, however many requests race). Stages as the job really moves: "
    f"{' -> '.join(builds.STAGES)}; then `{state.PUBLISHED}` after POST /api/store/publish. A build that fails ends "
    f"`{state.FAILED}` with reason `generation_failed` (the explanation says when the AI backend could not be "
    "reached or did not finish); the next POST starts afresh. POST on a built store builds a new version, which "
    "becomes the draft.",
    "What a rebuild keeps: building a new version (POST /api/store on a built store, or a regeneration before "
    "publishing) writes the store afresh from the product record and puts back every change the founder made that "
    "the draft carries: each copy field a plain-language edit, an applied intent, a leading section or a revert "
    "changed, and the section the home page leads with (the founder's own price and product details are kept "
    "as their product's, as before). Each version records those parts (`founder_changes`, added to by every "
    "version the founder makes, inherited by every other); GET /api/store lists them as `your_changes` before "
    "and after a build, and the build's version summary names them. A change the founder stepped back from is "
    "not the draft's and is not kept. A founder's sentence the product record no longer backs (their price "
    "moved, say) is left out, the rest of the field kept (the new build's words where nothing valid would be "
    "left), and reported in `unbacked` with `yours: true`: never dropped silently.",
    "GET and POST /api/store answer the store's state (StoreAnswer; each field says what it holds). Before the "
    "first build GET answers 200 `not_yet_researched` (the store is not started).",
    f"The store is a versioned JSON document (format {document.FORMAT}: "
    + ", ".join(document.SCHEMA["properties"]) + "); every change (a build, an edit, an applied intent) stores a new "
    "numbered version with the RFC 6902 JSON Patch from the version it was made from, so any version can be "
    "rendered again exactly. Pages are a pure function of the document. The draft (`draft_version`) is the version the owner's preview shows and a publish "
    "publishes: the newest, unless the editor's undo or redo moved it.",
    f"POST /api/store/publish (no body) runs a `{publish.PUBLISH}` job and waits for it up to "
    f"{state.PUBLISH_WAIT_SECONDS} s: it re-checks the draft (every page renders and parses with a "
    "title and one h1, internal links name pages, images resolve, the price equals the offer's, no sentence the "
    "product record cannot back) and publishes it, regenerating first when the price moved or a sentence lost "
    f"its backing. Answers the store's state (`{state.PUBLISHED}`, or `{state.PUBLISHING}` while the check still "
    "runs); 500 `verify_failed` when the check could not run; 200 `generation_failed` when a needed regeneration "
    "failed; 409 `not_started` before the first build. A store is never called published unless the check passed.",
    "The copy is written by the AI backend (AI_BACKEND): `offline` (default; a deterministic copywriter that "
    "writes only from the product record, its evidence and the offer's price, no network), `openai` (any "
    "OpenAI-compatible chat-completions server: AI_BASE_URL, AI_MODEL, AI_API_KEY) or `command` (AI_COMMAND, "
    "given the task as JSON on stdin, answering one JSON object on stdout). An answer that does not follow the "
    "copy's schema is asked for once more, then the build fails; one that fails or times out "
    "(AI_TIMEOUT_SECONDS) fails the build. Only the product's public facts are sent to a model (never its cost, "
    "supplier quotes or margins).",
    "One retry policy for every job that writes with the AI backend (a build, a publish that regenerates, a "
    f"plain-language edit): a backend that cannot be reached or started is tried again, {ai_tasks.ATTEMPTS} runs "
    f"in all, {' and '.join(map(str, ai_tasks.RETRY_DELAYS))} s after the failed ones; when they are spent a "
    "build fails `generation_failed` (the backend could not be reached) and an edit is refused "
    "`cli_unavailable`. A backend that answered with an error or too late, or twice with no valid copy, is not "
    "tried again (the same request would fail the same way): a build fails, an edit is refused `cli_failed`.",
    "The buy box takes orders (a form posted to /store/<slug>/checkout, as POST /api/store/checkout takes them) "
    "when the version "
    "shown was built while a payment provider was configured (the document's `checkout` is true) and one still "
    "is (PAYMENT_PROVIDER not `off`); otherwise it shows closed. A store built while payments were off stays "
    "closed until it is rebuilt and published.",
    "Public pages: GET /store/<slug>/ (and " + ", ".join(_PAGES) + ", sitemap.xml, "
    "robots.txt) serve the published version to anyone; before publishing they are 404 `not_found`. "
    "GET /store/<slug>/preview/... serves the draft to the session whose claimed product it is (404 "
    "to anyone else), marked noindex with a preview banner. A public page's content security policy allows "
    "scripts and fetches of this origin only (`script-src 'self'; connect-src 'self'`: the funnel events' "
    "/static/storefront/track.js, see POST /api/track), no inline script; a preview's allows no script at all.",
    "Concurrent POST /api/store for one product start one build (issue 51.6): the job table's partial unique "
    "index (one queued or running job per kind and subject) decides in every process, and every answer names "
    "that job. A second build starts only once the first has finished (tests/test_store_build_race.py, with the "
    "worker held).",
]


class LeadSchema(Schema):
    section = fields.String(required=True, metadata={"description": "A home page section's name"})
    said = fields.String(required=True, metadata={"description": "The section in a founder's words (\"the questions\")"})


class ChangedPartSchema(Schema):
    part = fields.String(required=True, metadata={"description": "A copy field's name, or `lead`"})
    said = fields.String(required=True, metadata={"description": "The part in a founder's words (\"the headline\")"})


class StoreAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": _STATUSES, "description": (
        f"`{state.BUILDING}` or `{state.PUBLISHING}` while a job runs; `{state.PUBLISHED}` when the draft is the "
        f"published version, else `{state.BUILT}`; `{state.FAILED}` when the latest build failed")})
    stage = fields.String(required=True, metadata={"description": (
        "The running job's stage (a build: " + ", ".join(builds.STAGES) + "; a publish: verifying, and a "
        "regeneration's stages when it needs one); otherwise the status")})
    product_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The newest version built (0 before the first)"})
    draft_version = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The version the editor shows, previews and publishes (the newest unless undo or redo moved "
                       "it); null before the first build"})
    published_version = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The version the public pages serve; null until published"})
    preview_url = fields.String(required=True, allow_none=True, metadata={
        "description": "The owner's preview of the draft, /store/<slug>/preview/; null before the first build"})
    public_url = fields.String(required=True, allow_none=True, metadata={
        "description": "The store's public address, /store/<slug>/; null until published"})
    updated_at = fields.String(required=True)
    job_id = fields.String(metadata={"description": "The build or publish job, while one runs"})
    reason = fields.String(metadata={"description": "`generation_failed`, when the latest build failed"})
    explanation = fields.String(metadata={"description": "Why the latest build failed, in words"})
    last_publish = fields.Dict(metadata={
        "description": f"{{status: {state.FAILED}, reason: verify_failed | generation_failed, explanation}}, when "
                       "the latest publish failed"})
    leads = fields.List(fields.Nested(LeadSchema), required=True, metadata={
        "description": "The sections the home page can lead with (POST /api/intent/order's `section`), in order, "
                       "each as the editor's screen names it"})
    unbacked = fields.List(fields.Dict(), required=True, metadata={
        "description": "Sentences written for the draft that the product record cannot back: left out of the "
                       "store, each {reason: unbacked_claim, field, sentence, why: number|certification|origin, "
                       "yours (true: the founder's own words, which a rebuild could not keep)}"})
    your_changes = fields.List(fields.Nested(ChangedPartSchema), required=True, metadata={
        "description": "The founder's changes the draft carries (edited copy fields, the leading section): what "
                       "building a new version keeps"})


@bp.get("/api/store")
@bp.declare(changes_state=False, refuses={200: ["not_claimed", "not_yet_researched"], 409: ["build_in_progress"]})
@bp.response(200, StoreAnswer)
def get_store():
    """The state of the founder's storefront: its build stage, versions and addresses."""
    return state.read(session=current_session())


@bp.post("/api/store")
@bp.declare(changes_state=True, no_body=True, refuses={200: ["not_claimed"], 409: ["build_in_progress"]})
@bp.response(200, StoreAnswer)
def build_store():
    """Starts building the founder's storefront, or reports the build that is running."""
    answer, jobs = state.start(session=current_session())
    send_all(jobs)
    return answer


@bp.post("/api/store/publish")
@bp.declare(changes_state=True, no_body=True,
            refuses={200: ["not_claimed", "generation_failed"], 409: ["not_started", "claim_required"],
                     500: ["verify_failed"]})
@bp.response(200, StoreAnswer)
def publish_store():
    """Re-checks the newest version of the founder's store and publishes it, regenerating it first if needed."""
    job, created, product_id = state.start_publishing(session=current_session())
    send_all([job] if created else [])
    return state.publish_answer(job.id, product_id)
