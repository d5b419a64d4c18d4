"""Research and verdict (spec 2.13, 4.7): the offer, the analysis, the dashboard verdict,
the launch facts, the outcome of a claimed product and the published track record."""
from flask import jsonify
from marshmallow import Schema, fields, validate

from api import bounds
from api.launch import LaunchStateSchema
from api.routing import Blueprint
from api.session import current_session
from config import Settings
from jobs.send import send_all
from services import next_step
from services.kept import Kept
from services.research import analysis as analyser
from services.research import answers, launch, offer, outcomes, verdict

bp = Blueprint("research", __name__, description="What the service knows about a founder's product.")

MAX_AMOUNT = 1_000_000_000  # an amount past a billion is a typo, not an outcome
MAX_NOTE = 2000

MAX_ANALYZE_NAME = 200
MAX_ANALYZE_DESCRIPTION = 5000


def _offer_settings() -> str:
    d = Settings()
    return (f"OFFER_FEE_PCT (default {d.offer_fee_pct}), OFFER_FEE_FIXED ({d.offer_fee_fixed}), OFFER_SHIPPING_FLAT "
            f"({d.offer_shipping_flat}), OFFER_SHIPPING_PER_KG ({d.offer_shipping_per_kg}) and TARGET_MARGIN_PCT "
            f"({d.target_margin_pct}); money in the product's currency")


def _verdict_rules() -> list[str]:
    """The rules with the default settings (TARGET_MARGIN_PCT, EVIDENCE_MIN_ROWS, EVIDENCE_MAX_AGE_DAYS)."""
    d = Settings()
    return verdict.rules_text(d.target_margin_pct, d.evidence_min_rows, d.evidence_max_age_days)


