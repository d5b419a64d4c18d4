"""Fix's mail: a finished run's report, once, and one follow-up FIX_FOLLOW_UP_DAYS later (the
clock's hourly `fix_follow_ups`), unless feedback asked for none; and only ever to an address
that asked for it.

POST /api/fix is open to anyone, so the address it is given may be anyone's. The report (and
its follow-up) goes only to the signed-in founder's own verified address, or to an address
that opened a one-time link mailed to it when the run was done (CONFIRM_HOURS to open it). A
link's token is 32 random bytes of which only the SHA-256 is kept, and one conditional UPDATE
spends it. However many sessions ask, one address is sent at most CONFIRMATIONS_PER_DAY such
links and REPORTS_PER_DAY reports and follow-ups a day (UTC), counted in fix_mail_day by a
conditional UPDATE, so requests side by side cannot both take the last one. A report to the
founder's own address is counted when its run starts (so the answer says exactly whether it
will go), one to a confirmed address when it goes.
"""
from __future__ import annotations

import secrets
from datetime import timedelta

from config import get_settings
from models.account import Account
from models.clock import utcnow
from models.db import transaction
from models.fix import FixMailDay, FixMailLink, FixRun
from models.job import Job
from models.session import Session
from services import mailing
from services.errors import TransientError
from services.fix import summary
from services.jobs import create_job
from services.tokens import hash_token

MAIL_KIND = "fix_mail"  # the job that mails what a run owes once its address confirmed
CONFIRM_PATH = "/api/fix/confirm"
CONFIRM_HOURS = 48
CONFIRMATIONS_PER_DAY = 1
REPORTS_PER_DAY = 3

# What the API and the Fix screen say about a run's mail: (`mail`, explanation).
NONE, WILL_SEND, SENT = "none", "will_send", "sent"
NEEDS_CONFIRMATION, CONFIRMATION_SENT, REFUSED_DAILY_CAP = "needs_confirmation", "confirmation_sent", "refused_daily_cap"
ANSWERS = (NONE, WILL_SEND, SENT, NEEDS_CONFIRMATION, CONFIRMATION_SENT, REFUSED_DAILY_CAP)
_SAID = {
    NONE: "No report will be mailed for this check: it is here on this page.",
    WILL_SEND: "We will mail the report to your address when the check is done.",
    SENT: "We mailed the report to the address you gave.",
    NEEDS_CONFIRMATION: "We only mail reports to an address that asks for them. When the check is done we will "
                        "send your address a link: open it and the report follows.",
    CONFIRMATION_SENT: f"We sent your address a link. Open it within {CONFIRM_HOURS // 24} days and the report "
                       "follows by mail. Until then it is here on this page.",
    REFUSED_DAILY_CAP: "We will not mail this report: the address you gave has had all the store-check mail we send "
                       "one address in a day. The report is here on this page; sign in with that address, or check "
                       "again tomorrow, to have it mailed.",
}


# --- Deciding, when a run is started --------------------------------------------------------

def decide(session: Session, email: str | None) -> str | None:
    """What a new run may do with `email` (normalized): mail the signed-in founder's own
    verified address, or ask anyone else's address to confirm; or nothing, because the
    address had its day's mail. The day's report (or link) is taken now, so the answer is exact."""
    if email is None:
        return None
    account = Account.get_or_none(Account.id == session.account_id) if session.account_id else None
    if account is not None and account.verified and account.email == email:
        return FixRun.MAIL_OWNER if _take(email, FixMailDay.REPORT) else FixRun.MAIL_CAPPED
    return FixRun.MAIL_CONFIRM if _take(email, FixMailDay.CONFIRMATION) else FixRun.MAIL_CAPPED


def said(run: FixRun) -> tuple[str, str]:
    """(`mail`, explanation): whether the run's report will be mailed, in the founder's words."""
    if run.email is None or run.mail is None:
        answer = NONE
    elif run.report_mailed_at is not None:
        answer = SENT
    else:
        answer = {FixRun.MAIL_OWNER: WILL_SEND, FixRun.MAIL_CONFIRMED: WILL_SEND,
                  FixRun.MAIL_CONFIRM: NEEDS_CONFIRMATION, FixRun.MAIL_CONFIRM_SENT: CONFIRMATION_SENT,
                  FixRun.MAIL_CAPPED: REFUSED_DAILY_CAP}[run.mail]
    return answer, _SAID[answer]


def _today():
    return utcnow().date()


def _take(email: str, kind: str, *, day=None) -> bool:
    """Counts one mail of `kind` to `email` on `day` (today), unless the day's bound is reached (False)."""
    bound = CONFIRMATIONS_PER_DAY if kind == FixMailDay.CONFIRMATION else REPORTS_PER_DAY
    day = day or _today()
    FixMailDay.insert(email=email, day=day, kind=kind, sent=0).on_conflict_ignore().execute()
    return FixMailDay.update(sent=FixMailDay.sent + 1).where(
        FixMailDay.email == email, FixMailDay.day == day, FixMailDay.kind == kind,
        FixMailDay.sent < bound).execute() == 1


# --- Mailing what a run owes ----------------------------------------------------------------

def mail_job(run_id) -> Job | None:
    """The job that mails what a finished run owes its address (None: nothing is owed)."""
    row = FixRun.get_or_none(FixRun.id == run_id)
    if row is None or row.stage != FixRun.DONE or row.mail not in (FixRun.MAIL_CONFIRM, *FixRun.MAIL_CONSENTED):
        return None
    job, _ = create_job(kind=MAIL_KIND, subject=f"fix-mail:{row.token}", payload={"run_id": row.id})
    return job


