"""The built-in mailer: each message becomes one .eml file in a folder, and a log line.

This is what `make run` and the tests use. The files are standard RFC 5322 messages
(any mail client opens them), written under a temporary name and renamed into place, so
a reader listing `*.eml` never sees half a message. The INFO line on the `outbox` logger
carries the links of the text part: in embedded and dev mode that line is how a founder
gets the sign-in link, so it is the one place in the service where a link may be logged.
"""
from __future__ import annotations

import logging
import os
import re
import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from integrations.mail import MailUnavailable, Message, compose, default_from_address, wire_policy

log = logging.getLogger("outbox")

# http(s) URLs in plain text; punctuation that ends a sentence is not part of the link.
_LINK = re.compile(r"https?://[^\s<>\"'`]+")
_TRAILING = ".,;:!?)]}"


def links_in(text: str) -> list[str]:
    """The http(s) URLs in a text, in order, each once."""
    found = []
    for match in _LINK.finditer(text):
        link = match.group(0).rstrip(_TRAILING)
        if link not in found:
            found.append(link)
    return found


class OutboxMailer:
    def __init__(self, directory: str | os.PathLike, from_address: str | None = None):
        self.directory = Path(directory)
        if from_address is None:
            from config import get_settings

            from_address = default_from_address(get_settings().base_url)
        self.from_address = from_address

    def send(self, message: Message) -> None:
        """Writes the message to the outbox as one .eml file and logs its links."""
        mail = compose(message, self.from_address)
        data = mail.as_bytes(policy=wire_policy(mail))
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        path = self.directory / f"{stamp}-{secrets.token_hex(4)}.eml"
        try:
            self._write(path, data)
        except OSError as exc:
            log.warning("mail not written to outbox", extra={"fields": {
                "to": message.to, "dir": str(self.directory), "error": f"{type(exc).__name__}: {exc.strerror or exc}"}})
            raise MailUnavailable(f"the outbox {self.directory} is not writable") from None
        log.info("mail written to outbox", extra={"fields": {
            "to": message.to, "subject": message.subject, "file": str(path), "links": links_in(message.text)}})

    def accepting(self) -> bool:
        """True when the outbox folder exists (or can be made) and a file can be created in it."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # A real probe rather than os.access: it also tells the truth for root, for a
            # read-only mount and for a full disk's inode table.
            with tempfile.TemporaryFile(dir=self.directory):
                pass
            return True
        except OSError:
            return False

    def _write(self, path: Path, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        # The temporary name starts with a dot and does not end in .eml: invisible to readers.
        # mkstemp makes the file 0600, which it keeps: the messages carry sign-in links.
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, path)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
