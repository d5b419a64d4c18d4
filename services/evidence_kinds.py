"""What a dated evidence row can tell, whatever the catalog calls its metric (issue 20, point 4).

The catalog format's `metric` is free text, so nothing else in the service may key its
judgement on one catalog's metric names. Every reader of evidence (intent proposals, the
analysis and the verdict, the store's evidence section, what the AI seam is handed:
services/ai_facts.py) asks this module instead, and it answers by the documented rules below.

Only dated rows with a finite number for a value count (`reading`); anything else is
ignored. The catalog loader already refuses such rows, but the AI seam is also handed rows
as plain dicts.

Kind (what sort of number it is), read from the words of the metric's name (split on
anything not a letter or digit, and at camelCase humps), first rule that matches:

1. `rank`: a word rank, ranking, position or bsr. A rank is better when it is lower.
2. `money`: a word price, cost, quote, fee(s), fob, wholesale, cpc or cpm: an amount per
   unit. Money is never shown to shoppers nor sent to a hosted model (`private`): a cost or
   a quote is the founder's business, and a store page has no use for a rival's price.
3. `rate`: a word rate, pct, percent, percentage, ratio, share, ctr or conversion; or, from
   the data, every reading lies between 0 and 1 and at least one is not a whole number
   (a fraction). A rate says how well, not how many.
4. `duration`: a word days, hours, minutes, time or lead (shipping_days, lead_time).
   A trailing window such as `30d` is not a duration: `units_sold_30d` is a count.
5. `count`: any other number: a count or a level over a window (searches, views, units
   sold, orders, mentions, an interest index). More is better.

The names give only the kind (and the roles below); how strong a reading is and which way
it moves come from the data.

Roles (what a reading can back):

- `demand`: a rank or a count, unless its words make it competition or reviews.
- `talk`: demand whose words say people talk or ask (mention(s), comment(s), post(s),
  thread(s), question(s), discussion(s)).
- `competition`: a count of listing(s), seller(s), competitor(s) or review(s).
- `reviews`: a count of review(s), rating(s), star(s) or testimonial(s).
- `price`: money.
- `delivery`: a duration with shipping, ship, delivery or transit in its name.
- `returns`: a rate with return(s), refund(s) or returned in its name.

Direction (`direction`): a series is the readings of one metric from one source, by date.
Its newest reading is compared with the one before it: `STEADY_PCT` % or more better
(higher for a count, lower for a rank) is `rising`, as much worse is `falling`, anything
between is `steady`; one reading is `single` (it tells no direction). For a rank, "rising"
means climbing: the number falls. The change is the reading's own change in per cent.

Level (`level`): a metric with a published scale (`SCALES`, the demo catalog's metrics,
whose units are known) reads `high`, `medium` or `low` against its thresholds. Any other
reads against its peers: the newest fresh reading of the same metric of the other catalog
products. With at least `PEERS_MIN` of them, a reading at least as good as two thirds of
them is `high`, as one third `medium`, else `low`. With fewer there is nothing to compare
it with and its level is `unknown` (its direction still counts).

These are domain rules, so they live in services/ (beside the evidence gate): nothing in
integrations/ or models/ reads them. The AI seam is handed their results instead (the
evidence without private readings, and what a shopper is told of it, services/ai_facts.py).
It reads no database and imports only the standard library.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache

from services.day_words import day_words

RANK, MONEY, RATE, DURATION, COUNT = "rank", "money", "rate", "duration", "count"
KINDS = (RANK, MONEY, RATE, DURATION, COUNT)
DEMAND, TALK, COMPETITION, REVIEWS, PRICE, DELIVERY, RETURNS = (
    "demand", "talk", "competition", "reviews", "price", "delivery", "returns")
RISING, FALLING, STEADY, SINGLE = "rising", "falling", "steady", "single"
HIGH, MEDIUM, LOW, UNKNOWN = "high", "medium", "low", "unknown"

# A reading this many per cent better or worse than the one before it moves its series.
STEADY_PCT = 20
# How many other catalog products must report a metric before a reading of it without a
# published scale is judged against them.
PEERS_MIN = 4
# The series `trends` answers, and the readings each keeps (a sparkline's worth).
TREND_SERIES, TREND_POINTS = 4, 12

_RANK_WORDS = frozenset({"rank", "ranking", "position", "bsr"})
_MONEY_WORDS = frozenset({"price", "cost", "quote", "fee", "fees", "fob", "wholesale", "cpc", "cpm"})
_RATE_WORDS = frozenset({"rate", "pct", "percent", "percentage", "ratio", "share", "ctr", "conversion"})
_DURATION_WORDS = frozenset({"days", "hours", "minutes", "time", "lead"})
_TALK_WORDS = frozenset({"mention", "mentions", "comment", "comments", "post", "posts", "thread", "threads",
                         "question", "questions", "discussion", "discussions"})
_COMPETITION_WORDS = frozenset({"listing", "listings", "seller", "sellers", "competitor", "competitors", "review",
                                "reviews"})
_REVIEW_WORDS = frozenset({"review", "reviews", "rating", "ratings", "star", "stars", "testimonial", "testimonials"})
_DELIVERY_WORDS = frozenset({"shipping", "ship", "delivery", "transit"})
_RETURN_WORDS = frozenset({"return", "returns", "returned", "refund", "refunds"})
_WINDOW = re.compile(r"^(\d+)([dwmy])$")  # 30d, 4w, 12m, 1y: the window a count covers
_WINDOW_WORDS = {"d": "day", "w": "week", "m": "month", "y": "year"}

# Human words for metrics whose name reads badly as words; classification never reads this.
_LABELS = {
    "interest_index": "search interest index",
    "bsr_rank": "best-seller rank",
    "listings_count": "competing listings",
    "unit_price_quote": "supplier quote per unit",
}


@dataclass(frozen=True)
class Scale:
    """A metric whose unit is known: where its readings turn `high` and `medium` (for a
    rank, at or below the numbers; otherwise at or above them)."""

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


# The published scales: the demo catalog's metrics, whose units are documented there.
SCALES = {s.metric: s for s in (
    Scale("monthly_searches", "monthly searches", 20000, 5000),
    Scale("interest_index", "search interest index, 0-100", 60, 40),
    Scale("weekly_views", "weekly video views", 1_000_000, 250_000),
    Scale("monthly_mentions", "monthly forum mentions", 100, 40),
    Scale("bsr_rank", "best-seller rank", 1000, 5000, lower_is_better=True),
    Scale("listings_count", "competing listings", 2000, 500),
    Scale("reviews", "reviews on the leading listing", 10000, 2000),
)}


@dataclass(frozen=True)
class Reading:
    """One dated numeric evidence row."""

    date: date
    source: str
    metric: str
    value: float

    def cite(self) -> dict:
        return {"date": self.date.isoformat(), "source": self.source, "metric": self.metric, "value": self.value}


def reading(row) -> Reading | None:
    """The row (a dict, or an object with date, source, metric and value) as a Reading; None
    when it has no date or its value is not a finite number."""
    get = row.get if isinstance(row, dict) else (lambda name: getattr(row, name, None))
    value, day, metric = get("value"), get("date"), get("metric")
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)) or not isinstance(metric, str):
        return None
    value = float(value)
    if not math.isfinite(value):
        return None
    if isinstance(day, str):
        try:
            day = date.fromisoformat(day[:10])
        except ValueError:
            return None
    if not isinstance(day, date) or not metric:
        return None
    return Reading(day, str(get("source") or ""), metric, value)


def readings(rows) -> list[Reading]:
    """The dated numeric rows among `rows`, oldest first (same-day readings by value)."""
    found = [r for r in map(reading, rows) if r is not None]
    return sorted(found, key=lambda r: (r.date, r.value))


# words, label and lower_is_better are pure functions of the metric's name, asked for every
# series of every card find and feed serve: kept per name (a bounded cache; names are few).
@lru_cache(maxsize=4096)
def words(metric: str) -> tuple[str, ...]:
    """The metric's name as lower-case words: `unitsSold_30d` -> ("units", "sold", "30d")."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", metric)
    return tuple(w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w)