def send_run_mail(run_id: int) -> None:
    """Mails what a finished run owes its address: the confirmation link, or the report once
    the address is the founder's own or confirmed. Raises TransientError when the mailer is
    down (the job tries again; nothing was marked sent)."""
    row = FixRun.get_by_id(run_id)
    if not row.email or row.stage != FixRun.DONE:
        return
    if row.mail == FixRun.MAIL_CONFIRM:
        _mail_confirmation(row)
    elif row.mail in FixRun.MAIL_CONSENTED:
        mail_report(row)


def mail_report(row: FixRun) -> None:
    """Mails the finished report once (at least once: the mark is written after the mailer
    took it, so a retry after a crash may send it again), within the address's daily bound:
    taken when the run started for the founder's own address, now for a confirmed one."""
    if row.report_mailed_at is not None:
        return
    if row.mail == FixRun.MAIL_CONFIRMED and not _take(row.email, FixMailDay.REPORT):
        FixRun.update(mail=FixRun.MAIL_CAPPED).where(FixRun.id == row.id).execute()
        return
    # The same summary the report on screen shows (summary.py): the mail never counts for itself.
    mailing.send_mail(row.email, "fix_report", url=row.url, link=_report_link(row), summary=summary.of(row),
                      days=get_settings().fix_follow_up_days)
    FixRun.update(report_mailed_at=utcnow()).where(FixRun.id == row.id).execute()


def _mail_confirmation(row: FixRun) -> None:
    """Mints the run's one-time link and mails it. The run is marked first (a conditional
    update), so a second delivery mails no second link; a mailer that is down unmarks it."""
    if not FixRun.update(mail=FixRun.MAIL_CONFIRM_SENT).where(FixRun.id == row.id,
                                                              FixRun.mail == FixRun.MAIL_CONFIRM).execute():
        return
    raw = secrets.token_urlsafe(32)  # 32 bytes from the operating system; only its hash is kept
    now = utcnow()
    FixMailLink.create(token_hash=hash_token(raw), run=row.id, created_at=now,
                       expires_at=now + timedelta(hours=CONFIRM_HOURS))
    try:
        mailing.send_mail(row.email, "fix_confirm", url=row.url, hours=CONFIRM_HOURS,
                          link=f"{get_settings().base_url.rstrip('/')}{CONFIRM_PATH}?token={raw}")
    except TransientError:
        FixRun.update(mail=FixRun.MAIL_CONFIRM).where(FixRun.id == row.id).execute()
        raise


def _report_link(row: FixRun) -> str:
    return f"{get_settings().base_url.rstrip('/')}/#/app/fix?token={row.token}"


# --- Confirming -----------------------------------------------------------------------------

def _live(raw: str, now):
    return (FixMailLink.token_hash == hash_token(raw), FixMailLink.spent_at.is_null(), FixMailLink.expires_at > now)


def peek(raw) -> FixRun | None:
    """The run a link would confirm, spending nothing (HEAD); None for a spent, expired or unknown one."""
    if not isinstance(raw, str) or not raw:
        return None
    link = FixMailLink.get_or_none(*_live(raw, utcnow()))
    return FixRun.get_by_id(link.run_id) if link else None


def confirm(raw) -> tuple[FixRun, Job | None] | None:
    """Spends the link (one conditional UPDATE: of two openings one confirms) and marks its
    run's address as asking for the report; returns the run and the job that mails the
    report (to send after commit), or None for a spent, expired or unknown link."""
    run = peek(raw)
    if run is None:
        return None
    now = utcnow()
    with transaction():
        if not FixMailLink.update(spent_at=now).where(*_live(raw, now)).execute():
            return None
        FixRun.update(mail=FixRun.MAIL_CONFIRMED).where(FixRun.id == run.id,
                                                        FixRun.mail == FixRun.MAIL_CONFIRM_SENT).execute()
        job = mail_job(run.id)
    return FixRun.get_by_id(run.id), job


# --- Follow-ups -----------------------------------------------------------------------------

def send_follow_ups(*, now=None) -> int:
    """Mails each finished run's one follow-up (FIX_FOLLOW_UP_DAYS after it) where the report
    itself was mailed to an address that asked for it, unless its feedback asked for none. A
    run is marked before its mail goes (a conditional update), so two clocks never both send
    it; one whose address had its day's mail is unmarked and waits for a later tick."""
    now = now or utcnow()
    due = now - timedelta(days=get_settings().fix_follow_up_days)
    sent = 0
    for row in FixRun.select().where(FixRun.stage == FixRun.DONE, FixRun.email.is_null(False),
                                     FixRun.mail.in_(FixRun.MAIL_CONSENTED), FixRun.report_mailed_at.is_null(False),
                                     FixRun.follow_up == True, FixRun.followed_up_at.is_null(),  # noqa: E712
                                     FixRun.finished_at <= due).limit(200):
        taken = FixRun.update(followed_up_at=now).where(FixRun.id == row.id, FixRun.followed_up_at.is_null(),
                                                        FixRun.follow_up == True).execute()  # noqa: E712
        if not taken:
            continue
        if not _take(row.email, FixMailDay.REPORT, day=now.date()):
            FixRun.update(followed_up_at=None).where(FixRun.id == row.id).execute()
            continue
        try:
            sent += mailing.send_mail(row.email, "fix_follow_up", url=row.url, link=_report_link(row),
                                      summary=summary.of(row), days=get_settings().fix_follow_up_days)
        except TransientError:
            # The mailer is down: unmark, so the next tick sends it; nothing is lost.
            FixRun.update(followed_up_at=None).where(FixRun.id == row.id).execute()
            break
    return sent
