"""Discovery, holds and claims: spec 2.4-2.6 and 4.3."""
from flask import jsonify
from marshmallow import Schema, fields, validate

from api import bounds
from api.research import TrendSchema
from api.routing import Blueprint
from api.session import current_session, forget_remembered_session, remembered_session
from config import Settings, get_settings
from jobs.send import send_all
from services import discovery, watches
from services.discovery.cards import TREND_POINTS, TREND_SERIES
from services.meter import METER_REFUSALS
from services.research import records as research
from services.sessions import StaleSession

bp = Blueprint("discovery", __name__, description="Discovery, holds and claims.")

# The numbers below come from the constants and settings defaults they describe, so the
# document cannot drift from the code (tests/test_discovery_decisions.py changes them and looks).
DECISIONS: list[str] = [
    "Resolver: a session's product is its most recent claim, else its live hold (claimed first, then hold); every "
    "founder-scoped endpoint resolves through services.discovery.resolve. A signed-in session sees its account's "
    "claims, holds, seen and passed products and allowance (from any device); any other session (anonymous, or "
    "one that saved an address nobody has proven yet) its own. When the session signs in (opens a sign-in link) "
    "everything it did becomes the account's.",
    f"Holds last {discovery.HOLD_MINUTES} minutes (`held_minutes: {discovery.HOLD_MINUTES}`) and are not extended "
    "by being served again; a founder holds one product at a time (taking a new hold releases the previous one). "
    "An expired hold is free for everyone at once, with no sweeper: every read and write compares its expiry with now. At most one live hold and one "
    "claim per product are enforced by the database (a hold row keyed by product taken by a conditional upsert; "
    "a unique product on claims); the loser of a race gets 409 `held_by_another_founder` or "
    "`claimed_by_another_founder`.",
    "Cards carry product_id, name, description, category, image (first image or null), price, cost, margin "
    "(price - cost), margin_pct, currency, evidence_count, evidence_latest (YYYY-MM-DD), trends, rank and yours; "
    "your own card adds held_until (ISO 8601 UTC, Z) or claimed: true. Money is a JSON number with two decimals. "
    "trends is the product's dated evidence as series the app draws as small trend lines: [{metric, label (the "
    "metric in words), source, lower_is_better (a rank), points: [{date, value}] oldest first}], one per metric "
    f"and source, at most {TREND_SERIES} (those with the most readings first), each its newest "
    f"{TREND_POINTS} readings; read for all the cards of an answer in one query.",
    "GET /api/find answers one card: the live hold, else a new hold on the best candidate; at the allowance it "
    "answers the founder's claimed card (claimed: true) without metering. GET /api/feed answers feed[0] = the "
    f"session's own held product (minted if needed), then up to {discovery.FEED_SIZE - 1} candidates; [] at the "
    "allowance (not metered). "
    "Candidates clear the evidence gate and are neither held (live) nor claimed by anyone nor passed on by the "
    "founder. Ranking key: rank descending, then product_id ascending. Every card rendered (find, feed, the next "
    "card of a pass) is recorded as seen; only seen products can be selected or claimed by id.",
    "When find or feed has nothing to serve it answers 200 {status: refused, reason, explanation} (for feed too, "
    "instead of an array): `catalog_exhausted` when every product is claimed (or there are none), "
    "`not_servable` when none of the unclaimed products clears the evidence gate, `passed_out` when the founder "
    "passed on every one that does, else `all_held` (the rest are held by other founders now). A find or feed "
    "that ends in such a refusal is refunded to the meter.",
    f"Evidence gate (EVIDENCE_MIN_ROWS={Settings.evidence_min_rows}, "
    f"EVIDENCE_MAX_AGE_DAYS={Settings.evidence_max_age_days}, MIN_MARGIN_PCT={Settings.min_margin_pct}): a product "
    f"is served only while it has at least {Settings.evidence_min_rows} dated evidence rows from the last "
    f"{Settings.evidence_max_age_days} days and a gross margin (price - cost) / price of at least "
    f"{Settings.min_margin_pct} %. A named product that fails it answers `not_presearch_qualified` (select: 409; "
    "claim: 200, "
    "and the hold is released); a held product that fails it is dropped from find and feed, which serve another.",
    "POST /api/select {product_id}: 200 {status: selected, held, product_id, held_minutes, held_until}; 400 "
    "`no_product_id` (missing), 404 `unknown_product`, 409 `not_shown`, `passed_by_you`, "
    "`held_by_another_founder`, `claimed_by_another_founder`, `not_presearch_qualified`; 200 "
    "`claim_limit_reached` at the allowance (nothing more could be claimed). Selecting your own claimed product "
    "answers selected with claimed: true.",
    "POST /api/pass {action: claim|pass, product_id?}: acts on the session's held product (a lapsed hold still "
    "counts while no one has taken it over), or on product_id when given (any card the session was shown: every "
    "card in a feed is claimable). Claim answers {status: claimed, product_id, allowance, claims_made, "
    "finds_remaining}; claiming again what you already claimed answers the same (one claim, counted once), and so "
    "does a claim with no product named once the hold has become that claim. "
    "Refusals: 200 `claim_limit_reached`, `no_product`, `not_presearch_qualified`; 409 "
    "`claimed_by_another_founder`, `held_by_another_founder`, `passed_by_you`, `not_shown`; 400 "
    "`invalid_action`, `unknown_product`. Pass answers {status: passed, passed, next: card or null} and, when "
    "next is null, reason (`all_held`, `passed_out`, `catalog_exhausted`, `not_servable`, or "
    "`claim_limit_reached` at the allowance) and explanation; the next card is held for the session. Passing "
    "your own claim is 409 `claimed_by_you`.",
    f"POST /api/pass {{action: undo, product_id?}} takes back the session's latest pass (or its pass of "
    f"product_id) for {discovery.UNDO_PASS_SECONDS} seconds after it, so a slip of the thumb does not cost a "
    "product; after that a pass is final. It answers {status: restored, product_id, held_until, explanation}: "
    "the product is a candidate of the founder's again, and held for them again (releasing the hold of the "
    "card shown after the pass) unless another founder holds or claimed it meanwhile or the allowance is used "
    "up (held_until null). Refusals: 200 `undo_window_over` (the minute is over; the answer names product_id), "
    "200 `no_pass_to_undo` (no pass of the session's, or of that product, to take back; a second undo of the "
    "same pass answers this).",
    f"Claim allowance: base {discovery.BASE_ALLOWANCE}, +1 per share action, at most "
    f"{discovery.BASE_ALLOWANCE + discovery.MAX_SHARE_LIFTS} (after {discovery.MAX_SHARE_LIFTS} lifting shares a "
    "share is still "
    "recorded and its link returned, but the allowance stays). finds_remaining = allowance - claims_made, never "
    "below zero. POST /api/share answers {status: share_recorded, shared: true, url: BASE_URL/r/<code>, "
    "allowance, claims_made, finds_remaining, explanation, observed}; the code is the session's (its account's "
    "once bound) referral code, to which a friend's later sign-up is credited.",
    "GET /api/claims answers {status: ok, allowance, claims_made, finds_remaining, max_allowance, next_claim, "
    "claimed: [the session's claimed products as cards (yours, claimed: true), newest first]}: what a claim would "
    "spend, read before one, and the founder's claims whatever the feed shows (after a share the feed serves a new "
    "hold, not the claim). next_claim says in words what unlocks the next claim: nothing while claims are left, a "
    "share while the allowance is below max_allowance, and at max_allowance that nothing does (so the empty feed "
    "at the allowance says what comes next instead of nothing). Not metered, and nothing is recorded as seen.",
    "Watches: POST /api/notify_me {email, product_id} records a watch (200 {status: watching, product_id, email, "
    "since, because: held|claimed}) on a product held or claimed by someone else; otherwise 200 "
    "{status: refused, reason: nothing_to_watch} (free now, yours, or no such product); 400 `invalid_email`. "
    "Watching again replaces the address. GET /api/notify_me answers {status: ok, watches: [{product_id, email, "
    "state: watching|available, since, closed_at, notified_at}]} or nothing_to_watch with watches: []. A watch "
    "closes once, when the product is observed available: its holder passes or moves on, a feed shows it as a "
    "free card (this is how an expired hold is noticed), or the watcher reads their watches; the notice is "
    "mailed by a job (retried while the mailer is down).",
    f"POST /api/discover {{q?, mode?: new|refresh, use_research_brief?}} runs {discovery.DISCOVER_SCRIPT} in a "
    "worker (one run per session at a time; a second request joins the running one) and waits up to "
    f"DISCOVER_WAIT_SECONDS ({Settings.discover_wait_seconds}) for it. The script reads the supplier feed "
    "(SUPPLIER_FEED: the bundled offline feed, a folder or an "
    "http(s) URL; its offer lines, a supplier's offer of a product listed elsewhere with no price, are passed "
    "over and counted in the summary), keeps the products matching every word of q, scores them against the "
    "evidence gate and adds "
    f"up to DISCOVER_MAX_ADD ({Settings.discover_max_add}) qualified products new to the catalog (mode refresh also "
    "updates those already "
    "in it), printing one line per product and a summary. Answer: {status: ok (exit 0) | refused, query, ran "
    f"({discovery.DISCOVER_SCRIPT} when no q, else null), exit_code, log, stderr, job_id}}; timed_out / truncated "
    f"are added when the script hit DISCOVER_TIMEOUT_SECONDS ({Settings.discover_timeout_seconds}) or its output "
    "cap. When the wait ends first the "
    "answer is status running with the job_id: GET /api/discover?job_id=... answers the same body until done.",
    "use_research_brief: true seeds the run from the latest nightly research brief (GET /api/brief): besides "
    "matching q, a feed product must be one the brief names (a candidate, or a product that crossed into the "
    "evidence gate; already in the catalog, so mode refresh updates it) or be in one of their categories (new "
    "products like them). The summary line names the brief's day and how many products and categories seeded "
    "it. Until a brief has been made the script says so on stderr and runs with no brief filter (exit 0).",
]


