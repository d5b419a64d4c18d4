"""Whose rows a request sees, and how a session's rows become its account's.

A bound session acts for its account (rows carry both ids and are matched by account), an
anonymous session for itself (rows matched by session, among those no account adopted).
When a session is bound (POST /api/account, and sign-in) what it did becomes the
account's: each feature area registers an adopter for the rows it owns; adopters run
inside the binding transaction and report what they adopted, and each says what of its
kind an anonymous session holds (services/sign_in.py asks before moving anything).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Owner:
    """Who a request acts for: the account when the session is bound, else the session."""

    session_id: int
    account_id: int | None

    @property
    def key(self) -> str:
        return f"account:{self.account_id}" if self.account_id is not None else f"session:{self.session_id}"

    def owns(self, model):
        """The condition selecting this owner's rows of a model with `session` and `account`."""
        if self.account_id is not None:
            return model.account == self.account_id
        return (model.session == self.session_id) & model.account.is_null()

    def has(self, row) -> bool:
        """Whether a loaded row is this owner's (the same rule as `owns`)."""
        if self.account_id is not None:
            return row.account_id == self.account_id
        return row.session_id == self.session_id and row.account_id is None


def owner_of(session) -> Owner:
    return Owner(session_id=session.id, account_id=session.account_id)


def owner_from_key(key: str) -> Owner:
    """The Owner a stored owner key names ("account:<id>" or "session:<id>"): the reverse of `Owner.key`."""
    kind, _, number = key.partition(":")
    return Owner(session_id=0, account_id=int(number)) if kind == "account" else Owner(int(number), None)


def session_key(session_id: int) -> str:
    """The owner key of an anonymous session's rows."""
    return Owner(session_id=session_id, account_id=None).key


def adoption_keys(session_id: int, account_id: int) -> tuple[str, str]:
    """The owner keys an adopter moves rows from (the anonymous session's) and to (the account's)."""
    return Owner(session_id=session_id, account_id=None).key, Owner(session_id=session_id, account_id=account_id).key


@dataclass(frozen=True)
class Adopter:
    """One kind of work a sign-in moves from a session into its account.

    `adopt(session_id, account_id)` moves the session's rows of this kind (inside the binding
    transaction) and reports what it moved, e.g. {"claims": ["p1"]}. `held(session_id)` says,
    without changing anything, what of this kind the anonymous session holds, one line a
    thing in a founder's words ([] for none): the confirmation of a sign-in link decides
    from these answers whether a browser has work and shows them, so a kind of work is
    covered the day its adopter is registered. `kept(session_id, account_id)`, where given,
    names what adoption leaves as the account has it (the account's own values win)."""

    kind: str
    adopt: Callable[[int, int], dict]
    held: Callable[[int], list[str]]
    kept: Callable[[int, int], list[str]] | None = None


ADOPTERS: list[Adopter] = []


def adopter(*, kind: str, held: Callable[[int], list[str]], kept: Callable[[int, int], list[str]] | None = None):
    """Registers the decorated function as the adopter of one kind of work (a decorator).
    `held` is required: a kind of work whose adopter cannot say whether a session holds
    some would move at sign-in without the founder being asked."""
    if not callable(held):
        raise TypeError(f"adopter {kind!r}: held must say what of this kind a session holds")

    def register(fn):
        ADOPTERS.append(Adopter(kind=kind, adopt=fn, held=held, kept=kept))
        return fn

    return register


def adopt(session_id: int, account_id: int) -> dict:
    """Runs every adopter; returns their reports merged."""
    report: dict[str, list] = {}
    for entry in ADOPTERS:
        for key, items in (entry.adopt(session_id, account_id) or {}).items():
            report.setdefault(key, []).extend(items)
    return report


@dataclass(frozen=True)
class HeldWork:
    """What of one kind a session holds, as its adopter says it."""

    kind: str
    items: tuple[str, ...]


def held_work(session_id: int) -> list[HeldWork]:
    """Everything the anonymous session holds that a sign-in would move, kind by kind, in
    the adopters' order; [] when a sign-in would move nothing."""
    work = []
    for entry in ADOPTERS:
        items = tuple(entry.held(session_id))
        if items:
            work.append(HeldWork(kind=entry.kind, items=items))
    return work


def kept_by_account(session_id: int, account_id: int) -> list[str]:
    """What a sign-in of this session into this account would leave as the account has it."""
    return [line for entry in ADOPTERS if entry.kept is not None for line in entry.kept(session_id, account_id)]
