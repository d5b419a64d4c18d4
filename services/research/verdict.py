"""The dashboard verdict: `go`, `test_small` or `pass`, from published rules over the offer
and the analysis (issue 9, point 4). The rules are tried in order; the first that holds
decides. They are published in the OpenAPI document (`rules_text`), and the tests check
each one on both sides of its boundary.

A founder's own product has no outside evidence (no catalog line brings its readings), so
the rule that passes a catalog product for too little evidence would pass every own product
for what nobody has measured yet. For it the same place in the order answers `test_small`
(rule `no_outside_evidence`): the verdict says the readings are missing and what the
founder's own figures tell (their margin, where ads break even, their price against similar
catalog products), and that a small test is how to get the evidence. A loss or a thin margin
passes it as it passes any product: those are its own figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from services.money import display_major
from services.research.analysis import HIGH, LOW, MEDIUM, readings

GO, TEST_SMALL, PASS = "go", "test_small", "pass"
PASS_BELOW_MARGIN_PCT = 15  # below this a sale cannot pay for the ads that bring it


@dataclass(frozen=True)
class OwnProduct:
    """What a founder's own product's verdict tells from the founder's figures alone."""

    price: Decimal
    currency: str
    cost_given: bool  # False: the founder has not said what one unit costs them (counted as 0)
    break_even_roas: Decimal | None
    # The prices of similar catalog products (services/research/similar.py), or None.
    similar: dict | None = None


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
    own: OwnProduct | None = None  # set for a founder's own product


def decide(i: Inputs) -> tuple[str, str, str]:
    """(verdict, rule id, because) for the inputs."""
    if i.unit_margin <= 0:
        return PASS, "loses_money", f"Each sale loses money: the unit margin is {i.unit_margin}."
    if i.margin_pct < PASS_BELOW_MARGIN_PCT:
        return PASS, "thin_margin", (f"The margin is {i.margin_pct}% of the price, below {PASS_BELOW_MARGIN_PCT}%: too "
                                     "little is left to pay for ads.")
    if i.gate_rows < i.gate_min_rows and i.own is not None:
        return TEST_SMALL, "no_outside_evidence", _unmeasured_own_product(i)
    if i.gate_rows < i.gate_min_rows:
        found = f"Only {readings(i.gate_rows)}" if i.gate_rows else "No dated readings"
        return PASS, "too_little_evidence", (f"{found} from the last {i.gate_days} days; a verdict needs at least "
                                             f"{i.gate_min_rows}.")
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


def _unmeasured_own_product(i: Inputs) -> str:
    """Why a founder's own product with no outside readings is worth a small test, and what
    their own figures tell meanwhile."""
    own = i.own
    price = display_major(own.price, own.currency)
    told = [f"at your price of {price} each sale leaves {display_major(i.unit_margin, own.currency)} "
            f"({i.margin_pct:g}% of the price)"]
    if own.break_even_roas is not None:
        told.append(f"ads break even at a ROAS of {own.break_even_roas:g}")
    sentences = ["No outside readings yet, so this is no verdict on demand for your own product: test it small to "
                 "get that evidence.",
                 "Your own figures say: " + " and ".join(told) + "."]
    if not own.cost_given:
        sentences.append(f"You have not said what one unit costs you, so these figures count it as "
                         f"{display_major(0, own.currency)}.")
    sentences.append(compared_with_similar(own.price, own.similar))
    return " ".join(sentences)


def compared_with_similar(price: Decimal, similar: dict | None) -> str:
    """A founder's own price against similar catalog products', in a sentence."""
    if similar is None:
        return "No similar catalog product was found to compare your price with."
    currency, middle = similar["currency"], Decimal(str(similar["median"]))
    side = "above" if price > middle else "below" if price < middle else None
    if similar["products"] == 1:
        return (f"The one similar catalog product ({similar['category']}) sells for "
                f"{display_major(middle, currency)}: your price is {f'{side} it' if side else 'the same'}.")
    return (f"{similar['products']} similar catalog products ({similar['category']}) sell for "
            f"{display_major(similar['low'], currency)} to {display_major(similar['high'], currency)}, "
            f"{display_major(middle, currency)} in the middle: your price is {side or 'right in'} the middle.")


def rules_text(target_margin_pct, gate_min_rows: int, gate_days: int) -> list[str]:
    """The rules as published sentences, in the order they are tried."""
    return [
        "1. pass (loses_money) when the unit margin is 0 or less.",
        f"2. pass (thin_margin) when the margin is below {PASS_BELOW_MARGIN_PCT}% of the price.",
        f"3. test_small (no_outside_evidence) for a founder's own product when fewer than {gate_min_rows} evidence "
        f"rows fall within the last {gate_days} days: nothing outside has measured it yet, so it is not passed for "
        "that; the because says the readings are missing and what the founder's own figures tell (the unit margin "
        "and margin at their price, the break-even ROAS, their price against the low, middle and high price of "
        "similar catalog products).",
        f"4. pass (too_little_evidence) when fewer than {gate_min_rows} evidence rows fall within the last "
        f"{gate_days} days (the evidence gate).",
        f"5. go (strong) when the margin is at least the {target_margin_pct}% target (TARGET_MARGIN_PCT), demand reads "
        "high or medium, and the risk reads low.",
        "6. test_small (mixed) otherwise.",
    ]