def _is_fraction(values: list[float]) -> bool:
    return bool(values) and all(0 <= v <= 1 for v in values) and any(not v.is_integer() for v in values)


def kind_of(metric: str, values=()) -> str:
    """The metric's kind by the rules of the module docstring (`values`: its readings, for
    the data rule of a rate)."""
    named = set(words(metric))
    if named & _RANK_WORDS:
        return RANK
    if named & _MONEY_WORDS:
        return MONEY
    if named & _RATE_WORDS or _is_fraction([float(v) for v in values]):
        return RATE
    if named & _DURATION_WORDS:
        return DURATION
    return COUNT


def roles_of(metric: str, values=()) -> frozenset[str]:
    """What readings of the metric can back (the module docstring's roles)."""
    kind, named = kind_of(metric, values), set(words(metric))
    roles = set()
    if kind in (RANK, COUNT):
        if kind == COUNT and named & _COMPETITION_WORDS:
            roles.add(COMPETITION)
        if kind == COUNT and named & _REVIEW_WORDS:
            roles.add(REVIEWS)
        if not roles:
            roles.add(DEMAND)
            if named & _TALK_WORDS:
                roles.add(TALK)
    elif kind == MONEY:
        roles.add(PRICE)
    elif kind == DURATION and named & _DELIVERY_WORDS:
        roles.add(DELIVERY)
    elif kind == RATE and named & _RETURN_WORDS:
        roles.add(RETURNS)
    return frozenset(roles)


