"""The dashboard verdict: `go`, `test_small` or `pass`, from published rules over the offer
and the analysis (issue 9, point 4). The rules are tried in order; the first that holds
decides. They are published in the OpenAPI document (`rules_text`), and the tests check
each one on both sides of its boundary.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from services.research.analysis import HIGH, LOW, MEDIUM

GO, TEST_SMALL, PASS = "go", "test_small", "pass"
PASS_BELOW_MARGIN_PCT = 15  # below this a sale cannot pay for the ads that bring it


@dataclass(frozen=True)
class Inputs:
    """What the rules read: offer figures, the analysis levels and the evidence gate."""

    unit_margin: Decimal
    margin_pct: Decimal
    target_margin_pct: Decimal
    demand: str
    risk: str
    gate_rows: int  # evidence rows inside the evidence gate's window
    gate_min_rows: int
    gate_days: int


def decide(i: Inputs) -> tuple[str, str, str]:
    """(verdict, rule id, because) for the inputs."""
    if i.unit_margin <= 0:
        return PASS, "loses_money", f"Each sale loses money: the unit margin is {i.unit_margin}."
    if i.margin_pct < PASS_BELOW_MARGIN_PCT:
        return PASS, "thin_margin", (f"The margin is {i.margin_pct}% of the price, below {PASS_BELOW_MARGIN_PCT}%: too "
                                     "little is left to pay for ads.")
    if i.gate_rows < i.gate_min_rows:
        return PASS, "too_little_evidence", (f"Only {i.gate_rows} evidence row(s) from the last {i.gate_days} days; "
                                             f"the evidence gate needs {i.gate_min_rows}.")
    if i.margin_pct >= i.target_margin_pct and i.demand in (HIGH, MEDIUM) and i.risk == LOW:
        return GO, "strong", (f"The margin ({i.margin_pct}%) meets the {i.target_margin_pct}% target, demand reads "
                              f"{i.demand} and the risk is low.")
    short = []
    if i.margin_pct < i.target_margin_pct:
        short.append(f"the margin ({i.margin_pct}%) is below the {i.target_margin_pct}% target")
    if i.demand not in (HIGH, MEDIUM):
        short.append(f"demand reads {i.demand}")
    if i.risk != LOW:
        short.append(f"the risk is {i.risk}")
    return TEST_SMALL, "mixed", "Worth a small test, not a full launch: " + "; ".join(short) + "."


def rules_text(target_margin_pct, gate_min_rows: int, gate_days: int) -> list[str]:
    """The rules as published sentences, in the order they are tried."""
    return [
        "1. pass (loses_money) when the unit margin is 0 or less.",
        f"2. pass (thin_margin) when the margin is below {PASS_BELOW_MARGIN_PCT}% of the price.",
        f"3. pass (too_little_evidence) when fewer than {gate_min_rows} evidence rows fall within the last "
        f"{gate_days} days (the evidence gate).",
        f"4. go (strong) when the margin is at least the {target_margin_pct}% target (TARGET_MARGIN_PCT), demand reads "
        "high or medium, and the risk reads low.",
        "5. test_small (mixed) otherwise.",
    ]
