"""The support agent and customer satisfaction (issue 25 points 4 and 5; spec 4.6 GET
/api/satisfaction, 4.7 POST /api/support, 8.1 `support`): services/desk/agent.py and
services/desk/satisfaction.py, and the public one-click rating page at /rate/<token>."""
from __future__ import annotations

from flask import make_response
from marshmallow import Schema, fields, validate

from api.routing import Blueprint
from api.session import current_session
from services import business
from services.desk import agent
from services.desk import satisfaction as rating
from services.meter import BUCKETS, METER_REFUSALS

bp = Blueprint("support", __name__, description="The support agent and customer satisfaction.")

_SUPPORT = BUCKETS[agent.BUCKET]

DECISIONS: list[str] = [
    "POST /api/support {question, product_id?} (session) asks the support agent. With product_id it answers for "
    "that product's published store, as a customer on the storefront asks (from the published version's copy); "
    "the asker's own store answers from its draft even before it is published, so a founder can try the agent. "
    "Without product_id it answers for the founder's resolved product's own store (its draft). A product_id that "
    "is no published store's is 404 `not_found`; no product resolved is 200 `no_product`; a store not built yet "
    "is 409 `not_started`.",
    "The answer: 200 {status: ok, question (whitespace collapsed), product_id, answer, cites: [{kind: product | "
    "offer | faq | shipping | returns | settings | policy | order, field, value}], unanswered: [part as written]}. "
    "The agent answers from the store's own facts only: the product record (name, description, category), the "
    "offer's price, the store copy's FAQ (field: the FAQ's question), shipping, returns and guarantee (kind "
    "returns), the business name and support address (kind settings), the business's stated policy (kind policy, "
    "field returns | shipping | guarantee | ships_to, from services/founder_statements.py, read when asked and "
    "preferred to the copy's shipping and returns) and, on a ticket's draft, its matched order (kind order, field "
    "status). A cite's value is the fact word for word. Part by part (issue 50): the question is cut into the "
    "questions it asks (sentences ending in \"?\"; halves joined by \", and\", \"and\", \"&\" or \";\" when each "
    "opens like a question; a greeting before it set aside; past six, the rest stay in the sixth). A part is "
    "answered only when every word of it that carries meaning is found in the passages it cites; the words that "
    "only shape a question (long, take, much, many, soon, quick(ly), fast, far, often, news, update...) never "
    "block a part, but a part asking how long / how soon / how many days is answered only by a cited passage "
    "holding a time, how much only when every cited passage holds an amount of money or \"free\", how many only "
    "when every one holds a number; a part naming no topic of its own is about the topic words of the part "
    "before it. The answer is the backed parts' sentences, then, when some are unanswered, one sentence saying "
    "the shop answers them itself by mail (naming the support address when the store has one). Only when no part "
    "is backed: 200 {status: abstained, reason: not_in_store_facts, explanation naming the words or asks the "
    "facts do not cover, answer: null, cites: []}: nothing is guessed at. The answer is written through the AI "
    f"seam (task kinds `{agent.ANSWER_KIND}` and `{agent.DRAFT_KIND}`, deterministic offline writers; the task "
    "carries `current.parts`, `current.policies` and, on a ticket, `current.order` {number, status, said}; a "
    "backend's `unanswered` is optional, [] when left out, at most 6 of 300 characters each); whatever backend writes "
    "it, a cite that is not a fact of the store is dropped, a sentence with a number no cited fact holds is "
    "dropped, and an answer left without a backed cite is an abstention.",
    "Refusals, HTTP 200: {status: refused, reason: no_question} when question is missing or null, "
    "`empty_question` when it is blank, {status: abstained, reason: no_query_terms} when only greetings, filler "
    f"or stop words are left. Longer than {agent.MAX_QUESTION} characters: 400 `question_too_long`. The AI "
    "backend unreachable or failing: 200 `cli_unavailable` / `cli_failed`, nothing charged.",
    f"Metering: the `{_SUPPORT.id}` bucket ({_SUPPORT.cost} credit an answer) of the account of the store's "
    "founder, whoever asks (spec 8.1: the subject is the account, and the agent answers on the founder's behalf; "
    "a customer on the storefront spends the founder's credits). Credits are spent immediately before the AI "
    "writes and given back when it abstains or fails, so only an answer costs anything; no_question, "
    "empty_question and no_query_terms spend nothing. Exhausted: 429 usage_limit_reached / weekly_limit_reached "
    "with the spec 8.5 body (`unaffected` lists the founder's other features still usable). A store whose "
    "founder has no account is not metered, as every anonymous founder (spec 8.1 has no subject for it).",
    "Visitors (issue 44 point 4): a question about a published store that is not the asker's (with or without "
    "a cookie) is a visitor's. It spends the founder's support credits as above, and may use only the share "
    "of them the founder set (public_support_share of POST /api/settings/business, percent "
    f"{business.MIN_SHARE}-{business.MAX_SHARE}, 50 until set): the meter counts visitors' answers on a share "
    "of its own beside the bucket (floor(share x each window's limit)), so the rest of the allowance always "
    "stays for the founder's own questions, drafts and automatic answers. No request-rate limit is added "
    "(spec 8.1). A visitor turned away (the share or the whole allowance used up) gets 429 {status: refused, "
    "reason: support_busy, explanation} and nothing else: no used, limit, resets_at, tier, unaffected or "
    "ways_up, and no Retry-After header, so nothing of the founder's meter reaches a stranger. A question "
    "answered before for the same facts is answered again from what was written, with no model call and no "
    "spend, even when the share is used up: the answer is kept under a SHA-256 of the question's words (case, "
    "punctuation and spacing aside) and the store's facts as the agent read them (the published version's "
    "copy, the product, the price, the business name and address), so any change to those facts asks the "
    "agent afresh. Abstentions are not kept (they cost nothing). The founder's own questions are never "
    "answered from kept answers: they try the agent on their draft. The founder sees the last 7 days' counts "
    "(answered, answered from kept answers, turned away) on GET /api/helpdesk `public_questions`.",
    "Tickets (services.desk.agent, called by the desk): draft_reply writes the agent's reply to the ticket's "
    "latest customer message as a draft message (direction draft, author agent), metered `support` for the "
    "account; one draft per customer message: when the agent drafted a reply to the latest one already (the "
    "draft mode did, or an earlier press), that draft is answered again (cites []) and nothing is written or "
    "charged, so drafting twice makes one draft. It answers from the ticket's product's store (else the "
    "founder's store published or changed last; its published version, else its draft). What it answers is the mail's sentences ending in a question mark "
    "(quoted lines and the signature left out), or the whole text when none does. It refuses with "
    "`not_in_store_facts` (the facts do not back an answer), `no_query_terms`, `not_started` (no store), "
    "`ticket_not_found` or the meter's 429, writing nothing and charging nothing. For a new ticket, "
    "ai_email_mode off does nothing, draft writes a draft, auto sends a backed answer through the desk's reply "
    "(threaded, with its rating link) and leaves an unbacked one open with no message; each at most once a "
    "ticket.",
    "Satisfaction: every reply sent carries a one-click rating link, BASE_URL/rate/<token>. The token is the "
    "reply message's id and an HMAC-SHA256 of it keyed by SECRET_KEY (for this purpose only), so it cannot be "
    "forged or moved to another message; a tampered or unknown token is a 404 page. GET /rate/<token> only "
    "shows a small page in the store's look (its header, palette and footer; autoescaped, no script, a "
    "Content-Security-Policy allowing forms to this origin only) with five buttons, 1 (very unhappy) to 5 "
    "(very happy), and an optional comment; it records nothing, so a mail scanner's prefetch rates nothing. "
    f"POST /rate/<token> (a form: score 1-5, comment at most {rating.MAX_COMMENT} characters, else 400 "
    "`invalid_rating`) records the rating: one per reply, settled by a unique index, so a second click (or a "
    "replay) records nothing and says the rating was already recorded. Neither route reads or sets the session "
    "cookie; both answer Cache-Control private, no-store. The token never reaches a log: the request log names "
    "the path as `/rate/<cut>`.",
    f"GET /api/satisfaction (session) answers 200 always: {{status: ok, count, score: {{average (1-5, two "
    f"decimals), satisfied (ratings of {rating.SATISFIED} or more), satisfied_share (0-1)}}, trend: "
    f"[{{week (the Monday, ISO date, UTC), count, average | null, satisfied_share | null}}] for the last "
    f"{rating.TREND_WEEKS} weeks, oldest first, the current week last, worst_categories: [{{category, count, "
    "average, satisfied_share}}] by the ticket's category now, lowest average first (then more ratings first), "
    f"at most {rating.WORST_SHOWN}}}, or with no rating yet {{status: no_ratings_yet, reason, explanation, count: "
    "0, score: null, trend (the weeks, empty), worst_categories: []}}. Only the founder's own tickets' ratings "
    "count (session, or account once signed in); another founder's are never visible.",
    "Visitors' saved answers and parts (issue 50): an answer that leaves parts to the shop is not kept, so it is "
    "written, and spends, afresh; the key leaves out the parts (cut from the question's words, already in it) but "
    "includes the stated policies, so a policy change asks afresh.",
]


