"""The analyser: demand, competition, margin and risk, each a figure with the evidence row
or catalog field behind it (issue 9, point 3).

One analyser serves GET /api/analysis (the session's product) and POST /api/analyze (any
name or description, read through the closest catalog products). Where nothing backs a
figure it says "no evidence" (level `unknown`) instead of guessing.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from services.research.offer import Row

HIGH, MEDIUM, LOW, UNKNOWN = "high", "medium", "low", "unknown"
LEVEL_ORDER = {UNKNOWN: 0, LOW: 1, MEDIUM: 2, HIGH: 3}
# Evidence older than this describes another market: it is listed, but no level rests on it.
FRESH_DAYS = 180
# A demand signal whose newest reading is this much worse than the one before it is falling.
FALLING_PCT = 20


@dataclass(frozen=True)
class Threshold:
    """Where a metric's readings turn `high` and `medium` (for `lower_is_better` metrics,
    at or below the numbers; otherwise at or above them)."""

    metric: str
    label: str
    high: float
    medium: float
    lower_is_better: bool = False

    def level(self, value: float) -> str:
        if self.lower_is_better:
            return HIGH if value <= self.high else MEDIUM if value <= self.medium else LOW
        return HIGH if value >= self.high else MEDIUM if value >= self.medium else LOW

    def rule(self) -> str:
        word = "at most" if self.lower_is_better else "at least"
        return f"{self.metric} ({self.label}): high at {word} {self.high:g}, medium at {word} {self.medium:g}"


DEMAND = {t.metric: t for t in (
    Threshold("monthly_searches", "monthly searches", 20000, 5000),
    Threshold("interest_index", "search interest index, 0-100", 60, 40),
    Threshold("weekly_views", "weekly video views", 1_000_000, 250_000),
    Threshold("monthly_mentions", "monthly forum mentions", 100, 40),
    Threshold("bsr_rank", "best-seller rank", 1000, 5000, lower_is_better=True),
)}
COMPETITION = {t.metric: t for t in (
    Threshold("listings_count", "competing listings", 2000, 500),
    Threshold("reviews", "reviews on the leading listing", 10000, 2000),
)}
MARGIN_HIGH_PCT, MARGIN_MEDIUM_PCT = 30, 15


def fresh(rows: list[Row], today: date) -> list[Row]:
    cutoff = today - timedelta(days=FRESH_DAYS)
    return [r for r in rows if cutoff <= r.date <= today]


def latest_per_metric(rows: list[Row], metrics) -> list[Row]:
    newest: dict[str, Row] = {}
    for row in sorted(rows, key=lambda r: (r.date, r.value)):
        if row.metric in metrics:
            newest[row.metric] = row
    return sorted(newest.values(), key=lambda r: r.date, reverse=True)


def _cite(row: Row, threshold: Threshold) -> dict:
    return {**row.cite(), "value": row.value, "level": threshold.level(row.value)}


def _signal_figure(name: str, rows: list[Row], table: dict, today: date, what: str) -> dict:
    """A level from the strongest fresh reading of the metrics in `table`."""
    relevant = [r for r in rows if r.metric in table]
    current = latest_per_metric(fresh(relevant, today), table)
    if not current:
        because = (f"No evidence: no {what} reading in the last {FRESH_DAYS} days" +
                   (f" (the newest, {max(r.date for r in relevant).isoformat()}, is older)" if relevant else "") + ".")
        return {"id": name, "level": UNKNOWN, "value": None, "no_evidence": True, "because": because,
                "evidence": [_cite(r, table[r.metric]) for r in latest_per_metric(relevant, table)]}
    cited = [_cite(r, table[r.metric]) for r in current]
    best = max(cited, key=lambda c: (LEVEL_ORDER[c["level"]], c["date"]))
    threshold = table[best["metric"]]
    return {"id": name, "level": best["level"], "value": best["value"], "no_evidence": False,
            "because": f"{best['value']:g} {threshold.label} ({best['source']}, {best['date']}) reads {best['level']}; "
                       f"the strongest of {len(cited)} fresh {what} reading{'s' if len(cited) != 1 else ''}.",
            "evidence": cited}


def demand(rows: list[Row], today: date) -> dict:
    return _signal_figure("demand", rows, DEMAND, today, "demand")


def competition(rows: list[Row], today: date) -> dict:
    return _signal_figure("competition", rows, COMPETITION, today, "competition")


def margin(margin_pct: float | None, source: list[dict]) -> dict:
    if margin_pct is None:
        return {"id": "margin", "level": UNKNOWN, "value": None, "no_evidence": True,
                "because": "No evidence: there is no price and cost to compute a margin from.", "evidence": []}
    level = HIGH if margin_pct >= MARGIN_HIGH_PCT else MEDIUM if margin_pct >= MARGIN_MEDIUM_PCT else LOW
    return {"id": "margin", "level": level, "value": margin_pct, "no_evidence": False,
            "because": f"A margin of {margin_pct:g}% of the price reads {level}.", "evidence": source}


def falling_signals(rows: list[Row], today: date) -> list[dict]:
    """Demand metrics whose newest fresh reading is FALLING_PCT% worse than the reading before it."""
    falling = []
    for metric, threshold in DEMAND.items():
        series = sorted((r for r in fresh(rows, today) if r.metric == metric), key=lambda r: (r.date, r.value))
        if len(series) < 2:
            continue
        before, now = series[-2], series[-1]
        if before.value <= 0:
            continue
        change = (Decimal(str(now.value)) - Decimal(str(before.value))) * 100 / Decimal(str(before.value))
        worse = change >= FALLING_PCT if threshold.lower_is_better else change <= -FALLING_PCT
        if worse:
            falling.append({"metric": metric, "from": before.cite() | {"value": before.value},
                            "to": now.cite() | {"value": now.value}, "change_pct": float(round(change, 1))})
    return falling


def risk(rows: list[Row], today: date) -> dict:
    """High when nothing fresh backs the product or a demand signal is falling; medium when
    fewer than three fresh rows do; low otherwise."""
    current = fresh(rows, today)
    falling = falling_signals(rows, today)
    cited = [r.cite() | {"value": r.value} for r in sorted(current, key=lambda r: r.date, reverse=True)]
    if not rows:
        return {"id": "risk", "level": UNKNOWN, "value": 0, "no_evidence": True,
                "because": "No evidence: no dated evidence row backs this product.", "evidence": []}
    if not current:
        level, because = HIGH, f"No evidence row is newer than {FRESH_DAYS} days."
    elif falling:
        level = HIGH
        because = "Demand is falling: " + "; ".join(
            f"{f['metric']} moved {f['change_pct']:+g}% from {f['from']['date']} to {f['to']['date']}" for f in falling) + "."
    elif len(current) < 3:
        level, because = MEDIUM, f"Only {len(current)} evidence row{'s' if len(current) != 1 else ''} from the last {FRESH_DAYS} days."
    else:
        level, because = LOW, f"{len(current)} evidence rows from the last {FRESH_DAYS} days and no falling demand signal."
    return {"id": "risk", "level": level, "value": len(current), "no_evidence": False, "because": because,
            "evidence": cited, "falling": falling}


def analyse(rows: list[Row], today: date, *, margin_pct: float | None, margin_source: list[dict]) -> dict:
    """The four figures for one product's evidence rows and margin."""
    return {"figures": [demand(rows, today), competition(rows, today), margin(margin_pct, margin_source),
                        risk(rows, today)],
            "fresh_days": FRESH_DAYS}


def no_evidence() -> dict:
    """The four figures when nothing backs a description."""
    return analyse([], date(2000, 1, 1), margin_pct=None, margin_source=[])  # no rows: the day does not matter


def rules() -> list[str]:
    """The analyser's published thresholds (the OpenAPI document carries them)."""
    return ([t.rule() for t in DEMAND.values()] + [t.rule() for t in COMPETITION.values()] +
            [f"margin: high at {MARGIN_HIGH_PCT}% or more, medium at {MARGIN_MEDIUM_PCT}% or more"])