DECISIONS: list[str] = [
    "Research: a `research` job per product (one at a time; the job row and subject lock) computes the offer and the "
    "analysis and stores them with researched_at and a fingerprint of every input (the catalog record, its evidence "
    "rows, the offer and evidence-gate settings, and the day, since freshness windows move with it). It is sent when "
    "a product is claimed and whenever GET /api/offer, /api/analysis or /api/dashboard finds the session's product "
    "(held or claimed) without research or with a stale fingerprint; a stale research is still served, with "
    "`refreshing: true`, while the new one runs. Until the first research finishes these answer 200 "
    "{status: not_yet_researched, reason: not_yet_researched, explanation, product_id, stage, job_id}.",
    "GET /api/offer: {status: ok, product_id, currency, price, cost, shipping, fees, unit_margin, margin_pct, "
    "break_even_cpa, break_even_roas, price_for_target_margin, target_margin_pct, figures: [{name, value, formula, "
    "inputs: [input names]}], inputs: [{name, value, source}], researched_at, refreshing}. A source is "
    "{type: catalog, field}, {type: evidence, date, source, metric} or {type: setting, name}. price (recommended "
    "retail) is the catalog record's market price; cost is the catalog cost, or a supplier quote "
    f"({offer.QUOTE_METRIC}) dated within {offer.QUOTE_FRESH_DAYS} days when it is higher (a bulk quote below the "
    "catalog cost is not what a first order pays); shipping = OFFER_SHIPPING_FLAT + OFFER_SHIPPING_PER_KG x the "
    "catalog weight in kg (flat alone when the record has no weight); fees = price x OFFER_FEE_PCT / 100 + "
    "OFFER_FEE_FIXED; unit_margin = price - cost - shipping - fees; margin_pct = unit_margin / price x 100; "
    "break_even_cpa = unit_margin (0 when negative); break_even_roas = price / unit_margin (null when unit_margin "
    "<= 0); price_for_target_margin = (cost + shipping + OFFER_FEE_FIXED) / (1 - OFFER_FEE_PCT/100 - "
    "TARGET_MARGIN_PCT/100). Every figure is rounded to cents before the next uses it. Settings: "
    + _offer_settings() + ". 200 `no_product` when the session has neither a hold nor a claim. When an offer is "
    "answered, open watches on the product close (closed_because offer_ready) and the watchers are mailed.",
    "Analysis (GET /api/analysis for the session's product; POST /api/analyze {name?, description?} for any text): "
    "figures [{id: demand|competition|margin|risk, level: high|medium|low|unknown, value, no_evidence, because, "
    f"evidence, signals}}]. Demand and competition read the strongest reading dated within {analyser.FRESH_DAYS} "
    "days of today of the metrics that can back them, whatever the catalog calls them (see the decision on "
    "evidence from any catalog), among: " + "; ".join(analyser.rules()) + ". `signals` says, per metric, its kind, "
    "roles, direction, change_pct, level and what the level was read against (level_basis scale, peers or none, "
    "with the number of peers). Risk is high with no fresh row or a demand series (one metric from one source) "
    f"whose newest reading is {analyser.FALLING_PCT}% worse than the one before it, medium under three fresh rows, "
    "low otherwise. Nothing "
    "fresh behind a figure: level unknown, no_evidence true, a because that says so. POST /api/analyze reads the "
    "text through the catalog search and answers the figures of the closest product the session may see "
    "({matched, matches, basis}); with no match every figure is unknown/no evidence. 400 `nothing_to_analyze` when "
    f"both fields are empty; name up to {MAX_ANALYZE_NAME} and description up to {MAX_ANALYZE_DESCRIPTION} "
    "characters (400 `invalid_name`, `invalid_description`). Not metered: no AI runs.",
    "Evidence from any catalog: the catalog's `metric` is free text, so no reader of evidence keys on one catalog's "
    "metric names. One classifier (services/evidence_kinds.py, with unit tests pinning each rule) reads every dated "
    "row with a finite number for a value (other rows are ignored) and serves the analysis, the verdict through "
    "it, intent proposals, the store's evidence section and the offline copywriter. Its rules: "
    + "; ".join(analyser.classification_rules()) + ". Why names at all: a catalog row carries no unit, so "
    "whether lower is better can only be read from the name; the documented word lists are the whole of that, "
    "everything else numeric is a count or level (more is better), and strength and direction come from the data. "
    "The published scales are the demo catalog's metrics, whose units are known; with a scale the demo catalog "
    "reads as before. The peers are read with each research and are not part of its fingerprint (a catalog load "
    "would otherwise re-research every product); the day in the fingerprint refreshes them at least daily. "
    "The offer's supplier quote stays the documented metric unit_price_quote: guessing a unit cost from words "
    "could take a shipping cost or a fee for it.",
    "GET /api/dashboard: {status: ok, product_id, verdict: go|test_small|pass, rule, because, facts: [{id, text, "
    "value, source}], sources: [every catalog field, evidence row and setting behind the figures], offer: {currency, "
    "price, cost, unit_margin, margin_pct, break_even_cpa, break_even_roas}, trends (the fresh evidence rows behind the "
    "risk figure as series, shaped as a card's trends), researched_at, refreshing}; 200 "
    "{status: not_claimed, reason: not_claimed} when the session has no product. Verdict rules, tried in order: "
    + " ".join(_verdict_rules()) + " A dashboard with a verdict records the reached_dashboard milestone (session and "
    "account) and qualifies the account's pending referral; a friend who reached it before signing in qualifies on "
    "first sign-in. Each web process keeps a verdict's dumped answer under a digest of the research row as stored "
    "(its offer and analysis text, fingerprint and researched_at), whether it is refreshing and the founder's "
    "connected supplier line: the body is a function of those alone, so a row rewritten by any writer is answered "
    "afresh on the next poll.",
    "A founder's own product (POST /api/product without a product, `own-` ids) speaks of the founder's figures, "
    "not the catalog's: its offer's price and unit cost are the inputs your_price and your_cost (in place of "
    "market_price and catalog_cost), each with the source {type: own, field: price | cost}; the price figure's "
    "formula says `your own price` and the cost figure's `the unit cost you gave`, or, when the founder gave none "
    "(`cost_given: false`; the cost counts as 0), that it is not given yet. GET /api/offer and GET /api/dashboard "
    "say `own_product: true`. Its research also reads the prices of similar catalog products: the category of the "
    "catalog product its name and description match best (the catalog search, as POST /api/analyze reads a "
    "description; an own product's category is the founder's screens', not the catalog's), then the lowest, "
    "middle (median) and highest price of every catalog product in that category and the product's currency "
    "(founders' own products never among them). Like the peers' readings these prices are read with each research "
    "and are not part of its fingerprint: the day refreshes them at least daily. The dashboard adds the fact "
    "similar_prices (value: the median; source {type: similar, category, products}, also in `sources`; with no "
    "similar product, value null and source {type: none}). Own-product verdict: nothing outside has measured an "
    "own product (no catalog line brings its evidence), so the evidence gate cannot pass it; in that place of the "
    "rules it is test_small with rule no_outside_evidence, and the because says the outside readings are missing "
    "(it is no verdict on demand; a small test is how to get the evidence) and what the founder's own figures "
    "tell: the unit margin and margin at their price, the break-even ROAS, their price against the similar "
    "products' range and middle, and that a cost not given counts as 0. A loss or a thin margin passes it by "
    "rules 1 and 2, as any product; catalog products keep every rule as it was. The evidence-in-window fact and "
    "the too_little_evidence because count `dated readings` (\"No outside readings yet\" for an own product), "
    "never rows or the gate. A research row stored before these words is researched again at its next read (the "
    "fingerprint carries the research's format).",
    "GET /api/offer adds `supplier` (null, or {supplier, sku, name, unit_cost, currency, moq, minimum_order_quantity, "
    "minimum_order_total, used_as_cost, explanation}). When the founder's connected offer line counts for the product "
    "(connected for it, or before any claim) and shares the offer's currency, cost is its unit_cost: the cost "
    "figure's inputs are [supplier_unit_cost] (source {type: supplier, supplier, sku, currency}), the catalog cost "
    "and the supplier quote are no longer inputs, and every later figure is recomputed by the same rules. A line in "
    "another currency is not used (no exchange rate is assumed) and `explanation` says so. GET /api/dashboard and GET "
    "/api/analysis read the same offer; the dashboard adds a `cost` fact and `offer.cost`.",
    "POST /api/outcome without revenue records the store's confirmed revenue in the product's currency (GET "
    "/api/revenue) when it has any, and outcome.revenue_from_orders says so; a revenue the founder sends is "
    "recorded as sent.",
    "GET /api/launch: {status: ok, product_id (null without a product), product_name (its name as its store shows "
    "it, the founder's own where set: what screens call it), facts: [{id, label, true_today, detail}]} "
    "with the facts " + ", ".join(launch.FACT_IDS) + ", in that order; each is computed from the records of its "
    "area, and a fact whose area is not built yet reads false with a detail saying so. `launch_state` is the "
    "claimed product's launch state as POST /api/product-launch answers it (draft before the first transition), "
    "null while the session has claimed nothing.",
    "POST /api/outcome {spend?, revenue?, note?} attaches an outcome to the session's claimed product (the resolver's "
    f"claim): spend and revenue are non-negative amounts up to {MAX_AMOUNT:,} in the product's currency (rounded to "
    f"cents), note at most {MAX_NOTE} characters. 200 {{status: recorded, outcome: {{product_id, spend, revenue, note, "
    "result: win|miss, declared_at}}}}; one outcome per claim, and a later declaration replaces the figures it sends "
    "and keeps the rest. 400 `nothing_to_record` (neither spend nor revenue), `invalid_outcome` (a negative, "
    "non-numeric or too large amount, or a note that is not text), `no_claim` (the session only holds a product), "
    "`no_claim_record` (no product at all).",
    "GET /api/track-record (public): {status: ok, hit_rate, wins, misses, pending, basis: {outcomes, definition}}. "
    + outcomes.DEFINITION + " hit_rate is null with no declared outcome.",
]