class SupportBody(Schema):
    question = fields.String(allow_none=True, load_default=None,
                             metadata={"description": f"At most {agent.MAX_QUESTION} characters"})
    product_id = fields.String(allow_none=True, load_default=None, validate=validate.Length(min=1, max=120),
                               metadata={"description": "A published store's product (a customer asking on the "
                                                        "storefront); left out: the founder's own store"})


class CiteSchema(Schema):
    kind = fields.String(required=True, metadata={"enum": list(agent.CITE_KINDS)})
    field = fields.String(required=True)
    value = fields.String(required=True)


class SupportAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [agent.OK, agent.ABSTAINED, agent.REFUSED]})
    question = fields.String()
    product_id = fields.String()
    answer = fields.String(allow_none=True)
    cites = fields.List(fields.Nested(CiteSchema))
    unanswered = fields.List(fields.String(), metadata={
        "description": "status ok: the parts of the question the store's facts do not answer, left to the shop"})
    reason = fields.String()
    explanation = fields.String()


@bp.post("/api/support")
@bp.declare(changes_state=True,  # it spends credits
            refuses={200: ["no_question", "empty_question", "no_query_terms", "not_in_store_facts", "no_product",
                           "cli_unavailable", "cli_failed"],
                     400: ["question_too_long"], 404: ["not_found"], 409: ["not_started"],
                     429: [*METER_REFUSALS, "support_busy"]})
