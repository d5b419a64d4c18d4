"""Accounts and sign-in: spec 2.1-2.3, 4.2 and 5; the coded referral link."""
from __future__ import annotations

import re
from datetime import UTC

from flask import Response, redirect, request
from marshmallow import Schema, fields, validate

from api import bounds
from api.errors import ApiError
from api.routing import Blueprint
from api.session import current_session, reissue_cookie, replace_cookie
from jobs.send import send_all
from services import pages, referrals, sign_in
from services.accounts import (
    ENGINE,
    account_of,
    describe,
    mailer_accepting,
    mask_email,
    normalize_email,
    request_product_link,
    request_sign_in_mail,
    save_account,
    saved_answer,
    sign_out,
)
from services.errors import Refused

bp = Blueprint("accounts", __name__, description="Accounts and sign-in links.")

def _login_failure(*, reason: str) -> str:
    """Where a failed redemption sends the browser (spec 4.2); the page reads the reason."""
    return f"/#login?e={reason}"


SUCCESS_LOCATION = "/?view=home#/app/home"
FAILURE_LOCATION = _login_failure(reason="invalid_link")
CONFIRM_SCREEN = "/#/app/confirm-sign-in"


def _confirm_location(code: str | None) -> str:
    """The app's confirmation screen for a held link (HEAD holds nothing, so names no code)."""
    return f"{CONFIRM_SCREEN}?code={code}" if code else CONFIRM_SCREEN
LINK_EXPLANATION = ("If an account exists for that address, a sign-in link is on its way. "
                    f"The link works once, for {sign_in.TOKEN_MINUTES} minutes.")

DECISIONS = [
    "POST /api/account: a missing or non-string `email` answers 400 `invalid_email`; a string that cannot be an "
    "address answers 400 `account_required`. Addresses are compared lower-cased. `source` is kept from the first "
    "save (default `web`) and always read back from the stored account.",
    "POST /api/account from a session already signed in to a different account answers 409 "
    "`bound_to_another_account` (its claims cannot be adopted twice); sign out first.",
    "POST /api/account answers also carry `email`, `verified` and `email_sent`. `fix_token` names a Fix run "
    "to attach to the session's account (or to the session while the address is unconfirmed; it follows the "
    "session to the account on sign-in): the answer then carries `adopted_fix_runs`, its token, or is [] for an unknown "
    "token (the address is saved either way).",
    "Sign-in mail is sent by a job for known and unknown addresses alike; the job sends nothing for an unknown "
    f"address, and at most {sign_in.MAILS_PER_HOUR} links an hour to one address (further requests answer the "
    "same and send nothing). "
    "`email_sent` says whether the deployment's mailer accepts messages now.",
    "Saving an address proves nothing, so it gives no access (account pre-hijacking): POST /api/account shows the "
    "address back to the session that saved it (GET /api/account, `verified: false`), but until a sign-in link "
    "is redeemed that session acts for itself alone, as an anonymous one does: any number of sessions may save "
    "one unverified address and none sees or changes another's hold, claim, offer, store, product, orders or "
    "meter. `adopted_claims` is empty until then. Routes that need an account (401 `no_account`) and the credit "
    "meter (GET /api/usage answers `account: false`) count only a signed-in session, one that redeemed a link. "
    "The first redemption verifies the account, makes the redeeming session's journey the account's, rotates "
    "its cookie, and unbinds every other session that saved the address (they stay anonymous with their own "
    "work). A session signed in may save its own address again (`adopted_claims` lists anything it adopted).",
    "Sign-in links cannot be planted (login CSRF): a link opened in the browser session that asked for it, or in "
    "a session with nothing of its own, signs in at once (303 to the success location). Opened in another "
    "session that has work of its own or is signed in to another account (or saved another address), it spends "
    "nothing and switches nothing: it answers 303 to the "
    f"app's confirmation screen `{CONFIRM_SCREEN}?code=…`, which reads GET /api/login/confirm?code=… (the "
    "account's address masked, the account this session is signed in to, `work`: what would move, kind by kind "
    "in a founder's words, and `kept`: what the account keeps as it is) "
    "and completes the sign-in only by a same-origin POST /api/login/confirm `{code}` from that session (one "
    f"use, at most {sign_in.CONFIRM_MINUTES} minutes and never past the link's own life; another session, a "
    "spent, expired or unknown code: 400 `invalid_confirmation`). Confirming spends the link, moves the "
    "current session's work into the account, and leaves another account's work with that account.",
    "What moves at sign-in, and so what counts as a browser's work: everything a sign-in would adopt, as each "
    "kind's adopter says (services/ownership.py: no kind can be registered without saying what a session holds "
    "of it): a live hold, claims, products shown and passed on, price watches, shares, stores, ads, the ad "
    "balance and its top-ups, the campaign plan, organic research and approvals, suppliers, sample and domain "
    "orders, business settings and payout, support conversations, rules and ratings, tasks, the guided tour's "
    "place, store checks (Fix runs), generated pages and the invite link. An empty browser is one that holds "
    "none of these.",
    "A link moves only the journey of the browser that opens it. The browser that asked for the link (anyone can "
    "ask for a link to any address) moves nothing into the account, nor do the pages of a guest id it passed; "
    "its work joins the account when a link is opened in that browser. A sign-in never replaces an account's own "
    "business settings (business name, support address, AI email mode) or payout destination: where both exist "
    "the account's stay, and the confirmation screen says so (`kept`); where the account has none, the "
    "browser's move in.",
    "HEAD /login?token=… never spends the token nor holds the link; its Location says what a GET would do (the "
    "success location, the confirmation screen without a code, or the failure location).",
    "POST /api/auth/request-link: a JSON object with an `email` string answers {ok: true} whatever the address; "
    "`returnTo` is kept only when it is a path on this service (starts with one `/`, no scheme or host), else "
    "dropped. GET /api/auth/callback?token=… redeems like /login and answers 303 to the kept `returnTo` (default "
    "`/`), or to /#login?e=invalid_link. An optional `guestId` (api/pages.py) is passed through to the link.",
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
                       metadata={"reason": "invalid_email", **bounds.EMAIL})
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
    adopted_fix_runs = fields.List(fields.String(), metadata={"description": "The Fix run fix_token named, if known"})


