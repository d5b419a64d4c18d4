"""The nightly research brief (decisions.md "GET /api/brief"): what moved since the
previous brief.

One brief per UTC day (`Brief.day` is unique). The clock fires it at BRIEF_HOUR_UTC, an
operator runs `flask --app api brief run`; both end in `generate`. A brief covers a window
of whole UTC days, [start, end): `end` is the brief's day and `start` the previous
brief's `end` (the first brief looks back BRIEF_LOOKBACK_DAYS), so consecutive windows
chain with no gap and no overlap, and a night the clock missed is covered by the next one.

Its items, always these four, in this order:

- `new_evidence`: catalog evidence rows dated inside the window, grouped per product;
- `crossed_gate`: products whose evidence-gate verdict, re-evaluated as of the brief's
  day, differs from the one the previous brief recorded (`direction: in|out`);
- `new_claims`: claims made inside the window, counted per category (never who);
- `candidates`: the best products that clear the gate and nobody has claimed.

Every list is capped; the item says how many were left out.

Rerunning a day answers the brief already made; `force` (the CLI's --force) makes it
again over the same window. The gate verdicts live in brief_gate_state (see
models/brief.py): a product's `prior` verdict is kept until a brief is published, so a run
that stopped half-way, its retry and a forced rerun all report the same crossings.
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal

import peewee as pw
from peewee import EXCLUDED, JOIN

from config import get_settings
from models.brief import Brief, BriefGateState
from models.catalog import Evidence, Product
from models.clock import iso, utcnow
from models.db import db, transaction
from models.discovery import Claim, ProductGate
from services import evidence_gate
from services.reasons import sentence

BRIEF = "brief"  # the job kind

NEW_EVIDENCE = "new_evidence"
CROSSED_GATE = "crossed_gate"
NEW_CLAIMS = "new_claims"
CANDIDATES = "candidates"
KINDS = (NEW_EVIDENCE, CROSSED_GATE, NEW_CLAIMS, CANDIDATES)
IN, OUT = "in", "out"

# What one brief lists at most (the rest is counted in `left_out`): enough to read over
# coffee, small enough that a brief of a 100k-product catalog stays a few kilobytes.
MAX_EVIDENCE_PRODUCTS = 20
MAX_EVIDENCE_ROWS = 10  # per product, the most recent first
MAX_CROSSED = 50
MAX_CLAIM_CATEGORIES = 50
MAX_CANDIDATES = 10
# Products whose gate verdict is re-evaluated per statement (and written per transaction).
GATE_BATCH = 1000

# Each item's basis is read by founders on the Insights screen: in words, no field names or
# settings (the thresholds are the evidence gate's, whose settings the README names).
BASIS = {
    NEW_EVIDENCE: "Evidence rows of the catalog (each names its source) dated within the brief's window, from its "
                  "first day up to, not including, its last; products with the most new rows first, then by catalog "
                  "rank.",
    CROSSED_GATE: "The evidence gate checked again as of the brief's day, with the service's thresholds (how many "
                  "evidence rows, how recent they are and the lowest margin), against what the previous brief "
                  "recorded; figures from the catalog's price, cost and evidence rows. The first brief records the "
                  "starting point and reports no crossing.",
    NEW_CLAIMS: "Claims made within the brief's window, counted per catalog category; who claimed is never shown.",
    CANDIDATES: "Products that clear the evidence gate as of the brief's day and that nobody has claimed, by "
                "catalog rank (highest first); margin from the catalog's price and cost, evidence from its dated "
                "rows.",
}


def today() -> date:
    return utcnow().date()


def due_day() -> date:
    """The day whose brief the clock is due to make: today from BRIEF_HOUR_UTC on, yesterday
    before it (a clock started at 01:00 catches up on the night it missed, and today's brief
    still waits for its hour)."""
    return (utcnow() - timedelta(hours=get_settings().brief_hour_utc)).date()


def subject(day: date) -> str:
    """The job subject of a day's brief (one active job per day)."""
    return f"brief:{day.isoformat()}"


def exists(day: date) -> bool:
    return Brief.select().where(Brief.day == day).exists()


def latest() -> Brief | None:
    return Brief.select().order_by(Brief.day.desc()).first()


# --- Generating a brief -------------------------------------------------------------------------

