"""Business settings and the payout destination (spec 2.11, 4.6, 4.7; decisions.md "Desk,
tasks and settings"): services/business.py."""
from marshmallow import Schema, fields, validate

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from services import business, founder_statements

bp = Blueprint("settings", __name__, description="Business settings and where the founder is paid.")

DECISIONS: list[str] = [
    "GET /api/settings/business (session) answers 200 {status: ok, settings: {business_name, support_email_local, "
    "default_canned_subject, default_canned_body, ai_email_mode, public_support_share}, support_email, domain, "
    "updated_at}. Unsaved fields read as their defaults: business_name and support_email_local null, a canned "
    "subject and body the service writes, ai_email_mode `off`, public_support_share 50; updated_at is null until the first save. support_email is "
    "support_email_local@ the domain connected to the founder's claimed product's store (`domain`), null while "
    "either is missing: a support address exists only at a domain the founder owns.",
    "POST /api/settings/business takes the six fields flat, saves only the ones given (a field left out "
    "keeps its value; a key it does not have is 400 `unknown_field`, and nothing is saved) and answers the whole "
    "record as GET does. One bad field saves "
    f"nothing: 400 `invalid_setting` with `field`. business_name at most {business.MAX['business_name']} "
    "characters; support_email_local at most 64 of letters, digits and . _ + - (kept in lower case, no dot at "
    f"either end or two together); default_canned_subject at most {business.MAX['default_canned_subject']} "
    f"characters on one line; default_canned_body at most {business.MAX['default_canned_body']} (new lines "
    "allowed); each text is read with the whitespace at its ends taken off (the canned body's line breaks, tabs "
    "and spaces only), then may hold no control, format or private-use character (the canned body keeps its line "
    "breaks and tabs), as each text's pattern declares; ai_email_mode off | draft | auto. An empty or blank string "
    "(or null) clears business_name and support_email_local, and puts a canned field back to its default. The "
    "launch fact support_address_set is true once support_email_local is saved and a domain is connected.",
    f"public_support_share (issue 44): the percent of the founder's support allowance that visitors' questions "
    f"on their published stores may use (POST /api/support, see the support decisions), a whole number from "
    f"{business.MIN_SHARE} to {business.MAX_SHARE}, 50 until saved; at most {business.MAX_SHARE} so the "
    "founder's own drafts and answers always keep a tenth. Anything else (a string, a fraction, null, out of "
    "bounds) is 400 `invalid_setting` naming public_support_share (`field`, or `fields` for a value of another JSON "
    "type), saving nothing.",
    "GET /api/settings/payout (session) answers 200 {status: ok, payout: {method, holder, account_masked, last4, "
    "updated_at} | null}. POST {method: bank | paypal, holder, account} checks and saves it, answering the same "
    "plus `same_account` (whether the account saved before was this one): bank takes an IBAN (its MOD 97 check "
    "digits verified) or an account number of 4-34 digits, spaces and hyphens ignored; paypal takes the PayPal "
    "account's email address. A bad method is 400 `invalid_action`; a bad holder (1-120 characters) or account is "
    "400 `invalid_payout` with `field`. The whole account is never stored, answered or logged: the row keeps the "
    "masked form (bank `•••• 1234`, paypal the first letter and the domain, `j••••@example.com`), the last four "
    "characters and an HMAC-SHA256 fingerprint keyed by SECRET_KEY. Payouts are made by the payment provider, "
    "where the founder gives the full details.",
    "Settings and payout are one row per founder (session, or account once signed in); on sign-in a session's "
    "rows become the account's, the one saved last winning when both have one. Another founder's are never "
    "answered.",
    "The founder's statements (issue 50) sit flat in the same record: return_days (1-365), free_returns (boolean; "
    "null is false), shipping_days_min and shipping_days_max (1-90 business days; one given alone, or with the "
    "other null, sets both; two are saved shortest first), guarantee and ships_to (at most 200 characters, trimmed "
    "as business_name is, inner whitespace collapsed). All are null/false until stated, and null or an empty "
    "string clears one. A value out of bounds or of the wrong type is 400 `invalid_setting` naming the field. "
    "Statements are the founder's policy: the Facts for a store's copy carry them as `statements`, whose numbers "
    "back copy stating the same policy; they back no certification, origin or sales claim and are never an "
    "evidence row. A build writes them to the document's `business.policy`, which the shipping page shows as "
    "'Our policy ... Stated by <business>'. A plain-language edit that states one (\"mention free returns within "
    "30 days\") saves it with the new version.",
]


