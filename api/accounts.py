"""Accounts and sign-in: spec 2.1-2.3, 4.2 and 5; the coded referral link."""
from __future__ import annotations

import re

from flask import Response, request
from marshmallow import Schema, fields, validate

from api.errors import ApiError
from api.routing import Blueprint
from api.session import current_session, reissue_cookie, replace_cookie
from jobs.send import send_all
from services import referrals, sign_in
from services.accounts import (ENGINE, account_of, describe, mailer_accepting, normalize_email,
                               request_product_link, request_sign_in_mail, save_account, saved_answer, sign_out)
from services.errors import Refused

bp = Blueprint("accounts", __name__, description="Accounts and sign-in links.")

def _login_failure(*, reason: str) -> str:
    """Where a failed redemption sends the browser (spec 4.2); the page reads the reason."""
    return f"/#login?e={reason}"


SUCCESS_LOCATION = "/?view=home#/app/home"
FAILURE_LOCATION = _login_failure(reason="invalid_link")
LINK_EXPLANATION = ("If an account exists for that address, a sign-in link is on its way. "
                    f"The link works once, for {sign_in.TOKEN_MINUTES} minutes.")

DECISIONS = [
    "POST /api/account: a missing or non-string `email` answers 400 `invalid_email`; a string that cannot be an "
    "address answers 400 `account_required`. Addresses are compared lower-cased. `source` is kept from the first "
    "save (default `web`) and always read back from the stored account.",
    "POST /api/account from a session already signed in to a different account answers 409 "
    "`bound_to_another_account` (its claims cannot be adopted twice); sign out first.",
    "POST /api/account answers also carry `email`, `verified` and `email_sent`. `fix_token` is accepted; the Fix "
    "run it names is adopted once Fix runs exist.",
    "Sign-in mail is sent by a job for known and unknown addresses alike; the job sends nothing for an unknown "
    f"address, and at most {sign_in.MAILS_PER_HOUR} links an hour to one address (further requests answer the "
    "same and send nothing). "
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
    """An email address: a string with the shape of one, lower-cased. A missing or non-string
    value answers the field's `reason`; a string that cannot be an address answers
    `malformed` (POST /api/account names that case account_required, spec 7.2)."""

    def __init__(self, *, malformed: str, **kwargs):
        super().__init__(**kwargs)
        self.malformed = malformed
        self.metadata = {**self.metadata, "also_refuses": [malformed]}  # documented beside `reason`

    def _deserialize(self, value, attr, data, **kwargs):
        raw = super()._deserialize(value, attr, data, **kwargs)
        try:
            return normalize_email(raw, reason=self.malformed)
        except Refused as refused:
            raise ApiError(400, refused.reason) from None


class AccountAnswer(Schema):
    status = fields.String(required=True)
    account = fields.String(allow_none=True, required=True)
    verified = fields.Boolean()
    tier = fields.String()
    tier_label = fields.String()
    source = fields.String()


class SaveBody(Schema):
    email = EmailField(required=True, malformed="account_required", validate=validate.Length(max=1000),
                       metadata={"reason": "invalid_email"})
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
    email = EmailField(required=True, malformed="invalid_email", validate=validate.Length(max=1000),
                       metadata={"reason": "invalid_email"})


class LinkRequestedAnswer(Schema):
    status = fields.String(required=True)
    email_sent = fields.Boolean(required=True)
    explanation = fields.String(required=True)


class RequestLinkBody(Schema):
    email = fields.String(required=True, validate=validate.Length(max=1000), metadata={"reason": "invalid_email"})
    returnTo = fields.String(load_default=None, allow_none=True)


class OkAnswer(Schema):
    ok = fields.Boolean(required=True)


class StatusAnswer(Schema):
    status = fields.String(required=True)


class TokenQuery(Schema):
    token = fields.String(load_default="")
    # A sign-in token is only ever hashed, and any bad link must redirect like the others (spec 4.2).
    ACCEPTS_NUL = True


@bp.get("/api/account")
@bp.declare(changes_state=False)
@bp.response(200, AccountAnswer)
def get_account():
    """Says which account (email address) this session is signed in to, or null."""
    return {"status": "ok", **describe(account_of(current_session()))}


@bp.post("/api/account")
@bp.declare(changes_state=True, refuses={409: ["account_required", "bound_to_another_account"]})
@bp.arguments(SaveBody)
@bp.response(200, SavedAnswer)
def save(body):
    """Saves the session to an email address and sends a sign-in link to it."""
    outcome = save_account(session_id=current_session().id, email=body["email"], source=body["source"])
    send_all([outcome.mail_job])
    return saved_answer(outcome, email_sent=mailer_accepting())


@bp.post("/api/login/request")
@bp.declare(changes_state=True)
@bp.arguments(EmailBody)
@bp.response(200, LinkRequestedAnswer)
def login_request(body):
    """Mails a sign-in link to the address if it has an account; the answer is the same either way."""
    send_all([request_sign_in_mail(email=body["email"], session_id=current_session().id, surface=ENGINE)])
    return {"status": "link_requested", "email_sent": mailer_accepting(), "explanation": LINK_EXPLANATION}


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


_REDIRECT = {"Location": {"schema": {"type": "string"}}}


@bp.get("/login")
@bp.declare(changes_state=False)
@bp.arguments(TokenQuery, location="query")
@bp.response(303, headers=_REDIRECT)
def login(query):
    """Redeems a sign-in link from an inbox and redirects to the app (303 in every case)."""
    return _redeem_and_redirect(query["token"], success=SUCCESS_LOCATION)


@bp.post("/api/logout")
@bp.declare(changes_state=True, no_body=True)
@bp.response(200, StatusAnswer)
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
@bp.declare(changes_state=True)
@bp.arguments(RequestLinkBody)
@bp.response(200, OkAnswer)
def request_link(body):
    """Product surface: mails a sign-in link if the address has an account; always {ok: true}."""
    send_all([request_product_link(raw_email=body["email"], session_id=current_session().id,
                                   return_to=safe_return_to(body["returnTo"]))])
    return {"ok": True}


@bp.get("/api/auth/callback")
@bp.declare(changes_state=False)
@bp.arguments(TokenQuery, location="query")
@bp.response(303, headers=_REDIRECT)
def auth_callback(query):
    """Product surface: redeems a sign-in link and redirects to where the sign-in started."""
    return _redeem_and_redirect(query["token"], success=None)


@bp.get("/r/<code>")
@bp.declare(changes_state=False)
@bp.response(303, headers=_REDIRECT)
def coded_link(code):
    """Opens a founder's coded referral link: remembers the code and goes to the app."""
    referrals.note_arrival(current_session(), code)
    return _redirect("/")
