"""Fix, the store-repair tool (services/fix/): the `fix_run` job audits and repairs a
store's pages; the `fix_mail` job mails what a finished run owes its address (services/fix/mail.py);
the clock's hourly `fix_follow_ups` mails each finished run's one follow-up."""
import dramatiq

from jobs.runner import job_actor
from services.fix import audit_run, mail, runs


# A run reads up to 21 pages at 10 s each, and probes their links: give it room.
@job_actor(runs.KIND, retry_delays=(10, 60), time_limit_ms=15 * 60_000)
def fix_run(ctx):
    """Fetches, audits and repairs one store's pages, and keeps the report."""
    result = audit_run.run(ctx.payload, stage=ctx.stage, fenced=ctx.fenced)
    # The mail is a job of its own, so a mailer that is down is tried again without checking
    # the store again. It is started by a second delivery too (a finished run is skipped),
    # in case the first stopped before this; mailing what is owed twice sends nothing more.
    with ctx.ending() as ending:
        ending.result = result
        ending.start(mail.mail_job(ctx.payload.get("run_id")))
    return result


@job_actor(mail.MAIL_KIND, retry_delays=(60, 300, 900))
def fix_mail(ctx):
    """Mails a finished run's confirmation link, or its report to an address that asked for it."""
    mail.send_run_mail(ctx.payload["run_id"])
    return {"run_id": ctx.payload["run_id"]}


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=120_000)
def fix_follow_ups():
    """Mails the follow-ups that are due (each once; none where feedback asked for none)."""
    mail.send_follow_ups()
