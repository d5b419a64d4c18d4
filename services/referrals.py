"""Referral codes, the friends who join through them, and the meter's referral multiplier.

A code is made for the session that shares (an anonymous founder can share too) and is
the account's once the session is bound. A visitor who arrives through a coded link
carries the code on their session; when that visitor's account is verified (first
sign-in) the referral is recorded, and it qualifies once the friend reaches the dashboard.
"""
from __future__ import annotations

import secrets

import peewee as pw

from models.account import Referral, ReferralCode
from models.clock import utcnow
from models.db import db
from models.session import Session
from services.ownership import adopter

# Spec 8.3: additive after the first, capped at 4.0 for five or more.
REFERRAL_MULTIPLIERS = (1.0, 2.0, 2.5, 3.0, 3.5, 4.0)
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no look-alikes (l/1, o/0, i)


def _new_code() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(10))


def code_for(session: Session) -> str:
    """The code to put in this session's coded link: its account's oldest code when it is
    signed in and has one, else the session's own (made now if needed)."""
    if session.account_id is not None:
        owned = ReferralCode.select().where(ReferralCode.account == session.account_id).order_by(ReferralCode.created_at).first()
        if owned is not None:
            return owned.code
    existing = ReferralCode.get_or_none(ReferralCode.session == session.id)
    if existing is not None:
        return existing.code
    return _create(session_id=session.id, account_id=session.account_id)


def settle_for_account(account_id: int) -> str:
    """Gives an account its durable code (first sign-in); returns it."""
    owned = ReferralCode.select().where(ReferralCode.account == account_id).order_by(ReferralCode.created_at).first()
    return owned.code if owned is not None else _create(session_id=None, account_id=account_id)


def _create(*, session_id, account_id) -> str:
    while True:
        code = _new_code()
        try:
            with db.atomic():
                ReferralCode.create(code=code, session=session_id, account=account_id, created_at=utcnow())
            return code
        except pw.IntegrityError:
            # Another request made this session's code first, or (rarely) the code exists.
            if session_id is not None:
                existing = ReferralCode.get_or_none(ReferralCode.session == session_id)
                if existing is not None:
                    return existing.code


def note_arrival(session: Session, code: str) -> bool:
    """Remembers that this visitor came through `code` (not their own); True if it was kept."""
    if len(code) > 32:  # longer than any code we issue: not worth a lookup
        return False
    found = ReferralCode.get_or_none(ReferralCode.code == code)
    if found is None or found.session_id == session.id:
        return False
    if session.account_id is not None and found.account_id == session.account_id:
        return False
    Session.update(arrived_with_code=code).where(Session.id == session.id).execute()
    return True


def credit_friend(*, friend_account_id: int, arrived_with_code: str | None) -> bool:
    """Records that a newly verified account joined through a code; True if recorded."""
    if not arrived_with_code:
        return False
    code = ReferralCode.get_or_none(ReferralCode.code == arrived_with_code)
    if code is None or code.account_id == friend_account_id:
        return False
    try:
        with db.atomic():
            Referral.create(code=code.code, friend=friend_account_id, joined_at=utcnow())
        return True
    except pw.IntegrityError:  # a friend is credited to one code only
        return False


def qualify(friend_account_id: int) -> bool:
    """The friend reached the dashboard: their referral now counts."""
    return (Referral.update(qualified_at=utcnow())
            .where(Referral.friend == friend_account_id, Referral.qualified_at.is_null())
            .execute()) == 1


def qualified_count(account_id: int) -> int:
    return (Referral.select().join(ReferralCode)
            .where(ReferralCode.account == account_id, Referral.qualified_at.is_null(False)).count())


def multiplier_for(count: int) -> float:
    return REFERRAL_MULTIPLIERS[min(count, len(REFERRAL_MULTIPLIERS) - 1)]


def _codes_held(session_id: int) -> list[str]:
    code = ReferralCode.get_or_none(ReferralCode.session == session_id, ReferralCode.account.is_null())
    if code is None:
        return []
    friends = Referral.select().where(Referral.code == code.code).count()
    if friends:
        return [f"your invite link and the {friends} friend{' it' if friends == 1 else 's it'} brought"]
    return ["your invite link"]


@adopter(kind="referrals", held=_codes_held)
def adopt_codes(session_id: int, account_id: int) -> dict:
    """A session's code, and the friends credited to it, become its account's."""
    ReferralCode.update(account=account_id).where(ReferralCode.session == session_id,
                                                  ReferralCode.account.is_null()).execute()
    return {}
