"""Evidence-backed store intents: propose, apply, order, revert (spec 2.8, 3, 4.4)."""
from flask import jsonify
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services import assistant, pages
from services.discovery import resolve
from services.errors import Refused
from services.store import builds, intents
from services.store.document import SECTIONS

bp = Blueprint("intents", __name__, description="Evidence-backed store intents.")

DECISIONS: list[str] = [
    "POST /api/intent {message} (the commerce assistant) answers navigate, answer or page. The answer topics "
    "(`question` of the assistant_route kind) are orders, revenue, price, product, next_step, profit, visitors, "
    "ads, verdict and help; each answer is computed by the service, never by the AI, and cites what it read: "
    "next_step {step, route}, profit {orders, profit_minor, currency, source}, visitors {sessions, days, since}, "
    "ads {balance_minor, currency, campaigns, running}, verdict {verdict, rule}. A next_step answer carries the "
    "top-level `route`, as navigate does, for a button. A question it cannot read is kind answer with a screens "
    "cite, and its text starts \"I can't answer that yet; try …\".",
    "An assistant answer's offer or catalog cite {product_id, price, currency, own}: `own` is true when the price "
    "is the founder's own (their own product, or a price they set on a catalog product); the answer then says 'the "
    "price you set', never the catalog's market price or an offer.",
    "POST /api/intent {surface, requested} (surface one of " + ", ".join(intents.SURFACES) + "; requested 1 to "
    "2,000 characters) proposes a change and applies nothing: 200 {status: proposed, because, source_row, "
    "proposal: {surface, requested, because, source_row: {date, source, metric, value}, diff, lead, reversible, "
    "intent_change}}. What it can propose today is the section the home page leads with (" +
    ", ".join(t.section for t in intents.TOPICS) + "), named (\"lead with the price\") or implied by the request's "
    "words; each needs a dated numeric evidence row from the evidence gate's window whose metric can back it (the "
    "newest is cited), whatever the catalog calls the metric: services/evidence_kinds.py reads a metric's kind and "
    "roles (see the research decision on evidence from any catalog). evidence, benefits and hero need demand (a "
    "rank, or a count that is not competition or reviews), and a demand series (one metric from one source) whose "
    "newest reading is falling justifies nothing (the refusal names it); faq needs talk (mentions, posts, "
    "questions); reviews a count of reviews or ratings; price competing listings or a price; shipping a shipping or "
    "delivery time; guarantee a return or refund rate. A rising series is said in `because` (up from its previous "
    "reading, with the change). "
    "200 refusals: `no_product` (nothing held or claimed), `not_an_intent` (px, pt, em, rem or % values, hex "
    "colours), `no_row_justifies_this`, `unknown_section`, `unknown_surface` (a surface not in the list). "
    "`ads` is a surface: before the founder's ad is written (no store built, or the ad job has not written it) it "
    "is 409 `not_started`, whose explanation says the ad is not written yet (the registry's status for "
    "not_started; issue 51.4); once the ad is written, its words are changed on Growth (POST /api/growth/edit, "
    "/api/ad/edit) and an ads intent is 200 `no_row_justifies_this`, saying so. "
    "A body with `message` and neither `surface` nor `requested` is the commerce assistant's (below); any other "
    "body is the engine's, and a missing `surface` or `requested` is 400 `invalid_request` naming it, as before.",
    "POST /api/intent {message} (the product surface's commerce assistant, spec 4.7: it shares the engine intent "
    "route's path; the document's request body is anyOf the two bodies) routes the founder's sentence through "
    "the AI seam (the `assistant_route` kind; the offline backend by default reads it with keyword rules over "
    "the app's screens; the AI only chooses, the service says what is answered) to one of: 200 {status: ok, "
    "kind: navigate, route} with a route of the app (" + ", ".join("#" + r for r in assistant.ROUTES) + "); "
    "{status: ok, kind: answer, answer, cites: [{kind, ...}]} answering about the founder's orders, revenue, "
    "price or product from the service's own rows, each cite naming what it read (kind orders {count, paid}, "
    "revenue {product_id, currency, confirmed_minor, orders}, offer or catalog {product_id, price, currency}, "
    "product {product_id, name}, screens {routes} for a sentence it cannot place) and the screen that shows it "
    "(`route`); or {status: ok, kind: page, page_id, url, title, answer, draft, needs, guest_id?}, a page written "
    "as POST /api/pages writes it (\"make a returns policy page\"; with nothing held or claimed it is written as a "
    "draft, `draft: true` with `needs`, as POST /api/pages does). A missing, null or blank message: 400 "
    f"`no_message`; over {assistant.MAX_MESSAGE} characters: 400 `message_too_long`; the AI backend unreachable or failing: 200 `cli_unavailable` / `cli_failed`. "
    "The sentence is read in an `assistant_route` job that the request waits on (up to "
    f"{assistant.WAIT_SECONDS} s), as every AI task: an unreachable backend is tried again (3 runs in all, 2 s "
    "and 10 s apart) before `cli_unavailable`; a page it asks for is then written by POST /api/pages's own "
    "`page_copy` job. Not metered: spec 8.1 names five buckets, each with the routes it gates, and neither the "
    "assistant nor page writing is among them; the service adds no bucket the spec does not list (both are "
    "one short answer from the founder's own facts).",
    "POST /api/intent/apply {intent_change, confirm?} needs the proposal's intent_change echoed unmodified: it is "
    "signed (HMAC-SHA256 with SECRET_KEY) and carries a fingerprint of the product's evidence. Missing, edited or "
    "another founder's: 409 `no_proposal_echoed`; evidence changed since: 409 `stale_proposal`; already the lead: "
    "409 `nothing_to_apply`; an irreversible proposal without confirm: 409 `irreversible_without_confirmation`; a "
    "build, publish or change running: 409 `build_in_progress`; no store built: 409 `not_started`. Applying records "
    "the intent and writes the new version through a `store_change` job, waited for up to "
    f"{intents.WAIT_SECONDS} s: 200 {{status: applied, product_id, lead, version, intent_id}} (`applying` with "
    "job_id when it takes longer); 500 `apply_build_raised` when the job fails.",
    "POST /api/intent/order {section}: 200 {status: ordered, lead, version}; 400 `no_section` (missing or blank), "
    "`unknown_section`; 409 `build_in_progress`, `not_started`; 500 `order_build_raised`.",
    "POST /api/intent/revert (no body) undoes the newest applied intent the draft carries: one applied on the "
    "draft's line of versions (the draft and the versions it was made from) and not reverted on it, while the "
    "draft still leads with its section. So it agrees with undo and redo (POST /api/ai/edit direction), which "
    "move the draft along that line: after a step back past the apply there is nothing to revert, a step back "
    "past a revert puts the intent back in force, and a rebuild (which keeps the intent's leading section) still "
    "carries it. When nothing changed since the intent, the exact document it changed is restored; otherwise "
    "only the leading section goes back, and every later change (a plain-language edit, a rebuild) stays. "
    "Either way as a new version made from the draft: 200 {status: reverted, product_id, reverted_from: "
    "{surface, diff, lead}, version}; 200 {status: revert_failed, explanation, ...} when the draft moved "
    "while the revert waited; 409 `nothing_to_revert` (saying why: the version being edited carries no applied "
    "change, or it leads with another section now, or the change cannot be undone), `build_in_progress`; 500 "
    "`revert_build_raised`; 500 "
    "`intents_book_unreadable` when the record of applied intents cannot be read.",
    "The assistant's answer topics also include returns, shipping, ships_to and guarantee, read from the "
    "founder's statements (issue 50). They cite {kind: policy, topic, stated, text?, source, route: "
    "#/app/settings}, and while nothing is stated the answer (\"You have not stated ... yet; set it in "
    "Settings.\") carries the top-level `route`.",
    "POST /api/intent reads one of two bodies: {surface, requested} (the engine) or {message} alone (the "
    "assistant). A body with both (issue 51: nothing silently dropped) is 400 `invalid_request` naming `message`; "
    "any other unknown field is 400 `unknown_field`, as on every body.",
]


