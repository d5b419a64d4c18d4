"""The sign-in mail job: for a known address, mint a token and mail the link."""
from config import get_settings
from integrations.locks import get_locks, holding
from integrations.mail import MailRejected, MailUnavailable, Message, get_mailer
from integrations.mail.render import render
from jobs.runner import TransientError, job_actor
from models.account import Account, SignInToken
from services.accounts import SIGN_IN_MAIL
from services.sign_in import MAILS_PER_HOUR, TOKEN_MINUTES, mails_in_last_hour, mark_mailed, mint

LINK_PATHS = {SignInToken.ENGINE: "/login", SignInToken.PRODUCT: "/api/auth/callback"}


@job_actor(SIGN_IN_MAIL, lease_seconds=60, retry_delays=(5, 30, 120))
def sign_in_mail(ctx):
    """Mails a sign-in link if an account has the address (nothing for an unknown one).
    The result never holds the token: job rows are readable by the API."""
    payload = ctx.payload
    account = Account.get_or_none(Account.email == payload["email"])
    if account is None:
        return {"sent": False, "why": "no_account"}
    settings = get_settings()
    # Jobs for one address may run side by side (one per requesting session), so counting
    # and minting happen under a per-address lock to keep the hourly bound exact.
    with holding(get_locks(settings.redis_url), f"sign-in-mail:{account.id}", 60, wait_seconds=10) as held:
        if not held:
            raise TransientError("another link for this address is being minted")
        if mails_in_last_hour(account.id) >= MAILS_PER_HOUR:
            return {"sent": False, "why": "hourly_limit"}
        with ctx.fenced():  # a run overtaken by a newer attempt mints nothing
            token = mint(account_id=account.id, requested_by=payload.get("session_id"), surface=payload["surface"],
                         return_to=payload.get("return_to"))
        if not _mail(settings, account, token, payload["surface"]):
            return {"sent": False, "why": "rejected"}
    return {"sent": True}


def _mail(settings, account, token, surface) -> bool:
    """Mails the link; False when the server refuses the address for good (a 5xx: trying
    again would not help, and the unsent token simply expires)."""
    link = f"{settings.base_url}{LINK_PATHS[surface]}?token={token}"
    subject, text, html = render("sign_in", link=link, minutes=TOKEN_MINUTES, email=account.email)
    try:
        get_mailer(settings).send(Message(to=account.email, subject=subject, text=text, html=html))
    except MailUnavailable:
        raise TransientError("mailer unavailable") from None
    except MailRejected:
        return False
    mark_mailed(token)
    return True
