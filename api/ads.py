"""Ads (spec 2.9, 4.5 GET /api/ad, 4.7 ad/edit and growth/edit, 8.1 `ad` and `growth_edit`;
decisions.md, Growth): the founder's ad per platform, its two editors and its images."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.errors import ApiError
from api.http import untrusted_bytes
from api.routing import Blueprint
from api.session import current_session
from jobs.send import send_all
from services.errors import Refused
from services.growth import ad_limits, ads
from services.meter import METER_REFUSALS, metered

bp = Blueprint("ads", __name__, description="The founder's ads and their editors.")

MAX_MESSAGE = 2000
EDIT_BUCKET = "growth_edit"
_LIMITS = "; ".join(f"{platform}: " + ", ".join(f"{field} {most}" for field, most in ad_limits.LIMITS[platform].items())
                    for platform in ad_limits.PLATFORMS)

DECISIONS: list[str] = [
    "An ad is written for each of two platforms, `meta` (Facebook and Instagram) and `google` (a responsive search "
    f"ad), with four fields each, at most so many characters ({_LIMITS}); the call to action is one of "
    f"{', '.join(ad_limits.CALLS_TO_ACTION)} on both. Meta's limits are what its feed shows before cutting (primary "
    "text 125, headline about 40, link description about 30); Google's are its published responsive search ad "
    "limits (headlines 30, descriptions 90; primary_text is the first description line, description the second).",
    "The ad is written by an `ad_build` job (one per product at a time, a job row like every job) "
    "through the AI seam (task kind `ad_copy`: its JSON schema holds every platform field to its limit, so a model "
    "answer past one is asked for again; a sentence the product record cannot back is dropped, the offline writer's "
    "field standing in). The offline writer writes from the product's name, description, price and what its "
    "evidence backs in a shopper's words, cut at word boundaries to each limit. The store's build job sends it "
    "after every build; GET "
    "/api/ad sends one when the store is built and no ad and no job that will write it exists (a job that ended "
    f"without an ad is tried again by a GET {ads.RETRY_SECONDS} s after it ended). A later build writes the copy "
    "again (the founder's own values are kept over it); a redelivered job for a build already written does nothing.",
    "An ad is shown to shoppers, so it addresses the buyer and tells none of the founder's research: no search, "
    "view or mention counts, no best-seller rank, no review or listing counts of other listings, no research "
    "source (search data, Amazon, Google Trends, TikTok...). Of the evidence it says at most what it backs in a "
    "shopper's words, the line the public store's evidence section shows ('Shoppers are looking for <product>.', "
    "'More and more shoppers are looking for <product>.' when a demand series rises), and only while a demand "
    "series that is not falling, and not low on its metric's published scale, backs it. Whichever backend writes "
    "it, a sentence is backed by the product record, the price and the business only, so one quoting a figure "
    "of the evidence rows is dropped like an invented one. The research stays on the founder's screens (offer, "
    "dashboard, analysis, the store preview's evidence section).",
    "Writing an ad spends the `ad` bucket (spec 8.1) of the account that owns the store, right before the AI is "
    "asked, and keeps the charge only when the ad was saved (any failure refunds it); a store built by a visitor "
    "without an account is not metered. A meter refusal ends the job with the refusal as its result; GET /api/ad "
    "then answers it (429 with the meter's body, spec 8.5) until the window resets, when the next GET starts "
    "another job.",
    "GET /api/ad `?platform=meta|google` (default meta; anything else 400 `invalid_platform`) answers {status: ok, "
    "product_id, platform, headline, primary_text, description, call_to_action, image (the first of images), "
    "images: [{width, height, url}] (meta: 1080x1080 and 1080x1350; google: 1200x628), pass_criteria: "
    "{ctr_min_pct, cpc_max, currency: USD, source}, version (moves with every change), limits, "
    "call_to_action_options, overridden (the fields holding the founder's own words), platforms, updated_at}. "
    "Without an ad: 404 `not_found` with `building` (true while the store or the ad is being built). It reads the "
    "founder's resolved product (claimed, else held) and only an ad of a store they built: a product's next "
    "founder (a hold that lapsed) never sees the last one's ad, and another founder's ad is never visible.",
    "Pass criteria are the published industry averages of the product's category: Meta from WordStream's Facebook "
    "Advertising Benchmarks (CTR and CPC of the Retail, Beauty, Fitness or Technology row), Google from "
    "WordStream/LocaliQ's 2021 Search Advertising Benchmarks (CPC of the matching row) with the CTR floor of 2.5 % "
    "that WordStream's Google Ads benchmarks give e-commerce search; `source` names the report and the row "
    "(services/growth/ad_limits.py holds the table and says which figures were checked).",
    "POST /api/ad/edit {platform, field, value} sets one field to the founder's words (whitespace runs become one "
    "space); {platform, reset: true} clears the founder's values of that platform, putting the written copy back. "
    "A value equal to the written copy clears that field's override. 400 `invalid_platform`; 200 `unknown_field`; "
    "200 `too_long` (with `limit` and `length`); 200 `invalid_editor_response` (an empty value, or a call to action "
    "that is not one of the options); 404 `not_found` (no ad); 409 `build_in_progress` when the ad changed during "
    "the request. Answers the ad as GET does, status `edited` or `reset`. Not metered. A new headline renders new "
    "images under new names; the old ones are deleted.",
    f"POST /api/growth/edit {{message, platform?}} (account required: 401 `no_account`; message at most {MAX_MESSAGE} "
    "characters: 400 `message_too_long`, blank: 400 `no_message`) changes the ad in plain language through the AI "
    "seam (task kind `ad_edit`, run as an `ad_edit` job on the ad's subject and waited on, like the store editor's "
    "edits). It is charged to `growth_edit` only when something changed: 200 {status: edited, version, diff: "
    "[{platform, field, before, after}], skipped: [{platform, field, why}]}. The answer is the whole copy as it "
    "should read afterwards; each changed field is checked on its own: past its platform's limit, empty, a call to "
    "action that is not an option, or a new sentence the product record cannot back (words kept whole, refused by "
    "field, as the store editor does) is skipped and the rest applied. Refunded refusals: 200 `no_diff` (understood, but "
    "nothing would change), 200 `editor_unavailable` (words outside the request grammar it shares with the store "
    "editor, with `examples`: the three nearest requests it understands; a request for a part an ad does not have "
    "(questions, the price, sections, the About text's store-only parts) named as one for the store's editor), 200 `unbacked_claim` (every change "
    "was unbacked, with `unbacked`), 200 `invalid_editor_response` (no change could be used, or the model answered "
    "no valid copy twice), 200 `cli_failed`, `cli_unavailable`; 404 `not_found` (no ad yet); 409 "
    "`build_in_progress` while the ad is being written or edited. Without `platform` the edit applies where the "
    "message names a platform (Meta, Facebook, Instagram, Google), else to both. Growth edits are kept as the "
    "founder's own values, so a reset also undoes them.",
    "GET /media/ad/<32 hex>.png serves an ad image to anyone who has its name (128 random bits; the ad is made to "
    "be shown publicly) with `Cache-Control: public, max-age=31536000, immutable` (a new render gets a new name), "
    "`X-Content-Type-Options: nosniff`, `Content-Security-Policy: default-src 'none'; sandbox`, no cookie read or "
    "set; an unknown name is 404 `not_found` (JSON).",
]


class AdPlatformQuery(Schema):
    platform = fields.String(load_default=ad_limits.META, validate=validate.OneOf(ad_limits.PLATFORMS),
                             metadata={"reason": "invalid_platform"})


class AdEditBody(Schema):
    platform = fields.String(required=True, validate=validate.OneOf(ad_limits.PLATFORMS),
                             metadata={"reason": "invalid_platform"})
    field = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=80))
    value = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100_000))
    reset = fields.Boolean(load_default=False)


class GrowthEditBody(Schema):
    message = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100_000),
                            metadata={"pattern": bounds.NOT_BLANK, "maxLength": MAX_MESSAGE})
    platform = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(ad_limits.PLATFORMS),
                             metadata={"reason": "invalid_platform"})

    # Missing, null or blank all answer no_message.
    BODY_RULES = {"required": ["message"], "properties": {"message": {"nullable": False}}}


class AdImageEntry(Schema):
    width = fields.Integer(required=True)
    height = fields.Integer(required=True)
    url = fields.String(required=True)


class AdPassCriteria(Schema):
    ctr_min_pct = fields.Float(required=True)
    cpc_max = fields.Float(required=True)
    currency = fields.String(required=True)
    source = fields.String(required=True)


class AdAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "edited", "reset"]})
    product_id = fields.String(required=True)
    platform = fields.String(required=True, metadata={"enum": list(ad_limits.PLATFORMS)})
    headline = fields.String(required=True)
    primary_text = fields.String(required=True)
    description = fields.String(required=True)
    call_to_action = fields.String(required=True)
    image = fields.String(required=True, allow_none=True)
    images = fields.List(fields.Nested(AdImageEntry), required=True)
    pass_criteria = fields.Nested(AdPassCriteria, required=True)
    version = fields.Integer(required=True)
    limits = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    call_to_action_options = fields.List(fields.String(), required=True)
    overridden = fields.List(fields.String(), required=True)
    platforms = fields.List(fields.String(), required=True)
    updated_at = fields.String(required=True)


class AdChange(Schema):
    platform = fields.String(required=True)
    field = fields.String(required=True)
    before = fields.String(required=True)
    after = fields.String(required=True)


class AdSkipped(Schema):
    platform = fields.String(required=True)
    field = fields.String(required=True)
    why = fields.String(required=True)


class GrowthEditAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["edited", "editing"]})
    job_id = fields.String()
    version = fields.Integer(required=True, allow_none=True)
    diff = fields.List(fields.Nested(AdChange), required=True)
    skipped = fields.List(fields.Nested(AdSkipped))


@bp.get("/api/ad")
# It may send the ad's job: state-changing, so other sites cannot trigger it.
@bp.declare(changes_state=True, refuses={404: ["not_found"], 429: list(METER_REFUSALS)})
@bp.arguments(AdPlatformQuery, location="query")
@bp.response(200, AdAnswer)
def ad(query):
    """The founder's ad on one platform, with its images and the bars it should clear; starts writing it when due."""
    session = current_session()
    send_all(ads.start_if_missing(session=session))
    return ads.read(session=session, platform=query["platform"])