class EngineIntentBody(Schema):
    surface = fields.String(required=True, validate=validate.Length(min=1, max=40))
    requested = fields.String(required=True, validate=validate.Length(min=1, max=2000))


class AssistantBody(Schema):
    # Blank is what services/assistant.checked_message refuses: nothing left once the runs of
    # whitespace are collapsed ("\t" alone is blank), so the document says "a character that
    # is not a space", not a length of at least one.
    message = fields.String(required=True, metadata={
        "description": "The founder's sentence (the commerce assistant)", "pattern": bounds.NOT_BLANK,
        "maxLength": assistant.MAX_MESSAGE})


class IntentBody(Schema):
    """What the route reads: the engine's body, or the assistant's (`message` alone); the
    document shows the two bodies (anyOf) instead of this union."""

    surface = fields.String(validate=validate.Length(min=1, max=40))
    requested = fields.String(validate=validate.Length(min=1, max=2000))
    message = fields.String(allow_none=True)

    @validates_schema
    def engine_or_assistant(self, data, **kwargs):
        if assistant_body(data):
            return
        if "message" in data:  # both bodies at once: neither, so nothing is silently dropped
            raise ValidationError({"message": ["Send message alone (the assistant) or surface and requested (an "
                                               "intent), not both."]})
        missing = {name: ["Missing data for required field."] for name in ("surface", "requested") if name not in data}
        if missing:
            raise ValidationError(missing)


