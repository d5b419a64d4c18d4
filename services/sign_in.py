"""Sign-in links (spec 2.3): minting, mailing limits and redemption.

A token is 32 bytes from the operating system; only its SHA-256 is stored. It lives 15
minutes and is spent by ONE conditional UPDATE (still unspent and unexpired), so of any
number of simultaneous redemptions exactly one succeeds. Expired, spent and unknown tokens
fail the same way. The first redemption verifies the account: it settles the account's
referral code, credits the friend who invited it, records account_saved, and unbinds every
other session that bound itself to the address while it was unverified (an attacker who
saved a victim's address first loses it). The redeeming session's cookie is rotated.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from models.account import Account, SignInToken
from models.clock import utcnow
from models.db import transaction
from models.session import Session
from services import milestones, referrals
from services.ownership import adopt
from services.sessions import rotate
from services.tokens import hash_token

TOKEN_MINUTES = 15
MAILS_PER_HOUR = 5  # per address, however often a link is asked for


def mint(*, account_id: int, requested_by: int | None, surface: str, return_to: str | None) -> str:
    """Mints a token; returns it (the only time it exists outside the mail)."""
    raw = secrets.token_urlsafe(32)
    now = utcnow()
    SignInToken.create(token_hash=hash_token(raw), account=account_id, requested_by=requested_by, surface=surface,
                       return_to=return_to, created_at=now, expires_at=now + timedelta(minutes=TOKEN_MINUTES))
    return raw


def mark_mailed(raw: str) -> None:
    SignInToken.update(mailed_at=utcnow()).where(SignInToken.token_hash == hash_token(raw)).execute()


def mails_in_last_hour(account_id: int) -> int:
    since = utcnow() - timedelta(hours=1)
    return SignInToken.select().where(SignInToken.account == account_id, SignInToken.mailed_at >= since).count()


def peek(raw: str) -> bool:
    """Whether a token would redeem now, without spending it (HEAD requests)."""
    return SignInToken.select().where(SignInToken.token_hash == hash_token(raw), SignInToken.spent_at.is_null(),
                                      SignInToken.expires_at > utcnow()).exists()


@dataclass
class Redeemed:
    account: Account
    cookie_value: str  # the redeeming session's new cookie value
    return_to: str | None
    first_time: bool


def redeem(raw: str, *, session_id: int) -> Redeemed | None:
    """Spends the token and signs the session in; None for an expired, spent or unknown token."""
    if not raw or len(raw) > 200:
        return None
    now = utcnow()
    with transaction():
        spent = (SignInToken.update(spent_at=now, spent_by=session_id)
                 .where(SignInToken.token_hash == hash_token(raw), SignInToken.spent_at.is_null(),
                        SignInToken.expires_at > now)
                 .execute())
        if spent != 1:
            return None
        token = SignInToken.get(SignInToken.token_hash == hash_token(raw))
        first_time = (Account.update(verified=True, verified_at=now)
                      .where(Account.id == token.account_id, Account.verified == False)  # noqa: E712
                      .execute()) == 1
        if first_time:
            _first_verification(token.account_id, session_id, token.requested_by_id)
        Session.update(account_id=token.account_id, bound_at=now).where(Session.id == session_id).execute()
        adopt(session_id, token.account_id)
        if token.requested_by_id and token.requested_by_id != session_id and token.surface == SignInToken.PRODUCT:
            # A guest who asked for the link on the product surface: what it made is upgraded too.
            adopt(token.requested_by_id, token.account_id)
        cookie_value = rotate(Session.get_by_id(session_id))
        account = Account.get_by_id(token.account_id)
    return Redeemed(account=account, cookie_value=cookie_value, return_to=token.return_to, first_time=first_time)


def _first_verification(account_id: int, session_id: int, requested_by: int | None) -> None:
    # Sessions that bound themselves while the address was unproven lose it (pre-hijacking).
    Session.update(account_id=None, bound_at=None).where(Session.account_id == account_id,
                                                         Session.id != session_id).execute()
    referrals.settle_for_account(account_id)
    arrived = [s.arrived_with_code for s in Session.select(Session.arrived_with_code)
               .where(Session.id.in_([sid for sid in (session_id, requested_by) if sid]))
               if s.arrived_with_code]
    if arrived and referrals.credit_friend(friend_account_id=account_id, arrived_with_code=arrived[0]):
        # A friend who reached the dashboard before signing in has already used the product.
        if any(milestones.reached(milestones.REACHED_DASHBOARD, session_id=sid) for sid in (session_id, requested_by) if sid):
            referrals.qualify(account_id)
    milestones.record(milestones.ACCOUNT_SAVED, account_id=account_id)
