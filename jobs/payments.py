"""Payment jobs: confirming a payment the provider notified us about, the mail after a
sale, and (the sandbox provider's side) delivering its notifications to the service and
expiring its open checkouts past their day (fired by the clock)."""
import logging

import dramatiq

from jobs.runner import job_actor
from jobs.send import send_all
from services.commerce.order_mail import ORDER_MAIL, send_order_mail
from services.commerce.orders import CLOSE_CHECKOUTS, close_open_checkouts
from services.commerce.payments import CONFIRM_JOB, confirm_in_job
from services.commerce.sandbox_pages import NOTIFY_JOB, deliver, expire_checkouts

log = logging.getLogger("jobs.payments")


@job_actor(CONFIRM_JOB, retry_delays=(5, 30, 120))
def payment_confirm(ctx):
    """Asks the provider about a notified payment and credits it once when it is paid."""
    result, follow_ups = confirm_in_job(ctx.payload["payment_id"])
    # The paid order's mail job, when this confirmation made it paid. Its row committed with
    # the payment's paid mark, which makes a rerun of this job start nothing: a worker that
    # dies before this send leaves it queued, and the reaper sends it.
    send_all(follow_ups)
    return result


# A mailer that is down gets about four hours before the order's mail is given up.
@job_actor(ORDER_MAIL, retry_delays=(10, 60, 300, 900, 1800, 3600, 7200))
def order_mail(ctx):
    """Mails a paid order's receipt to the customer and its notice to the founder, once each."""
    return send_order_mail(ctx.payload["order_id"])


@job_actor(CLOSE_CHECKOUTS, retry_delays=(5, 30, 120, 600, 1800, 3600, 7200))
def close_checkouts(ctx):
    """Closes the open checkouts of a product its founder paused or retired."""
    result, follow_ups = close_open_checkouts(ctx.payload["product_id"])
    send_all(follow_ups)
    return result


@job_actor(NOTIFY_JOB, retry_delays=(2, 10, 30, 120, 600))
def sandbox_notify(ctx):
    """Delivers one of the sandbox provider's signed notifications to the service."""
    return deliver(ctx.payload["event_id"])


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=300_000)
def expire_sandbox_checkouts():
    """Expires the sandbox's open checkouts past their day and sends their notifications
    (a pass that meets an outage leaves them for the next one, a minute later)."""
    follow_ups = expire_checkouts()
    send_all(follow_ups)
    if follow_ups:
        log.info("sandbox checkouts expired", extra={"fields": {"expired": len(follow_ups)}})
