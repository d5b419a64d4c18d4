"""Organic research (spec 4.5 POST /api/organic/research; 4.7 organic/approve and organic/log;
decisions.md "Growth"): researched, unpaid campaigns per platform, each post idea citing the
facts behind it, and the founder's approvals. Nothing is posted anywhere."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services.growth import organic
from services.growth.organic_writer import PLATFORMS

bp = Blueprint("organic", __name__, description="Organic research: unpaid campaigns per platform, and approvals.")

_ALL = ", ".join(PLATFORMS)

DECISIONS: list[str] = [
    "Post text speaks to shoppers: of the evidence it says only what it backs in a shopper's words ('Shoppers are "
    "looking for <product>.' / 'More and more shoppers are looking for <product>.'), never a figure, rank or "
    "research source; the rows behind that line (the newest reading of each demand series that backs it, at most "
    "3) are in the post's cites. Whichever backend wrote them, an angle's or a post's sentence is kept only when the "
    "facts without the evidence rows back it (integrations/ai/claims.public_backing), so a research figure a model "
    "quotes is dropped and counted in `dropped`; the cites still name the research, for the founder.",
    "POST /api/organic/research {query, platforms?} needs a signed-in account (401 `no_account`) and answers 200 "
    "{status: ok, research_id, query (trimmed, spaces collapsed), product_id, posted: false, platforms, campaigns: "
    "[{id, platform, platform_name, angle, posts: [{id, format, text, cites: [{kind: product | evidence, field "
    "(product) or metric, date and source (evidence), value, label}]}], sources: [{kind, name, fields (product) "
    "or source and dates (evidence)}]}], dropped, created_at}. Nothing is posted anywhere, and `posted` is always "
    "false. It is written for the session's product (claimed first, then its live hold) from the store's facts; "
    "no product: 200 `no_product`. Not metered: spec 8.1 has no bucket for it.",
    f"Platforms are {_ALL} (trimmed, any case, each once in the order given). Without platforms (absent, null or "
    f"[]) the research covers {', '.join(organic.DEFAULT_PLATFORMS)}: where shoppers come across products they "
    "did not search for; YouTube Shorts take the same videos as TikTok, and Reddit and X reward conversation more "
    "than a product shown, so they are researched when asked for. Any other name, or platforms that is not a list "
    "of strings, is 400 `invalid_platform` (decisions.md and spec 7.2 give 400; spec 4.5's '200 refusal' for it "
    "is read as the body's shape, which is the same).",
    f"A missing, null or blank query is 200 {{status: refused, reason: no_question}}; one longer than "
    f"{organic.MAX_QUERY} characters (trimmed, runs of spaces collapsed) is 400 `query_too_long`; a query that "
    "is not a string is 400 `invalid_request`. The checks run in that order, then platforms, then the product: "
    "a blank query is answered whatever the platforms say (the document's anyOf says so).",
    "Research is the `organic_research` kind of AI task: one campaign per platform asked for, its angle fitting the "
    "platform's format (TikTok and YouTube: short video hooks; Instagram: reels, carousels and stories; Pinterest: "
    "standard and idea pins on a board; Reddit: discussion posts that ask the community first, say the founder "
    "sells it, carry no links unless the community's rules allow them and never hard-sell; X: threads), and "
    "the question leading the angle (a gift, a daily routine, a small space, a budget or a how-to; else the "
    "question's own words, letters only). Every post idea cites at least one product field (name, description, "
    "category, price, currency) or dated evidence row (metric, date, source, value), resolved against the facts: "
    "a cite of anything else is removed, as is a post idea left without text or cite. Every sentence the facts "
    "cannot back is removed by the seam's claim filter (a number, certification or origin they do not hold; "
    "`dropped` counts them), and a campaign left with no post idea is the offline writer's. The cost, rank, "
    "supplier fields and money readings are never cited nor shown to a model.",
    "The offline writer (AI_BACKEND=offline, the default) is deterministic: same facts and question, same "
    "campaigns, with no network. Research runs in an `organic_research` job that the request waits on (up to "
    f"{organic.WAIT_SECONDS} s, as the store editor's does): a model that cannot be reached is tried again under "
    "the seam's retry policy and, when the tries are spent, answered 200 `cli_unavailable`; one that fails or "
    "twice answers no valid research (or a wait that runs out) is 200 `cli_failed`; either way nothing is kept.",
    "Each research is kept (its campaigns and post ideas with their ids) so it can be approved later. POST "
    "/api/organic/approve {campaign_id, platform, scope: post | campaign, post_id?} records an approval of one of "
    "the caller's own campaigns: 200 {status: approved, already_approved, posted: false, approval}. Approving the "
    "same campaign, or the same post idea, again records nothing new (a unique index decides, also between "
    "concurrent requests) and answers the first approval with already_approved: true. A campaign that is not the "
    "caller's, or does not exist, is 404 `not_found` (the same answer), as is a post_id the campaign does not "
    "have; a platform that is not the campaign's is 400 `invalid_platform`; a scope other than post or campaign, "
    "scope post without post_id, or scope campaign with one, is 400 `invalid_scope`.",
    f"GET /api/organic/log answers {{status: ok, approvals: [{{id, research_id, query, product_id, campaign_id, "
    f"platform, platform_name, scope, post_id, angle, format, text, approved_at}}]}}, newest first, at most "
    f"{organic.MAX_LOG}: what was approved as it read then (the angle for a campaign; the post's format and text "
    "too for a post idea). Approve and log need no account: they answer the session's own rows (an anonymous "
    "session has none, since research needs an account). A founder never sees another's research or approvals; "
    "on sign-in a session's rows become its account's.",
]


class OrganicResearchBody(Schema):
    # The query's length is counted once its spaces are collapsed (services/growth/organic.start).
    query = fields.String(allow_none=True, load_default=None, metadata={
        "description": f"At most {organic.MAX_QUERY} characters once runs of spaces are one",
        "pattern": bounds.collapsed_at_most(organic.MAX_QUERY)})
    platforms = fields.List(fields.String(), allow_none=True, load_default=None,
                            validate=validate.Length(max=len(PLATFORMS) * 2),
                            metadata={"reason": "invalid_platform", "description": f"Any of {_ALL}"})

    # A missing, null or blank query is answered (200 no_question) before the platforms are read
    # (services/growth/organic.start); with a question, each platform is one of the six names,
    # read trimmed and in any case (organic.platforms_of).
    BODY_RULES = {"anyOf": [
        {"properties": {"query": {"type": "string", "nullable": True, "pattern": f"^[{bounds.SPACE}]*$"}}},
        {"required": ["query"], "properties": {
            "query": {"type": "string", "pattern": bounds.NOT_BLANK},
            "platforms": {"type": "array", "nullable": True,
                          "items": {"type": "string", "pattern": bounds.caseless(PLATFORMS, strip=True)}}}},
    ]}


class OrganicCite(Schema):
    kind = fields.String(required=True, metadata={"enum": ["product", "evidence"]})
    field = fields.String(metadata={"description": "The product record's field (kind product)"})
    metric = fields.String(metadata={"description": "The evidence row's metric (kind evidence)"})
    date = fields.String(metadata={"description": "The evidence row's date (kind evidence)"})
    source = fields.String(metadata={"description": "The evidence row's source (kind evidence)"})
    value = fields.Raw(required=True, metadata={"description": "The value cited, as the facts hold it"})
    label = fields.String(required=True, metadata={"description": "The cite in a founder's words"})


class OrganicPost(Schema):
    id = fields.String(required=True)
    format = fields.String(required=True)
    text = fields.String(required=True)
    cites = fields.List(fields.Nested(OrganicCite), required=True)


class OrganicSource(Schema):
    kind = fields.String(required=True, metadata={"enum": ["product", "evidence"]})
    name = fields.String(required=True)
    fields_ = fields.List(fields.String(), data_key="fields", attribute="fields")
    source = fields.String()
    dates = fields.List(fields.String())


class OrganicCampaignSchema(Schema):
    id = fields.String(required=True)
    platform = fields.String(required=True, metadata={"enum": list(PLATFORMS)})
    platform_name = fields.String(required=True)
    angle = fields.String(required=True)
    posts = fields.List(fields.Nested(OrganicPost), required=True)
    sources = fields.List(fields.Nested(OrganicSource), required=True)


class OrganicResearchAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    research_id = fields.String(required=True)
    query = fields.String(required=True)
    product_id = fields.String(required=True)
    posted = fields.Boolean(required=True)
    platforms = fields.List(fields.String(), required=True)
    campaigns = fields.List(fields.Nested(OrganicCampaignSchema), required=True)
    dropped = fields.Integer(required=True, metadata={"description": "Unbacked sentences removed"})
    created_at = fields.String(required=True)


class OrganicApproveBody(Schema):
    campaign_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    platform = fields.String(required=True, validate=validate.Length(min=1, max=40),
                             metadata={"reason": "invalid_platform"})
    scope = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={
        "reason": "invalid_scope", "enum": ["post", "campaign"]})
    post_id = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=64))

    # A post's approval names the post; a whole campaign's names none (services/growth/organic.approve).
    BODY_RULES = {"anyOf": [
        {"required": ["scope", "post_id"], "properties": {
            "scope": {"enum": ["post"]}, "post_id": {"type": "string", "minLength": 1, "nullable": False}}},
        {"required": ["scope"], "properties": {
            "scope": {"enum": ["campaign"]}, "post_id": {"type": "string", "maxLength": 0, "nullable": True}}},
    ]}


class OrganicApprovalSchema(Schema):
    id = fields.Integer(required=True)
    research_id = fields.String(required=True)
    query = fields.String(required=True)
    product_id = fields.String(required=True, allow_none=True)
    campaign_id = fields.String(required=True)
    platform = fields.String(required=True)
    platform_name = fields.String(required=True)
    scope = fields.String(required=True, metadata={"enum": ["post", "campaign"]})
    post_id = fields.String(required=True, allow_none=True)
    angle = fields.String(required=True)
    format = fields.String(required=True, allow_none=True)
    text = fields.String(required=True, allow_none=True)
    approved_at = fields.String(required=True)


class OrganicApproveAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["approved"]})
    already_approved = fields.Boolean(required=True)
    posted = fields.Boolean(required=True)
    approval = fields.Nested(OrganicApprovalSchema, required=True)


class OrganicLogAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    approvals = fields.List(fields.Nested(OrganicApprovalSchema), required=True)


@bp.post("/api/organic/research")
@bp.declare(changes_state=True, requires_account=True,
            refuses={200: ["no_question", "no_product", "cli_unavailable", "cli_failed"],
                     400: ["invalid_platform", "query_too_long"]})
@bp.arguments(OrganicResearchBody)
@bp.response(200, OrganicResearchAnswer)
def organic_research(body):
    """Researches unpaid campaigns per platform for your product, each post idea citing its facts; posts nothing."""
    job = organic.start(session=current_session(), query=body["query"], platforms=body["platforms"])
    send_all([job])
    return organic.result(job.id)


@bp.post("/api/organic/approve")
@bp.declare(changes_state=True, refuses={400: ["invalid_platform", "invalid_scope"], 404: ["not_found"]})
@bp.arguments(OrganicApproveBody)
@bp.response(200, OrganicApproveAnswer)
def organic_approve(body):
    """Records your approval of one of your researched campaigns or one of its post ideas, once."""
    return organic.approve(session=current_session(), campaign_id=body["campaign_id"], platform=body["platform"],
                           scope=body["scope"], post_id=body["post_id"])


@bp.get("/api/organic/log")
@bp.declare(changes_state=False)
@bp.response(200, OrganicLogAnswer)
def organic_log():
    """Your approvals of organic research, newest first."""
    return organic.approvals(session=current_session())
