"""The analyser: demand, competition, margin and risk, each a figure with the evidence row
or catalog field behind it (issue 9, point 3).

One analyser serves GET /api/analysis (the session's product) and POST /api/analyze (any
name or description, read through the closest catalog products). Where nothing backs a
figure it says "no evidence" (level `unknown`) instead of guessing.

Which rows back demand or competition, how strong a reading is and which way a series
moves is services/evidence_kinds.py's answer, whatever the catalog calls its metrics: a
metric with a published scale reads against it, any other against the same metric of the
other catalog products (`peers`, loaded by services/research/records.py).
"""
from __future__ import annotations

from datetime import date, timedelta

from services import evidence_kinds as kinds
from services.day_words import day_words
from services.research.offer import Row

HIGH, MEDIUM, LOW, UNKNOWN = kinds.HIGH, kinds.MEDIUM, kinds.LOW, kinds.UNKNOWN
LEVEL_ORDER = {UNKNOWN: 0, LOW: 1, MEDIUM: 2, HIGH: 3}
# Evidence older than this describes another market: it is listed, but no level rests on it.
FRESH_DAYS = 180
# A demand signal whose newest reading is this much worse than the one before it is falling.
FALLING_PCT = kinds.STEADY_PCT
MARGIN_HIGH_PCT, MARGIN_MEDIUM_PCT = 30, 15
# What a figure's `signals` may say (the API's schema names them).
KINDS = kinds.KINDS
DIRECTIONS = (kinds.RISING, kinds.FALLING, kinds.STEADY, kinds.SINGLE)


def fresh(rows: list[Row], today: date) -> list[Row]:
    cutoff = today - timedelta(days=FRESH_DAYS)
    return [r for r in rows if cutoff <= r.date <= today]


def with_role(rows: list[Row], role: str) -> list[Row]:
    """The rows whose metric can back `role` (services/evidence_kinds.py; a metric's readings
    are read together, since a fraction rule looks at all of them)."""
    values: dict[str, list[float]] = {}
    for r in rows:
        values.setdefault(r.metric, []).append(r.value)
    backing = {m for m, vs in values.items() if role in kinds.roles_of(m, vs)}
    return [r for r in rows if r.metric in backing]


def latest_per_metric(rows: list[Row]) -> list[Row]:
    newest: dict[str, Row] = {}
    for row in sorted(rows, key=lambda r: (r.date, r.value)):
        newest[row.metric] = row
    return sorted(newest.values(), key=lambda r: (r.date, r.metric), reverse=True)


def readings(count: int) -> str:
    """A number of dated evidence rows as a founder reads it: "1 dated reading", "3 dated readings"."""
    return f"{count} dated reading{'' if count == 1 else 's'}"


def _cite(row: Row, level: str) -> dict:
    return {**row.cite(), "value": row.value, "level": level}


def _moves(signals: list[kinds.Classified]) -> str:
    """A sentence on the series that move, "" when none does."""
    moving = [s for s in signals if s.direction in (kinds.RISING, kinds.FALLING)]
    # In a founder's words: the source and the day as every text writes them, never the row's
    # keys. Each is a sentence of its own, so its label starts with a capital.
    return "".join(f" {s.label[:1].upper()}{s.label[1:]} ({kinds.source_label(s.newest.source)}) is {s.direction}"
                   + (f", {s.change_pct:+g}% since {day_words(s.before.date)}" if s.change_pct is not None else "")
                   + "." for s in moving)


def _signal_figure(name: str, rows: list[Row], role: str, today: date, what: str, peers: dict | None) -> dict:
    """A level from the strongest fresh reading of the metrics that can back `role`."""
    peers = peers or {}
    relevant = with_role(rows, role)
    current = fresh(relevant, today)
    if not current:
        because = (f"No evidence: no {what} reading in the last {FRESH_DAYS} days" +
                   (f" (the newest, from {day_words(max(r.date for r in relevant))}, is older)" if relevant else "") + ".")
        return {"id": name, "level": UNKNOWN, "value": None, "no_evidence": True, "because": because,
                "evidence": [_cite(r, kinds.level(r.metric, r.value, peers.get(r.metric, ()))[0])
                             for r in latest_per_metric(relevant)], "signals": []}
    signals = list(kinds.classify_all(current, peers=peers).values())
    by_metric = {s.metric: s for s in signals}
    cited = [_cite(r, by_metric[r.metric].level) for r in latest_per_metric(current)]
    best = max(cited, key=lambda c: (LEVEL_ORDER[c["level"]], c["date"]))
    signal = by_metric[best["metric"]]
    plural = "s" if len(cited) != 1 else ""
    if best["level"] == UNKNOWN:
        because = (f"{len(cited)} fresh {what} reading{plural} ({', '.join(sorted(s.label for s in signals))}), but "
                   f"no published scale for {'them' if plural else 'it'} and fewer than {kinds.PEERS_MIN} other "
                   "catalog products report the same metric, so how strong it reads cannot be told.")
    else:
        scale = kinds.scale_of(signal.metric)
        against = (f"{scale.label}" if scale else f"{signal.label}, against {signal.peers} other catalog products' "
                   f"readings")
        because = (f"{best['value']:g} {against} ({kinds.source_label(best['source'])}, "
                   f"{kinds.day_label(best['date'])}) reads {best['level']}; "
                   f"the strongest of {len(cited)} fresh {what} reading{plural}.")
    return {"id": name, "level": best["level"], "value": best["value"], "no_evidence": False,
            "because": because + _moves(signals), "evidence": cited,
            "signals": [s.summary() for s in signals]}


