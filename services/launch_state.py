"""The launch state machine of a claimed product (POST /api/product-launch):

    draft --prepare--> ready --launch--> live --pause--> paused --resume--> live
    (any state but retired) --retire--> retired

A transition needs the launch facts its step depends on (services/research/launch.py) to be
true today; when some are false it is refused with `launch_blocked`, naming them. The rules
are pure functions over the current state and a {fact id: true today} map (`decide`,
`describe`), so every transition can be checked without the records that make a fact true;
`transition` reads the facts and applies the decision with a conditional UPDATE.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.clock import iso, utcnow
from models.db import transaction
from models.launch import ProductLaunch
from models.session import Session
from services.commerce import orders
from services.discovery import Resolved, resolve
from services.errors import Refused
from services.ownership import owner_of
from services.research import launch
from services.store import published
from services.store.builds import require_claim

DRAFT, READY, LIVE, PAUSED, RETIRED = (ProductLaunch.DRAFT, ProductLaunch.READY, ProductLaunch.LIVE,
                                       ProductLaunch.PAUSED, ProductLaunch.RETIRED)
STATES = ProductLaunch.STATES


@dataclass(frozen=True)
class Transition:
    action: str
    sources: tuple[str, ...]  # the states it may start from
    target: str
    needs: tuple[str, ...]  # launch facts (ids) that must be true today
    label: str  # what the button says


# What a product needs before it can be called ready: it is the founder's, its offer is
# known, and a store exists to show it.
READY_NEEDS = ("product_claimed", "offer_researched", "store_built")
# What a product needs before customers can reach it and pay: the store is public and
# payments work. Until the payments area makes payments_ready true, nothing goes live.
LIVE_NEEDS = READY_NEEDS + ("store_published", "payments_ready")

TRANSITIONS: dict[str, Transition] = {t.action: t for t in (
    Transition("prepare", (DRAFT,), READY, READY_NEEDS, "Get ready"),
    Transition("launch", (READY,), LIVE, LIVE_NEEDS, "Launch"),
    Transition("pause", (LIVE,), PAUSED, (), "Pause"),
    Transition("resume", (PAUSED,), LIVE, LIVE_NEEDS, "Resume"),
    Transition("retire", (DRAFT, READY, LIVE, PAUSED), RETIRED, (), "Retire"),
)}
ACTIONS = list(TRANSITIONS)

# How often a transition is tried again when another request moved the state between our
# read and our conditional update (each retry decides afresh from the state it finds).
MOVES = 3


def blocked_by(action: str, facts: dict[str, bool]) -> list[str]:
    """The facts the action needs that are not true today, in the order of the launch facts."""
    return [fact for fact in launch.FACT_IDS if fact in TRANSITIONS[action].needs and not facts.get(fact)]


_LABELS = {fact.id: fact.label for fact in launch.FACTS}


def _named(fact_ids: list[str]) -> str:
    return ", ".join(_LABELS[fact] for fact in fact_ids)


def actions_from(state: str) -> list[str]:
    """The actions the state machine has from a state, whatever the facts say."""
    return [action for action, t in TRANSITIONS.items() if state in t.sources]


def options(state: str, facts: dict[str, bool]) -> tuple[list[str], dict[str, list[str]]]:
    """(allowed, blocked): the actions from `state` that can run today, and for each of the
    others the false facts it waits on."""
    allowed, blocked = [], {}
    for action in actions_from(state):
        waiting = blocked_by(action, facts)
        if waiting:
            blocked[action] = waiting
        else:
            allowed.append(action)
    return allowed, blocked


def decide(state: str, action: str, facts: dict[str, bool]) -> str:
    """The state `action` moves `state` to given today's facts; refuses `invalid_transition`
    (not a move from this state) or `launch_blocked` (a needed fact is false)."""
    transition = TRANSITIONS[action]
    allowed, blocked = options(state, facts)
    if state not in transition.sources:
        possible = actions_from(state)
        raise Refused("invalid_transition",
                      f"Your product is {state}, and {action} is not a step from {state}. "
                      + (f"From {state} you can: {', '.join(possible)}." if possible
                         else "Nothing follows a retired product: retiring is final."),
                      state=state, action=action, allowed=allowed, blocked=blocked)
    waiting = blocked_by(action, facts)
    if waiting:
        raise Refused("launch_blocked",
                      f"Your product cannot {action} yet: it waits on {_named(waiting)} ({', '.join(waiting)}), "
                      "not true today. The Launch screen says how to make each one true.",
                      state=state, action=action, blocked_by=waiting, allowed=allowed, blocked=blocked)
    return transition.target


def describe(product_id: str, row: ProductLaunch | None, facts: dict[str, bool]) -> dict:
    """The launch state of a product as the API answers it (draft when it has no row)."""
    state = row.state if row is not None else DRAFT
    allowed, blocked = options(state, facts)
    return {"product_id": product_id, "state": state, "previous": row.previous if row is not None else None,
            "allowed": allowed, "blocked": blocked, "changed_at": iso(row.changed_at) if row is not None else None}


def fact_values(facts: list[dict]) -> dict[str, bool]:
    """{fact id: true today} from the launch facts' answer (launch.facts_for)."""
    return {fact["id"]: fact["true_today"] for fact in facts}


