"""Discovery: the resolver, finds and feeds, holds, select, pass and claim, the claim
allowance and share, adoption of a session's discovery rows, and discovery runs.

Who a row belongs to is `services.ownership.Owner`. `resolve` is the one place that says what product a
session has; every founder-scoped endpoint asks it.

Why the database decides: at most one live hold per product and one claim per product
must hold across any number of web processes, so

- a hold is a row keyed by its product, taken with one conditional upsert
  (`INSERT ... ON CONFLICT (product_id) DO UPDATE ... WHERE expires_at <= now OR the row is
  mine RETURNING product_id`): the row coming back is the only proof of winning. An expired
  hold is simply a row whose time has passed: reads compare `expires_at` with now and the
  upsert takes it over, so no sweeper is needed for correctness;
- a claim's product is unique, so a second claim fails at insert;
- the allowance is a counter spent by `UPDATE ... SET claims_made = claims_made + 1 WHERE
  claims_made < allowance` in the claim's own transaction, so 50 simultaneous claims at an
  allowance of 1 spend it once.

Holds and claims also re-check each other inside their transaction: a hold taken on a
product whose claim committed meanwhile is rolled back (a claim deletes the claimer's
hold row, so the upsert alone cannot see it).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

import peewee as pw

from config import get_settings
from models.account import Milestone
from models.catalog import Product
from models.clock import iso, utcnow
from models.db import close_connection, db, transaction
from models.discovery import Claim, ClaimAllowance, Hold, Passed, ProductGate, Seen, ShareAction, Watch
from models.job import Job
from models.session import Session
from services import evidence_gate, milestones, watches
from services.errors import Refused
from services.jobs import create_job, get_job
from services.meter import metered
from services.ownership import Owner, adopter, owner_of
from services.reasons import sentence
from services.referrals import code_for

HOLD_MINUTES = 30  # decisions.md: the hold window
FEED_SIZE = 12  # decisions.md: at most 12 cards, the session's own first
BASE_ALLOWANCE = 1  # decisions.md: one claim, and one more per share action
MAX_SHARE_LIFTS = 4  # so the allowance tops out at 5 (sharing is a click, a claim takes a product from everyone)
METER_BUCKET = "find"
# Candidates read beyond what a request shows, for the ones lost to a concurrent hold,
# and how many times a find reads candidates again when it lost a whole batch.
SPARE_CANDIDATES = 4
MINT_ROUNDS = 8

CLAIMED = "claimed"
HELD = "held"
PASSED = "passed"
SELECTED = "selected"

DISCOVER = "discover"  # the job kind of a discovery run
DISCOVER_SCRIPT = "scripts/discover.py"
RUNNING = "running"


# --- Owners and the resolver -----------------------------------------------------------

@dataclass(frozen=True)
class Resolved:
    """What product a session has.

    `product_id` is its most recent claim, else its live hold (`state` says which);
    `hold_product_id` / `held_until` describe its live hold even when a claim came first
    (discovery shows that hold while the founder is still under the allowance).
    """

    product_id: str
    state: str  # CLAIMED or HELD
    claimed_product_id: str | None
    hold_product_id: str | None
    held_until: datetime | None


def resolve(session: Session, *, now: datetime | None = None) -> Resolved | None:
    """Resolves the session's product: claimed first (its most recent claim), then its live
    hold; None when it has neither.

    Every founder-scoped endpoint of the service resolves the founder's product through
    this function and nothing else, so what a founder sees is the same everywhere and a
    product claimed by another founder never appears as theirs. A bound session resolves
    by its account (a claim made on any device of the account counts), an anonymous one
    by itself. A hold whose 30 minutes have passed does not resolve (it is free to take).
    """
    return _resolve(owner_of(session), now or utcnow())


def _resolve(owner: Owner, now: datetime) -> Resolved | None:
    claim = (Claim.select(Claim.product).where(owner.owns(Claim))
             .order_by(Claim.created_at.desc(), Claim.id.desc()).first())
    hold = (Hold.select(Hold.product, Hold.expires_at).where(owner.owns(Hold), Hold.expires_at > now)
            .order_by(Hold.expires_at.desc()).first())
    claimed_id = claim.product_id if claim else None
    hold_id, until = (hold.product_id, hold.expires_at) if hold else (None, None)
    if claimed_id is not None:
        return Resolved(claimed_id, CLAIMED, claimed_id, hold_id, until)
    if hold_id is not None:
        return Resolved(hold_id, HELD, None, hold_id, until)
    return None


# --- The claim allowance ---------------------------------------------------------------

@dataclass(frozen=True)
class Allowance:
    allowance: int
    claims_made: int

    @property
    def finds_remaining(self) -> int:
        return max(0, self.allowance - self.claims_made)

    def fields(self) -> dict:
        return {"allowance": self.allowance, "claims_made": self.claims_made, "finds_remaining": self.finds_remaining}


def allowance_of(owner: Owner) -> Allowance:
    row = ClaimAllowance.get_or_none(ClaimAllowance.owner == owner.key)
    if row is None:
        return Allowance(BASE_ALLOWANCE, 0)
    return Allowance(BASE_ALLOWANCE + row.lifts, row.claims_made)


def _ensure_allowance_row(key: str, now: datetime) -> None:
    ClaimAllowance.insert(owner=key, lifts=0, shares=0, claims_made=0, updated_at=now).on_conflict_ignore().execute()


# --- Cards -------------------------------------------------------------------------------

def _money(value) -> float:
    return float(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def card(product: Product, gate: ProductGate | None, *, yours: bool, held_until: datetime | None = None,
         claimed: bool = False) -> dict:
    """A product as the find endpoints show it (the card fields of decisions.md)."""
    price, cost = Decimal(product.price), Decimal(product.cost)
    images = product.images or []
    body = {
        "product_id": product.product_id,
        "name": product.name,
        "description": product.description,
        "category": product.category,
        "image": images[0] if images else None,
        "price": _money(price),
        "cost": _money(cost),
        "margin": _money(price - cost),
        "margin_pct": float(gate.margin_pct if gate is not None else evidence_gate.margin_pct(price, cost)),
        "currency": product.currency,
        "evidence_count": gate.evidence_count if gate is not None else 0,
        "evidence_latest": _iso_date(gate.evidence_latest) if gate is not None else None,
        "rank": product.rank,
        "yours": yours,
    }
    if yours and claimed:
        body["claimed"] = True
    elif yours:
        body["held_until"] = iso(held_until)
    return body


def _iso_date(value) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, date) else str(value)


def _product_rows(product_ids) -> dict[str, tuple[Product, ProductGate | None]]:
    """Products with their gate figures, by id (one query)."""
    if not product_ids:
        return {}
    query = (Product.select(Product, ProductGate)
             .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id), attr="gate_row")
             .where(Product.product_id.in_(list(product_ids))))
    return {p.product_id: (p, getattr(p, "gate_row", None)) for p in query}


# --- Candidates, holds and why there is nothing to show --------------------------------

def _live_hold_on(product_field, now):
    return Hold.select(Hold.product).where((Hold.product == product_field) & (Hold.expires_at > now))


def _claim_on(product_field):
    return Claim.select(Claim.product).where(Claim.product == product_field)


def _passed_by(owner: Owner, product_field):
    return Passed.select(Passed.product).where((Passed.product == product_field) & owner.owns(Passed))


def _candidates(owner: Owner, now: datetime, gate, day: date, limit: int, exclude=()) -> list[ProductGate]:
    """The best products this owner may be shown now: clearing the gate, neither held
    (live) nor claimed by anyone, not passed by the owner. Ranking key: rank descending,
    then product_id ascending. One query, walking the product_gate_feed_order index."""
    query = (ProductGate.select(ProductGate, Product)
             .join(Product, on=(ProductGate.product == Product.product_id), attr="item")
             .where(evidence_gate.servable(gate, day),
                    ~pw.fn.EXISTS(_live_hold_on(ProductGate.product, now)),
                    ~pw.fn.EXISTS(_claim_on(ProductGate.product)),
                    ~pw.fn.EXISTS(_passed_by(owner, ProductGate.product)))
             .order_by(ProductGate.rank.desc(), ProductGate.product.asc())
             .limit(limit))
    if exclude:
        query = query.where(ProductGate.product.not_in(list(exclude)))
    return list(query)


def _take_hold(owner: Owner, product_id: str, now: datetime) -> datetime | None:
    """Takes the hold on a product for the owner when it is free (no row, an expired row)
    or already the owner's; returns its expiry, or None when someone else holds it or it
    has been claimed. Must run inside a transaction."""
    until = now + timedelta(minutes=HOLD_MINUTES)
    with db.atomic() as savepoint:
        taken = list(Hold.insert(product=product_id, session=owner.session_id, account=owner.account_id,
                                 expires_at=until, created_at=now)
                     .on_conflict(conflict_target=[Hold.product],
                                  update={Hold.session: pw.EXCLUDED.session_id, Hold.account: pw.EXCLUDED.account_id,
                                          Hold.expires_at: pw.EXCLUDED.expires_at,
                                          Hold.created_at: pw.EXCLUDED.created_at},
                                  where=(Hold.expires_at <= now) | owner.owns(Hold))
                     .returning(Hold.product).execute())
        if not taken:
            return None
        # A claim deletes its claimer's hold row, so the upsert may have found no row for a
        # product claimed a moment ago: that claim wins.
        if Claim.select().where(Claim.product == product_id).exists():
            savepoint.rollback()
            return None
    return until


def _release_other_holds(owner: Owner, keep: str | None) -> list[str]:
    """Drops the owner's holds other than `keep` (a founder holds one product at a time);
    returns the products released."""
    query = Hold.select(Hold.product).where(owner.owns(Hold))
    if keep is not None:
        query = query.where(Hold.product != keep)
    released = [pid for (pid,) in query.tuples()]
    if released:
        Hold.delete().where(owner.owns(Hold), Hold.product.in_(released)).execute()
    return released


def _why_nothing(owner: Owner, now: datetime, gate, day: date) -> str:
    """Why no candidate is left for this owner (only asked when there is none)."""
    servable = (ProductGate.select().where(evidence_gate.servable(gate, day),
                                           ~pw.fn.EXISTS(_claim_on(ProductGate.product))))
    if not Product.select().where(~pw.fn.EXISTS(_claim_on(Product.product_id))).exists():
        reason = "catalog_exhausted"  # every product is claimed, or there are none
    elif not servable.exists():
        reason = "not_servable"  # none of the unclaimed products clears the gate now
    elif not servable.where(~pw.fn.EXISTS(_passed_by(owner, ProductGate.product))).exists():
        reason = "passed_out"
    else:
        reason = "all_held"  # the rest are held by other founders now
    return reason


@dataclass
class _Served:
    own: dict | None  # the owner's held product as a card
    spare: list  # further candidates (ProductGate rows with .item), best first
    released: list  # products whose hold this call gave up
    reason: str | None  # why there is no own product


def _serve_hold(owner: Owner, resolved: Resolved | None, now: datetime, gate, day: date, spare: int) -> _Served:
    """The owner's live hold, or a new hold on the best candidate (minted here); with up
    to `spare` further candidates. Runs inside a transaction."""
    released = []
    if resolved is not None and resolved.hold_product_id is not None:
        product, gate_row = _product_rows([resolved.hold_product_id]).get(resolved.hold_product_id, (None, None))
        if product is not None and evidence_gate.row_clears(gate_row, gate, day):
            others = _candidates(owner, now, gate, day, spare) if spare else []
            return _Served(card(product, gate_row, yours=True, held_until=resolved.held_until), others, released, None)
        # The held product no longer clears the gate: give it up and find another.
        Hold.delete().where(owner.owns(Hold), Hold.product == resolved.hold_product_id).execute()
    # Concurrent finds read the same best candidates; a loser moves down the list, and
    # reads it again (without what it lost) when a whole batch was taken meanwhile.
    lost: list[str] = []
    rows = []
    for _attempt in range(MINT_ROUNDS):
        rows = _candidates(owner, now, gate, day, 1 + spare + SPARE_CANDIDATES, exclude=lost)
        for index, row in enumerate(rows):
            until = _take_hold(owner, row.product_id, now)
            if until is not None:
                released += _release_other_holds(owner, keep=row.product_id)
                own = card(row.item, row, yours=True, held_until=until)
                return _Served(own, rows[index + 1:index + 1 + spare], released, None)
            lost.append(row.product_id)
        if not rows:
            break
    reason = _why_nothing(owner, now, gate, day) if not rows else "all_held"
    return _Served(None, [], released, reason)


def _record_seen(owner: Owner, product_ids, now: datetime) -> None:
    """Every card rendered is recorded as seen: one row per session and product."""
    rows = [{"session": owner.session_id, "account": owner.account_id, "product": pid, "created_at": now}
            for pid in dict.fromkeys(product_ids)]
    if rows:
        Seen.insert_many(rows).on_conflict_ignore().execute()


def _milestones(owner: Owner) -> None:
    """Advances find_served and shown_field for the session (and its account). One read
    first: once both are reached, a find records nothing."""
    names = (milestones.FIND_SERVED, milestones.SHOWN_FIELD)
    whose = Milestone.session == owner.session_id
    if owner.account_id is not None:
        whose |= Milestone.account == owner.account_id
    reached = set(Milestone.select(Milestone.name, Milestone.session, Milestone.account)
                  .where(Milestone.name.in_(names), whose).tuples())
    for name in names:
        missing_session = (name, owner.session_id, None) not in reached
        missing_account = owner.account_id is not None and not any(
            r[0] == name and r[2] == owner.account_id for r in reached)
        if missing_session or missing_account:
            milestones.record(name, session_id=owner.session_id if missing_session else None,
                              account_id=owner.account_id if missing_account else None)


# --- Find and feed -------------------------------------------------------------------------

def find(*, session: Session) -> tuple[dict, list[Job]]:
    """Serves the session's product as a card: its live hold, or a new hold on the best
    candidate (metered under `find`); at the allowance, its claimed product. Returns the
    card and the jobs to send after commit."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    resolved = _resolve(owner, now)
    allowance = allowance_of(owner)
    if allowance.finds_remaining == 0:
        # Nothing to find: the founder's product is its claim (no charge, no work).
        if resolved is not None and resolved.claimed_product_id is not None:
            product, gate_row = _product_rows([resolved.claimed_product_id])[resolved.claimed_product_id]
            return card(product, gate_row, yours=True, claimed=True), []
        raise Refused("claim_limit_reached", **allowance.fields())
    with metered(owner.account_id, METER_BUCKET):
        with transaction():
            served = _serve_hold(owner, resolved, now, gate, day, spare=0)
            if served.own is None:
                raise Refused(served.reason)
            _record_seen(owner, [served.own["product_id"]], now)
            _milestones(owner)
            jobs = watches.observe_available(served.released, now=now)
    return served.own, jobs


