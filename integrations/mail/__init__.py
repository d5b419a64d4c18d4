"""Sending email: one small interface, an outbox that works offline, and SMTP.

Callers build a Message (usually from integrations.mail.render), get the process's
mailer from the settings, and send. `send` raises MailUnavailable when the mailer cannot
take the message now (worth trying again later) and MailRejected when the server refused
this message for good (trying again will not help). `accepting()` is the cheap question
the sign-in routes ask to report `email_sent` honestly.

Only the outbox mailer ever logs a link, and only because that is its job: in embedded
and dev mode the sign-in link in the log is how a founder signs in.
"""
from __future__ import annotations

import email.policy
import email.utils
import ipaddress
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Protocol
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Message:
    to: str
    subject: str
    text: str
    html: str
    # A conversation's mail (the support desk's replies): the Message-ID we give it (made up
    # when None), the message it answers and the thread before it, where the customer's
    # answer should go (Reply-To), the name shown with our From address, and whether it is
    # written by a machine (Auto-Submitted, RFC 3834: a person's reply is not).
    message_id: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    reply_to: str | None = None
    from_name: str | None = None
    auto_submitted: bool = True


class MailUnavailable(Exception):
    """The mailer could not take the message now (connection refused, timeout, 4xx from the server); try again later."""


class MailRejected(Exception):
    """The server refused this message for good (a 5xx answer); sending it again will not help."""


class Mailer(Protocol):
    def send(self, message: Message) -> None: ...

    def accepting(self) -> bool: ...


def sender_domain(base_url: str) -> str:
    """The domain mail comes from: the host of the public origin.

    An IP address becomes an address literal ([127.0.0.1]) so the From header stays a
    valid address; an IPv6 origin (rare, and awkward in addresses) falls back to localhost.
    """
    host = urlsplit(base_url).hostname or "localhost"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    return f"[{ip}]" if ip.version == 4 else "localhost"


def default_from_address(base_url: str) -> str:
    """no-reply@<host of BASE_URL>."""
    return service_address("no-reply", base_url)


def service_address(local: str, base_url: str) -> str:
    """An address of the service's own mail domain (the host of BASE_URL): `local`@<that host>."""
    return f"{local}@{sender_domain(base_url)}"


def compose(message: Message, from_address: str) -> EmailMessage:
    """The RFC 5322 message: multipart/alternative, text first, then the HTML part.

    Raises MailRejected when the message cannot be written as mail at all (a header with
    a line break, an address that does not parse): no server would ever take it.
    """
    try:
        mail = EmailMessage(policy=email.policy.default)
        if message.from_name:
            mail["From"] = email.utils.formataddr((message.from_name, email.utils.parseaddr(from_address)[1]))
        else:
            mail["From"] = from_address
        mail["To"] = message.to
        mail["Subject"] = message.subject
        mail["Date"] = email.utils.format_datetime(datetime.now(UTC))
        mail["Message-ID"] = message.message_id or email.utils.make_msgid(
            domain=from_address.rpartition("@")[2].strip("[]") or None)
        if message.in_reply_to:
            mail["In-Reply-To"] = message.in_reply_to
        if message.references:
            mail["References"] = " ".join(message.references)
        if message.reply_to:
            mail["Reply-To"] = message.reply_to
        if message.auto_submitted:
            # RFC 3834: tells vacation responders not to answer a no-reply address.
            mail["Auto-Submitted"] = "auto-generated"
        mail.set_content(message.text)
        mail.add_alternative(message.html, subtype="html")
        return mail
    except (ValueError, TypeError, IndexError) as exc:
        raise MailRejected(f"the message cannot be written as mail: {type(exc).__name__}") from None


def wire_policy(mail: EmailMessage) -> email.policy.Policy:
    """CRLF line endings; raw UTF-8 headers (RFC 6532) only when an address itself is not
    ASCII: a display name or a subject can be encoded-words instead."""
    addresses = [a.addr_spec for field in ("From", "To") for a in mail[field].addresses]
    return email.policy.SMTP.clone(utf8=not all(a.isascii() for a in addresses))


_mailers: dict[tuple, Mailer] = {}
_mailers_guard = threading.Lock()


def get_mailer(settings) -> Mailer:
    """OutboxMailer(settings.outbox_dir) when settings.smtp_url is None, else SmtpMailer(settings.smtp_url). One instance per process per configuration (cache it)."""
    # Imported here: both modules import Message and the exceptions from this package.
    from integrations.mail.outbox import OutboxMailer
    from integrations.mail.smtp import SmtpMailer

    from_address = default_from_address(settings.base_url)
    key = (settings.smtp_url, None if settings.smtp_url else settings.outbox_dir, from_address)
    with _mailers_guard:
        mailer = _mailers.get(key)
        if mailer is None:
            if settings.smtp_url is None:
                mailer = OutboxMailer(settings.outbox_dir, from_address=from_address)
            else:
                mailer = SmtpMailer(settings.smtp_url, from_address=from_address)
            _mailers[key] = mailer
        return mailer


__all__ = ["Message", "MailUnavailable", "MailRejected", "Mailer", "get_mailer", "compose", "default_from_address",
           "sender_domain", "service_address"]
