"""Payment jobs: confirming a payment the provider notified us about, and (the sandbox
provider's side) delivering its notifications to the service."""
from jobs.runner import job_actor
from services.commerce.payments import CONFIRM_JOB, confirm_in_job
from services.commerce.sandbox_pages import NOTIFY_JOB, deliver


@job_actor(CONFIRM_JOB, lease_seconds=60, retry_delays=(5, 30, 120))
def payment_confirm(ctx):
    """Asks the provider about a notified payment and credits it once when it is paid."""
    return confirm_in_job(ctx.payload["payment_id"])


@job_actor(NOTIFY_JOB, lease_seconds=60, retry_delays=(2, 10, 30, 120, 600))
def sandbox_notify(ctx):
    """Delivers one of the sandbox provider's signed notifications to the service."""
    return deliver(ctx.payload["event_id"])