def feed(*, session: Session) -> tuple[list | dict, list[Job]]:
    """The session's own product (a hold, minted if needed) then up to FEED_SIZE - 1 free
    candidates by the ranking key; an empty list at the allowance. Metered under `find`."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    if allowance_of(owner).finds_remaining == 0:
        return [], []
    resolved = _resolve(owner, now)
    with metered(owner.account_id, METER_BUCKET):
        with transaction():
            served = _serve_hold(owner, resolved, now, gate, day, spare=FEED_SIZE - 1)
            if served.own is None:
                raise Refused(served.reason)
            cards = [served.own] + [card(row.item, row, yours=False) for row in served.spare]
            _record_seen(owner, [c["product_id"] for c in cards], now)
            _milestones(owner)
            # The free cards shown are products observed available: their watchers hear of it.
            jobs = watches.observe_available(served.released + [c["product_id"] for c in cards[1:]], now=now)
    return cards, jobs


# --- Select, claim and pass ------------------------------------------------------------------

def _seen_by(owner: Owner, product_id: str) -> bool:
    return Seen.select().where(owner.owns(Seen), Seen.product == product_id).exists()


def _passed(owner: Owner, product_id: str) -> bool:
    return Passed.select().where(owner.owns(Passed), Passed.product == product_id).exists()


def _claim_of(product_id: str) -> Claim | None:
    return Claim.get_or_none(Claim.product == product_id)


def _claimed_by(owner: Owner, product_id: str) -> bool:
    """Whether the product's claim is this owner's (a repeat of a claim answers as it did)."""
    claim = _claim_of(product_id)
    return claim is not None and owner.has(claim)


def select(*, session: Session, product_id: str) -> tuple[dict, list[Job]]:
    """Holds a product the session was shown (its previous hold is released)."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    product, gate_row = _product_rows([product_id]).get(product_id, (None, None))
    if product is None:
        raise Refused("unknown_product", "There is no product with that id in the catalogue.")
    claim = _claim_of(product_id)
    resolved = _resolve(owner, now)
    held = resolved.hold_product_id if resolved else None
    if claim is not None and owner.has(claim):
        return _selected(product_id, held, resolved.held_until if held else None, claimed=True), []
    if claim is not None:
        raise Refused("claimed_by_another_founder")
    if _passed(owner, product_id):
        raise Refused("passed_by_you")
    if not _seen_by(owner, product_id):
        raise Refused("not_shown")
    if not evidence_gate.row_clears(gate_row, gate, day):
        raise Refused("not_presearch_qualified")
    allowance = allowance_of(owner)
    if allowance.finds_remaining == 0:
        raise Refused("claim_limit_reached", **allowance.fields())
    if held == product_id:
        return _selected(product_id, held, resolved.held_until), []
    try:
        with transaction():
            until = _take_hold(owner, product_id, now)
            if until is None:
                raise _Lost()
            released = _release_other_holds(owner, keep=product_id)
            jobs = watches.observe_available(released, now=now)
    except _Lost:
        if _claimed_by(owner, product_id):
            return _selected(product_id, None, None, claimed=True), []
        raise Refused("claimed_by_another_founder" if _claim_of(product_id) is not None
                      else "held_by_another_founder") from None
    return _selected(product_id, product_id, until), jobs


