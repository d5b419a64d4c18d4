"""Fix runs (spec 2.15, 4.6 fix/event and fix/feedback, 4.7 fix, fix/mine and fix/adopt;
decisions.md "Fix (store repair)"): a store address in, a report of what is wrong with its
pages and the repairs out.

POST /api/fix queues a run and answers its token; the `fix_run` job fetches the page and up
to MAX_EXTRA_PAGES same-site pages through the fetcher that cannot be turned inward
(integrations/web), audits them (services/fix/checks.py), writes the repairs
(services/fix/repairs.py) and keeps the corrected pages. A store built by this service is
read from its own published version rather than over the network; the run writes nothing
into it, and its owner applies the repairs its document can hold in one step
(services/fix/store_repairs.py).

Runs are anyone's to start; the token is what reaches one. A run is listed as its session's
(or its account's, once adopted or started signed in), never anyone else's.
"""
from __future__ import annotations

import re
import secrets
from urllib.parse import urlsplit, urlunsplit

from config import get_settings
from integrations.web.fetch import FetchRefused, fetcher_for
from models.clock import utcnow
from models.db import transaction
from models.fix import FixEvent, FixPage, FixRun
from models.job import Job
from models.session import Session
from services.accounts import normalize_email
from services.errors import Refused
from services.fix import checks, mail, store_repairs, summary
from services.fix.own_store import own_store
from services.jobs import create_job
from services.ownership import Owner, adopter, owner_of
from services.reasons import sentence

KIND = "fix_run"
MAX_URL = 2000
MAX_DETAIL = 2000  # an event's free text
MAX_LISTED = 50  # runs answered by GET /api/fix/mine without a token
# Runs one session may have queued or running at once: each reads up to 21 pages of someone's
# site and probes its links, so a visitor cannot make the service hammer a site.
MAX_UNFINISHED = 3
# A feedback whose detail asks for no more mail, in the words people use.
_NO_FOLLOW_UP = re.compile(
    r"unsubscribe|\b(no|don'?t|do not|stop|never)\b[^.!?]{0,30}\b(follow[- ]?ups?|e-?mails?|mail|contact|"
    r"messages?|reminders?)\b", re.IGNORECASE)
_INWARD = ("address_not_public", "bad_port", "odd_spelling", "credentials_in_url")


def failure_reason(fetch_reason: str) -> str:
    """What a refusal or failure of the fetcher (integrations/web) is told as: a registered reason."""
    reason = "store_unreachable"  # no answer, an error status, too many redirects, too slow
    if fetch_reason in _INWARD:
        reason = "address_not_public"
    elif fetch_reason in ("bad_scheme", "bad_url"):
        reason = "invalid_url"
    elif fetch_reason == "too_large":
        reason = "page_too_large"
    return reason


# --- Starting -------------------------------------------------------------------------------

