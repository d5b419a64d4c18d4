"""The nightly research brief (spec 4.7 GET /api/brief; decisions.md "GET /api/brief")."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from config import Settings
from services import brief

bp = Blueprint("brief", __name__, description="The nightly research brief: what moved since the previous one.")

# Numbers come from the constants and settings defaults they describe (never typed twice).
DECISIONS: list[str] = [
    "GET /api/brief (public) answers the latest nightly research brief: {status: ok, brief: {day, generated_at, "
    "window: {start, end}, items}}, or 200 {status: never_run, reason: never_run, explanation} until one has been "
    f"made. The clock makes one brief per UTC day at BRIEF_HOUR_UTC (default {Settings.brief_hour_utc}:00; a "
    "clock started before that hour makes the previous day's if it is missing); `flask --app api brief run` makes "
    "today's for cron and prints a one-line summary. A day has one brief, whoever asks: a rerun answers the brief "
    "already made, and only `brief run --force` makes it again (over the same window, reporting the same gate "
    "crossings).",
    "A brief's window is whole UTC days [start, end): end is the brief's day, start the previous brief's end (the "
    f"first brief looks back BRIEF_LOOKBACK_DAYS, default {Settings.brief_lookback_days}), so windows chain with no "
    "gap or overlap and a missed night is covered by the next brief. Evidence counts by the date it carries: a row "
    "loaded with a date already covered by an earlier brief is not new.",
    "Its items are always these four, in this order, each {kind, ..., left_out, basis} (basis says where the "
    f"figures come from): `{brief.NEW_EVIDENCE}` {{rows_total, products_total, products: [{{product_id, name, "
    "category, rows_total, rows: [{date, source, metric, value}], left_out}]}} for the evidence rows dated in the "
    f"window (at most {brief.MAX_EVIDENCE_PRODUCTS} products, most new rows first, and {brief.MAX_EVIDENCE_ROWS} "
    f"rows each, newest first); `{brief.CROSSED_GATE}` {{baseline, crossed_in, crossed_out, clearing, products: "
    "[{product_id, name, category, direction: in|out, margin_pct, evidence_count, evidence_latest, why_not (out: "
    "thin_margin|too_few_rows|old_evidence)}], gate: {on, min_rows, max_age_days, min_margin_pct, cutoff}}} for "
    "the products whose evidence-gate verdict as of the brief's day differs from the one the previous brief "
    f"recorded (at most {brief.MAX_CROSSED}, in first, then by rank; a product new to the catalog that clears "
    "counts as in; the first brief records the baseline with baseline: true and no crossing); "
    f"`{brief.NEW_CLAIMS}` {{total, by_category: [{{category, claims}}]}} for the claims made in the window (at most "
    f"{brief.MAX_CLAIM_CATEGORIES} categories; who claimed is never shown); `{brief.CANDIDATES}` {{total, products: "
    "[{product_id, name, category, rank, price, cost, currency, margin_pct, evidence_count, evidence_latest}]}} "
    f"for the best {brief.MAX_CANDIDATES} unclaimed products that clear the gate, by rank (holds are not "
    "considered: they last minutes, a brief a day).",
]


class WindowSchema(Schema):
    start = fields.String(required=True, metadata={"description": "First UTC day covered (YYYY-MM-DD)"})
    end = fields.String(required=True, metadata={"description": "The brief's day, not covered (YYYY-MM-DD)"})


class BriefSchema(Schema):
    day = fields.String(required=True)
    generated_at = fields.String(required=True)
    window = fields.Nested(WindowSchema, required=True)
    items = fields.List(fields.Dict(), required=True,
                        metadata={"description": "One object per kind: " + ", ".join(brief.KINDS)})


class BriefAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": ["ok", "never_run"]})
    brief = fields.Nested(BriefSchema)
    reason = fields.String(metadata={"enum": ["never_run"]})
    explanation = fields.String()


@bp.get("/api/brief")
@bp.declare(changes_state=False)
@bp.response(200, BriefAnswer)
def latest_brief():
    """Answers the latest nightly research brief, or that none has been made yet."""
    return brief.answer()