# The texts as services/business._checked takes them: once trimmed (str.strip; the canned body
# only of line breaks, tabs and spaces), no control, format or private-use character (the
# canned body keeps its line breaks and tabs), and blank clears the field.
_TEXT = bounds.trimmed(required=False)
_BODY_TEXT = bounds.trimmed(required=False, trim=map(ord, business.BODY_TRIM),
                            refused=set(bounds.UNSHOWN_POINTS) - set(map(ord, business.BODY_KEEPS)))

# The support address's name: trimmed, in any case (kept in lower case), words of letters,
# digits and _ + - joined by single dots.
_LOCAL_WORD = f"[{bounds.LETTER}0-9_+\\-]+"
_LOCAL_PART = f"^[{bounds.SPACE}]*(?:{_LOCAL_WORD}(?:\\.{_LOCAL_WORD})*)?[{bounds.SPACE}]*$"

# A bank account: 4 to 34 digits, or two letters, two digits and 11 to 30 letters or digits (an
# IBAN), with spaces and hyphens anywhere (re.sub(r"[\s-]", "", ...)). The few other letters
# str.upper() turns into ASCII ones (ı, ſ, ß, the ﬀ ligatures) are read too, and not declared.
_GAP = f"[{bounds.SPACE}\\-]*"
_BANK = (f"^{_GAP}(?:(?:[0-9]{_GAP}){{4,34}}|(?:[A-Za-z]{_GAP}){{2}}(?:[0-9]{_GAP}){{2}}(?:[A-Za-z0-9]{_GAP}){{11,30}})$")


class SettingsFields(Schema):
    business_name = fields.String(allow_none=True, validate=validate.Length(max=business.MAX["business_name"]),
                                  metadata={"reason": "invalid_setting", "pattern": _TEXT})
    support_email_local = fields.String(allow_none=True,
                                        validate=validate.Length(max=business.MAX["support_email_local"]),
                                        metadata={"reason": "invalid_setting", "pattern": _LOCAL_PART,
                                                  "description": "The local part of the support address"})
    default_canned_subject = fields.String(allow_none=True,
                                           validate=validate.Length(max=business.MAX["default_canned_subject"]),
                                           metadata={"reason": "invalid_setting", "pattern": _TEXT})
    default_canned_body = fields.String(allow_none=True,
                                        validate=validate.Length(max=business.MAX["default_canned_body"]),
                                        metadata={"reason": "invalid_setting", "pattern": _BODY_TEXT})
    ai_email_mode = fields.String(validate=validate.OneOf(business.AI_EMAIL_MODES),
                                  metadata={"reason": "invalid_setting"})
    # Bounds checked by the service (services/business._checked), which names the field.
    public_support_share = fields.Integer(metadata={
        "reason": "invalid_setting", "minimum": business.MIN_SHARE, "maximum": business.MAX_SHARE,
        "description": "Percent of the support allowance visitors' questions may use"})
    # The founder's statements of their policy (services/founder_statements.py, which checks the
    # bounds and names the field); null clears one.
    return_days = fields.Integer(allow_none=True, metadata={
        "reason": "invalid_setting", "minimum": founder_statements.RETURN_DAYS[0],
        "maximum": founder_statements.RETURN_DAYS[1], "description": "How many days customers have to return an order"})
    free_returns = fields.Boolean(allow_none=True, metadata={"reason": "invalid_setting",
                                                             "description": "Whether returns are free"})
    shipping_days_min = fields.Integer(allow_none=True, metadata={
        "reason": "invalid_setting", "minimum": founder_statements.SHIPPING_DAYS[0],
        "maximum": founder_statements.SHIPPING_DAYS[1],
        "description": "The shortest shipping time in business days (alone, it sets both ends)"})
    shipping_days_max = fields.Integer(allow_none=True, metadata={
        "reason": "invalid_setting", "minimum": founder_statements.SHIPPING_DAYS[0],
        "maximum": founder_statements.SHIPPING_DAYS[1],
        "description": "The longest shipping time in business days (two figures are read shortest first)"})
    guarantee = fields.String(allow_none=True, validate=validate.Length(max=founder_statements.MAX_TEXT),
                              metadata={"reason": "invalid_setting", "pattern": _TEXT,
                                        "description": "The guarantee in the founder's words"})
    ships_to = fields.String(allow_none=True, validate=validate.Length(max=founder_statements.MAX_TEXT),
                             metadata={"reason": "invalid_setting", "pattern": _TEXT,
                                       "description": "Where the business ships, e.g. the United States and Canada"})


