"""The walkthrough (GET /api/walkthrough, POST /api/walkthrough/advance and /dismiss): the
launch facts (services/research/launch.py) as steps in a founder's words, a step done when
its fact is true today, and where the founder is in them.

The position is stored per owner (the session, or its account once signed in) and moved
by one conditional UPDATE that clamps it to the steps in SQL, so two clicks at once move it
twice and never past either end. Until the founder first moves, the position is the first
step not done yet.
"""
from __future__ import annotations

import peewee as pw

from models.clock import utcnow
from models.db import transaction
from models.session import Session
from models.walkthrough import Walkthrough
from services.discovery import resolve
from services.errors import Refused
from services.ownership import adopter, adoption_keys, owner_of, session_key
from services.research.launch import FACT_IDS, facts_for

FORWARD, BACK = "forward", "back"
DIRECTIONS = (FORWARD, BACK)

# fact id -> (the step in the founder's words, the screen of the app where it is done)
STEPS: dict[str, tuple[str, str]] = {
    "product_claimed": ("Pick a product and claim it, so it is yours alone", "#/app/find"),
    "offer_researched": ("Read what your product should sell for and what each sale leaves you", "#/app/offer"),
    "store_built": ("Build your store", "#/app/store"),
    "store_published": ("Publish your store so customers can visit it", "#/app/store"),
    "domain_connected": ("Give your store its own web address", "#/app/domains"),
    "payments_ready": ("Get ready to take customers' payments", "#/app/launch"),
    "supplier_connected": ("Connect a supplier who ships your product", "#/app/suppliers"),
    "sample_ordered": ("Order a sample and hold your product in your hands", "#/app/suppliers"),
    "ad_balance_funded": ("Put money in your ad balance", "#/app/growth"),
    "support_address_set": ("Choose the address your customers write to", "#/app/settings"),
}
assert set(STEPS) == set(FACT_IDS), "every launch fact needs a walkthrough step"


def steps_for(session: Session) -> list[dict]:
    """The steps, in launch order, each done when its launch fact is true today."""
    facts = facts_for(owner_of(session), resolve(session))
    return [{"id": fact["id"], "title": STEPS[fact["id"]][0], "done": fact["true_today"], "detail": fact["detail"],
             "route": STEPS[fact["id"]][1]} for fact in facts]


def show(*, session: Session) -> dict:
    """GET /api/walkthrough: the steps, the founder's position in them and whether they dismissed it."""
    steps = steps_for(session)
    return _answer(steps, Walkthrough.get_or_none(Walkthrough.owner == owner_of(session).key))


def advance(*, session: Session, direction: str) -> dict:
    """Moves the founder's position one step forward or back, never past either end."""
    if direction not in DIRECTIONS:
        raise Refused("invalid_direction", "The walkthrough moves forward or back; nothing was changed.")
    steps = steps_for(session)
    last = len(steps) - 1
    moved = (pw.Case(None, [(Walkthrough.position >= last, last)], Walkthrough.position + 1) if direction == FORWARD
             else pw.Case(None, [(Walkthrough.position <= 0, 0)], Walkthrough.position - 1))
    return _change(session, steps, position=moved)


def dismiss(*, session: Session) -> dict:
    """Records that the founder dismissed the walkthrough; it keeps answering, dismissed."""
    return _change(session, steps_for(session), dismissed=True)


def _change(session: Session, steps: list[dict], **changes) -> dict:
    """Applies `changes` to the founder's row, made first if need be, and answers as GET."""
    owner = owner_of(session)
    with transaction():
        # INSERT ... ON CONFLICT DO NOTHING: two first clicks at once make one row, then both update it.
        (Walkthrough.insert(owner=owner.key, session=session.id, account=session.account_id,
                            position=_first_open(steps), updated_at=utcnow())
         .on_conflict_ignore().execute())
        Walkthrough.update(**changes, updated_at=utcnow()).where(Walkthrough.owner == owner.key).execute()
    return _answer(steps, Walkthrough.get(Walkthrough.owner == owner.key))


def _first_open(steps: list[dict]) -> int:
    return next((i for i, step in enumerate(steps) if not step["done"]), len(steps) - 1)


def _answer(steps: list[dict], row: Walkthrough | None) -> dict:
    position = _first_open(steps) if row is None else min(max(row.position, 0), len(steps) - 1)
    return {"status": "ok", "steps": steps, "position": position, "dismissed": bool(row is not None and row.dismissed)}


def _walkthrough_held(session_id: int) -> list[str]:
    started = Walkthrough.select().where(Walkthrough.owner == session_key(session_id)).exists()
    return ["your place in the guided tour"] if started else []


@adopter(kind="walkthrough", held=_walkthrough_held)
def adopt_walkthrough(session_id: int, account_id: int) -> dict:
    """A session's place in the walkthrough becomes its account's, unless the account has one already."""
    session_key, account_key = adoption_keys(session_id, account_id)
    if Walkthrough.select().where(Walkthrough.owner == account_key).exists():
        Walkthrough.delete().where(Walkthrough.owner == session_key).execute()
        return {}
    moved = (Walkthrough.update(owner=account_key, account=account_id)
             .where(Walkthrough.owner == session_key).execute())
    return {"walkthrough": [moved]} if moved else {}