class CardSchema(Schema):
    product_id = fields.String(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True)
    category = fields.String(required=True)
    image = fields.String(required=True, allow_none=True)
    price = fields.Float(required=True)
    cost = fields.Float(required=True)
    margin = fields.Float(required=True)
    margin_pct = fields.Float(required=True)
    currency = fields.String(required=True)
    evidence_count = fields.Integer(required=True)
    evidence_latest = fields.String(required=True, allow_none=True)
    trends = fields.List(fields.Nested(TrendSchema), required=True)
    rank = fields.Float(required=True)
    yours = fields.Boolean(required=True)
    held_until = fields.String(allow_none=True)
    claimed = fields.Boolean()


class SelectBody(Schema):
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120), metadata={"reason": "no_product_id"})


class SelectAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["selected"]})
    held = fields.String(required=True, allow_none=True)
    product_id = fields.String(required=True)
    held_minutes = fields.Integer(required=True)
    held_until = fields.String(allow_none=True)
    claimed = fields.Boolean()


class PassBody(Schema):
    action = fields.String(required=True, validate=validate.OneOf(["claim", "pass", "undo"]),
                           metadata={"reason": "invalid_action"})
    product_id = fields.String(validate=validate.Length(min=1, max=120))


class PassAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["claimed", "passed", "restored"]})
    product_id = fields.String()
    held_until = fields.String(allow_none=True)
    allowance = fields.Integer()
    claims_made = fields.Integer()
    finds_remaining = fields.Integer()
    passed = fields.String()
    next = fields.Nested(CardSchema, allow_none=True)
    reason = fields.String()
    explanation = fields.String()


class ShareAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["share_recorded"]})
    shared = fields.Boolean(required=True)
    url = fields.String(required=True)
    allowance = fields.Integer(required=True)
    claims_made = fields.Integer(required=True)
    finds_remaining = fields.Integer(required=True)
    explanation = fields.String(required=True)
    observed = fields.String(required=True)


class ClaimsAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    allowance = fields.Integer(required=True)
    claims_made = fields.Integer(required=True)
    finds_remaining = fields.Integer(required=True)
    max_allowance = fields.Integer(required=True)
    next_claim = fields.String(required=True, metadata={"description": "What unlocks the next claim, in words"})
    claimed = fields.List(fields.Nested(CardSchema), required=True)


class NotifyBody(Schema):
    email = fields.String(required=True, validate=validate.Length(max=500),
                          metadata={"reason": "invalid_email", **bounds.EMAIL})
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120), metadata={"reason": "no_product_id"})


class WatchSchema(Schema):
    product_id = fields.String(required=True)
    email = fields.String(required=True)
    state = fields.String(required=True)
    since = fields.String(required=True)
    closed_at = fields.String(allow_none=True)
    notified_at = fields.String(allow_none=True)


class NotifyAnswer(Schema):
    status = fields.String(required=True)
    product_id = fields.String()
    email = fields.String()
    since = fields.String()
    because = fields.String()
    reason = fields.String()
    explanation = fields.String()


