"""The growth area's money side (spec 2.10, 4.5, 4.7; issue 24, points 3, 4 and 6): the
campaign book (GET, POST /api/ads-manager) and the ad balance with its top-ups through the
payment provider (GET, POST /api/adbalance), and the retired client-driven confirmation
(GET /api/adbalance/confirm)."""
from marshmallow import Schema, fields

from api import bounds
from api.routing import Blueprint
from api.session import current_session
from services.errors import Refused
from services.growth import balance, book
from services.growth.balance import MAX_MINOR, MIN_MINOR
from services.growth.book import (
    AUDIENCES,
    CURRENCIES,
    DEFAULT_SETTINGS,
    MAX_CAMPAIGNS,
    MAX_DAILY_BUDGET_MINOR,
    MAX_NAME_CHARS,
    MIN_DAILY_BUDGET_MINOR,
    OBJECTIVES,
    PLATFORMS,
    REQUIRED_FIELDS,
    STATUSES,
)

bp = Blueprint("ad_money", __name__, description="The campaign book and the ad balance.")


def _words(values) -> str:
    return " | ".join(values)


DECISIONS: list[str] = [
    "GET /api/ads-manager (session) answers {status: ok, book: {campaigns, next, settings}, updated_at, options} "
    "and never 404s: a founder who never saved a book is answered campaigns [], next 1 and the default settings "
    f"{DEFAULT_SETTINGS} (no updated_at), and nothing is written. `options` lists what the book takes (platforms, "
    "statuses, objectives, audiences, currencies, daily_budget_min_minor, daily_budget_max_minor, max_campaigns, "
    "name_max_chars), so the screen offers exactly those. A campaign is {id, name, platform, status, "
    "daily_budget_minor, objective, audience, pause_when_failing?, key?, paused_because?, delivery}; its budget is "
    "in the book's currency.",
    "POST /api/ads-manager {settings?: {...}, campaigns?: [...]} (session) saves the founder's book and answers it "
    "whole, with updated_at set to the save's time; an empty body saves the book as it stands (creating it). "
    "Settings are merged key by key into the saved ones (a key the settings do not have is 400 `unknown_field`, like any unknown field): "
    f"platform {_words(PLATFORMS)}, objective {_words(OBJECTIVES)}, audience {_words(AUDIENCES)}, "
    f"daily_budget_minor an integer from {MIN_DAILY_BUDGET_MINOR} to {MAX_DAILY_BUDGET_MINOR}, currency an ISO 4217 "
    f"code from {', '.join(CURRENCIES)} (read in any case, kept upper-case). Campaigns are merged by id: one without "
    "an id is new, needs name, platform, status and daily_budget_minor (objective and audience default to the "
    "book's settings) and takes `next`, which moves on; one with an id changes the given fields of that campaign "
    "and leaves the rest; {id, delete: true} removes it. Campaigns the save does not name stay as they are. "
    f"A name is 1 to {MAX_NAME_CHARS} characters after runs of whitespace become one space, without control "
    f"characters or the marks that reorder text; status {_words(STATUSES)}; daily_budget_minor as for settings.",
    "The book round-trips (spec 4.7 'Save the campaign book', issue 51.2): POST takes what GET answers, the book "
    "({campaigns, next, settings}) or the whole answer ({status, book, updated_at, options}; status, updated_at and "
    "options are read-only and ignored, and `book` with top-level settings, campaigns or next beside it is 400 "
    "`invalid_campaign`); a campaign's key, paused_because and delivery are read-only and ignored. Posted back "
    "unchanged it changes nothing (not even updated_at). A campaign whose id is the book's `next` is new and takes "
    "it, as one without an id does (needing the same fields), and `next` moves on, so campaigns appended with next, "
    "next + 1, ... are created in order; an id that is neither held nor the next to be handed out is 400 "
    "`unknown_campaign` (with the book's `next`). A save carrying `next` says which of its ids it meant as new (those "
    "from `next` on): when another save took such an id first, the same campaign again (every field it gives "
    "already held) adds nothing, so a retried or doubled save, or any number of them at once, creates one "
    "campaign; a different campaign takes the book's `next` instead of overwriting the one another save added. "
    "Without `next`, an id the book holds by then is a change of that campaign.",
    "Campaign identifiers come from `next` only: it never moves back, so an identifier is never handed out twice, "
    "not even after its campaign is removed, and two saves at once each get their own (a save takes the book's "
    "row before reading it and holds it to its commit). An id the book does not hold (another founder's included) "
    f"is 400 `unknown_campaign`. A book holds at most {MAX_CAMPAIGNS} campaigns: a save that would add past that, "
    f"or names more than {MAX_CAMPAIGNS} campaigns, is 409 `campaign_book_full`.",
    "Refusals of POST /api/ads-manager store nothing, and carry the campaign's place in the list (`campaign`, from "
    "1) or the `setting` at fault: a platform other than meta or google (a setting's or a campaign's) is 400 "
    "`invalid_platform`; any other bad setting value, or a settings value of the wrong JSON type (including "
    "null), 400 `invalid_setting`; a bad campaign (missing fields on a new one, a name, status, budget, objective "
    "or audience out of bounds, a value of the wrong JSON type, a campaign named twice in one save, a delete "
    "without an id) 400 `invalid_campaign`.",
    "A session's campaign book becomes its account's on sign-in. When the account already has a book, it keeps "
    "its own settings and campaigns and gains the session's campaigns under new identifiers from its own `next`, "
    f"up to {MAX_CAMPAIGNS} campaigns (any past that are not carried over). Another founder's book is never "
    "shown or changed.",
    "Ads that run (issue 49; services/growth/delivery.py). A campaign saved active (new, or from draft or paused) "
    "is refused, and nothing is saved, unless the ad balance holds at least one day of its budget (409 "
    "`ad_balance_too_low`, with balance_minor and daily_budget_minor), the founder's ad is written and their store "
    "published (409 `ad_not_ready`: the ad sends people there) and the book's currency is USD, the balance's (409 "
    "`ad_currency_differs`); it then gets `key` (its utm_campaign). The clock's hourly `deliver_ads` job launches "
    "active campaigns on the ad platform (AD_PLATFORM: sandbox by default; meta; google) with the ad's words for "
    "the campaign's platform, its bars and a landing address on the store with utm_source, utm_medium=paid and "
    "utm_campaign=key; pauses those set paused, draft or removed; resumes those set active again. It asks the "
    "platform for each ended UTC day since the last recorded and records each day once (one row per campaign and "
    "day) with its spend debited from the balance in the same transaction under that day's report key (unique in "
    "the ledger): however many times, or at once, a report is delivered, a day is paid once. When a founder's "
    "balance cannot pay another day of their running campaigns (their daily budgets together), every one pauses "
    "(status paused, paused_because: balance), and they are told by a task and a mail to their verified address; "
    "from 1,000 impressions on, a campaign whose click-through rate is under its bar or whose cost per click is "
    "over it is flagged, and paused (paused_because: bars) when it was saved with pause_when_failing: true. A "
    "campaign the service paused starts again only when its founder saves it active. Each campaign answers "
    "`delivery` (null until it first goes active): {state: starting | running | paused, paused_because, days: "
    "[{day, impressions, clicks, spend_minor, currency, ctr_pct, cpc_minor}], totals, flagged, bars: {ctr_min_pct, "
    "cpc_max_minor, currency}, min_impressions, orders: {paid, revenue_minor, currency, cost_per_order_minor, "
    "return_on_ad_spend}}: the paid orders of customers who arrived by its link (the store's script keeps the "
    "utm_campaign of a visitor's arrival for the tab, sends it with each funnel event (POST /api/track `campaign`) "
    "and adds it to the buy form, and the order keeps it). The ledger's spend entries (kind spend, negative) name the "
    "campaign and the day.",
    "GET /api/adbalance (session) answers {status: ok, currency: USD, balance_minor, ledger: [{id, kind: topup | spend, "
    "amount_minor, balance_minor, topup_id, campaign?, day?, created_at}], pending: [{topup_id, amount_minor, currency, "
    f"checkout_url, created_at}}], min_minor: {MIN_MINOR}, max_minor: {MAX_MINOR}, topups_available}}. The balance "
    "is the sum of the founder's ledger; the ledger lists the newest 100 entries first, each with the balance it "
    "left; pending lists the newest 20 top-ups whose checkout is still open (and under 2 days old: older ones have "
    "long expired at the provider). topups_available is false when "
    "payments are switched off on the service. Nothing here asks the provider: the landing, the provider's "
    "notification and the clock's re-check of open payments do.",
    f"POST /api/adbalance {{amount_minor}} (session; USD cents, {MIN_MINOR} to {MAX_MINOR}) starts a top-up as a "
    "payment of purpose `ad_topup`: the top-up and its payment are committed, then the provider is asked for a "
    "checkout; 200 {status: pending, topup_id, checkout_url, amount_minor, currency}. A missing amount, or one "
    "that is not a JSON integer (a string, a float such as 500.0, a boolean, null), is 400 `invalid_amount`; an "
    "integer outside the bounds 400 `amount_out_of_bounds`, with min_minor and max_minor. Payments switched "
    "off (PAYMENT_PROVIDER=off): 200 `payment_unavailable` before anything is recorded; a provider that cannot "
    "start a checkout: 200 `payment_unavailable` with the topup_id, which is then failed (nothing charged).",
    "The balance moves only in the transaction that marks the top-up's payment paid, after the service asked "
    "the provider: one ledger entry per top-up (unique in the ledger), so a payment confirmed any number of "
    "times, at once or not (landing, notification, replays), credits once. A declined checkout fails the top-up "
    "and an abandoned or expired one expires it: nothing is credited and it leaves `pending`. The provider "
    "sends the browser back to /#/app/growth?topup=<topup_id> (with &cancelled=1 after declining or abandoning).",
    "GET /api/adbalance/confirm (public) is retired: it answers 410 `legacy_checkout_retired` whatever its query "
    "string says (a topup or payment id, status=paid...) and never credits anything; confirmation is no longer "
    "client-driven.",
    "A session's top-ups and ledger become its account's on sign-in, so its balance does too; another founder's "
    "balance, ledger and pending top-ups are never shown. The launch fact ad_balance_funded is true while the "
    "founder's ledger sums to more than zero.",
]