@lru_cache(maxsize=4096)
def lower_is_better(metric: str) -> bool:
    return kind_of(metric) == RANK


def private(metric: str) -> bool:
    """Whether readings of the metric stay the founder's: money (costs, quotes, prices)."""
    return kind_of(metric) == MONEY


@lru_cache(maxsize=4096)
def label(metric: str) -> str:
    """Human words for the metric: `units_sold_30d` -> "units sold over 30 days"."""
    if metric in _LABELS:
        return _LABELS[metric]
    parts, window = [], ""
    for word in words(metric):
        found = _WINDOW.match(word)
        if found and not window:
            n, unit = int(found.group(1)), _WINDOW_WORDS[found.group(2)]
            window = f"over {n} {unit}{'s' if n != 1 else ''}"
        else:
            parts.append(word)
    return " ".join(parts + ([window] if window else [])) or metric


# Evidence sources people know by a name of their own; any other reads as its words.
SOURCE_NAMES = {
    "search_volume": "Search volume data", "google_trends": "Google Trends",
    "amazon_bestsellers": "Amazon Best Sellers", "supplier_quote": "Supplier quote",
    "tiktok_views": "TikTok", "reddit_mentions": "Reddit", "etsy_listings": "Etsy",
    "review_count": "Review counts",
}


def day_label(value: str) -> str:
    """An ISO date as every text of the service writes a day ("12 November 2026":
    services/day_words.py); the value as it is when it is not one."""
    return day_words(value)


def source_label(source: str) -> str:
    """Human words for an evidence source: `google_trends` -> "Google Trends", `trends_feed` -> "Trends feed"."""
    if source in SOURCE_NAMES:
        return SOURCE_NAMES[source]
    spoken = " ".join(re.split(r"[^A-Za-z0-9]+", source)).strip()
    return (spoken[:1].upper() + spoken[1:]) if spoken else source


def scale_of(metric: str) -> Scale | None:
    return SCALES.get(metric)


@dataclass(frozen=True)
class Direction:
    direction: str  # rising, falling, steady or single
    change_pct: float | None  # the newest reading's change from the one before, in per cent
    before: Reading | None
    now: Reading | None


def direction(series: list[Reading], *, lower_is_better: bool) -> Direction:
    """Which way a series (one metric, one source) moves: its newest reading against the one before it."""
    series = sorted(series, key=lambda r: (r.date, r.value))
    if not series:
        return Direction(SINGLE, None, None, None)
    if len(series) == 1:
        return Direction(SINGLE, None, None, series[-1])
    before, now = series[-2], series[-1]
    if before.value == 0:
        change = None
        better = (now.value < before.value) if lower_is_better else (now.value > before.value)
        worse = (now.value > before.value) if lower_is_better else (now.value < before.value)
    else:
        change = float(round((Decimal(str(now.value)) - Decimal(str(before.value))) * 100
                             / abs(Decimal(str(before.value))), 1))
        better = change <= -STEADY_PCT if lower_is_better else change >= STEADY_PCT
        worse = change >= STEADY_PCT if lower_is_better else change <= -STEADY_PCT
    return Direction(RISING if better else FALLING if worse else STEADY, change, before, now)


def level(metric: str, value: float, peers=()) -> tuple[str, str]:
    """(level, basis) of one reading: against the metric's published scale, else against its
    peers (the other products' readings), else unknown. basis is `scale`, `peers` or `none`."""
    scale = scale_of(metric)
    if scale is not None:
        return scale.level(value), "scale"
    others = [float(v) for v in peers]
    if len(others) < PEERS_MIN:
        return UNKNOWN, "none"
    if lower_is_better(metric):
        share = sum(1 for v in others if value <= v) / len(others)
    else:
        share = sum(1 for v in others if value >= v) / len(others)
    return (HIGH if share >= 2 / 3 else MEDIUM if share >= 1 / 3 else LOW), "peers"