def _selected(product_id, held, held_until, *, claimed=False) -> dict:
    body = {"status": SELECTED, "held": held, "product_id": product_id, "held_minutes": HOLD_MINUTES,
            "held_until": iso(held_until)}
    if claimed:
        body["claimed"] = True
    return body


def _target(owner: Owner, product_id: str | None, now: datetime) -> tuple[str, bool]:
    """The product a pass or claim acts on: the one named, else the session's held product
    (a lapsed hold still counts while nobody has taken it over). Returns (id, named)."""
    if product_id is not None:
        return product_id, True
    row = Hold.select(Hold.product).where(owner.owns(Hold)).order_by(Hold.expires_at.desc()).first()
    if row is None:
        raise Refused("no_product", "You are not holding a product; find one first.")
    return row.product_id, False


def _check_named(owner: Owner, product_id: str, named: bool) -> tuple[Product, ProductGate | None]:
    product, gate_row = _product_rows([product_id]).get(product_id, (None, None))
    if product is None:
        raise Refused("unknown_product", "There is no product with that id in the catalogue.")
    if named and not _seen_by(owner, product_id):
        raise Refused("not_shown")
    return product, gate_row


class _LimitReached(Exception):
    pass


class _Lost(Exception):
    pass


def claim(*, session: Session, product_id: str | None = None) -> dict:
    """Claims the held product (or a named product the session was shown) within the
    allowance: exclusive to the founder for good."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    try:
        target, named = _target(owner, product_id, now)
    except Refused:
        # No hold left: a repeat of the claim that just took it answers as that claim did.
        resolved = _resolve(owner, now)
        if resolved is not None and resolved.claimed_product_id is not None:
            return _claimed(owner, resolved.claimed_product_id)
        raise
    existing = _claim_of(target)
    if existing is not None and owner.has(existing):
        return _claimed(owner, target)
    if existing is not None:
        raise Refused("claimed_by_another_founder")
    _product, gate_row = _check_named(owner, target, named)
    if _passed(owner, target):
        raise Refused("passed_by_you")
    if not evidence_gate.row_clears(gate_row, gate, day):
        Hold.delete().where(owner.owns(Hold), Hold.product == target).execute()
        raise Refused("not_presearch_qualified", product_id=target)
    try:
        with transaction():
            _ensure_allowance_row(owner.key, now)
            if _take_hold(owner, target, now) is None:
                raise _Lost()
            spent = (ClaimAllowance.update(claims_made=ClaimAllowance.claims_made + 1, updated_at=now)
                     .where(ClaimAllowance.owner == owner.key,
                            ClaimAllowance.claims_made < BASE_ALLOWANCE + ClaimAllowance.lifts)
                     .execute())
            if spent != 1:
                raise _LimitReached()
            Claim.insert(product=target, session=owner.session_id, account=owner.account_id, created_at=now).execute()
            Hold.delete().where(Hold.product == target).execute()
    except (pw.IntegrityError, _Lost, _LimitReached) as lost:
        if _claimed_by(owner, target):
            return _claimed(owner, target)  # this founder's own claim, a moment earlier
        if isinstance(lost, _LimitReached):
            raise Refused("claim_limit_reached", **allowance_of(owner).fields()) from None
        raise Refused("claimed_by_another_founder" if _claim_of(target) is not None
                      else "held_by_another_founder") from None
    return _claimed(owner, target)


def _claimed(owner: Owner, product_id: str) -> dict:
    return {"status": CLAIMED, "product_id": product_id, **allowance_of(owner).fields()}


def pass_on(*, session: Session, product_id: str | None = None) -> tuple[dict, list[Job]]:
    """Passes on the held product (or a named product the session was shown), for good,
    and shows the next card, or says why there is none."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    target, named = _target(owner, product_id, now)
    existing = _claim_of(target)
    if existing is not None and owner.has(existing):
        raise Refused("claimed_by_you")
    _check_named(owner, target, named)
    with transaction():
        Passed.insert(session=owner.session_id, account=owner.account_id, product=target,
                      created_at=now).on_conflict_ignore().execute()
        released = Hold.delete().where(owner.owns(Hold), Hold.product == target).execute()
        allowance = allowance_of(owner)
        if allowance.finds_remaining == 0:
            following, reason = None, "claim_limit_reached"
        else:
            served = _serve_hold(owner, _resolve(owner, now), now, gate, day, spare=0)
            following, reason = served.own, served.reason
        if following is not None:
            _record_seen(owner, [following["product_id"]], now)
        jobs = watches.observe_available([target] if released else [], now=now)
    body = {"status": PASSED, "passed": target, "next": following}
    if following is None:
        body.update(reason=reason, explanation=sentence(reason))
    return body, jobs


