"""The sign-in mail job: services.sign_in_mail does the work, fenced by the job's attempt."""
from jobs.runner import job_actor
from services.accounts import SIGN_IN_MAIL
from services.sign_in_mail import mail_sign_in_link


@job_actor(SIGN_IN_MAIL, retry_delays=(5, 30, 120))
def sign_in_mail(ctx):
    """Mails a sign-in link if an account has the address (nothing for an unknown one)."""
    payload = ctx.payload
    return mail_sign_in_link(email=payload["email"], session_id=payload.get("session_id"), surface=payload["surface"],
                             return_to=payload.get("return_to"), guest_id=payload.get("guest_id"),
                             fenced=ctx.fenced)