class SettingsRecord(Schema):
    """The whole record as answered (its own component: the body above refuses unknown keys, and
    says additionalProperties: false)."""

    business_name = fields.String(required=True, allow_none=True)
    support_email_local = fields.String(required=True, allow_none=True)
    default_canned_subject = fields.String(required=True)
    default_canned_body = fields.String(required=True)
    ai_email_mode = fields.String(required=True, metadata={"enum": list(business.AI_EMAIL_MODES)})
    public_support_share = fields.Integer(required=True, metadata={"minimum": business.MIN_SHARE,
                                                                   "maximum": business.MAX_SHARE})
    return_days = fields.Integer(required=True, allow_none=True)
    free_returns = fields.Boolean(required=True)
    shipping_days_min = fields.Integer(required=True, allow_none=True)
    shipping_days_max = fields.Integer(required=True, allow_none=True)
    guarantee = fields.String(required=True, allow_none=True)
    ships_to = fields.String(required=True, allow_none=True)


class SettingsAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    settings = fields.Nested(SettingsRecord, required=True)
    support_email = fields.String(required=True, allow_none=True,
                                  metadata={"description": "support_email_local@ the store's connected domain"})
    domain = fields.String(required=True, allow_none=True, metadata={"description": "The store's connected domain"})
    updated_at = fields.String(required=True, allow_none=True)


class PayoutBody(Schema):
    method = fields.String(required=True, validate=validate.OneOf(business.PAYOUT_METHODS),
                           metadata={"reason": "invalid_action"})
    holder = fields.String(required=True, validate=validate.Length(min=1, max=business.HOLDER_MAX),
                           metadata={"reason": "invalid_payout"})
    account = fields.String(required=True, validate=validate.Length(min=1, max=320),
                            metadata={"reason": "invalid_payout",
                                      "description": "An IBAN or account number (bank), or an email address (paypal)"})

    # Each method takes its own account (services/business._normalised): bank an account number of
    # 4 to 34 digits or an IBAN's shape (its MOD 97 check digits are verified too, which no
    # pattern says), spaces and hyphens anywhere ignored and letters in either case; paypal an
    # email address.
    BODY_RULES = {"anyOf": [
        {"required": ["method", "account"], "properties": {
            "method": {"enum": [business.BANK]}, "account": {"type": "string", "pattern": _BANK}}},
        {"required": ["method", "account"], "properties": {
            "method": {"enum": [business.PAYPAL]}, "account": {"type": "string", **bounds.EMAIL}}},
    ]}


class PayoutRecord(Schema):
    method = fields.String(required=True, metadata={"enum": list(business.PAYOUT_METHODS)})
    holder = fields.String(required=True)
    account_masked = fields.String(required=True)
    last4 = fields.String(required=True)
    updated_at = fields.String(required=True)


class PayoutAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    payout = fields.Nested(PayoutRecord, required=True, allow_none=True)
    same_account = fields.Boolean(metadata={"description": "POST only: the account saved before was this one"})


@bp.get("/api/settings/business")
@bp.declare(changes_state=False)
@bp.response(200, SettingsAnswer)
def settings_read():
    """The founder's business settings and the support address they make."""
    return business.read(session=current_session())


@bp.post("/api/settings/business")
@bp.declare(changes_state=True, refuses={400: ["invalid_setting"]})
@bp.arguments(SettingsFields)
@bp.response(200, SettingsAnswer)
def settings_save(body):
    """Saves the business settings given."""
    return business.save(session=current_session(), values=body)


@bp.get("/api/settings/payout")
@bp.declare(changes_state=False)
@bp.response(200, PayoutAnswer)
def payout_read():
    """Where the founder is paid, masked."""
    return business.payout(session=current_session())


@bp.post("/api/settings/payout")
@bp.declare(changes_state=True, refuses={400: ["invalid_action", "invalid_payout"]})
@bp.arguments(PayoutBody)
@bp.response(200, PayoutAnswer)
def payout_save(body):
    """Saves where the founder is paid; the whole account is never kept."""
    return business.save_payout(session=current_session(), method=body["method"], holder=body["holder"],
                                account=body["account"])
