"""The support desk's inbound mail: the clock fires `poll_mail` every MAIL_POLL_SECONDS,
which starts the `mail_poll` job (GET /api/helpdesk only reads what the polls filed).
One poll runs at a time: one active job per kind and subject (a database index), and the
runner's lock on the subject. The job reads the mailbox into tickets
(services/desk/inbound.py); a mailbox that cannot be read is reported in the job's result
and read again at the next poll."""
import dramatiq

from jobs.runner import job_actor
from jobs.send import start
from services.desk import inbound


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=60_000)
def poll_mail():
    """Starts a `mail_poll` job unless one is queued or running, and forgets old finished polls."""
    start(kind=inbound.MAIL_POLL, subject=inbound.MAIL_POLL_SUBJECT)
    inbound.forget_old_polls()


@job_actor(inbound.MAIL_POLL, retry_delays=(5, 30, 60))
def mail_poll(ctx):
    """Reads the inbound mail into tickets (each message once, however polls overlap)."""
    ctx.stage("reading")
    return inbound.poll()