def _amount():
    return fields.Float(allow_none=True, load_default=None, validate=validate.Range(min=0, max=MAX_AMOUNT),
                        metadata={"reason": "invalid_outcome"})


class OutcomeBody(Schema):
    spend = _amount()
    revenue = _amount()
    note = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=MAX_NOTE),
                         metadata={"reason": "invalid_outcome"})


class OutcomeSchema(Schema):
    product_id = fields.String(required=True)
    spend = fields.Float(required=True, allow_none=True)
    revenue = fields.Float(required=True, allow_none=True)
    note = fields.String(required=True, allow_none=True)
    result = fields.String(required=True, metadata={"enum": [outcomes.WIN, outcomes.MISS]})
    declared_at = fields.String(required=True)
    revenue_from_orders = fields.Boolean(required=True, metadata={
        "description": "True when revenue is the store's confirmed revenue from paid orders (none was sent)"})


class RecordedAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["recorded"]})
    outcome = fields.Nested(OutcomeSchema, required=True)


class BasisSchema(Schema):
    outcomes = fields.Integer(required=True)
    definition = fields.String(required=True)


class TrackRecordAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    hit_rate = fields.Float(required=True, allow_none=True, metadata={"description": "A fraction from 0 to 1"})
    wins = fields.Integer(required=True)
    misses = fields.Integer(required=True)
    pending = fields.Integer(required=True)
    basis = fields.Nested(BasisSchema, required=True)


