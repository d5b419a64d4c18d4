"""Where a founder's product stands and the one step that comes next, decided once for every
screen that says it (GET /api/launch `next_step`: Home, Launch, Store and Tasks read it).

Before, each screen worked it out from the launch facts itself, and they disagreed: Home said
"launch your product once the facts still open are true" with every fact true, Launch said
"get ready once your store is built" of a published store, Tasks counted the steps on its own
list while Launch counted facts. One function of the launch facts and the launch state answers
all of them, with the one rule of when a store sells (a published store sells until its founder
pauses or retires the product: models/launch.ProductLaunch.on_sale, enforced at checkout and
payment by services/commerce/orders.py).
"""
from __future__ import annotations

from models.launch import ProductLaunch
from services.launch_state import LIVE_NEEDS

# The steps, in the order a founder meets them.
FIND, CLAIM, RESEARCH, BUILD, PUBLISH, LAUNCH, LIVE, PAUSED, RETIRED = (
    "find", "claim", "research", "build", "publish", "launch", "live", "paused", "retired")
STEPS = (FIND, CLAIM, RESEARCH, BUILD, PUBLISH, LAUNCH, LIVE, PAUSED, RETIRED)


def next_step(*, product_id: str | None, product_name: str | None, facts: list[dict],
              launch_state: dict | None) -> dict:
    """The founder's next step: `step` (one of STEPS), `says` (the sentence every screen
    shows), `selling` (whether customers can buy from the store now), how many launch facts
    are true today of all, and the labels of those still open, in launch order."""
    true_today = {fact["id"]: fact["true_today"] for fact in facts}
    open_labels = [fact["label"] for fact in facts if not fact["true_today"]]
    named = product_name or "your product"
    state = launch_state["state"] if launch_state else None
    selling = bool(true_today.get("store_published")) and state not in ProductLaunch.NOT_ON_SALE
    waits_on = [fact["label"] for fact in facts if fact["id"] in LIVE_NEEDS and not fact["true_today"]]
    step, says = _step(product_id, named, true_today, state, waits_on)
    return {"step": step, "says": says, "selling": selling, "facts_true": len(facts) - len(open_labels),
            "facts_total": len(facts), "open_facts": open_labels}


def _step(product_id, named: str, true_today: dict, state: str | None, waits_on: list[str]) -> tuple[str, str]:
    if not product_id:
        return FIND, "Pick a product to sell: hold one while you look, then claim it."
    if not true_today.get("product_claimed"):
        return CLAIM, f"You hold {named}. Claim it before your hold lapses, or pass and see the next one."
    if state == ProductLaunch.RETIRED:
        return RETIRED, f"{named} is retired: its store no longer sells it, and nothing follows."
    if state == ProductLaunch.PAUSED:
        return PAUSED, f"{named} is paused: customers cannot order it until you resume."
    if not true_today.get("offer_researched"):
        return RESEARCH, f"You claimed {named}. Its offer is being researched."
    if not true_today.get("store_built"):
        return BUILD, f"You claimed {named} and its offer is researched. Read the verdict, then build its store."
    if not true_today.get("store_published"):
        return PUBLISH, ("Your store is built. Look at the preview, then publish it: once published, customers can "
                         "buy until you pause or retire the product.")
    if state == ProductLaunch.LIVE:
        return LIVE, f"{named} is live: customers can buy it from your store."
    # Published, not yet launched: the store sells already (the one rule); launching is the
    # founder's word that everything around it is in place (what it waits on: LIVE_NEEDS).
    if waits_on:
        return LAUNCH, f"Your store is published and customers can buy. Before you launch: {_listed(waits_on)}."
    return LAUNCH, "Your store is published and customers can buy. Everything a launch needs is true: launch it."


def _listed(labels: list[str]) -> str:
    words = [label[0].lower() + label[1:] for label in labels]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