def state_of(resolved: Resolved | None, facts: dict[str, bool]) -> dict | None:
    """The launch state of the session's claimed product; None when it has claimed none."""
    if resolved is None or resolved.claimed_product_id is None:
        return None
    product_id = resolved.claimed_product_id
    return describe(product_id, ProductLaunch.get_or_none(ProductLaunch.product == product_id), facts)


def apply(product_id: str, *, expected: str, target: str) -> bool:
    """Moves the product's launch state from `expected` to `target`; False (nothing changed)
    when it is no longer `expected`."""
    # The WHERE on the state read before is what settles a race: of two requests that read
    # the same state, the database lets exactly one update apply; the other updates nothing
    # (on PostgreSQL it waits for the first to commit, then finds the state moved) and
    # decides again from the state it finds.
    moved = (ProductLaunch.update(state=target, previous=expected, changed_at=utcnow())
             .where(ProductLaunch.product == product_id, ProductLaunch.state == expected).execute())
    return moved == 1


def transition(*, session: Session, action: str) -> tuple[dict, list]:
    """Moves the launch state of the session's claimed product by `action`. Answers the
    answer and the jobs to send after the commit (taking the product off sale closes the
    checkouts its customers still have open: services/commerce/orders.close_open_checkouts)."""
    resolved = resolve(session)
    product_id = require_claim(resolved)
    facts = fact_values(launch.facts_for(owner_of(session), resolved))
    for _ in range(MOVES):
        with transaction():
            ProductLaunch.insert(product=product_id, state=DRAFT, changed_at=utcnow()).on_conflict_ignore().execute()
            row = ProductLaunch.get(ProductLaunch.product == product_id)
            target = decide(row.state, action, facts)
            if apply(product_id, expected=row.state, target=target):
                moved = ProductLaunch.get(ProductLaunch.product == product_id)
                answer = {"status": "ok", **describe(product_id, moved, facts)}
                stops_sales = row.state not in ProductLaunch.NOT_ON_SALE and target in ProductLaunch.NOT_ON_SALE
                jobs = [orders.close_checkouts_job(product_id, moved.changed_at)] if stops_sales else []
                break
    else:
        current = ProductLaunch.get(ProductLaunch.product == product_id)
        allowed, blocked = options(current.state, facts)
        raise Refused("invalid_transition", f"Your product's launch state kept changing while {action} was tried "
                                            f"(it is {current.state} now); nothing was changed by this request.",
                      state=current.state, action=action, allowed=allowed, blocked=blocked)
    if (row.state in ProductLaunch.NOT_ON_SALE) != (target in ProductLaunch.NOT_ON_SALE):
        # The store's pages say whether the product is sold: after the commit its pointer
        # moves, so every process renders them again (services/store/published.py).
        published.announce(product_id)
    return answer, [job for job in jobs if job is not None]
