"""Sign-in links (spec 2.3): minting, mailing limits, redemption and its confirmation.

A token is 32 bytes from the operating system; only its SHA-256 is stored. It lives 15
minutes and is spent by ONE conditional UPDATE (still unspent and unexpired), so of any
number of simultaneous redemptions exactly one succeeds. Expired, spent and unknown tokens
fail the same way. The first redemption verifies the account: it settles the account's
referral code, credits the friend who invited it, records account_saved, and unbinds every
other session that saved the address while it was unverified (an attacker who saved a
victim's address first loses it, and never saw anything of the victim's: an unproven
address gives no access, services/accounts.py). The redeeming session's cookie is rotated.

Login CSRF: an attacker can ask for a link to their own address and get a victim to open
it. A link opened in the browser that asked for it, or in an empty browser, signs in at
once; opened in another browser that has work of its own or another account, it switches
and merges nothing: it is held as a SignInConfirmation bound to that browser, and only the
founder's same-origin POST from the app's confirmation screen, naming its code, completes
it (one use, CONFIRM_MINUTES). "Work" is whatever a sign-in would move: every adopter
(services/ownership.py) says what of its kind the browser holds, so a kind of work added
later is covered the day its adopter is registered.

Planting: anyone can ask for a link to a victim's address. A link therefore moves only the
journey of the browser that opens it; the browser that asked for it moves nothing (its
work joins the account when a link is opened in it), and an account's own business
settings and payout are never replaced by a sign-in (services/business.py).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from models.account import Account, SignInConfirmation, SignInToken
from models.clock import utcnow
from models.db import transaction
from models.session import Session
from services import milestones, referrals
from services.ownership import HeldWork, adopt, held_work, kept_by_account
from services.sessions import rotate
from services.tokens import hash_token

TOKEN_MINUTES = 15
MAILS_PER_HOUR = 5  # per address, however often a link is asked for
CONFIRM_MINUTES = 10  # how long a held link waits for the founder's confirmation (never past the token's life)


def mint(*, account_id: int, requested_by: int | None, surface: str, return_to: str | None,
         guest_id: str | None = None) -> str:
    """Mints a token; returns it (the only time it exists outside the mail)."""
    raw = secrets.token_urlsafe(32)
    now = utcnow()
    SignInToken.create(token_hash=hash_token(raw), account=account_id, requested_by=requested_by, surface=surface,
                       return_to=return_to, guest_id=guest_id, created_at=now, expires_at=now + timedelta(minutes=TOKEN_MINUTES))
    return raw


def mark_mailed(raw: str) -> None:
    SignInToken.update(mailed_at=utcnow()).where(SignInToken.token_hash == hash_token(raw)).execute()


def mails_in_last_hour(account_id: int) -> int:
    since = utcnow() - timedelta(hours=1)
    return SignInToken.select().where(SignInToken.account == account_id, SignInToken.mailed_at >= since).count()


def _live(raw: str, now: datetime):
    """The condition selecting the unspent, unexpired token `raw` names."""
    return (SignInToken.token_hash == hash_token(raw), SignInToken.spent_at.is_null(), SignInToken.expires_at > now)


def _well_formed(raw: str) -> bool:
    return bool(raw) and len(raw) <= 200


def peek(raw: str, *, session_id: int) -> str | None:
    """What opening the link would do now, without spending or holding anything (HEAD
    requests): "sign_in", "confirm", or None for an expired, spent or unknown token."""
    if not _well_formed(raw):
        return None
    token = SignInToken.get_or_none(*_live(raw, utcnow()))
    if token is None:
        return None
    return "confirm" if _needs_confirmation(Session.get_by_id(session_id), token) else "sign_in"


@dataclass
class Redeemed:
    account: Account
    cookie_value: str  # the redeeming session's new cookie value
    return_to: str | None
    first_time: bool
    surface: str


@dataclass
class Held:
    """A link held for the founder's confirmation; `code` names it on the confirmation screen."""

    code: str


def open_link(raw: str, *, session_id: int) -> Redeemed | Held | None:
    """Signs the session in with the token, or holds the link for confirmation when it was
    asked for in another browser and this one has work or an account of its own; None for
    an expired, spent or unknown token."""
    if not _well_formed(raw):
        return None
    now = utcnow()
    with transaction():
        token = SignInToken.get_or_none(*_live(raw, now))
        if token is None:
            return None
        if _needs_confirmation(Session.get_by_id(session_id), token):
            code = secrets.token_urlsafe(24)
            SignInConfirmation.create(code_hash=hash_token(code), token=token.id, session=session_id, created_at=now,
                                      expires_at=min(token.expires_at, now + timedelta(minutes=CONFIRM_MINUTES)))
            return Held(code=code)
        return _redeem(token.id, session_id=session_id, now=now)