def generate(*, day: date | None = None, force: bool = False, fenced=None) -> tuple[Brief, bool]:
    """Makes the brief of `day` (today by default) unless it exists; returns (brief, made).

    `fenced` is the transaction its writes run in (a job passes its attempt's fence, so a
    run that lost its job writes nothing); the service's own transaction otherwise."""
    day = day or today()
    writes = fenced or transaction
    newest = latest()
    if newest is not None and _date(newest.day) > day:
        return newest, False  # a later day's brief already covers this one (a retry that ran late)
    existing = Brief.get_or_none(Brief.day == day)
    if existing is not None and not force:
        return existing, False
    previous = Brief.select().where(Brief.day < day).order_by(Brief.day.desc()).first()
    prev_day = _date(previous.day) if previous else None
    start = _date(previous.window_end) if previous else day - timedelta(days=get_settings().brief_lookback_days)
    gate = evidence_gate.current_gate()
    record_gate(day=day, prev_day=prev_day, gate=gate, writes=writes)
    items = [new_evidence(start, day), crossed_gate(day, prev_day, gate), new_claims(start, day),
             candidates(day, gate)]
    values = {"generated_at": utcnow(), "window_start": start, "window_end": day, "items": items}
    made = True
    with writes():
        if existing is not None:
            Brief.update(**values).where(Brief.day == day).execute()
        else:
            try:
                with db.atomic():  # a savepoint: losing the day to another run keeps the transaction
                    Brief.create(day=day, **values)
            except pw.IntegrityError:
                made = False  # two clocks, or the CLI beside the job: the first one's brief stands
    return Brief.get(Brief.day == day), made


def record_gate(*, day: date, prev_day: date | None, gate: evidence_gate.Gate, writes=transaction) -> int:
    """Re-evaluates every product's gate verdict as of `day` and stores those that changed,
    walking the catalog GATE_BATCH products at a time; returns how many changed."""
    cutoff = gate.cutoff(day)
    changed = 0
    last = ""
    while True:
        # Three range reads on primary keys rather than one join: a join's plan depends on the
        # tables' statistics (stale right after a big load, when a merge join can rescan from
        # the first key for every batch); a key range is an index range scan whatever they say.
        ids = [pid for (pid,) in Product.select(Product.product_id).where(Product.product_id > last)
               .order_by(Product.product_id).limit(GATE_BATCH).tuples()]
        if not ids:
            return changed
        upto = ids[-1]
        figures = {pid: (gate_date, margin) for pid, gate_date, margin in
                   ProductGate.select(ProductGate.product, ProductGate.gate_date, ProductGate.margin_pct)
                   .where(ProductGate.product > last, ProductGate.product <= upto).tuples()}
        states = {pid: (clears, prior, changed_on) for pid, clears, prior, changed_on in
                  BriefGateState.select(BriefGateState.product, BriefGateState.clears, BriefGateState.prior,
                                        BriefGateState.changed_on)
                  .where(BriefGateState.product > last, BriefGateState.product <= upto).tuples()}
        rows = [(pid, *figures.get(pid, (None, None)), *states.get(pid, (None, None, None))) for pid in ids]
        changes = []
        for product_id, gate_date, margin, clears, prior, changed_on in rows:
            now = (gate_date is not None and _date(gate_date) >= cutoff
                   and Decimal(str(margin)) >= gate.min_margin_pct)
            if clears is not None and bool(clears) == now:
                continue
            if prev_day is None:
                was = now  # the first brief: a baseline, nothing crossed
            elif clears is None:
                was = False  # new to the catalog since the last brief, when it cleared nothing
            elif _date(changed_on) > prev_day:
                was = bool(prior)  # already changed since the last published brief: keep its verdict
            else:
                was = bool(clears)
            changes.append((product_id, now, was, day))
        if changes:
            with writes():
                # Tuples with a field list: peewee builds the statement about twice as fast as from dicts.
                (BriefGateState.insert_many(changes, fields=[BriefGateState.product, BriefGateState.clears,
                                                             BriefGateState.prior, BriefGateState.changed_on])
                 .on_conflict(conflict_target=[BriefGateState.product],
                              update={BriefGateState.clears: EXCLUDED.clears, BriefGateState.prior: EXCLUDED.prior,
                                      BriefGateState.changed_on: EXCLUDED.changed_on})
                 .execute())
            changed += len(changes)
        if len(ids) < GATE_BATCH:
            return changed
        last = upto


