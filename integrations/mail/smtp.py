"""The SMTP mailer: one connection per message, through the standard library.

SMTP_URL is `smtp://[user[:password]@]host[:port]` (port 25; STARTTLS when the server
offers it) or `smtps://…` (TLS from the first byte; port 465). User and password may be
percent-encoded.

What a failure means to the caller:
- the server could not be reached, timed out, hung up, or answered 4xx: MailUnavailable
  (the message is fine, try again later);
- the server answered 5xx to the message itself (MAIL FROM, RCPT TO, DATA): MailRejected
  (trying again will not help);
- the session could not be set up (greeting, EHLO, STARTTLS, AUTH refused, wrong
  password, or a 530/534/535/538 "authentication required" answer later): MailUnavailable, because the fault is the deployment's, not the message's,
  and the message should go out once the configuration is fixed. `accepting()` says False
  meanwhile, so `email_sent` stays honest.

Credentials travel only inside TLS (STARTTLS or smtps), except to a loopback relay, where
they never leave the machine. Certificates are verified against the system's authorities,
except on loopback (a local relay's self-signed certificate protects nothing there that
verification would add). Neither the password nor a message body is ever logged.
"""
from __future__ import annotations

import email.utils
import ipaddress
import logging
import smtplib
import ssl
import threading
import time
from contextlib import contextmanager
from urllib.parse import unquote, urlsplit

from integrations.mail import MailRejected, MailUnavailable, Message, compose, default_from_address

log = logging.getLogger("mail")

_AUTH_CODES = {530, 534, 535, 538}


class _SetupFailed(Exception):
    """The session could not be made ready for a message (the mailer is unusable now)."""


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def credentials_allowed(host: str, tls: bool) -> bool:
    """Whether a password may be sent on this connection: inside TLS, or to this machine."""
    return tls or is_loopback(host)