# --- The campaign book ---------------------------------------------------------------------

class SettingsBody(Schema):
    platform = fields.String(metadata={"enum": list(PLATFORMS)})
    objective = fields.String(metadata={"enum": list(OBJECTIVES)})
    audience = fields.String(metadata={"enum": list(AUDIENCES)})
    daily_budget_minor = fields.Integer(metadata={"minimum": MIN_DAILY_BUDGET_MINOR, "maximum": MAX_DAILY_BUDGET_MINOR})
    # Read in any case, kept upper-case (services/growth/book._checked_settings: value.upper()).
    currency = fields.String(metadata={"description": "An ISO 4217 code of those offered, in any case",
                                       "pattern": bounds.caseless(CURRENCIES, upper=True)})


# A campaign's name (services/growth/book._checked_field): 1 to MAX_NAME_CHARS characters once
# runs of whitespace are one space, without a control character (whitespace ones become that
# space) or a mark that reorders text.
_NAME_MARK = f"[^{bounds.SPACE}\u202a-\u202e\u2066-\u2069{bounds.CONTROLS}]"
_CAMPAIGN_NAME = (f"{bounds.collapsed_at_most(MAX_NAME_CHARS)}[{bounds.SPACE}]*{_NAME_MARK}"
                  f"(?:[{bounds.SPACE}]*{_NAME_MARK})*[{bounds.SPACE}]*$")


