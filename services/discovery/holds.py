"""Holds: find and feed (which serve, and mint, the session's hold), select, claim and pass,
and letting go of every hold of an owner who made a product of their own (`release_holds`).

Why the database decides: at most one live hold per product and one claim per product
must hold across any number of web processes, so

- a hold is a row keyed by its product, taken with one conditional upsert
  (`INSERT ... ON CONFLICT (product_id) DO UPDATE ... WHERE expires_at <= now OR the row is
  mine RETURNING product_id`): the row coming back is the only proof of winning. An expired
  hold is simply a row whose time has passed: reads compare `expires_at` with now and the
  upsert takes it over, so no sweeper is needed for correctness;
- a claim's product is unique, so a second claim fails at insert;
- the allowance is spent by a conditional UPDATE in the claim's own transaction
  (services/discovery/allowance.py).

Holds and claims also re-check each other inside their transaction: a hold taken on a
product whose claim committed meanwhile is dropped again (a claim deletes the claimer's
hold row, so the upsert alone cannot see it; see `_keep_only`).

What a request costs: a feed reads what its owner has in one statement
(services/discovery/state.py) and its candidates in a second (services/discovery/cards.py),
then writes only what is not recorded yet, so with the session lookup and the meter's
charge a repeat feed is four statements and opens no transaction. (The two reads were one
UNION once: PostgreSQL took longer to plan it than to plan and run both apart.) Minting a hold
adds the upsert, one DELETE that releases the previous hold, and the seen and milestone
rows. tests/test_query_growth.py checks that these counts do not grow with the catalog
or the founder's history.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import peewee as pw

from models.catalog import Product
from models.clock import iso, utcnow
from models.db import db, transaction
from models.discovery import Claim, Hold, Passed, ProductGate, Seen
from models.job import Job
from models.session import Session
from services import evidence_gate, milestones, watches
from services.discovery.allowance import allowance_of, ensure_allowance_row, spend_claim
from services.discovery.cards import (
    candidate_card,
    candidates,
    card,
    product_rows,
    version_in,
    version_of,
    why_nothing,
    with_trends,
)
from services.discovery.resolver import CLAIMED, resolve_owner
from services.discovery.state import OwnerState, read_state
from services.errors import Refused
from services.meter import metered
from services.ownership import Owner, owner_of
from services.reasons import sentence

HOLD_MINUTES = 30  # decisions.md: the hold window
FEED_SIZE = 12  # decisions.md: at most 12 cards, the session's own first
METER_BUCKET = "find"
# Candidates read beyond what a request shows, for the ones lost to a concurrent hold,
# and how many times a find reads candidates again when it lost a whole batch.
SPARE_CANDIDATES = 4
MINT_ROUNDS = 8

PASSED = "passed"
SELECTED = "selected"
RESTORED = "restored"
# A pass can be taken back for this long after it (a slip of the thumb on a phone should not
# cost a founder a product); after that it is final, as the spec says a pass is.
UNDO_PASS_SECONDS = 60


# --- Taking and giving up holds --------------------------------------------------------------

def _take_hold(owner: Owner, product_id: str, now: datetime) -> datetime | None:
    """Takes the hold on a product for the owner when it is free (no row, an expired row)
    or already the owner's: one conditional upsert. Returns its expiry, or None when
    someone else holds it. Must run inside a transaction, followed by `_keep_only` (or,
    in a claim, a check for a claim): the upsert alone cannot see a product claimed a
    moment ago."""
    until = now + timedelta(minutes=HOLD_MINUTES)
    taken = (Hold.insert(product=product_id, session=owner.session_id, account=owner.account_id,
                         expires_at=until, created_at=now)
             .on_conflict(conflict_target=[Hold.product],
                          update={Hold.session: pw.EXCLUDED.session_id, Hold.account: pw.EXCLUDED.account_id,
                                  Hold.expires_at: pw.EXCLUDED.expires_at, Hold.created_at: pw.EXCLUDED.created_at},
                          where=(Hold.expires_at <= now) | owner.owns(Hold))
             .returning(Hold.product).execute())
    return until if list(taken) else None


def _keep_only(owner: Owner, product_id: str) -> tuple[bool, list[str]]:
    """After `_take_hold`: the owner keeps that one hold (a founder holds one product at a
    time), in one DELETE ... RETURNING. Returns (kept, products released).

    A claim deletes its claimer's hold row, so the upsert may have found no row for a
    product claimed a moment ago: that claim wins, and then this statement drops the hold
    just taken instead (and nothing else). It runs after the upsert, so it sees a claim
    that committed while the upsert waited for the claimer's row."""
    claimed = pw.fn.EXISTS(Claim.select(Claim.id).where(Claim.product == product_id))
    which = pw.Case(None, [(claimed, Hold.product == product_id)], Hold.product != product_id)
    gone = [pid for (pid,) in Hold.delete().where(owner.owns(Hold), which).returning(Hold.product).tuples().execute()]
    if product_id in gone:
        return False, []
    return True, gone