def checked_url(raw) -> str:
    """The store address as the run will read it: http(s), a host, no fragment; refused with
    `invalid_url`, or `address_not_public` when it plainly names an inward address or port."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not text or len(text) > MAX_URL or any(ch.isspace() or ord(ch) < 32 for ch in text):
        raise Refused("invalid_url")
    if "://" not in text:
        text = "https://" + text  # "mystore.com": people type addresses without the scheme
    try:
        parts = urlsplit(text)
        _ = parts.port  # reading it raises ValueError for a port that is not a number up to 65535
    except ValueError:  # an unbalanced "[" or a bad port: not an address anyone can open
        raise Refused("invalid_url") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise Refused("invalid_url")
    url = urlunsplit((parts.scheme.lower(), parts.netloc, parts.path or "/", parts.query, ""))
    if own_store(url) is not None:
        return url  # read from its own published version, never over the network
    try:
        fetcher_for(get_settings()).check(url, resolve=False)
    except FetchRefused as refused:
        raise Refused(failure_reason(refused.reason)) from None
    return url


def start(*, session: Session, url, email=None) -> tuple[FixRun, Job]:
    """Queues a run for the store at `url` and its job (sent by the caller after commit)."""
    address = checked_url(url)
    mail_to = normalize_email(email, reason="invalid_email") if isinstance(email, str) and email.strip() else None
    # A soft bound, counted before the insert: two requests at the same instant may both pass,
    # which a limit against hammering can afford (it is not a guarantee anyone relies on).
    unfinished = FixRun.select().where(FixRun.session == session.id, FixRun.stage.not_in(FixRun.FINISHED)).count()
    if unfinished >= MAX_UNFINISHED:
        raise Refused("fix_runs_busy")
    with transaction():
        own = own_store(address)  # a store built here: its owner may apply the repairs (store_repairs.py)
        run = FixRun.create(token=secrets.token_urlsafe(24), url=address, email=mail_to, session=session.id,
                            account=session.account_id, product=own["product_id"] if own else None,
                            created_at=utcnow(), mail=mail.decide(session, mail_to))
        job, _ = create_job(kind=KIND, subject=run.token, payload={"run_id": run.id}, max_attempts=2)
    return run, job


# --- Reading --------------------------------------------------------------------------------

def by_token(token) -> FixRun:
    run = FixRun.get_or_none(FixRun.token == token) if isinstance(token, str) and token else None
    if run is None:
        raise Refused("not_found")
    return run


def answer(run: FixRun, *, viewer: Owner | None = None) -> dict:
    """A run as the API answers it (decisions.md's fields, and the pages to download); `apply`
    only for `viewer` when it owns the store built here that the run checked."""
    stored = {row.position for row in FixPage.select(FixPage.position).where(FixPage.run == run.id)}
    mail_said = mail.said(run)
    body = {
        "token": run.token, "url": run.url, "stage": run.stage,
        "pages": [page["url"] for page in run.pages],
        "pages_detail": [{"url": page["url"], "status": page.get("status"),
                          "download": f"/api/fix/page?token={run.token}&page={n}" if n in stored else None}
                         for n, page in enumerate(run.pages)],
        "score_before": run.score_before, "score_after": run.score_after,
        "findings": [_shown(finding) for finding in run.findings],
        "repaired_in_place": run.store_version is not None, "store_version": run.store_version,
        "apply": store_repairs.said(run, viewer) if viewer is not None else None,
        # What the run did, counted and said once: the screen and both mails show the same (summary.py).
        "summary": summary.of(run),
        "follow_up": run.follow_up and run.email is not None,
        "mail": mail_said[0], "mail_explanation": mail_said[1],
        "created_at": run.created_at.isoformat() + "Z",
        "finished_at": run.finished_at.isoformat() + "Z" if run.finished_at else None,
    }
    if run.stage == FixRun.FAILED:
        body["reason"] = run.reason
        body["explanation"] = sentence(run.reason)
    return body


def _shown(finding: dict) -> dict:
    shown = {key: finding.get(key) for key in ("id", "check", "severity", "page", "detail", "fixed", "fix")}
    if isinstance(shown["fix"], dict) and "changes" in shown["fix"]:  # the document's paths stay inside
        shown["fix"] = {key: value for key, value in shown["fix"].items() if key != "changes"}
    shown["check_label"] = checks.CHECK_LABELS.get(finding.get("check"), finding.get("check"))
    return shown


def mine(*, session: Session) -> dict:
    """The caller's own runs, newest first, and the addresses they asked to be mailed at."""
    owner = owner_of(session)
    runs = list(FixRun.select().where(owner.owns(FixRun)).order_by(FixRun.id.desc()).limit(MAX_LISTED))
    subscriptions, seen = [], set()
    for run in runs:
        if run.email and run.mail != FixRun.MAIL_CAPPED and (run.url, run.email) not in seen:
            seen.add((run.url, run.email))
            subscriptions.append({"url": run.url, "email": run.email, "follow_up": run.follow_up})
    return {"runs": [answer(run, viewer=owner) for run in runs], "subscriptions": subscriptions}


def corrected_page(*, token, position: int) -> str:
    """The corrected HTML of one page of a run."""
    run = by_token(token)
    row = FixPage.get_or_none(FixPage.run == run.id, FixPage.position == position)
    if row is None:
        raise Refused("not_found")
    return row.html


# --- Adoption, events and feedback ----------------------------------------------------------

STAGES, EVENTS = FixRun.STAGES, FixEvent.EVENTS


def adopt(*, session: Session, token) -> FixRun:
    """Attaches a run to the session's account (or, signed out, to the session); the session
    is read again, so a binding made earlier in the same request counts. Only a run no
    account holds yet is adopted (decisions.md): the token lets anyone read a run, never
    take it from the account it belongs to (tests/test_isolation_sweep.py found that)."""
    session = Session.get_by_id(session.id)
    run = by_token(token)
    if run.account_id is not None and run.account_id != session.account_id:
        raise Refused("not_found", "That run belongs to another account: its token shows the report, but the run "
                                   "stays theirs. Nothing was changed.")
    FixRun.update(session=session.id, account=session.account_id).where(FixRun.id == run.id).execute()
    return FixRun.get_by_id(run.id)


def _runs_held(session_id: int) -> list[str]:
    rows = (FixRun.select(FixRun.url).where(FixRun.session == session_id, FixRun.account.is_null())
            .order_by(FixRun.created_at))
    return [f"your store check of {row.url}" for row in rows]


@adopter(kind="fix_runs", held=_runs_held)
def adopt_runs(session_id: int, account_id: int) -> dict:
    """On sign-in, the session's own runs become the account's."""
    ids = [run.token for run in FixRun.select(FixRun.token).where(FixRun.session == session_id,
                                                                 FixRun.account.is_null())]
    FixRun.update(account=account_id).where(FixRun.session == session_id, FixRun.account.is_null()).execute()
    return {"fix_runs": ids} if ids else {}


def record_event(*, token, event, detail=None) -> dict:
    """Records one of the decided events of a run; feedback asking for no follow-up stops it."""
    if not isinstance(event, str) or event not in FixEvent.EVENTS:
        raise Refused("unknown_event")
    run = by_token(token)
    text = detail.strip()[:MAX_DETAIL] if isinstance(detail, str) and detail.strip() else None
    suppress = event == FixEvent.FEEDBACK and text is not None and bool(_NO_FOLLOW_UP.search(text))
    with transaction():
        FixEvent.create(run=run.id, event=event, detail=text, created_at=utcnow())
        if suppress:
            # Every run of the same address and mail stops, not only this one: the person asked.
            FixRun.update(follow_up=False).where(
                (FixRun.id == run.id) | ((FixRun.email == run.email) & FixRun.email.is_null(False))).execute()
    body = {"status": "recorded"}
    if suppress:
        body["follow_up"] = False
        body["explanation"] = "Recorded. We will not send you any follow-up mail about this report."
    return body
