"""Milestones: steps of the journey, each recorded once per session and once per account."""
from __future__ import annotations

import peewee as pw

from models.account import Milestone
from models.db import db

FIND_SERVED = "find_served"
SHOWN_FIELD = "shown_field"
ACCOUNT_SAVED = "account_saved"
REACHED_DASHBOARD = "reached_dashboard"


def record(name: str, *, session_id: int | None = None, account_id: int | None = None) -> bool:
    """Records a milestone for the session and/or the account; True if it is new for either."""
    new = False
    for key in (("session_id", session_id), ("account_id", account_id)):
        if key[1] is None:
            continue
        try:
            with db.atomic():  # a savepoint: a repeat must not abort the caller's transaction
                Milestone.create(name=name, **{key[0]: key[1]})
            new = True
        except pw.IntegrityError:
            pass
    return new


def record_missing(rows) -> None:
    """Records milestones known to be missing, in one statement: `rows` are (name,
    session_id, account_id) with one of the two ids set. A row that exists by now (a
    concurrent request recorded it) is left as it is."""
    rows = [{"name": name, "session": session_id, "account": account_id} for name, session_id, account_id in rows]
    if rows:
        Milestone.insert_many(rows).on_conflict_ignore().execute()


def reached(name: str, *, session_id: int | None = None, account_id: int | None = None) -> bool:
    query = Milestone.select().where(Milestone.name == name)
    if account_id is not None:
        return query.where(Milestone.account == account_id).exists()
    return query.where(Milestone.session == session_id).exists()
