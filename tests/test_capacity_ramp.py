"""The capacity run's catalog is large enough for every claim its ramp can make
(bench/capacity_ramp.py): a founder of the ramp claims once, a newcomer once every
NEWCOMER_SECONDS at the shortest, over every step. A catalog that ran out would end a window
with "no card of one's own" failures, and the run would measure an empty feed."""
from argparse import Namespace

from bench.capacity_ramp import NEWCOMER_SECONDS, claims_at_most


def ramp(**given) -> Namespace:
    options = {"start_founders": 20, "step_founders": 10, "max_founders": 20, "step_seconds": 150.0, "newcomers": 0}
    return Namespace(**(options | given))


def test_without_newcomers_each_founder_claims_once():
    assert claims_at_most(ramp()) == 20
    assert claims_at_most(ramp(start_founders=10, max_founders=150)) == 150


def test_newcomers_claim_as_often_as_they_can_arrive_over_every_step():
    shortest = NEWCOMER_SECONDS[0]
    assert claims_at_most(ramp(newcomers=8)) == 20 + int(8 * 150 / shortest)
    # Three steps (20, 30, 40 founders) of 150 s each.
    assert claims_at_most(ramp(newcomers=8, max_founders=40)) == 40 + int(8 * 3 * 150 / shortest)