class CampaignBody(Schema):
    id = fields.Integer(metadata={"description": "A campaign of the book to change or remove; none: a new campaign",
                                  "minimum": 1})
    name = fields.String(metadata={"description": f"1 to {MAX_NAME_CHARS} characters once runs of spaces are one",
                                   "pattern": _CAMPAIGN_NAME})
    platform = fields.String(metadata={"enum": list(PLATFORMS)})
    status = fields.String(metadata={"enum": list(STATUSES)})
    daily_budget_minor = fields.Integer(metadata={"minimum": MIN_DAILY_BUDGET_MINOR, "maximum": MAX_DAILY_BUDGET_MINOR})
    objective = fields.String(metadata={"enum": list(OBJECTIVES)})
    audience = fields.String(metadata={"enum": list(AUDIENCES)})
    pause_when_failing = fields.Boolean(metadata={"description": "Pause it when it misses its bars"})
    delete = fields.Boolean(metadata={"description": "true (with an id): remove that campaign"})
    # What GET answers of a campaign and only the service writes: accepted, so the book posted
    # back is never refused, and read past (issue 51.2).
    key = fields.String(allow_none=True, metadata={"description": "Read-only (as GET answers it): ignored"})
    paused_because = fields.String(allow_none=True, metadata={"description": "Read-only (as GET answers it): ignored"})
    delivery = fields.Raw(allow_none=True, metadata={"description": "Read-only (as GET answers it): ignored"})

    # One with an id changes or removes that campaign; a new one (no id) is not removed and
    # needs its name, platform, status and budget (services/growth/book._checked_change).
    BODY_RULES = {"anyOf": [
        {"required": ["id"]},
        {"required": list(REQUIRED_FIELDS), "properties": {"delete": {"enum": [False]}}},
    ]}


