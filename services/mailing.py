"""Sending one templated mail (templates/email/<template>.*) through the deployment's mailer,
as every job that mails does: a mailer that cannot take mail now is a TransientError (the
job tries again later); an address the server refuses for good is False (trying again would
not help); True once the server took it."""
from __future__ import annotations

from config import get_settings
from integrations.mail import MailRejected, MailUnavailable, Message, get_mailer
from integrations.mail.render import render
from services.errors import TransientError


def send_mail(to: str, template: str, *, settings=None, mailer=None, from_name: str | None = None,
              reply_to: str | None = None, **context) -> bool:
    """Renders `template` with `context` and mails it to `to` (from `from_name` at our own
    address and with `reply_to` when given); True when the server took it."""
    subject, text, html = render(template, **context)
    message = Message(to=to, subject=subject, text=text, html=html, from_name=from_name, reply_to=reply_to)
    try:
        (mailer or get_mailer(settings or get_settings())).send(message)
    except MailUnavailable:
        raise TransientError("mailer unavailable") from None
    except MailRejected:
        return False
    return True