class SmtpMailer:
    def __init__(self, url: str, *, from_address: str | None = None, timeout: float = 10.0,
                 probe_timeout: float = 3.0, cache_seconds: float = 30.0, monotonic=time.monotonic):
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("SMTP_URL must be smtp://[user[:password]@]host[:port] or smtps://…")
        self.implicit_tls = parts.scheme == "smtps"
        self.host = parts.hostname
        self.port = parts.port or (465 if self.implicit_tls else 25)
        self._user = unquote(parts.username) if parts.username else None
        self._password = unquote(parts.password) if parts.password else ""
        if from_address is None:
            from config import get_settings

            from_address = default_from_address(get_settings().base_url)
        self.from_address = from_address
        self._envelope_from = email.utils.parseaddr(from_address)[1] or from_address
        self._ehlo_name = self._envelope_from.rpartition("@")[2] or "localhost"
        self.timeout = timeout
        self.probe_timeout = probe_timeout
        self.cache_seconds = cache_seconds
        self._monotonic = monotonic
        self._tls = ssl.create_default_context()
        if is_loopback(self.host):
            self._tls.check_hostname = False
            self._tls.verify_mode = ssl.CERT_NONE
        self._state_lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self._accepting: bool | None = None
        self._accepting_until = 0.0

    def __repr__(self) -> str:
        user = f"{self._user}:***@" if self._user else ""
        return f"SmtpMailer({'smtps' if self.implicit_tls else 'smtp'}://{user}{self.host}:{self.port})"

    @property
    def server(self) -> str:
        return f"{self.host}:{self.port}"

    def send(self, message: Message) -> None:
        """Delivers the message to the SMTP server in one connection."""
        mail = compose(message, self.from_address)
        recipients = [address.addr_spec for address in mail["To"].addresses]
        if not recipients:
            raise MailRejected("the message has no recipient address")
        try:
            with self._session(self.timeout) as smtp:
                try:
                    smtp.send_message(mail, from_addr=self._envelope_from, to_addrs=recipients)
                except smtplib.SMTPRecipientsRefused as exc:
                    code, reply = next(iter(exc.recipients.values()))
                    raise self._answered(message, code, reply) from None
                except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
                    raise self._answered(message, exc.smtp_code, exc.smtp_error) from None
                except smtplib.SMTPNotSupportedError:
                    # An internationalised address to a server without SMTPUTF8.
                    self._failed(message, "rejected", "the server does not support SMTPUTF8")
                    raise MailRejected("the server cannot take mail for this address (no SMTPUTF8)") from None
        except _SetupFailed as exc:
            self._remember(False)
            self._failed(message, "unavailable", str(exc))
            raise MailUnavailable(f"the mail server {self.server} is not usable now") from None
        except (MailUnavailable, MailRejected):
            raise
        except (smtplib.SMTPException, OSError) as exc:
            # Disconnections, timeouts and refused connections (SMTPException is an OSError).
            self._remember(False)
            self._failed(message, "unavailable", _describe(exc))
            raise MailUnavailable(f"the mail server {self.server} could not be reached") from None
        self._remember(True)
        log.info("mail sent", extra={"fields": {"to": message.to, "server": self.server}})

    def accepting(self) -> bool:
        """Whether the server takes a session now; the answer is kept for cache_seconds."""
        cached = self._cached()
        if cached is not None:
            return cached
        # One probe at a time: the others wait for its answer rather than all dialling out.
        with self._probe_lock:
            cached = self._cached()
            if cached is not None:
                return cached
            try:
                with self._session(self.probe_timeout) as smtp:
                    code, _ = smtp.noop()
                answer = code == 250
                problem = f"NOOP answered {code}"
            except (_SetupFailed, smtplib.SMTPException, OSError) as exc:
                answer = False
                problem = str(exc) if isinstance(exc, _SetupFailed) else _describe(exc)
            if not answer:
                log.warning("mailer not accepting", extra={"fields": {"server": self.server, "error": problem}})
            self._remember(answer)
            return answer

    def _cached(self) -> bool | None:
        with self._state_lock:
            if self._accepting is not None and self._monotonic() < self._accepting_until:
                return self._accepting
            return None

    def _remember(self, answer: bool) -> None:
        with self._state_lock:
            self._accepting = answer
            self._accepting_until = self._monotonic() + self.cache_seconds

    @contextmanager
    def _session(self, timeout: float):
        """A connection that has greeted, said EHLO, switched to TLS if it can and logged
        in if it must. Anything failing before the message starts raises _SetupFailed."""
        try:
            if self.implicit_tls:
                smtp = smtplib.SMTP_SSL(self.host, self.port, local_hostname=self._ehlo_name,
                                        timeout=timeout, context=self._tls)
            else:
                smtp = smtplib.SMTP(self.host, self.port, local_hostname=self._ehlo_name, timeout=timeout)
        except smtplib.SMTPConnectError as exc:
            raise _SetupFailed(f"greeting refused: {_describe(exc)}") from None
        except OSError as exc:
            raise _SetupFailed(f"cannot connect: {_describe(exc)}") from None
        done = False
        try:
            self._prepare(smtp)
            yield smtp
            done = True
        finally:
            if done:
                try:
                    smtp.quit()
                except (smtplib.SMTPException, OSError):
                    smtp.close()
            else:
                # After a failure the connection may be half dead; QUIT could wait a whole timeout.
                smtp.close()

    def _prepare(self, smtp: smtplib.SMTP) -> None:
        try:
            smtp.ehlo_or_helo_if_needed()
            tls = self.implicit_tls
            if not tls and smtp.has_extn("starttls"):
                smtp.starttls(context=self._tls)
                smtp.ehlo()
                tls = True
        except (smtplib.SMTPException, OSError) as exc:
            raise _SetupFailed(f"session setup failed: {_describe(exc)}") from None
        if self._user is None:
            return
        if not credentials_allowed(self.host, tls):
            raise _SetupFailed("the server offers no TLS; the password is not sent in clear to another host")
        try:
            smtp.login(self._user, self._password)
        except (smtplib.SMTPException, OSError) as exc:
            # SMTPAuthenticationError carries the server's reply, never what we sent.
            raise _SetupFailed(f"login failed: {_describe(exc)}") from None

    def _answered(self, message: Message, code: int, reply: bytes | str) -> Exception:
        """The exception for an SMTP reply to the message: 4xx try later, 5xx never."""
        detail = f"{code} {_text(reply)}"
        if code in _AUTH_CODES:
            # "Authentication required" and friends (RFC 4954): the deployment's fault.
            self._remember(False)
            self._failed(message, "unavailable", detail)
            return MailUnavailable(f"the mail server wants other credentials: {detail}")
        if 500 <= code < 600:
            self._failed(message, "rejected", detail)
            return MailRejected(f"the mail server refused the message: {detail}")
        # 4xx, and any reply outside the standard ranges: the message may still go later.
        if code == 421:  # the server is shutting its doors, not just refusing this message
            self._remember(False)
        self._failed(message, "unavailable", detail)
        return MailUnavailable(f"the mail server cannot take the message now: {detail}")

    def _failed(self, message: Message, outcome: str, error: str) -> None:
        log.warning("mail not sent", extra={"fields": {
            "to": message.to, "server": self.server, "outcome": outcome, "error": error}})


def _text(reply: bytes | str) -> str:
    if isinstance(reply, bytes):
        reply = reply.decode("utf-8", "replace")
    return " ".join(reply.split())[:200]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPResponseException):
        return f"{exc.smtp_code} {_text(exc.smtp_error)}"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{type(exc).__name__}: {exc.strerror}"
    return f"{type(exc).__name__}: {_text(str(exc))}" if str(exc) else type(exc).__name__
