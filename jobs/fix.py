"""Fix, the store-repair tool (services/fix/): the `fix_run` job audits and repairs a
store's pages; the clock's hourly `fix_follow_ups` mails each finished run's one follow-up."""
import dramatiq

from jobs.runner import job_actor
from services.fix import audit_run, mail, runs


# A run reads up to 21 pages at 10 s each, and probes their links: give it room.
@job_actor(runs.KIND, retry_delays=(10, 60), time_limit_ms=15 * 60_000)
def fix_run(ctx):
    """Fetches, audits and repairs one store's pages, and keeps the report."""
    return audit_run.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=120_000)
def fix_follow_ups():
    """Mails the follow-ups that are due (each once; none where feedback asked for none)."""
    mail.send_follow_ups()