def new_evidence(start: date, end: date) -> dict:
    window = (Evidence.date >= start) & (Evidence.date < end)
    rows_total, products_total = (Evidence.select(pw.fn.COUNT(Evidence.id), pw.fn.COUNT(Evidence.product.distinct()))
                                  .where(window).tuples().get())
    count = pw.fn.COUNT(Evidence.id)
    top = list(Evidence.select(Evidence.product, count)
               .join(Product, on=(Evidence.product == Product.product_id))
               .where(window)
               .group_by(Evidence.product, Product.rank)
               .order_by(count.desc(), Product.rank.desc(), Evidence.product)
               .limit(MAX_EVIDENCE_PRODUCTS).tuples())
    ids = [product_id for product_id, _ in top]
    names = {pid: (name, category) for pid, name, category in
             Product.select(Product.product_id, Product.name, Product.category)
             .where(Product.product_id.in_(ids)).tuples()} if ids else {}
    rows: dict[str, list[dict]] = {pid: [] for pid in ids}
    if ids:
        for pid, day, source, metric, value in (Evidence.select(Evidence.product, Evidence.date, Evidence.source,
                                                                Evidence.metric, Evidence.value)
                                                .where(window, Evidence.product.in_(ids))
                                                .order_by(Evidence.date.desc(), Evidence.id).tuples()):
            if len(rows[pid]) < MAX_EVIDENCE_ROWS:
                rows[pid].append({"date": _date(day).isoformat(), "source": source, "metric": metric,
                                  "value": value})
    products = [{"product_id": pid, "name": names[pid][0], "category": names[pid][1], "rows_total": n,
                 "rows": rows[pid], "left_out": n - len(rows[pid])} for pid, n in top]
    return {"kind": NEW_EVIDENCE, "rows_total": rows_total, "products_total": products_total, "products": products,
            "left_out": products_total - len(products), "basis": BASIS[NEW_EVIDENCE]}


def crossed_gate(day: date, prev_day: date | None, gate: evidence_gate.Gate) -> dict:
    clearing = BriefGateState.select().where(BriefGateState.clears == True).count()  # noqa: E712 (SQL)
    item = {"kind": CROSSED_GATE, "baseline": prev_day is None, "crossed_in": 0, "crossed_out": 0,
            "clearing": clearing, "products": [], "left_out": 0,
            "gate": {"on": day.isoformat(), "min_rows": gate.min_rows, "max_age_days": gate.max_age_days,
                     "min_margin_pct": gate.min_margin_pct, "cutoff": gate.cutoff(day).isoformat()},
            "basis": BASIS[CROSSED_GATE]}
    if prev_day is None:
        return item
    crossed = (BriefGateState.changed_on > prev_day) & (BriefGateState.clears != BriefGateState.prior)
    for clears, n in (BriefGateState.select(BriefGateState.clears, pw.fn.COUNT(BriefGateState.product))
                      .where(crossed).group_by(BriefGateState.clears).tuples()):
        item["crossed_in" if clears else "crossed_out"] = n
    query = (BriefGateState.select(BriefGateState.clears, Product.product_id, Product.name, Product.category,
                                   ProductGate.margin_pct, ProductGate.evidence_count, ProductGate.evidence_latest,
                                   ProductGate.gate_date)
             .join(Product, on=(BriefGateState.product == Product.product_id))
             .join(ProductGate, JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id))
             .where(crossed)
             .order_by(BriefGateState.clears.desc(), Product.rank.desc(), Product.product_id)
             .limit(MAX_CROSSED).tuples())
    for clears, pid, name, category, margin, evidence_count, evidence_latest, gate_date in query:
        entry = {"product_id": pid, "name": name, "category": category, "direction": IN if clears else OUT,
                 "margin_pct": float(margin) if margin is not None else None,
                 "evidence_count": evidence_count or 0,
                 "evidence_latest": _date(evidence_latest).isoformat() if evidence_latest else None}
        if not clears:
            entry["why_not"] = _why_not(margin, gate_date, gate)
        item["products"].append(entry)
    item["left_out"] = item["crossed_in"] + item["crossed_out"] - len(item["products"])
    return item


def _why_not(margin, gate_date, gate: evidence_gate.Gate) -> str:
    """Why a product no longer clears, in evidence_gate.assess's words."""
    if margin is None:
        return "not_assessed"  # no gate figures at all (never computed by the loader)
    if Decimal(str(margin)) < gate.min_margin_pct:
        return "thin_margin"
    if gate_date is None:
        return "too_few_rows"
    return "old_evidence"