@dataclass(frozen=True)
class Classified:
    """What one metric's readings tell."""

    metric: str
    kind: str
    roles: frozenset[str]
    lower_is_better: bool
    label: str
    newest: Reading
    direction: str
    change_pct: float | None
    before: Reading | None  # the reading the direction compares the newest with
    level: str
    basis: str  # scale, peers or none
    peers: int  # how many other products' readings the level was compared with

    def summary(self) -> dict:
        """The classification as an answer shows it."""
        return {"metric": self.metric, "source": self.newest.source, "kind": self.kind, "roles": sorted(self.roles),
                "lower_is_better": self.lower_is_better, "direction": self.direction, "change_pct": self.change_pct,
                "level": self.level, "level_basis": self.basis, "peers": self.peers}


def classify(metric: str, rows, *, peers=()) -> Classified | None:
    """What the readings of `metric` among `rows` tell (None when there is no dated numeric
    one). The direction is that of the newest reading's source; `peers` are the other
    catalog products' newest readings of the metric."""
    mine = [r for r in readings(rows) if r.metric == metric]
    if not mine:
        return None
    newest = mine[-1]
    kind = kind_of(metric, [r.value for r in mine])
    lower = kind == RANK
    moved = direction([r for r in mine if r.source == newest.source], lower_is_better=lower)
    peers = list(peers)
    judged, basis = level(metric, newest.value, peers)
    return Classified(metric=metric, kind=kind, roles=roles_of(metric, [r.value for r in mine]), lower_is_better=lower,
                      label=label(metric), newest=newest, direction=moved.direction, change_pct=moved.change_pct,
                      before=moved.before, level=judged, basis=basis, peers=len(peers) if basis == "peers" else 0)


def classify_all(rows, *, peers=None) -> dict[str, Classified]:
    """`classify` for every metric among `rows` (peers: metric -> the other products' readings)."""
    found = readings(rows)
    return {metric: classify(metric, found, peers=(peers or {}).get(metric, ()))
            for metric in sorted({r.metric for r in found})}


def series(rows) -> dict[tuple[str, str], list[Reading]]:
    """The dated numeric rows grouped into series: (source, metric) -> readings, oldest first."""
    grouped: dict[tuple[str, str], list[Reading]] = {}
    for r in readings(rows):
        grouped.setdefault((r.source, r.metric), []).append(r)
    return grouped


def trends(rows, *, most: int = TREND_SERIES, points: int = TREND_POINTS) -> list[dict]:
    """The rows as series a founder can see move (the app draws each as a sparkline): one per
    metric and source, those with the most readings first, each its newest `points` readings,
    oldest first. A screen has room for a few small lines, not for every metric a catalog has."""
    ordered = sorted(series(rows).items(), key=lambda item: (-len(item[1]), -item[1][-1].date.toordinal(), item[0]))
    return [{"metric": metric, "label": label(metric), "source": source, "source_label": source_label(source),
             "lower_is_better": lower_is_better(metric),
             "points": [{"date": r.date.isoformat(), "value": r.value} for r in found[-points:]]}
            for (source, metric), found in ordered[:most]]


def rules() -> list[str]:
    """The classification rules as published sentences (the OpenAPI document carries them)."""
    return [
        "kind from the words of the metric's name, first match: rank (" + ", ".join(sorted(_RANK_WORDS)) +
        "; lower is better), money (" + ", ".join(sorted(_MONEY_WORDS)) + "; never shown to shoppers), rate (" +
        ", ".join(sorted(_RATE_WORDS)) + ", or every reading a fraction between 0 and 1), duration (" +
        ", ".join(sorted(_DURATION_WORDS)) + "), otherwise count (a count or level: more is better; a window such "
        "as 30d is not a duration)",
        "roles: demand = a rank or count that is not competition or reviews; talk = demand named by " +
        ", ".join(sorted(_TALK_WORDS)) + "; competition = a count of " + ", ".join(sorted(_COMPETITION_WORDS)) +
        "; reviews = a count of " + ", ".join(sorted(_REVIEW_WORDS)) + "; price = money; delivery = a duration of " +
        ", ".join(sorted(_DELIVERY_WORDS)) + "; returns = a rate of " + ", ".join(sorted(_RETURN_WORDS)),
        f"direction of a series (one metric from one source): the newest reading against the one before, "
        f"{STEADY_PCT}% or more better is rising, as much worse falling, else steady; one reading tells none",
        "level: against the published scale of the metric where there is one, else against the newest fresh "
        f"readings of the same metric of the other catalog products (at least {PEERS_MIN}: as good as two thirds "
        "of them is high, as one third medium, else low); with fewer, unknown",
    ]