def release_holds(owner: Owner, now: datetime) -> list[Job]:
    """Lets go of the owner's holds, in the caller's transaction (a founder who made a product
    of their own is no longer deciding on the one they held, and another founder should not
    wait out the hold window for it). Returns the notices of watches on the products
    released, to send after commit."""
    released = [pid for (pid,) in Hold.delete().where(owner.owns(Hold)).returning(Hold.product).tuples().execute()]
    return watches.observe_available(released, now=now)


def _claimed_now(product_id: str) -> bool:
    return Claim.select().where(Claim.product == product_id).exists()


# --- Serving the hold (find, feed, and the next card of a pass) -----------------------------

@dataclass
class _Served:
    own: tuple | None  # the owner's held product's card columns as read, its id first (cards.candidate_card's)
    held_until: datetime | None  # when its hold ends
    spare: list  # further candidates (rows of cards.candidates), best first
    released: list  # products whose hold this call gave up
    reason: str | None  # why there is no own product
    own_seen: bool = False  # the own product is recorded as seen already

    def cards(self) -> list[dict]:
        """The own card then the spare candidates' cards, with their trends."""
        return with_trends([candidate_card(self.own, yours=True, held_until=self.held_until)]
                           + [candidate_card(row) for row in self.spare],
                           [version_in(self.own)] + [row.evidence_version for row in self.spare])


def _serve_live(owner: Owner, state: OwnerState, now: datetime, gate, day: date, spare: int) -> _Served | None:
    """The owner's live hold as a card, with up to `spare` further candidates (reads
    only); None when there is none, or its product no longer clears the gate."""
    held = state.held
    if held is None or not evidence_gate.row_clears(held, gate, day):
        return None
    others = candidates(owner, now, gate, day, spare) if spare else []
    return _Served(state.held_card, state.resolved.held_until, others, [], None, own_seen=state.held_seen)


def _mint(owner: Owner, state: OwnerState, now: datetime, gate, day: date, spare: int) -> _Served:
    """A new hold on the best candidate, with up to `spare` further candidates. Runs
    inside a transaction."""
    released = []
    if state.resolved is not None and state.resolved.hold_product_id is not None:
        # The held product no longer clears the gate: give it up and find another.
        Hold.delete().where(owner.owns(Hold), Hold.product == state.resolved.hold_product_id).execute()
    # Concurrent finds read the same best candidates; a loser moves down the list, and
    # reads it again (without what it lost) when a whole batch was taken meanwhile.
    lost: list[str] = []
    rows = []
    for _round in range(MINT_ROUNDS):
        rows = candidates(owner, now, gate, day, 1 + spare + SPARE_CANDIDATES, exclude=lost)
        for index, row in enumerate(rows):
            until = _take_hold(owner, row.product_id, now)
            if until is not None:
                kept, others = _keep_only(owner, row.product_id)
                if kept:
                    released += others
                    return _Served(row, until, rows[index + 1:index + 1 + spare], released, None,
                                   own_seen=bool(row.seen))
            lost.append(row.product_id)
        if not rows:
            break
    reason = why_nothing(owner, now, gate, day) if not rows else "all_held"
    return _Served(None, None, [], released, reason)