@bp.post("/api/outcome")
@bp.declare(changes_state=True, refuses={400: ["nothing_to_record", "invalid_outcome", "no_claim", "no_claim_record"]})
@bp.arguments(OutcomeBody)
@bp.response(200, RecordedAnswer)
def record_outcome(body):
    """Declares the outcome (spend, revenue) of the session's claimed product."""
    return outcomes.record_outcome(session=current_session(), spend=body["spend"], revenue=body["revenue"],
                                   note=body["note"])


@bp.get("/api/track-record")
@bp.declare(changes_state=False)
@bp.response(200, TrackRecordAnswer)
def track_record():
    """Publishes the hit rate over declared outcomes, wins, misses and pending claims, with its basis."""
    return outcomes.track_record()


# --- Offer, analysis, dashboard, launch ------------------------------------------------------

class SourceSchema(Schema):
    """Where a figure comes from: a catalog field, the founder's own figure (their own product's price or
    cost), a dated evidence row, a setting, an offer figure, the founder's connected supplier's offer line, or
    the prices of similar catalog products."""
    type = fields.String(required=True, metadata={"enum": ["catalog", "own", "evidence", "setting", "offer",
                                                           "supplier", "similar", "none"]})
    field = fields.String()
    date = fields.String()
    source = fields.String()
    metric = fields.String()
    value = fields.Raw()
    level = fields.String()
    name = fields.String()
    figure = fields.String()
    formula = fields.String()
    inputs = fields.List(fields.String())
    detail = fields.String()
    supplier = fields.String(metadata={"description": "supplier: the connected offer line's supplier"})
    sku = fields.String(metadata={"description": "supplier: the connected offer line's SKU"})
    currency = fields.String(metadata={"description": "supplier: the currency the line is priced in"})
    category = fields.String(metadata={"description": "similar: the catalog category the prices are read from"})
    products = fields.Integer(metadata={"description": "similar: how many catalog products' prices were read"})


class InputSchema(Schema):
    name = fields.String(required=True)
    value = fields.Float(required=True)
    source = fields.Nested(SourceSchema, required=True)


class FigureSchema(Schema):
    name = fields.String(required=True)
    value = fields.Float(required=True, allow_none=True)
    formula = fields.String(required=True)
    inputs = fields.List(fields.String(), required=True)