# --- Share ----------------------------------------------------------------------------------

def share(*, session: Session) -> dict:
    """Records a use of the share control, lifts the claim allowance by one (up to its cap)
    and returns the session's coded referral link."""
    owner, now = owner_of(session), utcnow()
    code = code_for(session)
    with transaction():
        _ensure_allowance_row(owner.key, now)
        lifted = (ClaimAllowance.update(lifts=ClaimAllowance.lifts + 1, shares=ClaimAllowance.shares + 1, updated_at=now)
                  .where(ClaimAllowance.owner == owner.key, ClaimAllowance.lifts < MAX_SHARE_LIFTS)
                  .execute()) == 1
        if not lifted:
            (ClaimAllowance.update(shares=ClaimAllowance.shares + 1, updated_at=now)
             .where(ClaimAllowance.owner == owner.key).execute())
        ShareAction.create(session=owner.session_id, account=owner.account_id, lifted=lifted, created_at=now)
    allowance = allowance_of(owner)
    if lifted:
        explanation = (f"Your link is ready to share. Sharing raised your claim allowance to {allowance.allowance}, "
                       f"so you can claim {allowance.finds_remaining} more product"
                       f"{'' if allowance.finds_remaining == 1 else 's'}.")
    else:
        explanation = (f"Your link is ready to share. Your claim allowance is already at its most, "
                       f"{allowance.allowance}; friends who join through your link still raise your usage limits.")
    return {
        "status": "share_recorded",
        "shared": True,
        "url": f"{get_settings().base_url}/r/{code}",
        **allowance.fields(),
        "explanation": explanation,
        "observed": "The share control was used. This records the click only: it does not mean anyone has "
                    "opened or seen your link.",
    }