def demand(rows: list[Row], today: date, peers: dict | None = None) -> dict:
    return _signal_figure("demand", rows, kinds.DEMAND, today, "demand", peers)


def competition(rows: list[Row], today: date, peers: dict | None = None) -> dict:
    return _signal_figure("competition", rows, kinds.COMPETITION, today, "competition", peers)


def margin(margin_pct: float | None, source: list[dict]) -> dict:
    if margin_pct is None:
        return {"id": "margin", "level": UNKNOWN, "value": None, "no_evidence": True,
                "because": "No evidence: there is no price and cost to compute a margin from.", "evidence": []}
    level = HIGH if margin_pct >= MARGIN_HIGH_PCT else MEDIUM if margin_pct >= MARGIN_MEDIUM_PCT else LOW
    return {"id": "margin", "level": level, "value": margin_pct, "no_evidence": False,
            "because": f"A margin of {margin_pct:g}% of the price reads {level}.", "evidence": source}


def falling_signals(rows: list[Row], today: date) -> list[dict]:
    """Demand series (one metric from one source) whose newest fresh reading is FALLING_PCT%
    worse than the reading before it (for a rank, higher)."""
    falling = []
    for (_source, metric), series in sorted(kinds.series(with_role(fresh(rows, today), kinds.DEMAND)).items()):
        moved = kinds.direction(series, lower_is_better=kinds.lower_is_better(metric))
        if moved.direction == kinds.FALLING:
            before, now = moved.before, moved.now
            falling.append({"metric": metric, "source": now.source,
                            "from": Row(before.date, before.source, metric, before.value).cite() | {"value": before.value},
                            "to": Row(now.date, now.source, metric, now.value).cite() | {"value": now.value},
                            "change_pct": moved.change_pct})
    return falling


def risk(rows: list[Row], today: date) -> dict:
    """High when nothing fresh backs the product or a demand signal is falling; medium when
    fewer than three fresh rows do; low otherwise."""
    current = fresh(rows, today)
    falling = falling_signals(rows, today)
    cited = [r.cite() | {"value": r.value} for r in sorted(current, key=lambda r: r.date, reverse=True)]
    if not rows:
        return {"id": "risk", "level": UNKNOWN, "value": 0, "no_evidence": True,
                "because": "No evidence: no dated reading backs this product.", "evidence": []}
    if not current:
        level, because = HIGH, f"No dated reading is newer than {FRESH_DAYS} days."
    elif falling:
        level = HIGH
        because = "Demand is falling: " + "; ".join(
            f"{kinds.label(f['metric'])} moved {f['change_pct']:+g}% from {kinds.day_label(f['from']['date'])} to "
            f"{kinds.day_label(f['to']['date'])}" for f in falling) + "."
    elif len(current) < 3:
        level, because = MEDIUM, f"Only {readings(len(current))} from the last {FRESH_DAYS} days."
    else:
        level, because = LOW, f"{readings(len(current))} from the last {FRESH_DAYS} days and no falling demand signal."
    return {"id": "risk", "level": level, "value": len(current), "no_evidence": False, "because": because,
            "evidence": cited, "falling": falling}


def analyse(rows: list[Row], today: date, *, margin_pct: float | None, margin_source: list[dict],
            peers: dict | None = None) -> dict:
    """The four figures for one product's evidence rows and margin (`peers`: metric -> the
    other catalog products' newest fresh readings of it, for metrics without a published scale)."""
    return {"figures": [demand(rows, today, peers), competition(rows, today, peers), margin(margin_pct, margin_source),
                        risk(rows, today)],
            "fresh_days": FRESH_DAYS}


def no_evidence() -> dict:
    """The four figures when nothing backs a description."""
    return analyse([], date(2000, 1, 1), margin_pct=None, margin_source=[])  # no rows: the day does not matter


def classification_rules() -> list[str]:
    """How any catalog's metric is read (published in the OpenAPI document)."""
    return kinds.rules()


def rules() -> list[str]:
    """The analyser's published thresholds (the OpenAPI document carries them)."""
    return ([s.rule() for s in kinds.SCALES.values()] +
            [f"any other metric: against the newest fresh readings of the same metric of at least {kinds.PEERS_MIN} "
             "other catalog products (as good as two thirds of them: high; as one third: medium; else low), unknown "
             "with fewer"] +
            [f"margin: high at {MARGIN_HIGH_PCT}% or more, medium at {MARGIN_MEDIUM_PCT}% or more"])