def new_claims(start: date, end: date) -> dict:
    count = pw.fn.COUNT(Claim.id)
    by_category = [{"category": category, "claims": n} for category, n in
                   Claim.select(Product.category, count)
                   .join(Product, on=(Claim.product == Product.product_id))
                   .where(Claim.created_at >= datetime.combine(start, time()),
                          Claim.created_at < datetime.combine(end, time()))
                   .group_by(Product.category)
                   .order_by(count.desc(), Product.category).tuples()]
    return {"kind": NEW_CLAIMS, "total": sum(c["claims"] for c in by_category),
            "by_category": by_category[:MAX_CLAIM_CATEGORIES],
            "left_out": max(0, len(by_category) - MAX_CLAIM_CATEGORIES), "basis": BASIS[NEW_CLAIMS]}


def candidates(day: date, gate: evidence_gate.Gate) -> dict:
    unclaimed = evidence_gate.servable(gate, day) & ProductGate.product.not_in(Claim.select(Claim.product))
    total = ProductGate.select().where(unclaimed).count()
    rows = (ProductGate.select(Product.product_id, Product.name, Product.category, ProductGate.rank, Product.price,
                               Product.cost, Product.currency, ProductGate.margin_pct, ProductGate.evidence_count,
                               ProductGate.evidence_latest)
            .join(Product, on=(ProductGate.product == Product.product_id))
            .where(unclaimed)
            .order_by(ProductGate.rank.desc(), ProductGate.product)
            .limit(MAX_CANDIDATES).tuples())
    products = [{"product_id": pid, "name": name, "category": category, "rank": rank, "price": float(price),
                 "cost": float(cost), "currency": currency, "margin_pct": float(margin),
                 "evidence_count": evidence_count,
                 "evidence_latest": _date(latest_row).isoformat() if latest_row else None}
                for pid, name, category, rank, price, cost, currency, margin, evidence_count, latest_row in rows]
    return {"kind": CANDIDATES, "total": total, "products": products, "left_out": total - len(products),
            "basis": BASIS[CANDIDATES]}


# --- Reading it ---------------------------------------------------------------------------------

def describe(brief: Brief) -> dict:
    return {"day": _date(brief.day).isoformat(), "generated_at": iso(brief.generated_at),
            "window": {"start": _date(brief.window_start).isoformat(), "end": _date(brief.window_end).isoformat()},
            "items": brief.items}


def answer() -> dict:
    """GET /api/brief: the latest brief, or the fact that none has been made."""
    brief = latest()
    if brief is None:
        hour = get_settings().brief_hour_utc
        return {"status": "never_run", "reason": "never_run",
                "explanation": f"{sentence('never_run')} The next one is due at {hour:02d}:00 UTC."}
    return {"status": "ok", "brief": describe(brief)}


def seed() -> dict | None:
    """What a discovery run with use_research_brief starts from: the latest brief's
    candidates and the products that crossed into the gate, with their categories; None
    while no brief has been made."""
    brief = latest()
    if brief is None:
        return None
    products = []
    for item in brief.items:
        if item["kind"] == CANDIDATES:
            products += item["products"]
        elif item["kind"] == CROSSED_GATE:
            products += [p for p in item["products"] if p["direction"] == IN]
    return {"day": _date(brief.day).isoformat(),
            "product_ids": sorted({p["product_id"] for p in products}),
            "categories": sorted({p["category"] for p in products})}


def summary(brief: Brief, made: bool) -> str:
    """One line for the CLI and the job's result."""
    items = {item["kind"]: item for item in brief.items}
    evidence, crossed = items[NEW_EVIDENCE], items[CROSSED_GATE]
    claims, best = items[NEW_CLAIMS], items[CANDIDATES]
    moved = ("baseline of the evidence gate recorded" if crossed["baseline"]
             else f"{crossed['crossed_in']} crossed into the evidence gate and {crossed['crossed_out']} out of it")
    head = (f"brief {_date(brief.day).isoformat()} " + ("generated" if made else "already generated")
            + f" at {iso(brief.generated_at)}")
    return (f"{head} (window {_date(brief.window_start).isoformat()} to {_date(brief.window_end).isoformat()}): "
            f"{evidence['rows_total']} new evidence rows on {evidence['products_total']} products, {moved}, "
            f"{claims['total']} new claims, {len(best['products'])} of {best['total']} unclaimed candidates listed")


def run(*, day: str | None = None, force: bool = False, fenced=None) -> dict:
    """What the brief job records: the day, whether this run made the brief, the summary."""
    brief, made = generate(day=date.fromisoformat(day) if day else None, force=force, fenced=fenced)
    return {"day": _date(brief.day).isoformat(), "made": made, "summary": summary(brief, made)}


def _date(value) -> date:
    """A date from what the database hands back (SQLite gives text for some columns)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
