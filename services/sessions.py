"""Browser sessions behind the ff_session cookie."""
from __future__ import annotations

import hashlib
import re
import secrets

import peewee as pw

from models.compiled import Param, Statement
from models.session import Session

# secrets.token_hex(16): 32 lowercase hexadecimal characters, 128 random bits.
_COOKIE_SHAPE = re.compile(r"[0-9a-f]{32}")


def hash_token(value: str) -> str:
    return hashlib.sha256(value.encode("ascii")).hexdigest()


def find_session(cookie_value: str | None) -> Session | None:
    """The session a cookie value was issued for, or None for a value the server never issued."""
    if not cookie_value or not _COOKIE_SHAPE.fullmatch(cookie_value):
        return None
    row = _BY_TOKEN_HASH.first(token_hash=hash_token(cookie_value))
    if row is None:
        return None
    session = Session(__no_default__=1, **row._asdict())
    session._dirty.clear()  # as peewee leaves a row it loaded
    return session


# Every request looks its session up: the statement is built once (models/compiled.py).
_BY_TOKEN_HASH = Statement("session_by_token", lambda: Session.select().where(Session.token_hash == Param("token_hash"))
                           .limit(1))


def open_session() -> tuple[Session, str]:
    """Issues a new session; returns it with the cookie value (never stored in clear)."""
    while True:
        value = secrets.token_hex(16)
        try:
            return Session.create(token_hash=hash_token(value)), value
        except pw.IntegrityError:  # a 128-bit collision: draw again
            continue


def rotate(session: Session) -> str:
    """Gives the session a new cookie value; the old value stops resolving."""
    value = secrets.token_hex(16)
    Session.update(token_hash=hash_token(value)).where(Session.id == session.id).execute()
    return value