_NEXT = {"reason": "invalid_campaign", "minimum": 1,
         "description": "The book's `next` as GET answered it: a campaign with an id from it on was meant as new"}


class PostedBook(Schema):
    """The book as GET answers it (`book`), posted back."""
    settings = fields.Nested(SettingsBody, metadata={"reason": "invalid_setting"})
    campaigns = fields.List(fields.Nested(CampaignBody), metadata={"reason": "invalid_campaign"})
    next = fields.Integer(metadata=_NEXT)


class BookBody(PostedBook):
    """A save: {settings?, campaigns?, next?}, or GET's whole answer posted back ({book, status,
    updated_at, options}: the last three are read-only and ignored)."""
    book = fields.Nested(PostedBook, metadata={"reason": "invalid_campaign",
                                               "description": "GET's `book`, posted back (instead of the top-level "
                                                              "settings, campaigns and next)"})
    status = fields.String(metadata={"description": "Read-only (as GET answers it): ignored"})
    updated_at = fields.String(allow_none=True, metadata={"description": "Read-only (as GET answers it): ignored"})
    options = fields.Raw(allow_none=True, metadata={"description": "Read-only (as GET answers it): ignored"})


class DeliveryTotals(Schema):
    """What a campaign delivered over its days (and, as DeliveryDay, on one of them)."""
    impressions = fields.Integer(required=True)
    clicks = fields.Integer(required=True)
    spend_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    ctr_pct = fields.Float(allow_none=True, required=True)
    cpc_minor = fields.Integer(allow_none=True, required=True)


class DeliveryDay(DeliveryTotals):
    day = fields.String(required=True, metadata={"description": "A UTC day, YYYY-MM-DD"})


class DeliveryBars(Schema):
    ctr_min_pct = fields.Float(required=True)
    cpc_max_minor = fields.Integer(required=True)
    currency = fields.String(required=True)