def _record_shown(owner: Owner, state: OwnerState, served: _Served, now: datetime, *, observe: list) -> list[Job]:
    """Records what a find or feed showed, writing only what is not there yet: seen rows
    for the cards not yet seen, the milestones not yet reached, and the watches of
    `observe` (products observed available). Returns the notice jobs to send after
    commit. A repeat feed writes nothing and opens no transaction."""
    unseen = ([] if served.own_seen else [served.own[0]]) + [r.product_id for r in served.spare
                                                                        if not r.seen]
    if not (unseen or state.missing_milestones or observe):
        return []
    with _writing():
        _record_seen(owner, unseen, now)
        milestones.record_missing(state.missing_milestones)
        return watches.observe_available(observe, now=now)


def _writing():
    """A transaction for a request's writes, unless it runs in one already (a nested one
    would be a savepoint)."""
    return nullcontext() if db.in_transaction() else transaction()


def _record_seen(owner: Owner, product_ids, now: datetime) -> None:
    """Every card rendered is recorded as seen: one row per session and product (a row
    already there is left as it is)."""
    ids = list(dict.fromkeys(product_ids))
    if ids:
        (Seen.insert_many([{"session": owner.session_id, "account": owner.account_id, "product": product_id,
                            "created_at": now} for product_id in ids])
         .on_conflict_ignore().as_rowcount().execute())


# --- Find and feed -------------------------------------------------------------------------