def assistant_body(data: dict) -> bool:
    return "message" in data and "surface" not in data and "requested" not in data


class SourceRow(Schema):
    date = fields.String(required=True)
    source = fields.String(required=True)
    metric = fields.String(required=True)
    value = fields.Float(required=True, allow_none=True)


class Proposal(Schema):
    surface = fields.String(required=True)
    requested = fields.String(required=True)
    because = fields.String(required=True)
    source_row = fields.Nested(SourceRow, required=True)
    diff = fields.String(required=True)
    lead = fields.String(required=True)
    reversible = fields.Boolean(required=True)
    intent_change = fields.Dict(required=True)


class IntentAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["proposed"]})
    because = fields.String(required=True)
    source_row = fields.Nested(SourceRow, required=True)
    proposal = fields.Nested(Proposal, required=True)


class Cite(Schema):
    kind = fields.String(required=True)
    route = fields.String()


class AssistantAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    kind = fields.String(required=True, metadata={"enum": ["navigate", "answer", "page"]})
    route = fields.String(metadata={"description": "navigate: the app's route"})
    answer = fields.String(metadata={"description": "answer: what the service's own data says"})
    cites = fields.List(fields.Dict(), metadata={"description": "answer: the rows the answer read, each {kind, ...}"})
    page_id = fields.String(metadata={"description": "page: the generated page"})
    url = fields.String()
    title = fields.String()
    guest_id = fields.String()
    draft = fields.Boolean(metadata={"description": "page: written without a product, for the founder to fill"})
    needs = fields.List(fields.String(), metadata={"description": "page: the facts a draft still needs"})


class ApplyBody(Schema):
    intent_change = fields.Dict(load_default=None, allow_none=True)
    confirm = fields.Boolean(load_default=False)


class ApplyAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["applied", "applying"]})
    product_id = fields.String(required=True)
    lead = fields.String(required=True)
    intent_id = fields.Integer(required=True)
    version = fields.Integer(allow_none=True)
    job_id = fields.String()


class OrderBody(Schema):
    # Documented as what start_order takes; a missing, null or other name keeps its own refusal.
    section = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=40),
                            metadata={"enum": list(SECTIONS)})

    # Missing or null answers no_section.
    BODY_RULES = {"required": ["section"], "properties": {"section": {"nullable": False}}}


class OrderAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ordered", "ordering"]})
    lead = fields.String(required=True)
    version = fields.Integer(required=True, allow_none=True)
    job_id = fields.String()


class RevertedFrom(Schema):
    surface = fields.String(required=True)
    diff = fields.String(required=True)
    lead = fields.String(required=True)


class RevertAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["reverted", "revert_failed", "reverting"]})
    product_id = fields.String(required=True)
    reverted_from = fields.Nested(RevertedFrom, required=True)
    version = fields.Integer(allow_none=True)
    explanation = fields.String()
    job_id = fields.String()


@bp.post("/api/intent")
# It applies nothing, but a body-taking request is guarded against other sites like any other.
@bp.declare(changes_state=True, refuses={200: ["no_product", "not_an_intent", "no_row_justifies_this",
                                                "unknown_section", "unknown_surface", "unknown_page",
                                                "cli_unavailable", "cli_failed"],
                                          400: ["no_message", "message_too_long"], 409: ["not_started"]})
@bp.arguments(IntentBody)
@bp.response(200, IntentAnswer)
@bp.doc(requestBody={"content": {"application/json": {"schema": {"anyOf": [EngineIntentBody, AssistantBody]}}}},
        responses={200: {"content": {"application/json": {"schema": {"anyOf": [IntentAnswer, AssistantAnswer]}}}}})
def propose(body):
    """Turns a request in the founder's words into a proposal backed by a dated evidence row (applies nothing),
    or, with `message` alone, answers it as the commerce assistant."""
    if assistant_body(body):
        return jsonify(AssistantAnswer().dump(_assist(current_session(), body["message"])))
    resolved = resolve(current_session())
    if resolved is None:
        raise Refused("no_product", "You have no product yet, so there is no store to change. Hold or claim one first.")
    return intents.propose(product_id=resolved.product_id, surface=body["surface"], requested=body["requested"])


def _assist(session, message) -> dict:
    """The commerce assistant: the sentence is read in a job; a page it asks for is written in another."""
    job = assistant.start(session=session, message=message)
    send_all([job])
    chosen = assistant.choice(job.id)
    if not assistant.wants_page(chosen):
        return assistant.answer(session=session, chosen=chosen)
    page_job = pages.start(session=session, intent=job.payload["message"])
    send_all([page_job])
    return assistant.page_answer(pages.result(page_job.id))


def _claimed() -> str:
    return builds.store_product(current_session())


@bp.post("/api/intent/apply")
@bp.declare(changes_state=True, refuses={
    200: ["not_claimed"], 409: ["no_proposal_echoed", "stale_proposal", "nothing_to_apply",
                                "irreversible_without_confirmation", "build_in_progress", "not_started"],
    500: ["apply_build_raised"]})
@bp.arguments(ApplyBody)
@bp.response(200, ApplyAnswer)
def apply(body):
    """Applies a proposal echoed unmodified, as a new version of the store."""
    product_id = _claimed()
    job, intent_id = intents.start_apply(product_id=product_id, change=body["intent_change"], confirm=body["confirm"])
    send_all([job])
    return intents.apply_result(job.id, intent_id, product_id)


@bp.post("/api/intent/order")
@bp.declare(changes_state=True, refuses={200: ["not_claimed"], 400: ["no_section", "unknown_section"],
                                         409: ["build_in_progress", "not_started"], 500: ["order_build_raised"]})
@bp.arguments(OrderBody)
@bp.response(200, OrderAnswer)
def order(body):
    """Overrides the section the store's home page leads with."""
    section = (body.get("section") or "").strip()
    if not section:
        raise Refused("no_section")
    product_id = _claimed()
    job = intents.start_order(product_id=product_id, section=section)
    send_all([job] if job else [])
    return intents.order_result(job.id if job else None, section)


@bp.post("/api/intent/revert")
@bp.declare(changes_state=True, no_body=True, refuses={
    200: ["not_claimed"], 409: ["nothing_to_revert", "build_in_progress", "not_started"],
    500: ["revert_build_raised", "intents_book_unreadable"]})
@bp.response(200, RevertAnswer)
def revert():
    """Undoes the last applied intent, restoring the exact document it changed."""
    product_id = _claimed()
    job, intent_id = intents.start_revert(product_id=product_id)
    send_all([job])
    return intents.revert_result(job.id, intent_id, product_id)