def _state_fields():
    """The fields of a 200 state answer (not_yet_researched, no_product, not_claimed)."""
    return {"reason": fields.String(), "explanation": fields.String(), "stage": fields.String(),
            "job_id": fields.String(allow_none=True)}


class OfferSupplierSchema(Schema):
    """The offer line the founder connected for the product, and whether its unit cost is the offer's cost."""
    supplier = fields.String(required=True)
    sku = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "What the line offers, as the feed names it"})
    unit_cost = fields.Float(required=True)
    currency = fields.String(required=True)
    moq = fields.Integer(required=True, allow_none=True, metadata={"description": "The line's minimum order"})
    minimum_order_quantity = fields.Integer(required=True, metadata={
        "description": "The units a first order must buy: the minimum order, 1 when the line has none"})
    minimum_order_total = fields.Float(required=True, metadata={
        "description": "What that first order costs up front: unit_cost x minimum_order_quantity, in currency"})
    used_as_cost = fields.Boolean(required=True, metadata={
        "description": "True: unit_cost is the offer's cost; false: the line is priced in another currency"})
    explanation = fields.String(required=True, allow_none=True, metadata={
        "description": "Why the unit cost is not the offer's cost (null when it is)"})


class OfferAnswer(Schema.from_dict(_state_fields())):
    status = fields.String(required=True, metadata={"enum": ["ok", "not_yet_researched", "refused"]})
    product_id = fields.String()
    currency = fields.String()
    price = fields.Float()
    cost = fields.Float()
    shipping = fields.Float()
    fees = fields.Float()
    unit_margin = fields.Float()
    margin_pct = fields.Float()
    break_even_cpa = fields.Float()
    break_even_roas = fields.Float(allow_none=True)
    price_for_target_margin = fields.Float(allow_none=True)
    target_margin_pct = fields.Float()
    figures = fields.List(fields.Nested(FigureSchema))
    inputs = fields.List(fields.Nested(InputSchema))
    supplier = fields.Nested(OfferSupplierSchema, allow_none=True, metadata={
        "description": "The founder's connected offer line for this product (null: none counts)"})
    own_product = fields.Boolean(metadata={
        "description": "True for a founder's own product: its price and cost are the founder's figures"})
    cost_given = fields.Boolean(metadata={
        "description": "False when the founder has not said what one unit of their own product costs (counted "
                       "as 0)"})
    researched_at = fields.String()
    refreshing = fields.Boolean()


class SignalSchema(Schema):
    """What one metric's fresh readings tell (services/evidence_kinds.py)."""
    metric = fields.String(required=True)
    source = fields.String(required=True, metadata={"description": "The source of its newest reading"})
    kind = fields.String(required=True, metadata={"enum": list(analyser.KINDS)})
    roles = fields.List(fields.String(), required=True)
    lower_is_better = fields.Boolean(required=True)
    direction = fields.String(required=True, metadata={"enum": list(analyser.DIRECTIONS)})
    change_pct = fields.Float(required=True, allow_none=True)
    level = fields.String(required=True, metadata={"enum": ["high", "medium", "low", "unknown"]})
    level_basis = fields.String(required=True, metadata={"enum": ["scale", "peers", "none"]})
    peers = fields.Integer(required=True)


class AnalysisFigureSchema(Schema):
    id = fields.String(required=True, metadata={"enum": ["demand", "competition", "margin", "risk"]})
    level = fields.String(required=True, metadata={"enum": ["high", "medium", "low", "unknown"]})
    value = fields.Float(required=True, allow_none=True)
    no_evidence = fields.Boolean(required=True)
    because = fields.String(required=True)
    evidence = fields.List(fields.Nested(SourceSchema), required=True)
    falling = fields.List(fields.Dict())
    signals = fields.List(fields.Nested(SignalSchema))


