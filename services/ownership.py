"""Whose rows a request sees, and how a session's rows become its account's.

A bound session acts for its account (rows carry both ids and are matched by account), an
anonymous session for itself (rows matched by session, among those no account adopted).
When a session is bound (POST /api/account, and sign-in) what it did becomes the
account's: each feature area registers an adopter for the rows it owns; adopters run
inside the binding transaction and report what they adopted.
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


def adoption_keys(session_id: int, account_id: int) -> tuple[str, str]:
    """The owner keys an adopter moves rows from (the anonymous session's) and to (the account's)."""
    return Owner(session_id=session_id, account_id=None).key, Owner(session_id=session_id, account_id=account_id).key


# fn(session_id, account_id) -> dict of lists, e.g. {"claims": ["p1"]}
ADOPTERS: list[Callable[[int, int], dict]] = []


def adopter(fn):
    """Registers fn as an adopter (a decorator)."""
    ADOPTERS.append(fn)
    return fn


def adopt(session_id: int, account_id: int) -> dict:
    """Runs every adopter; returns their reports merged."""
    report: dict[str, list] = {}
    for fn in ADOPTERS:
        for key, items in (fn(session_id, account_id) or {}).items():
            report.setdefault(key, []).extend(items)
    return report
