"""Fix's mail: a finished run's report, once, to the address it was given, and one follow-up
FIX_FOLLOW_UP_DAYS later (the clock's hourly `fix_follow_ups`), unless feedback asked for none."""
from __future__ import annotations

from datetime import timedelta

from config import get_settings
from models.clock import utcnow
from models.fix import FixRun
from services import mailing
from services.errors import TransientError


def mail_report(run_id: int) -> None:
    """Mails the finished report once to the address the run was given (at least once: the
    mark is written after the mailer took it, so a retry after a crash may send it again)."""
    row = FixRun.get_by_id(run_id)
    if not row.email or row.report_mailed_at is not None or row.stage != FixRun.DONE:
        return
    mailing.send_mail(row.email, "fix_report", url=row.url, before=row.score_before, after=row.score_after,
                      link=_report_link(row), fixed=sum(1 for f in row.findings if f.get("fixed")),
                      found=len(row.findings), days=get_settings().fix_follow_up_days)
    FixRun.update(report_mailed_at=utcnow()).where(FixRun.id == run_id).execute()


def _report_link(row: FixRun) -> str:
    return f"{get_settings().base_url.rstrip('/')}/#/app/fix?token={row.token}"


def send_follow_ups(*, now=None) -> int:
    """Mails each finished run's one follow-up (FIX_FOLLOW_UP_DAYS after it), unless its
    feedback asked for none. A run is marked before its mail goes (a conditional update), so
    two clocks never both send it."""
    now = now or utcnow()
    due = now - timedelta(days=get_settings().fix_follow_up_days)
    sent = 0
    for row in FixRun.select().where(FixRun.stage == FixRun.DONE, FixRun.email.is_null(False),
                                     FixRun.follow_up == True, FixRun.followed_up_at.is_null(),  # noqa: E712
                                     FixRun.finished_at <= due).limit(200):
        taken = FixRun.update(followed_up_at=now).where(FixRun.id == row.id, FixRun.followed_up_at.is_null(),
                                                        FixRun.follow_up == True).execute()  # noqa: E712
        if not taken:
            continue
        try:
            sent += mailing.send_mail(row.email, "fix_follow_up", url=row.url, link=_report_link(row),
                                      after=row.score_after, days=get_settings().fix_follow_up_days)
        except TransientError:
            # The mailer is down: unmark, so the next tick sends it; nothing is lost.
            FixRun.update(followed_up_at=None).where(FixRun.id == row.id).execute()
            break
    return sent