class EmailBody(Schema):
    email = EmailField(required=True, malformed="invalid_email", validate=validate.Length(max=1000),
                       metadata={"reason": "invalid_email", **bounds.EMAIL})


class LinkRequestedAnswer(Schema):
    status = fields.String(required=True)
    email_sent = fields.Boolean(required=True)
    explanation = fields.String(required=True)


class RequestLinkBody(Schema):
    email = fields.String(required=True, validate=validate.Length(max=1000), metadata={"reason": "invalid_email"})
    returnTo = fields.String(load_default=None, allow_none=True)
    guestId = fields.String(load_default=None, allow_none=True,
                            metadata={"description": "A guest's id (POST /api/pages): its pages join the account"})


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
    answer = saved_answer(outcome, email_sent=mailer_accepting())
    if body["fix_token"]:
        answer["adopted_fix_runs"] = _adopt_fix_run(body["fix_token"])
    return answer


def _adopt_fix_run(token: str | None) -> list[str]:
    """The Fix run named by `fix_token`, attached to the session as it now stands (its account
    once bound); an unknown token adopts nothing and refuses nothing (the address is saved)."""
    if not token:
        return []
    from services.errors import Refused
    from services.fix import runs

    try:
        return [runs.adopt(session=current_session(), token=token).token]
    except Refused:
        return []


@bp.post("/api/login/request")
@bp.declare(changes_state=True)
@bp.arguments(EmailBody)
@bp.response(200, LinkRequestedAnswer)
def login_request(body):
    """Mails a sign-in link to the address if it has an account; the answer is the same either way."""
    send_all([request_sign_in_mail(email=body["email"], session_id=current_session().id, surface=ENGINE)])
    return {"status": "link_requested", "email_sent": mailer_accepting(), "explanation": LINK_EXPLANATION}


def _redirect(location: str) -> Response:
    return redirect(location, 303)


