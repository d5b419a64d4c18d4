"""The nightly research brief: the clock fires `nightly_brief` at BRIEF_HOUR_UTC, which
starts the day's `brief` job; the job makes the brief (services/brief.py)."""
import dramatiq

from jobs.runner import job_actor
from jobs.send import start
from services import brief


@dramatiq.actor(queue_name="default", max_retries=5, min_backoff=10_000, max_backoff=600_000, time_limit=60_000)
def nightly_brief():
    """Starts the brief job of the day that is due, unless its brief exists (a second clock,
    a restart)."""
    day = brief.due_day()
    if not brief.exists(day):
        # One active job per kind and subject: two firings of one day share one job.
        start(kind=brief.BRIEF, subject=brief.subject(day), payload={"day": day.isoformat()})


@job_actor(brief.BRIEF, retry_delays=(30, 300, 1800))
def research_brief(ctx):
    """Makes the brief of the job's day (once; a later run answers the brief already made)."""
    ctx.stage("writing")
    return brief.run(day=ctx.payload.get("day"), fenced=ctx.fenced)