class AnalysisAnswer(Schema.from_dict(_state_fields())):
    status = fields.String(required=True, metadata={"enum": ["ok", "not_yet_researched", "refused"]})
    product_id = fields.String()
    figures = fields.List(fields.Nested(AnalysisFigureSchema))
    fresh_days = fields.Integer()
    researched_at = fields.String()
    refreshing = fields.Boolean()


class AnalyzeBody(Schema):
    name = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=MAX_ANALYZE_NAME),
                         metadata={"reason": "invalid_name"})
    description = fields.String(allow_none=True, load_default=None,
                                validate=validate.Length(max=MAX_ANALYZE_DESCRIPTION),
                                metadata={"reason": "invalid_description"})

    # One of the two with a character that is not a space (services/research/answers.analyze).
    BODY_RULES = {"anyOf": [{"required": [key], "properties": {key: {"type": "string", "pattern": bounds.NOT_BLANK}}}
                            for key in ("name", "description")]}


class MatchSchema(Schema):
    product_id = fields.String(required=True)
    name = fields.String(required=True)
    category = fields.String(required=True)
    score = fields.Float(required=True)


class AnalyzeAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    name = fields.String(required=True, allow_none=True)
    description = fields.String(required=True, allow_none=True)
    matched = fields.Nested(MatchSchema, required=True, allow_none=True)
    matches = fields.List(fields.Nested(MatchSchema), required=True)
    basis = fields.String(required=True)
    figures = fields.List(fields.Nested(AnalysisFigureSchema), required=True)
    fresh_days = fields.Integer(required=True)


class TrendPointSchema(Schema):
    date = fields.String(required=True, metadata={"description": "YYYY-MM-DD"})
    value = fields.Float(required=True)


class TrendSchema(Schema):
    """One series of dated evidence (one metric from one source), as the app draws it (a card's and the dashboard's trends)."""
    metric = fields.String(required=True)
    label = fields.String(required=True, metadata={"description": "The metric in words"})
    source = fields.String(required=True)
    source_label = fields.String(required=True, metadata={"description": "The source in words (Google Trends)"})
    lower_is_better = fields.Boolean(required=True, metadata={"description": "True for a rank"})
    points = fields.List(fields.Nested(TrendPointSchema), required=True)


class FactSchema(Schema):
    id = fields.String(required=True)
    text = fields.String(required=True)
    value = fields.Raw(required=True)
    source = fields.Nested(SourceSchema, required=True)


class DashboardOfferSchema(Schema):
    currency = fields.String(required=True)
    price = fields.Float(required=True)
    cost = fields.Float(required=True, metadata={"description": "The unit cost, as GET /api/offer answers it"})
    unit_margin = fields.Float(required=True)
    margin_pct = fields.Float(required=True)
    break_even_cpa = fields.Float(required=True)
    break_even_roas = fields.Float(required=True, allow_none=True)


class DashboardAnswer(Schema.from_dict(_state_fields())):
    status = fields.String(required=True, metadata={"enum": ["ok", "not_claimed", "not_yet_researched"]})
    product_id = fields.String()
    own_product = fields.Boolean(metadata={
        "description": "True for a founder's own product: judged on the founder's figures (rule no_outside_evidence)"})
    verdict = fields.String(metadata={"enum": [verdict.GO, verdict.TEST_SMALL, verdict.PASS]})
    rule = fields.String()
    because = fields.String()
    facts = fields.List(fields.Nested(FactSchema))
    sources = fields.List(fields.Nested(SourceSchema))
    offer = fields.Nested(DashboardOfferSchema)
    trends = fields.List(fields.Nested(TrendSchema))
    researched_at = fields.String()
    refreshing = fields.Boolean()


class LaunchFactSchema(Schema):
    id = fields.String(required=True, metadata={"enum": launch.FACT_IDS})
    label = fields.String(required=True)
    true_today = fields.Boolean(required=True)
    detail = fields.String(required=True)


