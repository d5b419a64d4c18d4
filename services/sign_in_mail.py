"""The sign-in mail (spec 2.3): for a known address, mint a token and mail the link.

The sign_in_mail job runs it for known and unknown addresses alike (so answers and timing
do not tell them apart); an unknown address gets nothing. One address gets at most
MAILS_PER_HOUR mails an hour, however many sessions ask at once.
"""
from __future__ import annotations

from config import get_settings
from integrations.locks import get_locks, holding
from models.account import Account, SignInToken
from services.errors import TransientError
from services.mailing import send_mail
from services.sign_in import MAILS_PER_HOUR, TOKEN_MINUTES, mails_in_last_hour, mark_mailed, mint

LINK_PATHS = {SignInToken.ENGINE: "/login", SignInToken.PRODUCT: "/api/auth/callback"}


def mail_sign_in_link(*, email: str, session_id: int | None, surface: str, return_to: str | None, fenced,
                      guest_id: str | None = None) -> dict:
    """Mails a sign-in link if an account has the address; returns what happened, never
    the token (job rows are readable by the API). `fenced()` opens the transaction the
    token is minted in: the job passes its own, so a run overtaken by a newer attempt mints
    nothing. Raises TransientError when the mailer (or the address's lock) is busy."""
    account = Account.get_or_none(Account.email == email)
    if account is None:
        return {"sent": False, "why": "no_account"}
    settings = get_settings()
    # Mails for one address may be sent side by side (one job per requesting session), so
    # counting and minting happen under a per-address lock to keep the hourly bound exact.
    with holding(get_locks(settings.redis_url), f"sign-in-mail:{account.id}", 60, wait_seconds=10) as held:
        if not held:
            raise TransientError("another link for this address is being minted")
        if mails_in_last_hour(account.id) >= MAILS_PER_HOUR:
            return {"sent": False, "why": "hourly_limit"}
        with fenced():
            token = mint(account_id=account.id, requested_by=session_id, surface=surface, return_to=return_to,
                         guest_id=guest_id)
        if not _mail(settings, account, token, surface):
            return {"sent": False, "why": "rejected"}
    return {"sent": True}


def _mail(settings, account: Account, token: str, surface: str) -> bool:
    """Mails the link; False when the server refuses the address for good (a 5xx: trying
    again would not help, and the unsent token simply expires)."""
    link = f"{settings.base_url}{LINK_PATHS[surface]}?token={token}"
    if not send_mail(account.email, "sign_in", settings=settings, link=link, minutes=TOKEN_MINUTES,
                     email=account.email):
        return False
    mark_mailed(token)
    return True