# --- Adoption -------------------------------------------------------------------------------

@adopter
def adopt_discovery(session_id: int, account_id: int) -> dict:
    """A session's claims, holds, seen and passed products, shares, watches and allowance
    become its account's."""
    claimed = [pid for (pid,) in Claim.select(Claim.product)
               .where(Claim.session == session_id, Claim.account.is_null()).tuples()]
    for model in (Claim, Hold, Seen, Passed, ShareAction, Watch):
        model.update(account=account_id).where(model.session == session_id, model.account.is_null()).execute()
    session_key, account_key = f"session:{session_id}", f"account:{account_id}"
    row = ClaimAllowance.get_or_none(ClaimAllowance.owner == session_key)
    if row is not None:
        now = utcnow()
        _ensure_allowance_row(account_key, now)
        lifts = ClaimAllowance.lifts + row.lifts
        (ClaimAllowance.update(claims_made=ClaimAllowance.claims_made + row.claims_made,
                               shares=ClaimAllowance.shares + row.shares,
                               lifts=pw.Case(None, [(lifts > MAX_SHARE_LIFTS, MAX_SHARE_LIFTS)], lifts),
                               updated_at=now)
         .where(ClaimAllowance.owner == account_key).execute())
        ClaimAllowance.delete().where(ClaimAllowance.owner == session_key).execute()
    return {"claims": claimed}