@bp.arguments(SupportBody)
@bp.response(200, SupportAnswer)
def support(body):
    """Asks the support agent: an answer from the store's own facts, citing them, or an abstention."""
    return agent.support(session=current_session(), question=body["question"], product_id=body["product_id"])


class ScoreSchema(Schema):
    average = fields.Float(required=True)
    satisfied = fields.Integer(required=True)
    satisfied_share = fields.Float(required=True)


class WeekSchema(Schema):
    week = fields.String(required=True, metadata={"description": "The Monday the week starts on (UTC)"})
    count = fields.Integer(required=True)
    average = fields.Float(required=True, allow_none=True)
    satisfied_share = fields.Float(required=True, allow_none=True)


class CategorySchema(Schema):
    category = fields.String(required=True)
    count = fields.Integer(required=True)
    average = fields.Float(required=True)
    satisfied_share = fields.Float(required=True)


class SatisfactionAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "no_ratings_yet"]})
    count = fields.Integer(required=True)
    score = fields.Nested(ScoreSchema, required=True, allow_none=True)
    trend = fields.List(fields.Nested(WeekSchema), required=True)
    worst_categories = fields.List(fields.Nested(CategorySchema), required=True)
    reason = fields.String()
    explanation = fields.String()


@bp.get("/api/satisfaction")
@bp.declare(changes_state=False)
@bp.response(200, SatisfactionAnswer)
def satisfaction():
    """The analysis of the founder's customers' ratings: count, score, weekly trend, worst categories."""
    return rating.analysis(session=current_session())


_HTML = {"type": "string", "description": "The rating page"}


class RatingForm(Schema):
    score = fields.Integer(required=True, validate=validate.Range(min=1, max=5), metadata={"reason": "invalid_rating"})
    comment = fields.String(load_default="", validate=validate.Length(max=rating.MAX_COMMENT),
                            metadata={"reason": "invalid_rating"})


def _page(html: str, status: int = 200):
    response = make_response(html, status)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Content-Security-Policy"] = rating.CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "private, no-store"
    # The token stays out of other sites' logs; same-origin, not no-referrer: with no-referrer
    # the browser posts the rating form with `Origin: null`, which the cross-site guard refuses.
    response.headers["Referrer-Policy"] = "same-origin"
    return response


_INVALID = "A page saying the link does not work (a malformed, tampered or unknown token)"


# A customer's rating link: no founder cookie is read or issued (the customer is not a founder).
# A link that does not verify is answered 404 with a page a customer can read, not JSON.
@bp.get("/rate/<token>")
@bp.declare(changes_state=False, session=False)
@bp.response(200, _HTML, content_type="text/html")
@bp.alt_response(404, schema=_HTML, content_type="text/html", description=_INVALID)
def rate_page(token):
    """Shows the one-click rating page of a reply (records nothing)."""
    html, status = rating.page(token)
    return _page(html, status)


@bp.post("/rate/<token>")
@bp.declare(changes_state=True, session=False, form=True, refuses={400: ["invalid_rating"]})
@bp.arguments(RatingForm, location="form")
@bp.response(200, _HTML, content_type="text/html")
@bp.alt_response(404, schema=_HTML, content_type="text/html", description=_INVALID)
def rate(form, token):
    """Records the customer's rating of a reply, once."""
    html, status = rating.record(token, score=form["score"], comment=form["comment"])
    return _page(html, status)
