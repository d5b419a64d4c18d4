"""What the AI seam is handed of a product: its Facts, with the domain's decisions made.

The seam (integrations/ai/) knows no domain rule, so what the evidence rules decide
(services/evidence_kinds.py) is decided here and the seam is given the results:

- `evidence`: the dated rows without private readings. Money (a unit cost, a supplier
  quote, any price, whatever the catalog calls it) is the founder's business: a hosted
  model is never shown it, and the claim filter, which reads only what it is handed, lets
  no sentence lean on it.
- `demand`: the evidence as the plain sentences a shopper may be told (`demand_sentences`),
  which the offline writers (the store's copywriter, page copy, ad copy) put in their copy.

Every service that hands the seam a product's evidence builds its Facts with `facts_for`;
Facts built anywhere else carry no evidence (tests/test_ai_facts.py holds every caller to it).
Deterministic like the writers it serves: nothing reads the clock, the environment or a
random source, and a number is only ever copied from the evidence.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from integrations.ai.task import Facts
from integrations.copy_text import MONTHS, PHRASES
from services import evidence_kinds as kinds

# What a shopper is told of the evidence, whatever the catalog calls its metrics: demand (a
# rank or a count), reviews and competing listings, never money (the founder's costs and
# quotes) and never rates or durations (they say how well, not how many, and a store promises
# nothing about periods). The demo catalog's metrics are told in their own phrasings
# (integrations/copy_text.PHRASES), in that order; any other metric by its kind (`_generic`), after them.
TOLD_ROLES = frozenset({kinds.DEMAND, kinds.REVIEWS, kinds.COMPETITION})
MOST_DEMAND_SENTENCES = 3


def facts_for(*, product: dict, evidence: list[dict], offer: dict | None, business: dict | None = None) -> Facts:
    """The seam's Facts for a product: its evidence without private readings, and told as sentences."""
    shown = shareable_evidence(evidence)
    return Facts(product=product, evidence=shown, offer=offer, business={} if business is None else business,
                 demand=tuple(demand_sentences(shown)))


def shareable_evidence(rows: list[dict]) -> list[dict]:
    """The rows, in order, without those whose metric is private (money: services/evidence_kinds.py)."""
    return [row for row in rows if not kinds.private(str(row.get("metric") or ""))]


def demand_sentences(evidence: list[dict]) -> list[str]:
    """Plain sentences from the newest reading of each metric a shopper may be told (dated,
    numeric, of a told role), each citing its source and month; a rising series says what it
    rose from. The demo catalog's metrics first, in PHRASES order, then any other by newest."""
    signals = [s for s in kinds.classify_all(evidence).values() if s.roles & TOLD_ROLES and s.kind != kinds.MONEY]
    order = list(PHRASES)
    signals.sort(key=lambda s: (order.index(s.metric) if s.metric in order else len(order),
                                _negated_day(s.newest.date), s.metric))
    told = []
    for signal in signals:
        value = _number(Decimal(str(signal.newest.value)))
        when = _month(signal.newest.date.isoformat())
        if signal.metric in PHRASES:
            template, source = PHRASES[signal.metric]
            sentence = template.format(value=value)
        else:
            sentence, source = _generic(signal, value), _words(signal.newest.source) or "our research"
        if signal.direction == kinds.RISING and signal.before is not None:
            sentence += f", {'climbing from #' if signal.lower_is_better else 'up from '}" \
                        f"{_number(Decimal(str(signal.before.value)))}"
        told.append(sentence + f" ({source}{', ' + when if when else ''}).")
    return told[:MOST_DEMAND_SENTENCES]


def _generic(signal, value: str) -> str:
    """A metric without a phrasing of its own, told by its kind: a rank as a place, a count as a reach."""
    label = signal.label
    if signal.kind == kinds.RANK:
        return f"A listing of this kind held #{value} on {label}"
    return f"{label[:1].upper()}{label[1:]} for products like this reached {value}"


def _words(name: str) -> str:
    return " ".join(kinds.words(name))


def _negated_day(day: date) -> int:
    return -day.toordinal()


def _number(value: Decimal) -> str:
    """A figure as the facts hold it, with thousands separated: 22400 -> 22,400, 4.6 -> 4.6."""
    return f"{int(value):,}" if value == value.to_integral_value() else f"{value.normalize():,f}"


def _month(day: str) -> str:
    try:
        parsed = date.fromisoformat(day[:10])
    except ValueError:
        return ""
    return f"{MONTHS[parsed.month - 1]} {parsed.year}"
