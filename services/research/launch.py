"""Launch facts (GET /api/launch): what stands between a founder and a live business, each
fact computed from the real records.

A feature area that makes a fact true registers its check with `@launch_fact(id)`; a
fact whose area does not exist yet reads false and says so (issue 9, point 5), so the
list never claims what the service cannot show.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from models.research import Research
from services.discovery import Resolved
from services.ownership import Owner
from services.store.own import name_of


@dataclass(frozen=True)
class Fact:
    id: str
    label: str
    # What to do while it is false and no area can make it true yet.
    missing: str


FACTS = [
    Fact("product_claimed", "Product claimed", "Claim a product from your feed."),
    Fact("offer_researched", "Offer researched", "Claim or hold a product; its offer is researched automatically."),
    Fact("store_built", "Store built", "Storefront building is not available on this service yet."),
    Fact("store_published", "Store published", "Storefront publishing is not available on this service yet."),
    Fact("domain_connected", "Domain connected", "Domains are not available on this service yet."),
    Fact("payments_ready", "Payments ready", "Customer payments are not available on this service yet."),
    Fact("supplier_connected", "Supplier connected", "Supplier connection is not available on this service yet."),
    Fact("sample_ordered", "Sample ordered", "Sample orders are not available on this service yet."),
    Fact("ad_balance_funded", "Ad balance funded", "The ad balance is not available on this service yet."),
    Fact("support_address_set", "Support address set", "Business settings are not available on this service yet."),
]
FACT_IDS = [f.id for f in FACTS]

# fact id -> check(owner, resolved) -> (true_today, detail)
CHECKS: dict[str, Callable[[Owner, Resolved | None], tuple[bool, str]]] = {}


def launch_fact(fact_id: str):
    """Registers the check that decides a launch fact (a decorator); one check per fact."""
    if fact_id not in FACT_IDS:
        raise ValueError(f"unknown launch fact {fact_id!r}")

    def register(fn):
        if fact_id in CHECKS:
            raise ValueError(f"launch fact {fact_id!r} already has a check")
        CHECKS[fact_id] = fn
        return fn

    return register


@launch_fact("product_claimed")
def _product_claimed(owner: Owner, resolved: Resolved | None) -> tuple[bool, str]:
    if resolved is not None and resolved.claimed_product_id is not None:
        return True, f"You claimed {name_of(resolved.claimed_product_id)}."
    if resolved is not None:
        return False, f"You hold {name_of(resolved.product_id)} but have not claimed it."
    return False, "Claim a product from your feed."


@launch_fact("offer_researched")
def _offer_researched(owner: Owner, resolved: Resolved | None) -> tuple[bool, str]:
    if resolved is None:
        return False, "Hold or claim a product first; its offer is researched automatically."
    row = Research.select(Research.researched_at).where(Research.product == resolved.product_id).first()
    if row is None:
        return False, f"The offer for {name_of(resolved.product_id)} is still being researched."
    return True, f"Researched {row.researched_at.strftime('%Y-%m-%d %H:%M')} UTC."


def facts_for(owner: Owner, resolved: Resolved | None) -> list[dict]:
    """Every launch fact in order, with whether it is true today and why."""
    answer = []
    for fact in FACTS:
        check = CHECKS.get(fact.id)
        true_today, detail = check(owner, resolved) if check else (False, fact.missing)
        answer.append({"id": fact.id, "label": fact.label, "true_today": bool(true_today), "detail": detail})
    return answer
