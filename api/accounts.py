"""Accounts and sign-in: spec 2.1-2.3, 4.2 and 5; the coded referral link."""
from __future__ import annotations

import re

from flask import Blueprint, Response, request
from marshmallow import Schema, fields, validate

from api.contract import EMPTY, endpoint
from api.errors import ApiError
from api.session import current_session, reissue_cookie, replace_cookie
from config import get_settings
from integrations.mail import get_mailer
from jobs.send import send_all
from models.account import SignInToken
from models.db import transaction
from services import referrals, sign_in
from services.accounts import account_of, describe, normalize_email, save_account, sign_in_mail_job, sign_out
from services.errors import Refused
from services.plans import effective_tier, tier_label

bp = Blueprint("accounts", __name__)

def _login_failure(*, reason: str) -> str:
    """Where a failed redemption sends the browser (spec 4.2); the page reads the reason."""
    return f"/#login?e={reason}"


SUCCESS_LOCATION = "/?view=home#/app/home"
FAILURE_LOCATION = _login_failure(reason="invalid_link")
LINK_EXPLANATION = ("If an account exists for that address, a sign-in link is on its way. "
                    "The link works once, for 15 minutes.")

DECISIONS = [
    "POST /api/account: a missing or non-string `email` answers 400 `invalid_email`; a string that cannot be an "
    "address answers 400 `account_required`. Addresses are compared lower-cased. `source` is kept from the first "
    "save (default `web`) and always read back from the stored account.",
    "POST /api/account from a session already signed in to a different account answers 409 "
    "`bound_to_another_account` (its claims cannot be adopted twice); sign out first.",
    "POST /api/account answers also carry `email`, `verified` and `email_sent`. `fix_token` is accepted; the Fix "
    "run it names is adopted once Fix runs exist.",
    "Sign-in mail is sent by a job for known and unknown addresses alike; the job sends nothing for an unknown "
    "address, and at most 5 links an hour to one address (further requests answer the same and send nothing). "
    "`email_sent` says whether the deployment's mailer accepts messages now.",
    "Anonymous sessions are never asked to prove anything: binding is immediate, and the first redemption of a "
    "link verifies the account, rotates the redeeming session's cookie, and unbinds every other session bound to "
    "the address while it was unverified.",
    "HEAD /login?token=… never spends the token; its Location says what a GET would do.",
    "POST /api/auth/request-link: a JSON object with an `email` string answers {ok: true} whatever the address; "
    "`returnTo` is kept only when it is a path on this service (starts with one `/`, no scheme or host), else "
    "dropped. GET /api/auth/callback?token=… redeems like /login and answers 303 to the kept `returnTo` (default "
    "`/`), or to /#login?e=invalid_link.",
    "The coded referral link is {BASE_URL}/r/{code}: it remembers the code on the visitor's session and answers "
    "303 to /. A friend is credited when their account is verified; the referral counts once they reach the "
    "dashboard.",
]


class EmailField(fields.String):
    """An email address as sent: a string (its shape is checked by the service)."""


class AccountAnswer(Schema):
    status = fields.String(required=True)
    account = fields.String(allow_none=True, required=True)
    verified = fields.Boolean()
    tier = fields.String()
    tier_label = fields.String()
    source = fields.String()


class SaveBody(Schema):
    email = EmailField(required=True, validate=validate.Length(max=1000), metadata={"reason": "invalid_email"})
    source = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=120))
    fix_token = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200))


class SavedAnswer(Schema):
    status = fields.String(required=True)
    email = fields.String(required=True)
    verified = fields.Boolean(required=True)
    tier = fields.String(required=True)
    tier_label = fields.String(required=True)
    adopted_claims = fields.List(fields.String(), required=True)
    source = fields.String(required=True)
    email_sent = fields.Boolean(required=True)


class EmailBody(Schema):
    email = EmailField(required=True, validate=validate.Length(max=1000), metadata={"reason": "invalid_email"})


class LinkRequestedAnswer(Schema):
    status = fields.String(required=True)
    email_sent = fields.Boolean(required=True)
    explanation = fields.String(required=True)


class RequestLinkBody(Schema):
    email = EmailField(required=True, validate=validate.Length(max=1000), metadata={"reason": "invalid_email"})
    returnTo = fields.String(load_default=None, allow_none=True)


class OkAnswer(Schema):
    ok = fields.Boolean(required=True)


class StatusAnswer(Schema):
    status = fields.String(required=True)


class TokenQuery(Schema):
    token = fields.String(load_default="")


def _mailer_accepting() -> bool:
    return get_mailer(get_settings()).accepting()


