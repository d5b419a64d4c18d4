"""What a session did becomes its account's when the session is bound (POST /api/account,
and sign-in). Each feature area registers an adopter for the rows it owns; adopters run
inside the binding transaction and report what they adopted."""
from __future__ import annotations

from typing import Callable

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
