"""Reading mail: the support desk's inbound mailbox, a Maildir folder or an IMAP mailbox.

A source answers the messages not read yet, as raw bytes under a key of its own, and is
told afterwards which of them are done: `mark_read` is called only after the messages'
tickets are committed, so a poll that dies half-way leaves them unread and the next poll
takes them again (the desk's unique index on owner and Message-ID keeps that from making
a second ticket). Two polls may read the same messages at once; both sources tolerate a
message another poll marked first.

- MaildirSource (INBOUND_MAILDIR, the default): the standard library's mailbox.Maildir.
  Unread mail is what sits in new/; reading it moves the file to cur/ with the Seen flag,
  as every Maildir reader does (one rename, atomic; the poll that loses the race finds
  the file gone and lets it be).
  The folder is local to its host unless it is a mount every host shares: with workers on
  several hosts, mail delivered into one host's folder is read only by that host's workers,
  so a shared folder is declared (INBOUND_DIR_SHARED) and health warns about local ones.
- ImapSource (IMAP_URL): imap-tools. UNSEEN messages are fetched with BODY.PEEK (which
  leaves them unseen) and flagged \\Seen in `mark_read`. The password is never logged:
  errors are reported with the URL's password hidden.
"""
from __future__ import annotations

import mailbox
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

IMAP_TIMEOUT_SECONDS = 20


@dataclass(frozen=True)
class InboundMail:
    key: str  # the source's own name for the message (a Maildir key, an IMAP UID)
    raw: bytes


class InboundUnavailable(Exception):
    """The mailbox could not be read now (connection refused, login failed, folder missing): try later."""


class InboundSource(Protocol):
    def unread(self, limit: int) -> list[InboundMail]: ...

    def mark_read(self, keys: list[str]) -> None: ...

    def close(self) -> None: ...


class MaildirSource:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            # create=True makes new/, cur/ and tmp/ when missing: an empty desk is not an error.
            self.box = mailbox.Maildir(self.path, factory=None, create=True)
        except OSError as exc:
            raise InboundUnavailable(f"the Maildir {self.path} cannot be opened: {exc.strerror or exc}") from None
        self._names: dict[str, str] = {}  # key -> its file name in new/, as `unread` found it

    def unread(self, limit: int) -> list[InboundMail]:
        """The messages in new/, oldest first (by file time), at most `limit`. Maildir's own
        listing mixes new/ and cur/ (and reads each file to tell them apart), so new/ is
        listed directly, as the Maildir format intends."""
        new = self.path / "new"
        try:
            entries = [entry for entry in os.scandir(new) if entry.is_file() and not entry.name.startswith(".")]
        except OSError as exc:
            raise InboundUnavailable(f"the Maildir {self.path} cannot be read: {exc.strerror or exc}") from None
        entries.sort(key=_mtime_then_name)
        found = []
        for entry in entries[:limit]:
            key = entry.name.split(self.box.colon)[0]
            try:
                raw = (self.path / "new" / entry.name).read_bytes()
            except FileNotFoundError:
                continue  # another poll moved it to cur/ meanwhile
            self._names[key] = entry.name
            found.append(InboundMail(key=key, raw=raw))
        return found

    def mark_read(self, keys: list[str]) -> None:
        """Moves each message from new/ to cur/, flagged Seen (Maildir's "2,S" info)."""
        for key in keys:
            name = self._names.pop(key, None)
            if name is None:
                continue
            try:
                os.rename(self.path / "new" / name, self.path / "cur" / f"{key}{self.box.colon}2,S")
            except FileNotFoundError:
                continue  # the other poll moved it first

    def close(self) -> None:
        self.box.close()


def _mtime_then_name(entry: os.DirEntry) -> tuple[float, str]:
    try:
        return entry.stat().st_mtime, entry.name
    except OSError:
        return 0.0, entry.name


class ImapSource:
    def __init__(self, url: str, *, timeout: float = IMAP_TIMEOUT_SECONDS):
        from imap_tools import MailBox, MailBoxUnencrypted

        parts = urlsplit(url)
        self.shown = redacted(url)
        folder = unquote(parts.path.lstrip("/")) or "INBOX"
        try:
            if parts.scheme == "imaps":
                box = MailBox(parts.hostname, parts.port or 993, timeout=timeout)
            else:  # imap://, loopback only (config.py refuses it for another host)
                box = MailBoxUnencrypted(parts.hostname, parts.port or 143, timeout=timeout)
            self.box = box.login(unquote(parts.username or ""), unquote(parts.password or ""), initial_folder=folder)
        except Exception as exc:  # refused, timed out, bad login, no such folder: all "not now"
            raise InboundUnavailable(f"the mailbox {self.shown} cannot be read: {_said(exc, parts.password)}") from None

    def unread(self, limit: int) -> list[InboundMail]:
        """The UNSEEN messages, oldest first, at most `limit`; fetched with BODY.PEEK, so they stay unseen."""
        from imap_tools import AND

        try:
            messages = self.box.fetch(AND(seen=False), mark_seen=False, limit=limit, bulk=True)
            return [InboundMail(key=message.uid, raw=message.obj.as_bytes()) for message in messages if message.uid]
        except Exception as exc:
            raise InboundUnavailable(f"the mailbox {self.shown} cannot be read: {_said(exc)}") from None

    def mark_read(self, keys: list[str]) -> None:
        from imap_tools import MailMessageFlags

        if not keys:
            return
        try:
            self.box.flag(keys, MailMessageFlags.SEEN, True)
        except Exception as exc:
            raise InboundUnavailable(f"the mailbox {self.shown} cannot be marked: {_said(exc)}") from None

    def close(self) -> None:
        try:
            self.box.logout()
        except Exception:  # the connection is going away either way
            pass


def _said(exc: Exception, secret: str | None = None) -> str:
    text = f"{type(exc).__name__}: {exc}"[:300]
    return text.replace(secret, "***") if secret else text


def redacted(url: str) -> str:
    """The URL with its password hidden (for logs and errors)."""
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@", 1)
    return url


# What a worker reads, as its beat records it (services/health.py): IMAP, or a folder that is
# either declared shared by every host (INBOUND_DIR_SHARED) or local to the worker's host.
IMAP = "imap"
SHARED_FOLDER = "shared"
LOCAL_FOLDER = "local"


def source_name(settings) -> str:
    """"imap", or "shared:<folder>" / "local:<folder>" (the Maildir's absolute path)."""
    if settings.imap_url:
        return IMAP
    kind = SHARED_FOLDER if settings.inbound_dir_shared else LOCAL_FOLDER
    return f"{kind}:{os.path.abspath(settings.inbound_maildir)}"


def source_for(settings) -> InboundSource:
    """ImapSource when IMAP_URL is set, else the Maildir at INBOUND_MAILDIR; raises InboundUnavailable."""
    if settings.imap_url:
        return ImapSource(settings.imap_url)
    return MaildirSource(settings.inbound_maildir)


def deliver_to_maildir(path: str | os.PathLike, raw: bytes) -> str:
    """Delivers one message into a Maildir's new/ (what a mail server's local delivery does;
    the desk's own tests and the demo use it). Returns its key."""
    box = mailbox.Maildir(path, factory=None, create=True)
    try:
        return box.add(raw)
    finally:
        box.close()