def _request_sign_in_mail(*, email: str, surface: str, return_to: str | None) -> None:
    """Queues the sign-in mail for this session (the job decides whether anything is sent)."""
    with transaction():
        job = sign_in_mail_job(email=email, session_id=current_session().id, surface=surface, return_to=return_to)
    send_all([job])


@bp.get("/api/account")
@endpoint(answers={200: AccountAnswer}, tag="accounts")
def get_account():
    """Says which account (email address) this session is signed in to, or null."""
    return {"status": "ok", **describe(account_of(current_session()))}


@bp.post("/api/account")
@endpoint(body=SaveBody, answers={200: SavedAnswer}, refuses={400: ["account_required"], 409: ["account_required",
          "bound_to_another_account"]}, tag="accounts")
def save(body):
    """Saves the session to an email address and sends a sign-in link to it."""
    email = normalize_email(body["email"], reason="account_required")
    outcome = save_account(session_id=current_session().id, email=email, source=body["source"])
    send_all([outcome.mail_job])
    email_sent = _mailer_accepting()
    if outcome.already_verified:
        # The same code answers 400 for a malformed address on this route, so the status is explicit here.
        raise ApiError(409, "account_required", "That address belongs to a verified account, so it was not saved to "
                       "this session; we sent it a sign-in link instead.",
                       fields={"verified": True, "email_sent": email_sent})
    tier = effective_tier(outcome.account)
    return {"status": "account_saved", "email": outcome.account.email, "verified": outcome.account.verified,
            "tier": tier, "tier_label": tier_label(tier), "adopted_claims": outcome.adopted.get("claims", []),
            "source": outcome.account.source, "email_sent": email_sent}


@bp.post("/api/login/request")
@endpoint(body=EmailBody, answers={200: LinkRequestedAnswer}, session=True, tag="accounts")
def login_request(body):
    """Mails a sign-in link to the address if it has an account; the answer is the same either way."""
    email = normalize_email(body["email"], reason="invalid_email")
    _request_sign_in_mail(email=email, surface=SignInToken.ENGINE, return_to=None)
    return {"status": "link_requested", "email_sent": _mailer_accepting(), "explanation": LINK_EXPLANATION}


def _redirect(location: str) -> Response:
    return Response(status=303, headers={"Location": location})


def _redeem_and_redirect(token: str, *, success: str | None) -> Response:
    session = current_session()
    reissue_cookie()
    if request.method == "HEAD":
        return _redirect((success or "/") if sign_in.peek(token) else FAILURE_LOCATION)
    redeemed = sign_in.redeem(token, session_id=session.id)
    if redeemed is None:
        return _redirect(FAILURE_LOCATION)
    replace_cookie(redeemed.cookie_value)
    return _redirect(success or redeemed.return_to or "/")


@bp.get("/login")
@endpoint(query=TokenQuery, answers={303: EMPTY}, tag="accounts")
def login(query):
    """Redeems a sign-in link from an inbox and redirects to the app (303 in every case)."""
    return _redeem_and_redirect(query["token"], success=SUCCESS_LOCATION)


@bp.post("/api/logout")
@endpoint(answers={200: StatusAnswer}, tag="accounts")
def logout():
    """Signs this cookie out of its account; the account and everything it owns stay."""
    sign_out(session_id=current_session().id)
    return {"status": "signed_out"}


_SAFE_PATH = re.compile(r"/(?![/\\])[^\s\\]*")


def safe_return_to(value: str | None) -> str | None:
    """`value` when it is a path on this service, else None (no open redirects)."""
    if not value or len(value) > 500 or not _SAFE_PATH.fullmatch(value) or any(ord(c) < 32 for c in value):
        return None
    return value


@bp.post("/api/auth/request-link")
@endpoint(body=RequestLinkBody, answers={200: OkAnswer}, tag="accounts")
def request_link(body):
    """Product surface: mails a sign-in link if the address has an account; always {ok: true}."""
    try:
        email = normalize_email(body["email"], reason="invalid_email")
    except Refused:
        return {"ok": True}  # the product surface says the same whatever was typed
    _request_sign_in_mail(email=email, surface=SignInToken.PRODUCT, return_to=safe_return_to(body["returnTo"]))
    return {"ok": True}


@bp.get("/api/auth/callback")
@endpoint(query=TokenQuery, answers={303: EMPTY}, tag="accounts")
def auth_callback(query):
    """Product surface: redeems a sign-in link and redirects to where the sign-in started."""
    return _redeem_and_redirect(query["token"], success=None)


@bp.get("/r/<code>")
@endpoint(answers={303: EMPTY}, tag="accounts")
def coded_link(code):
    """Opens a founder's coded referral link: remembers the code and goes to the app."""
    if len(code) <= 32:
        referrals.note_arrival(current_session(), code)
    return _redirect("/")