def _needs_confirmation(session: Session, token: SignInToken) -> bool:
    """Whether opening this link in this session would switch an account or carry off work
    the session's own founder did not ask to move: it was asked for elsewhere, and this
    session is signed in to (or saved) another address or has work of its own."""
    if token.requested_by_id == session.id:
        return False
    if session.account_id is not None:
        return session.account_id != token.account_id
    if session.saved_account_id not in (None, token.account_id):
        return True
    return bool(held_work(session.id))


@dataclass(frozen=True)
class Pending:
    """A held link, as its confirmation screen shows it."""

    account_email: str  # the account the link signs in to
    signed_in_email: str | None  # the account this session is signed in to now, if another
    saved_email: str | None  # the unproven address this session saved, if another
    work: list[HeldWork]  # what would move into the account, kind by kind (none when signed in elsewhere)
    kept: list[str]  # what the account keeps as it is instead of taking this browser's
    expires_at: datetime


def _pending_confirmation(code: str, session_id: int, now: datetime):
    return (SignInConfirmation.code_hash == hash_token(code), SignInConfirmation.session == session_id,
            SignInConfirmation.spent_at.is_null(), SignInConfirmation.expires_at > now)


def pending(code: str, *, session_id: int) -> Pending | None:
    """The held link `code` names, if it waits for this session's confirmation."""
    if not _well_formed(code):
        return None
    row = SignInConfirmation.get_or_none(*_pending_confirmation(code, session_id, utcnow()))
    if row is None:
        return None
    session = Session.get_by_id(session_id)
    target = SignInToken.get_by_id(row.token_id).account_id

    def email_of(account_id):
        return Account.get_by_id(account_id).email if account_id not in (None, target) else None

    # A session signed in to another account has no anonymous work: what it did is that account's and stays there.
    anonymous = session.account_id is None
    return Pending(account_email=Account.get_by_id(target).email, signed_in_email=email_of(session.account_id),
                   saved_email=email_of(session.saved_account_id),
                   work=held_work(session_id) if anonymous else [],
                   kept=kept_by_account(session_id, target) if anonymous else [],
                   expires_at=row.expires_at)


def confirm(code: str, *, session_id: int) -> Redeemed | None:
    """Completes a held link for the session it was opened in: the confirmation and the
    token are each spent by one conditional UPDATE; None when either is no longer live."""
    if not _well_formed(code):
        return None
    now = utcnow()
    with transaction():
        taken = (SignInConfirmation.update(spent_at=now)
                 .where(*_pending_confirmation(code, session_id, now)).execute())
        if taken != 1:
            return None
        token_id = SignInConfirmation.get(SignInConfirmation.code_hash == hash_token(code)).token_id
        return _redeem(token_id, session_id=session_id, now=now)


def _redeem(token_id: int, *, session_id: int, now: datetime) -> Redeemed | None:
    """Spends the token (still unspent and unexpired: one conditional UPDATE) and signs the
    session in, inside the caller's transaction."""
    spent = (SignInToken.update(spent_at=now, spent_by=session_id)
             .where(SignInToken.id == token_id, SignInToken.spent_at.is_null(), SignInToken.expires_at > now)
             .execute())
    if spent != 1:
        return None
    token = SignInToken.get_by_id(token_id)
    first_time = (Account.update(verified=True, verified_at=now)
                  .where(Account.id == token.account_id, Account.verified == False)  # noqa: E712
                  .execute()) == 1
    if first_time:
        _first_verification(token.account_id, session_id, token.requested_by_id)
    Session.update(account_id=token.account_id, saved_account_id=None, bound_at=now).where(Session.id == session_id).execute()
    # Only the journey of the browser that opened the link moves (its guest pages among it,
    # spec 4.2). The browser that asked for the link may be anyone's (a link can be asked for
    # any address), so its work, and the pages of the guest id it passed, join the account
    # only when a link is opened in it.
    adopt(session_id, token.account_id)
    cookie_value = rotate(Session.get_by_id(session_id))
    account = Account.get_by_id(token.account_id)
    return Redeemed(account=account, cookie_value=cookie_value, return_to=token.return_to, first_time=first_time,
                    surface=token.surface)


def _first_verification(account_id: int, session_id: int, requested_by: int | None) -> None:
    # Sessions that saved the address while it was unproven lose it (pre-hijacking); what
    # they did was never the account's, so they keep it as anonymous sessions.
    Session.update(account_id=None, saved_account_id=None, bound_at=None).where(
        (Session.account_id == account_id) | (Session.saved_account_id == account_id), Session.id != session_id).execute()
    referrals.settle_for_account(account_id)
    arrived = [s.arrived_with_code for s in Session.select(Session.arrived_with_code)
               .where(Session.id.in_([sid for sid in (session_id, requested_by) if sid]))
               if s.arrived_with_code]
    if arrived and referrals.credit_friend(friend_account_id=account_id, arrived_with_code=arrived[0]):
        # A friend who reached the dashboard before signing in has already used the product.
        if any(milestones.reached(milestones.REACHED_DASHBOARD, session_id=sid) for sid in (session_id, requested_by) if sid):
            referrals.qualify(account_id)
    milestones.record(milestones.ACCOUNT_SAVED, account_id=account_id)