class DeliveryOrders(Schema):
    paid = fields.Integer(required=True, metadata={"description": "Paid orders of customers who arrived by its link"})
    revenue_minor = fields.Integer(required=True, metadata={"description": "Their amount, in the spend's currency"})
    currency = fields.String(required=True)
    cost_per_order_minor = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Spend over paid orders; null with no paid order"})
    return_on_ad_spend = fields.Float(allow_none=True, required=True, metadata={
        "description": "Revenue over spend (2.5: every dollar spent brought $2.50); null before any spend"})


class Delivery(Schema):
    """What a campaign did on the ad platform (services/growth/delivery.py)."""
    state = fields.String(required=True, metadata={"enum": ["starting", "running", "paused"]})
    paused_because = fields.String(allow_none=True, required=True, metadata={
        "enum": ["balance", "bars", "refused", None]})
    days = fields.List(fields.Nested(DeliveryDay), required=True)
    totals = fields.Nested(DeliveryTotals, allow_none=True, required=True)
    flagged = fields.Boolean(required=True, metadata={"description": "It missed its bars once judged"})
    bars = fields.Nested(DeliveryBars, allow_none=True, required=True)
    min_impressions = fields.Integer(required=True, metadata={"description": "Impressions before it is judged"})
    orders = fields.Nested(DeliveryOrders, allow_none=True, required=True, metadata={
        "description": "The paid orders it brought (by the utm_campaign of their arrival); null before it launched"})


class Campaign(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    platform = fields.String(required=True, metadata={"enum": list(PLATFORMS)})
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    daily_budget_minor = fields.Integer(required=True)
    objective = fields.String(required=True, metadata={"enum": list(OBJECTIVES)})
    audience = fields.String(required=True, metadata={"enum": list(AUDIENCES)})
    pause_when_failing = fields.Boolean(metadata={"description": "Pause it when it misses its bars"})
    key = fields.String(metadata={"description": "Given when it first goes active: its utm_campaign, and what its "
                                                 "delivery and spend are recorded under"})
    paused_because = fields.String(metadata={"enum": ["balance", "bars", "refused"],
                                             "description": "Why the service paused it (absent: not the service)"})
    delivery = fields.Nested(Delivery, allow_none=True, metadata={
        "description": "null for a campaign that never went active"})


class BookSettings(Schema):
    currency = fields.String(required=True)
    daily_budget_minor = fields.Integer(required=True)
    platform = fields.String(required=True, metadata={"enum": list(PLATFORMS)})
    objective = fields.String(required=True, metadata={"enum": list(OBJECTIVES)})
    audience = fields.String(required=True, metadata={"enum": list(AUDIENCES)})


class Book(Schema):
    campaigns = fields.List(fields.Nested(Campaign), required=True)
    next = fields.Integer(required=True, metadata={"description": "The next campaign identifier; 1 for an empty book"})
    settings = fields.Nested(BookSettings, required=True)


class BookOptions(Schema):
    platforms = fields.List(fields.String(), required=True)
    statuses = fields.List(fields.String(), required=True)
    objectives = fields.List(fields.String(), required=True)
    audiences = fields.List(fields.String(), required=True)
    currencies = fields.List(fields.String(), required=True)
    daily_budget_min_minor = fields.Integer(required=True)
    daily_budget_max_minor = fields.Integer(required=True)
    max_campaigns = fields.Integer(required=True)
    name_max_chars = fields.Integer(required=True)


class BookAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    book = fields.Nested(Book, required=True)
    updated_at = fields.String(metadata={"description": "When the book was last saved; absent before the first save"})
    options = fields.Nested(BookOptions, required=True)


@bp.get("/api/ads-manager")
@bp.declare(changes_state=False)
@bp.response(200, BookAnswer)
def ads_manager():
    """The founder's campaign book (the empty book when none is saved)."""
    return book.book(session=current_session())


@bp.post("/api/ads-manager")
@bp.declare(changes_state=True, refuses={400: ["invalid_setting", "invalid_campaign", "invalid_platform",
                                               "unknown_campaign"],
                                         409: ["campaign_book_full", "ad_balance_too_low", "ad_not_ready",
                                               "ad_currency_differs"]})
@bp.arguments(BookBody)
@bp.response(200, BookAnswer)
def ads_manager_save(body):
    """Saves settings and campaigns into the founder's campaign book."""
    saved = _posted_book(body)
    return book.save(session=current_session(), settings=saved.get("settings"), campaigns=saved.get("campaigns"),
                     read_next=saved.get("next"))


def _posted_book(body: dict) -> dict:
    """The book a save carries: at the top level, or inside `book` (GET's answer posted back)."""
    if "book" not in body:
        return body
    if any(key in body for key in ("settings", "campaigns", "next")):
        raise Refused("invalid_campaign", "Send the book's settings, campaigns and next either at the top level or "
                                          "inside book, not both; nothing was saved.")
    return body["book"] or {}


# --- The ad balance ------------------------------------------------------------------------

class LedgerEntry(Schema):
    id = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"enum": ["topup", "spend"]})
    amount_minor = fields.Integer(required=True)
    balance_minor = fields.Integer(required=True, metadata={"description": "The balance this entry left"})
    topup_id = fields.String(allow_none=True, required=True)
    campaign = fields.String(allow_none=True, metadata={
        "description": "A spend: the campaign's name (null once the campaign was removed from the book)"})
    day = fields.String(allow_none=True, metadata={"description": "A spend: the UTC day it was spent"})
    created_at = fields.String(required=True)