class WatchesAnswer(Schema):
    status = fields.String(required=True)
    watches = fields.List(fields.Nested(WatchSchema), required=True)
    reason = fields.String()
    explanation = fields.String()


class DiscoverBody(Schema):
    q = fields.String(allow_none=True, validate=validate.Length(max=discovery.MAX_QUERY_CHARS))
    mode = fields.String(allow_none=True, validate=validate.Length(max=40))
    use_research_brief = fields.Boolean(allow_none=True, load_default=False)


class DiscoverQuery(Schema):
    job_id = fields.String(validate=validate.Length(min=1, max=64))


class DiscoverAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "refused", "running"]})
    query = fields.String(required=True, allow_none=True)
    ran = fields.String(required=True, allow_none=True)
    exit_code = fields.Integer(required=True, allow_none=True)
    log = fields.List(fields.String(), required=True)
    stderr = fields.List(fields.String(), required=True)
    job_id = fields.String(required=True)
    timed_out = fields.Boolean()
    truncated = fields.Boolean()
    error = fields.String()


EXHAUSTED_REFUSALS = ["all_held", "passed_out", "catalog_exhausted", "not_servable"]


@bp.get("/api/find")
@bp.declare(changes_state=True,  # it mints a hold and spends credits
            refuses={200: EXHAUSTED_REFUSALS + ["claim_limit_reached"], 429: list(METER_REFUSALS)})
@bp.response(200, CardSchema)
def find():
    """Serves the session's product as a card, holding the best candidate when it has none.

    Metered under the find bucket. At the claim allowance it serves the founder's claimed product.
    """
    body, jobs = _as_remembered(discovery.find)
    send_all(jobs)
    return as_built(body)


@bp.get("/api/feed")
@bp.declare(changes_state=True, refuses={200: EXHAUSTED_REFUSALS, 429: list(METER_REFUSALS)})
@bp.response(200, CardSchema(many=True))
def feed():
    """Serves the session's own held product first, then free candidates by rank; empty at the allowance.

    Metered under the find bucket.
    """
    cards, jobs = _as_remembered(discovery.feed)
    send_all(jobs)
    return as_built(cards)


def _as_remembered(serve):
    """Find and feed, the requests a founder's app sends most, act on the session this process
    read last for the cookie without reading it again: their own statement reads the token's
    row too and says when it changed (a sign-in, a new token, a pruned session), and then
    they start over on the session as it is (api/session.remembered_session)."""
    remembered = remembered_session()
    if remembered is not None:
        try:
            return serve(session=remembered.session, check=remembered.values)
        except StaleSession:
            forget_remembered_session()
    return serve(session=current_session())


def as_built(cards):
    """A card, or a list of cards, sent as services/discovery/cards.py built them: in
    CardSchema's shape already (its fields in its order, each of its JSON type, the trends
    in TrendSchema's), so the schema's dump would change nothing and is skipped; it was a
    third of a feed's time. CardSchema stays the documented answer, and
    tests/test_card_shape.py dumps every form the service builds through it and compares."""
    return jsonify(cards)


