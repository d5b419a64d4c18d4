"""Accounts: saving an email address to a session, and what an account reads as.

Saving an address needs no proof (spec 5.3-5.5) and proves nothing: the session shows the
address back, but until a sign-in link is redeemed it keeps acting for itself alone, so
any number of sessions may name one unverified address and none sees another's work
(account pre-hijacking). Redeeming a link (services/sign_in.py) signs the session in:
everything it did becomes the account's (the adopters of services/ownership.py), so a
founder who signs in elsewhere later finds it again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import peewee as pw
from email_validator import EmailNotValidError, validate_email

from config import get_settings
from integrations.mail import get_mailer
from models.account import Account, SignInToken
from models.clock import utcnow
from models.db import transaction
from models.job import Job
from models.session import Session
from services.errors import Refused
from services.jobs import create_job
from services.ownership import adopt
from services.plans import effective_tier, tier_label

SIGN_IN_MAIL = "sign_in_mail"  # the job kind that mints a token and mails the link
ENGINE = SignInToken.ENGINE  # a link redeemed at GET /login
PRODUCT = SignInToken.PRODUCT  # a link redeemed at GET /api/auth/callback


def normalize_email(raw: str, *, reason: str) -> str:
    """The address lower-cased (A@x.com and a@x.com are one account), if it has the shape
    of an address; otherwise Refused(reason). Deliverability is never checked."""
    try:
        checked = validate_email(raw.strip(), check_deliverability=False)
    except EmailNotValidError:
        raise Refused(reason) from None
    address = checked.normalized.lower()
    if len(address) > 320:
        raise Refused(reason)
    return address


def mask_email(address: str) -> str:
    """The address as a screen names it to someone who may not own it: enough to tell it from
    a look-alike (the first two characters of the name and of the domain's first label, the
    whole top-level domain, and every hidden character as a dot of its own, so the length
    shows), too little to learn it. At least one character of a part is always hidden."""
    local, _, domain = address.partition("@")
    *labels, top = domain.split(".")

    def shown(part: str, keep: int) -> str:
        kept = part[:max(1, min(keep, len(part) - 1))]
        return kept + "•" * (len(part) - len(kept))

    if not labels:  # a dotless domain: only its first letters show
        return f"{shown(local, 2)}@{shown(top, 2)}"
    masked = [shown(labels[0], 2)] + ["•" * len(label) for label in labels[1:]] + [top]
    return f"{shown(local, 2)}@{'.'.join(masked)}"


def account_of(session: Session) -> Account | None:
    """The account the session is signed in to, else the address it saved (unverified)."""
    account_id = session.account_id or session.saved_account_id
    return Account.get_or_none(Account.id == account_id) if account_id else None


def describe(account: Account | None) -> dict:
    """The account fields every account answer carries."""
    if account is None:
        return {"account": None}
    tier = effective_tier(account)
    return {"account": account.email, "verified": account.verified, "tier": tier, "tier_label": tier_label(tier),
            "source": account.source}


@dataclass
class SaveOutcome:
    account: Account
    already_verified: bool  # the address belongs to a verified account this session is not signed in to
    adopted: dict = field(default_factory=dict)
    mail_job: Job | None = None


def sign_in_mail_job(*, email: str, session_id: int, surface: str, return_to: str | None = None,
                     guest_id: str | None = None) -> Job | None:
    """Creates (in the caller's transaction) the job that mails a sign-in link, for known
    and unknown addresses alike; the job finds no account for an unknown one and sends
    nothing. Returns the job to send after commit, or None when one is already pending."""
    # One pending mail per address, session and surface: repeated clicks collapse, while a
    # guest asking from another browser still gets its own link (the hourly bound is the job's).
    job, created = create_job(kind=SIGN_IN_MAIL, subject=f"mail:{email}:{session_id}:{surface}",
                              payload={"email": email, "session_id": session_id, "surface": surface,
                                       "return_to": return_to, "guest_id": guest_id}, max_attempts=4)
    return job if created else None


def request_sign_in_mail(*, email: str, session_id: int, surface: str, return_to: str | None = None,
                         guest_id: str | None = None) -> Job | None:
    """Queues the sign-in mail for a well-formed address (the job decides whether anything
    is sent); returns the job to send after commit."""
    with transaction():
        return sign_in_mail_job(email=email, session_id=session_id, surface=surface, return_to=return_to,
                                guest_id=guest_id)


def request_product_link(*, raw_email: str, session_id: int, return_to: str | None,
                         guest_id: str | None = None) -> Job | None:
    """The product surface's link request: whatever was typed, the answer is the same, so a
    string that cannot be an address is dropped here without a word."""
    try:
        email = normalize_email(raw_email, reason="invalid_email")
    except Refused:
        return None
    return request_sign_in_mail(email=email, session_id=session_id, surface=PRODUCT, return_to=return_to,
                                guest_id=guest_id)


def mailer_accepting() -> bool:
    """Whether the deployment's mailer accepts messages now (`email_sent`)."""
    return get_mailer(get_settings()).accepting()


def save_account(*, session_id: int, email: str, source: str | None) -> SaveOutcome:
    """Saves `email` to the session (its account created if new) and mails a link to it. A
    verified account is joined only by redeeming that link: a session not signed in to it
    is only sent one. Until the address is proven the session acts for itself alone."""
    with transaction():
        session = Session.get_by_id(session_id)
        account = Account.get_or_none(Account.email == email)
        if account is not None and account.verified and session.account_id != account.id:
            job = sign_in_mail_job(email=email, session_id=session_id, surface="engine")
            return SaveOutcome(account=account, already_verified=True, mail_job=job)
        if session.account_id is not None and (account is None or session.account_id != account.id):
            # Adopting this session's claims into a second account would take them from the first.
            raise Refused("bound_to_another_account")
        adopted: dict = {}
        if account is not None and session.account_id == account.id:
            adopted = adopt(session_id, account.id)  # signed in already: anything left over joins it
        else:
            if account is None:
                account = _create_account(email=email, source=source)
            # Saved, not proven: nothing is adopted, and another address saved before is replaced.
            Session.update(saved_account_id=account.id, bound_at=utcnow()).where(Session.id == session_id).execute()
        job = sign_in_mail_job(email=email, session_id=session_id, surface="engine")
    return SaveOutcome(account=Account.get_by_id(account.id), already_verified=False, adopted=adopted, mail_job=job)


def saved_answer(outcome: SaveOutcome, *, email_sent: bool) -> dict:
    """The answer to POST /api/account; an address of a verified account this session is
    not signed in to is refused (it was only sent a link)."""
    if outcome.already_verified:
        raise Refused("account_required", "That address belongs to a verified account, so it was not saved to "
                      "this session; we sent it a sign-in link instead.", verified=True, email_sent=email_sent)
    tier = effective_tier(outcome.account)
    return {"status": "account_saved", "email": outcome.account.email, "verified": outcome.account.verified,
            "tier": tier, "tier_label": tier_label(tier), "adopted_claims": outcome.adopted.get("claims", []),
            "source": outcome.account.source, "email_sent": email_sent}


def _create_account(*, email: str, source: str | None) -> Account:
    try:
        with transaction():  # a savepoint: two sessions may save the same new address at once
            return Account.create(email=email, source=(source or "web")[:120], created_at=utcnow())
    except pw.IntegrityError:
        return Account.get(Account.email == email)


def sign_out(*, session_id: int) -> None:
    """Unbinds the cookie from its account (or the address it saved); the account and
    everything it owns stay."""
    Session.update(account_id=None, saved_account_id=None, bound_at=None).where(Session.id == session_id).execute()