# --- Discovery runs (POST /api/discover) ----------------------------------------------------

def start_discovery(*, session: Session, query: str | None, mode: str | None, use_research_brief: bool) -> tuple[Job, bool]:
    """Creates the discovery run job for the session (one at a time per session); returns
    (job, created). A session with a run in progress gets that run."""
    query = (query or "").strip() or None
    payload = {"query": query, "mode": mode, "use_research_brief": bool(use_research_brief),
               "today": utcnow().date().isoformat()}
    with transaction():
        return create_job(kind=DISCOVER, subject=f"discover:{session.id}", payload=payload, max_attempts=2)


def wait_for_run(job_id: str, *, seconds: float, no_worker_grace: float = 1.0) -> Job:
    """Waits (real time) until the run's job has finished or `seconds` have passed; returns
    the job row as last read. Gives up early when the job is still queued after
    `no_worker_grace` seconds and no worker has been heard from: nothing would run it."""
    from services.health import worker_status

    started = time.monotonic()
    while True:
        job = get_job(job_id)
        close_connection()  # the wait holds no pooled connection between polls
        waited = time.monotonic() - started
        if job is None or job.status in Job.FINISHED or waited >= seconds:
            return job
        if job.status == Job.QUEUED and waited >= no_worker_grace:
            settings = get_settings()
            if not worker_status(stale_seconds=settings.worker_stale_seconds)["heard_from"]:
                close_connection()
                return job
        time.sleep(0.05 if waited < 2 else 0.2)


