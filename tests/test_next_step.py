"""Where a founder's product stands and its next step, decided once (services/next_step.py, GET
/api/launch `next_step`), so Home, Launch, Store and Tasks say the same (issue 47, point 1).
The rules over the launch facts and state, then through HTTP: what the answer says of selling
is what checkout does (a published store sells until its product is paused or retired)."""
from __future__ import annotations

import pytest

from models.launch import ProductLaunch
from services import launch_state
from services.next_step import STEPS, next_step
from services.research.launch import FACTS
from tests.factories import checkout, claimed_founder, refusal

LIVE_NEEDS = set(launch_state.LIVE_NEEDS)


def facts(*true_ids: str) -> list[dict]:
    return [{"id": f.id, "label": f.label, "true_today": f.id in true_ids, "detail": ""} for f in FACTS]


def step_of(true_ids=(), state=None, product_id="p00") -> dict:
    return next_step(product_id=product_id, product_name="Cat Tunnel", facts=facts(*true_ids),
                     launch_state={"state": state} if state else None)


THROUGH_PUBLISHED = ("product_claimed", "offer_researched", "store_built", "store_published")


@pytest.mark.parametrize("true_ids, state, step, selling", [
    ((), None, "claim", False),
    (("product_claimed",), "draft", "research", False),
    (("product_claimed", "offer_researched"), "draft", "build", False),
    (("product_claimed", "offer_researched", "store_built"), "ready", "publish", False),
    (THROUGH_PUBLISHED, "draft", "launch", True),
    (THROUGH_PUBLISHED, "ready", "launch", True),
    (THROUGH_PUBLISHED + ("payments_ready",), "live", "live", True),
    (THROUGH_PUBLISHED + ("payments_ready",), "paused", "paused", False),
    (THROUGH_PUBLISHED + ("payments_ready",), "retired", "retired", False),
    (("product_claimed", "offer_researched", "store_built"), "retired", "retired", False),
])
def test_each_place_a_product_can_stand_has_its_step_and_says_whether_it_sells(true_ids, state, step, selling):
    answer = step_of(true_ids, state)
    assert (answer["step"], answer["selling"]) == (step, selling)
    assert answer["step"] in STEPS and answer["says"]
    assert answer["facts_true"] == len(true_ids) and answer["facts_total"] == len(FACTS)
    assert answer["open_facts"] == [f.label for f in FACTS if f.id not in true_ids]


def test_no_product_is_the_find_step():
    assert step_of(product_id=None)["step"] == "find"


def test_a_published_product_not_yet_launched_names_only_what_launching_waits_on():
    """Not "once the facts still open are true" with every fact true: the launch's own needs."""
    waiting = step_of(THROUGH_PUBLISHED, "ready")
    assert waiting["says"].endswith("Before you launch: payments ready.")
    assert "domain" not in waiting["says"].lower()  # open, but launching does not wait on it
    everything = step_of([f.id for f in FACTS], "ready")
    assert everything["open_facts"] == [] and "Everything a launch needs is true" in everything["says"]
    assert all(fact in LIVE_NEEDS for fact in ("store_published", "payments_ready"))


def test_a_paused_product_says_customers_cannot_order_and_selling_follows_the_state():
    paused = step_of(THROUGH_PUBLISHED + ("payments_ready",), "paused")
    assert "cannot order" in paused["says"] and "Cat Tunnel" in paused["says"]
    assert step_of(THROUGH_PUBLISHED, "draft")["selling"] is True  # published, not launched: it sells


# --- Through HTTP: the answer says what checkout does ------------------------------------------

def test_the_launch_answer_says_it_sells_when_checkout_sells_and_not_once_paused(shop, founder):
    stands = shop.get("/api/launch").get_json()["next_step"]
    assert (stands["step"], stands["selling"]) == ("launch", True)
    customer = founder()
    assert checkout(customer).status_code == 200  # it sells, as it says
    (ProductLaunch.insert(product="p00", state=ProductLaunch.LIVE)
     .on_conflict(conflict_target=[ProductLaunch.product], update={ProductLaunch.state: ProductLaunch.LIVE}).execute())
    assert shop.get("/api/launch").get_json()["next_step"]["step"] == "live"
    assert shop.post("/api/product-launch", json={"action": "pause"}).status_code == 200
    stands = shop.get("/api/launch").get_json()["next_step"]
    assert (stands["step"], stands["selling"]) == ("paused", False)
    refusal(checkout(customer), 409, "product_not_on_sale")  # and it does not sell, as it says
    facts = shop.get("/api/launch").get_json()["facts"]
    assert stands["facts_true"] == sum(f["true_today"] for f in facts) and stands["facts_total"] == len(facts)


def test_nothing_claimed_is_the_find_step_and_a_claim_being_researched_the_research_step(founder, held_worker):
    assert founder().get("/api/launch").get_json()["next_step"]["step"] == "find"
    owner = claimed_founder(founder)  # its research waits on the held worker
    stands = owner.get("/api/launch").get_json()["next_step"]
    assert (stands["step"], stands["selling"]) == ("research", False)