def _redeem_and_redirect(token: str, *, success: str | None) -> Response:
    session = current_session()
    reissue_cookie()
    if request.method == "HEAD":
        would = sign_in.peek(token, session_id=session.id)
        return _redirect({"sign_in": success or "/", "confirm": _confirm_location(None)}.get(would, FAILURE_LOCATION))
    opened = sign_in.open_link(token, session_id=session.id)
    if opened is None:
        return _redirect(FAILURE_LOCATION)
    if isinstance(opened, sign_in.Held):
        return _redirect(_confirm_location(opened.code))
    replace_cookie(opened.cookie_value)
    return _redirect(success or opened.return_to or "/")


_REDIRECT = {"Location": {"schema": {"type": "string"}}}


@bp.get("/login")
@bp.declare(changes_state=False)
@bp.arguments(TokenQuery, location="query")
@bp.response(303, headers=_REDIRECT)
def login(query):
    """Redeems a sign-in link from an inbox and redirects to the app (303 in every case)."""
    return _redeem_and_redirect(query["token"], success=SUCCESS_LOCATION)


class ConfirmCode(Schema):
    """The code of a held sign-in link, as the confirmation screen's URL names it (query or body)."""

    code = fields.String(required=True, validate=validate.Length(max=200),
                         metadata={"reason": "invalid_confirmation"})


class WorkAnswer(Schema):
    kind = fields.String(required=True, metadata={"description": "The kind of work, as its adopter names it"})
    items = fields.List(fields.String(), required=True,
                        metadata={"description": "What of this kind would move, one line a thing, in a founder's words"})


class PendingAnswer(Schema):
    status = fields.String(required=True)
    account = fields.String(required=True, metadata={"description": "The account the link signs in to, masked"})
    signed_in_as = fields.String(allow_none=True, required=True,
                                 metadata={"description": "The account this browser is signed in to now, masked"})
    saved_as = fields.String(allow_none=True, required=True,
                             metadata={"description": "The unproven address this browser saved, masked"})
    work = fields.List(fields.Nested(WorkAnswer), required=True,
                       metadata={"description": "What this browser did that would move into the account, by kind"})
    kept = fields.List(fields.String(), required=True,
                       metadata={"description": "What the account keeps as it is instead of taking this browser's"})
    expires_at = fields.Integer(required=True, metadata={"description": "Epoch seconds"})


class ConfirmedAnswer(Schema):
    status = fields.String(required=True)
    account = fields.String(required=True)
    location = fields.String(required=True, metadata={"description": "Where the app goes next"})


def _masked(address: str | None) -> str | None:
    return mask_email(address) if address else None


@bp.get("/api/login/confirm")
@bp.declare(changes_state=False, refuses={400: ["invalid_confirmation"]})
@bp.arguments(ConfirmCode, location="query")
@bp.response(200, PendingAnswer)
def pending_sign_in(query):
    """Says which account a sign-in link opened in this browser would sign in to, and what becomes of the work here."""
    held = sign_in.pending(query["code"], session_id=current_session().id)
    if held is None:
        raise ApiError(400, "invalid_confirmation")
    return {"status": "confirm", "account": mask_email(held.account_email),
            "signed_in_as": _masked(held.signed_in_email), "saved_as": _masked(held.saved_email),
            "work": [{"kind": work.kind, "items": list(work.items)} for work in held.work], "kept": held.kept,
            "expires_at": int(held.expires_at.replace(tzinfo=UTC).timestamp())}


@bp.post("/api/login/confirm")
@bp.declare(changes_state=True, refuses={400: ["invalid_confirmation"]})
@bp.arguments(ConfirmCode)
@bp.response(200, ConfirmedAnswer)
def confirm_sign_in(body):
    """Completes a sign-in link held for confirmation in this browser (from the app's confirmation screen)."""
    redeemed = sign_in.confirm(body["code"], session_id=current_session().id)
    if redeemed is None:
        raise ApiError(400, "invalid_confirmation")
    replace_cookie(redeemed.cookie_value)
    location = SUCCESS_LOCATION if redeemed.surface == ENGINE else (redeemed.return_to or "/")
    return {"status": "signed_in", "account": redeemed.account.email, "location": location}


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
                                   return_to=safe_return_to(body["returnTo"]),
                                   guest_id=pages.valid_guest_id(body["guestId"]))])
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