def find(*, session: Session, check: dict | None = None) -> tuple[dict, list[Job]]:
    """Serves the session's product as a card: its live hold, or a new hold on the best
    candidate (metered under `find`); at the allowance, its claimed product. Returns the
    card and the jobs to send after commit. `check`: see read_state (a remembered session;
    StaleSession is raised before anything is written)."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    state = read_state(owner, now, check=check)
    resolved = state.resolved
    if state.allowance.finds_remaining == 0:
        # Nothing to find: the founder's product is its claim (no charge, no work).
        if resolved is not None and resolved.claimed_product_id is not None:
            product, gate_row = product_rows([resolved.claimed_product_id])[resolved.claimed_product_id]
            return with_trends([card(product, gate_row, yours=True, claimed=True)], [version_of(gate_row)])[0], []
        raise Refused("claim_limit_reached", **state.allowance.fields())
    with metered(owner.account_id, METER_BUCKET, account=state.account):
        served = _serve_live(owner, state, now, gate, day, spare=0)
        if served is not None:
            return served.cards()[0], _record_shown(owner, state, served, now, observe=[])
        with transaction():
            served = _mint(owner, state, now, gate, day, spare=0)
            if served.own is None:
                raise Refused(served.reason)
            jobs = _record_shown(owner, state, served, now, observe=served.released)
    return served.cards()[0], jobs


def feed(*, session: Session, check: dict | None = None) -> tuple[list[dict], list[Job]]:
    """The session's own product (a hold, minted if needed) then up to FEED_SIZE - 1 free
    candidates by the ranking key, as cards with their trends; an empty list at the allowance. Metered under `find`.

    The free cards shown are products observed available: their watchers hear of it."""
    owner, now = owner_of(session), utcnow()
    gate, day = evidence_gate.current_gate(), now.date()
    # The candidates are read only once the owner may be shown any (not at the allowance).
    state = read_state(owner, now, check=check)
    if state.allowance.finds_remaining == 0:
        return [], []
    with metered(owner.account_id, METER_BUCKET, account=state.account):
        served = _serve_live(owner, state, now, gate, day, spare=FEED_SIZE - 1)
        if served is not None:
            jobs = _record_shown(owner, state, served, now, observe=[r.product_id for r in served.spare if r.watched])
        else:
            with transaction():
                served = _mint(owner, state, now, gate, day, spare=FEED_SIZE - 1)
                if served.own is None:
                    raise Refused(served.reason)
                jobs = _record_shown(owner, state, served, now,
                                     observe=served.released + [r.product_id for r in served.spare if r.watched])
    return served.cards(), jobs


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
    product, gate_row = product_rows([product_id]).get(product_id, (None, None))
    if product is None:
        raise Refused("unknown_product", "There is no product with that id in the catalogue.")
    claim = _claim_of(product_id)
    resolved = resolve_owner(owner, now)
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
            kept, released = _keep_only(owner, product_id)
            if not kept:
                raise _Lost()
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
    product, gate_row = product_rows([product_id]).get(product_id, (None, None))
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
        resolved = resolve_owner(owner, now)
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
            ensure_allowance_row(owner.key, now)
            if _take_hold(owner, target, now) is None or _claimed_now(target):
                raise _Lost()
            if not spend_claim(owner, now):
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
        state = read_state(owner, now)
        if state.allowance.finds_remaining == 0:
            following, reason = None, "claim_limit_reached"
        else:
            served = _serve_live(owner, state, now, gate, day, spare=0) or _mint(owner, state, now, gate, day, spare=0)
            following, reason = (served.cards()[0] if served.own is not None else None), served.reason
        if following is not None and not served.own_seen:
            _record_seen(owner, [following["product_id"]], now)
        jobs = watches.observe_available([target] if released else [], now=now)
    body = {"status": PASSED, "passed": target, "next": following}
    if following is None:
        body.update(reason=reason, explanation=sentence(reason))
    return body, jobs


def undo_pass(*, session: Session, product_id: str | None = None) -> tuple[dict, list[Job]]:
    """Takes back the session's latest pass (or its pass of the named product) within
    UNDO_PASS_SECONDS of it: the product is back in the founder's feed, held for them again
    when no one else has taken it since (the hold of the card shown after the pass is released)."""
    owner, now = owner_of(session), utcnow()
    passes = Passed.select(Passed.product, Passed.created_at).where(owner.owns(Passed))
    if product_id is not None:
        passes = passes.where(Passed.product == product_id)
    latest = passes.order_by(Passed.created_at.desc(), Passed.id.desc()).first()
    if latest is None:
        raise Refused("no_pass_to_undo")
    target = latest.product_id
    if latest.created_at < now - timedelta(seconds=UNDO_PASS_SECONDS):
        raise Refused("undo_window_over", product_id=target)
    held_until, jobs = None, []
    with transaction():
        # Every pass of the owner's on the product goes (a signed-in founder may have passed on
        # it from two devices); a second undo of the same pass finds nothing left to delete.
        if not Passed.delete().where(owner.owns(Passed), Passed.product == target).execute():
            raise Refused("no_pass_to_undo")
        can_claim = allowance_of(owner).finds_remaining > 0
        if can_claim and not _claimed_now(target):
            until = _take_hold(owner, target, now)
            if until is not None:
                kept, released = _keep_only(owner, target)
                if kept:
                    held_until = until
                    jobs = watches.observe_available(released, now=now)
    name = Product.get_by_id(target).name
    if held_until is not None:
        explanation = f"{name} is back in your feed, held for you again."
    elif not can_claim:
        explanation = f"You no longer pass on {name}; your feed shows it again once you can claim one more product."
    else:
        explanation = (f"You no longer pass on {name}, but another founder holds or claimed it now; "
                       "your feed shows it again if it is free.")
    return {"status": RESTORED, "product_id": target, "held_until": iso(held_until),
            "explanation": explanation}, jobs
