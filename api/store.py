"""The founder's storefront: build it, follow its stages, publish it (spec 2.7, 4.4, 4.7)."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import ai_tasks
from services.store import builds, state

bp = Blueprint("store", __name__, description="Storefront generation and publishing.")

DECISIONS: list[str] = [
    "A store is built for the session's resolved product, claimed or held (spec 2: one resolver); with neither, "
    "POST /api/store answers 200 {status: not_claimed, reason: not_claimed, explanation} as spec 4.4 says (every "
    "`not_claimed` answer carries `status: not_claimed`, a state rather than a refusal). Building and editing "
    "need no claim; publishing, going live and taking money do (409 `claim_required` on a hold). One store per "
    "product; its address is /store/<slug>/, the slug made from the product's name and a short hash of its id. "
    "A store belongs to the founder who built it: a store built on a hold that lapsed is discarded, unpublished, "
    "when the product's next founder (holding or claiming it) opens or builds its store; until then it is "
    "nobody's to see (its builder's own preview included, once the product is no longer theirs).",
    "POST /api/store (no body) starts a `store_build` job, or reports the one queued or running (one per product: "
    "the job table's unique index decides, however many requests race). Stages as the job really moves: "
    f"{' -> '.join(builds.STAGES)}; then `published` after POST /api/store/publish. A build that fails ends "
    "`failed` with reason `generation_failed` (the explanation says when the AI backend could not be reached or "
    "did not finish); the next POST starts afresh. POST on a built store builds a new version.",
    "GET and POST /api/store answer {status: building | publishing | built | published | failed, stage, "
    "product_id, version (newest built, 0 before the first), published_version, preview_url (the owner's "
    "preview of the newest version, /store/<slug>/preview/), public_url (once published), updated_at}; `job_id` "
    "while a job runs; `reason` and `explanation` when the latest build failed; `last_publish` {status: failed, "
    "reason, explanation} when the latest publish failed; `unbacked`: the sentences the AI wrote that the product "
    "record cannot back (a number, a certification, a claim of origin), left out of the store and each reported "
    "with reason `unbacked_claim`. Before the first build GET answers 200 "
    "`not_yet_researched` (the store is not started).",
    "The store is a versioned JSON document (format 1: product, price, currency, business, palette, copy, "
    "dated evidence rows, lead section, and per page an ordered list of sections); every build stores a new "
    "numbered version with the RFC 6902 JSON Patch from the one before, so any version can be rendered again "
    "exactly. Pages are a pure function of the document.",
    "POST /api/store/publish (no body) runs a `store_publish` job and waits for it up to "
    f"{state.PUBLISH_WAIT_SECONDS} s: it re-checks the newest version (every page renders and parses with a "
    "title and one h1, internal links name pages, images resolve, the price equals the offer's, no sentence the "
    "product record cannot back) and publishes it, regenerating first when the price moved or a sentence lost "
    "its backing. Answers the store's state (`published`, or `publishing` while the check still runs); 500 "
    "`verify_failed` when the check could not run; 200 `generation_failed` when a needed regeneration failed; "
    "409 `not_started` before the first build. A store is never called published unless the check passed.",
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
    "Until payments exist the store's buy box is shown closed (the document's `checkout` is false): orders open "
    "with the payment provider.",
    "Public pages: GET /store/<slug>/ (and product, faq, shipping, contact, privacy, terms, sitemap.xml, "
    "robots.txt) serve the published version to anyone; before publishing they are 404 `not_found`. "
    "GET /store/<slug>/preview/... serves the newest version to the session whose claimed product it is (404 "
    "to anyone else), marked noindex with a preview banner. A public page's content security policy allows "
    "scripts and fetches of this origin only (`script-src 'self'; connect-src 'self'`: the funnel events' "
    "/static/storefront/track.js, see POST /api/track), no inline script; a preview's allows no script at all.",
]


class StoreAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [state.BUILDING, state.PUBLISHING, state.BUILT,
                                                              state.PUBLISHED, state.FAILED]})
    stage = fields.String(required=True)
    product_id = fields.String(required=True)
    version = fields.Integer(required=True)
    draft_version = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The version the editor shows, previews and publishes (the newest unless undo or redo moved it)"})
    published_version = fields.Integer(required=True, allow_none=True)
    preview_url = fields.String(required=True, allow_none=True)
    public_url = fields.String(required=True, allow_none=True)
    updated_at = fields.String(required=True)
    job_id = fields.String()
    reason = fields.String()
    explanation = fields.String()
    last_publish = fields.Dict()
    unbacked = fields.List(fields.Dict(), required=True, metadata={
        "description": "Sentences the AI wrote for the newest version that the product record cannot back: left out "
                       "of the store, each {reason: unbacked_claim, field, sentence, why: number|certification|origin}"})


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
