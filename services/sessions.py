"""Browser sessions behind the ff_session cookie."""
from __future__ import annotations

import re
import secrets

import peewee as pw

from models.session import Session
from services.tokens import hash_token

# secrets.token_hex(16): 32 lowercase hexadecimal characters, 128 random bits.
_COOKIE_SHAPE = re.compile(r"[0-9a-f]{32}")


def find_session(cookie_value: str | None) -> Session | None:
    """The session a cookie value was issued for, or None for a value the server never issued."""
    if not cookie_value or not _COOKIE_SHAPE.fullmatch(cookie_value):
        return None
    return Session.get_or_none(Session.token_hash == hash_token(cookie_value))


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