@bp.post("/api/ad/edit")
@bp.declare(changes_state=True, refuses={200: ["unknown_field", "too_long", "invalid_editor_response"],
                                         404: ["not_found"], 409: ["build_in_progress"]})
@bp.arguments(AdEditBody)
@bp.response(200, AdAnswer)
def ad_edit(body):
    """Sets one field of the founder's ad to their own words, or puts a platform's written copy back."""
    return ads.edit_field(session=current_session(), platform=body["platform"], field=body["field"],
                          value=body["value"], reset=body["reset"])


@bp.post("/api/growth/edit")
@bp.declare(changes_state=True, requires_account=True,
            refuses={400: ["no_message", "message_too_long"], 404: ["not_found"], 409: ["build_in_progress"],
                     200: ["no_diff", "editor_unavailable", "too_long", "invalid_editor_response", "unbacked_claim",
                           "cli_failed", "cli_unavailable"],
                     429: list(METER_REFUSALS)})
@bp.arguments(GrowthEditBody)
@bp.response(200, GrowthEditAnswer)
def growth_edit(body):
    """Changes the founder's ad in plain language (metered, charged only when something changed)."""
    message = (body["message"] or "").strip()
    if not message:
        raise Refused("no_message", "Say what to change in your ad, for example: set the headline to new words.")
    if len(message) > MAX_MESSAGE:
        raise Refused("message_too_long", f"An instruction is at most {MAX_MESSAGE} characters; this one has "
                                          f"{len(message)}.")
    session = current_session()
    ads.own_ad(session)  # 404 before anything is charged
    # Charged before the work, refunded by every refusal: only an edit that changed the ad costs.
    with metered(session.account_id, EDIT_BUCKET):
        job = ads.start_edit(session=session, message=message, platform=body["platform"])
        send_all([job])
        return ads.edit_result(job.id)


# An ad image is fetched by platforms and previews: no session is opened or read.
@bp.get("/media/ad/<name>.png")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, {"type": "string", "format": "binary", "description": "An ad image (PNG)"},
             content_type="image/png")
def ad_image(name):
    """An ad image, by the name its ad gives it."""
    data = ads.image(name)
    if data is None:
        raise ApiError(404, "not_found")
    return untrusted_bytes(data, content_type="image/png", cache_control="public, max-age=31536000, immutable")