class PendingTopup(Schema):
    topup_id = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)
    checkout_url = fields.String(required=True)
    created_at = fields.String(required=True)


class BalanceAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    currency = fields.String(required=True)
    balance_minor = fields.Integer(required=True)
    ledger = fields.List(fields.Nested(LedgerEntry), required=True)
    pending = fields.List(fields.Nested(PendingTopup), required=True)
    min_minor = fields.Integer(required=True)
    max_minor = fields.Integer(required=True)
    topups_available = fields.Boolean(required=True, metadata={"description": "false while payments are off"})


class TopupBody(Schema):
    amount_minor = fields.Integer(required=True, metadata={
        "reason": "invalid_amount", "minimum": MIN_MINOR, "maximum": MAX_MINOR,
        "description": "US cents", "also_refuses": ["amount_out_of_bounds"]})


class TopupStarted(Schema):
    status = fields.String(required=True, metadata={"enum": ["pending"]})
    topup_id = fields.String(required=True)
    checkout_url = fields.String(required=True)
    amount_minor = fields.Integer(required=True)
    currency = fields.String(required=True)


# The retired route's only answer, a refusal (written out, as the document writes refusals).
RETIRED_ANSWER = {"type": "object", "required": ["status", "reason", "explanation"],
                  "properties": {"status": {"type": "string", "enum": ["refused"]},
                                 "reason": {"type": "string", "enum": ["legacy_checkout_retired"]},
                                 "explanation": {"type": "string"}}}


@bp.get("/api/adbalance")
@bp.declare(changes_state=False)
@bp.response(200, BalanceAnswer)
def ad_balance():
    """The founder's ad balance, its ledger and the top-ups still open."""
    return balance.balance(session=current_session())


@bp.post("/api/adbalance")
@bp.declare(changes_state=True, refuses={400: ["invalid_amount", "amount_out_of_bounds"],
                                         200: ["payment_unavailable"]})
@bp.arguments(TopupBody)
@bp.response(200, TopupStarted)
def ad_balance_topup(body):
    """Starts a top-up of the ad balance through the payment provider."""
    return balance.start_topup(session=current_session(), amount_minor=body["amount_minor"])


@bp.get("/api/adbalance/confirm")
@bp.declare(changes_state=False, refuses={410: ["legacy_checkout_retired"]})
@bp.response(410, RETIRED_ANSWER)
def ad_balance_confirm():
    """Retired: confirmation is no longer client-driven; credits nothing."""
    balance.retired_confirm()