@bp.post("/api/select")
@bp.declare(changes_state=True,
            refuses={404: ["unknown_product"], 409: ["not_shown", "passed_by_you", "held_by_another_founder",
                                                     "claimed_by_another_founder", "not_presearch_qualified"],
                     200: ["claim_limit_reached"]})
@bp.arguments(SelectBody)
@bp.response(200, SelectAnswer)
def select(body):
    """Holds a product this session was shown, releasing its previous hold."""
    answer, jobs = discovery.select(session=current_session(), product_id=body["product_id"])
    send_all(jobs)
    return answer


@bp.post("/api/pass")
@bp.declare(changes_state=True,
            refuses={200: ["claim_limit_reached", "no_product", "not_presearch_qualified", "no_pass_to_undo",
                           "undo_window_over"],
                     400: ["unknown_product"],
                     409: ["claimed_by_another_founder", "held_by_another_founder", "passed_by_you", "not_shown",
                           "claimed_by_you"]})
@bp.arguments(PassBody)
@bp.response(200, PassAnswer)
def pass_or_claim(body):
    """Claims the held product (action claim), passes on it and shows the next (action pass), or takes a
    pass back within its minute (action undo)."""
    session = current_session()
    if body["action"] == "undo":
        answer, jobs = discovery.undo_pass(session=session, product_id=body.get("product_id"))
        send_all(jobs)
        return answer
    if body["action"] == "claim":
        answer = discovery.claim(session=session, product_id=body.get("product_id"))
        send_all(research.request_if_missing(answer["product_id"]))  # the claim starts its product's research
        return answer
    answer, jobs = discovery.pass_on(session=session, product_id=body.get("product_id"))
    send_all(jobs)
    return answer


@bp.post("/api/share")
@bp.declare(changes_state=True, no_body=True)
@bp.response(200, ShareAnswer)
def share():
    """Records a use of the share control, lifts the claim allowance by one and returns the coded referral link."""
    return discovery.share(session=current_session())


@bp.get("/api/claims")
@bp.declare(changes_state=False)
@bp.response(200, ClaimsAnswer)
def claims():
    """Answers the claim allowance (what a claim would spend) and the products this session claimed."""
    return discovery.claims(session=current_session())


@bp.post("/api/notify_me")
@bp.declare(changes_state=True, refuses={400: ["invalid_email"], 200: ["nothing_to_watch"]})
@bp.arguments(NotifyBody)
@bp.response(200, NotifyAnswer)
def notify_me(body):
    """Watches a product held or claimed by someone else: the address is mailed once when it is free again."""
    answer, jobs = watches.watch(session=current_session(), email=body["email"], product_id=body["product_id"])
    send_all(jobs)
    return answer


@bp.get("/api/notify_me")
@bp.declare(changes_state=False, refuses={200: ["nothing_to_watch"]})
@bp.response(200, WatchesAnswer)
def list_watches():
    """Lists the watches this session placed, closing those whose product is available now."""
    answer, jobs = watches.watches(session=current_session())
    send_all(jobs)
    return answer


@bp.post("/api/discover")
@bp.declare(changes_state=True)
@bp.arguments(DiscoverBody)
@bp.response(200, DiscoverAnswer)
def discover(body):
    """Runs the discovery script over the supplier feed in a worker and answers its exit code and output."""
    session = current_session()
    job, created = discovery.start_discovery(subject=discovery.session_runs(session), query=body.get("q"),
                                             mode=body.get("mode"),
                                             use_research_brief=bool(body.get("use_research_brief")))
    send_all([job] if created else [])
    job = discovery.wait_for_run(job.id, seconds=get_settings().discover_wait_seconds)
    return discovery.run_answer(job)


@bp.get("/api/discover")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.arguments(DiscoverQuery, location="query")
@bp.response(200, DiscoverAnswer)
def discover_run(query):
    """Reads a discovery run of this session (its latest when no job_id is given): running, or its result."""
    return discovery.run_answer(discovery.run_of(subject=discovery.session_runs(current_session()),
                                                 job_id=query.get("job_id")))