class NextStepSchema(Schema):
    """Where the product stands and the one step that comes next, as every screen says it
    (services/next_step.py): Home, Launch, Store and Tasks read this, never the facts."""
    step = fields.String(required=True, metadata={"enum": list(next_step.STEPS)})
    says = fields.String(required=True, metadata={"description": "The sentence the screens show"})
    selling = fields.Boolean(required=True, metadata={
        "description": "Whether customers can buy from the store now: a published store sells until its founder "
                       "pauses or retires the product"})
    facts_true = fields.Integer(required=True, metadata={"description": "Launch facts true today"})
    facts_total = fields.Integer(required=True, metadata={"description": "Launch facts in all"})
    open_facts = fields.List(fields.String(), required=True,
                             metadata={"description": "The labels of the launch facts not true today, in launch order"})


class LaunchAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok"]})
    product_id = fields.String(required=True, allow_none=True)
    product_name = fields.String(required=True, allow_none=True, metadata={
        "description": "The product's name as its store shows it (the founder's own where set), for screens that "
                       "name the product; null while there is none"})
    facts = fields.List(fields.Nested(LaunchFactSchema), required=True)
    launch_state = fields.Nested(LaunchStateSchema, required=True, allow_none=True, metadata={
        "description": "The launch state of the claimed product, as POST /api/product-launch answers it (null "
                       "while nothing is claimed)"})
    next_step = fields.Nested(NextStepSchema, required=True)


@bp.get("/api/offer")
@bp.declare(changes_state=True,  # it closes the product's watches and mails the watchers
            refuses={200: ["no_product", "not_yet_researched"]})
@bp.response(200, OfferAnswer)
def get_offer():
    """The researched offer of the session's product, every figure with its inputs and their sources."""
    answer, jobs = answers.offer(session=current_session())
    send_all(jobs)
    return answer


@bp.get("/api/analysis")
@bp.declare(changes_state=False, refuses={200: ["no_product", "not_yet_researched"]})
@bp.response(200, AnalysisAnswer)
def get_analysis():
    """Demand, competition, margin and risk of the session's product, each with the evidence behind it."""
    answer, jobs = answers.analysis(session=current_session())
    send_all(jobs)
    return answer


@bp.post("/api/analyze")
@bp.declare(changes_state=True, refuses={400: ["nothing_to_analyze", "invalid_name", "invalid_description"]})
@bp.arguments(AnalyzeBody)
@bp.response(200, AnalyzeAnswer)
def analyze(body):
    """Runs the analyser over any product name or description, through the closest catalog product."""
    return answers.analyze(session=current_session(), name=body["name"], description=body["description"])


@bp.get("/api/dashboard")
@bp.declare(changes_state=True,  # it records the reached_dashboard milestone and qualifies a referral
            refuses={200: ["not_claimed", "not_yet_researched"]})
@bp.response(200, DashboardAnswer)
def get_dashboard():
    """The verdict (go, test_small, pass) on the session's product, the facts behind it and the figure sources."""
    answer, jobs = answers.dashboard(session=current_session())
    send_all(jobs)
    if not isinstance(answer, answers.Verdict):
        return answer  # a state: dumped by DashboardAnswer (the response decorator)
    # A verdict's body is the same for the same research row content (Verdict.key), and
    # dumping it (a dozen sources, each through a fourteen-field schema) is most of a poll's
    # Python: it is dumped once per content and sent as the decorator would send it.
    dumped = _DUMPED_VERDICTS.get(answer.key)
    if dumped is None:
        dumped = DashboardAnswer().dump(answer.body())
        _DUMPED_VERDICTS.put(answer.key, dumped)
    return jsonify(dumped)  # flask-smorest sends a returned Response as it is


_DUMPED_VERDICTS = Kept(1024)  # Verdict.key -> the answer as DashboardAnswer dumps it


@bp.get("/api/launch")
@bp.declare(changes_state=False)
@bp.response(200, LaunchAnswer)
def get_launch():
    """The launch facts of the session's product, each with whether it is true today, and its launch state."""
    return answers.launch_facts(session=current_session())