def run_answer(job: Job | None) -> dict:
    """The POST /api/discover answer for a run's job (finished or not)."""
    if job is None:
        raise Refused("not_found", "That discovery run no longer exists.")
    payload = job.payload or {}
    query = payload.get("query")
    body = {"status": "refused", "query": query, "ran": None if query else DISCOVER_SCRIPT,
            "exit_code": None, "log": [], "stderr": [], "job_id": job.id}
    if job.status not in Job.FINISHED:
        body["status"] = RUNNING
        return body
    result = job.result or {}
    body.update(exit_code=result.get("exit_code"), log=result.get("log", []), stderr=result.get("stderr", []))
    if body["exit_code"] is None:
        body["exit_code"] = -1  # the script never ran to an exit (the job failed)
        body["error"] = job.error or "internal_error"
    if result.get("error"):
        body["error"] = result["error"]
    for flag in ("timed_out", "truncated"):
        if result.get(flag):
            body[flag] = True
    body["status"] = "ok" if body["exit_code"] == 0 else "refused"
    return body


def run_of(*, session: Session, job_id: str | None) -> Job:
    """The session's discovery run with that id (its latest when None)."""
    query = Job.select().where(Job.kind == DISCOVER, Job.subject == f"discover:{session.id}")
    if job_id is not None:
        query = query.where(Job.id == job_id)
    job = query.order_by(Job.created_at.desc()).first()
    if job is None:
        raise Refused("not_found", "This session has no discovery run with that id.")
    return job
