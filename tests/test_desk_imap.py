"""The desk's IMAP reader against a real IMAP server: Dovecot from Debian's packages
(dovecot-imapd; .ci/run installs it), started by this module with a configuration of its own
in a temporary folder (a test user, plaintext login on a 127.0.0.1-only listener, no TLS), so
it needs no system service and two test runs never share a mailbox. Mail is delivered with
IMAP APPEND and polled into tickets: UNSEEN read, flagged \\Seen only once its tickets are
committed, each message once under two concurrent polls, and the password never logged.

Without Dovecot the module fails in CI (CI=true): an IMAP reader nobody ran is not tested. On
a developer's machine without it, it is skipped with the command that installs it."""
from __future__ import annotations

import logging
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from models.desk import Ticket, TicketMessage
from services.desk import inbound
from tests.factories import customer_mail, desk_founder
from tests.helpers import in_threads
from tests.redis_server import free_port

USER, PASSWORD = "desk", "imap-test-secret"


def dovecot_binary() -> str | None:
    found = shutil.which("dovecot") or "/usr/sbin/dovecot"
    return found if Path(found).exists() else None


CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{root}/mail/%u
first_valid_uid = 1
default_internal_user = {internal}
default_login_user = {login}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_group} home={root}/mail/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


@pytest.fixture(scope="module")
def dovecot():
    """A Dovecot of this module's own on a free loopback port; yields the port."""
    binary = dovecot_binary()
    if binary is None:
        message = ("Dovecot is not installed: DEBIAN_FRONTEND=noninteractive apt-get install -y dovecot-imapd "
                   "(.ci/run does)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    root = Path(tempfile.mkdtemp(prefix="ff-dovecot-"))
    root.chmod(0o755)  # the mail user reads its mailbox under it
    if os.geteuid() == 0:
        internal, login, mail_user = "dovecot", "dovenull", "dovecot"
    else:  # a developer's own Dovecot runs as them
        internal = login = mail_user = pwd.getpwuid(os.geteuid()).pw_name
    group = pwd.getpwnam(mail_user).pw_gid
    for name in ("run", "state", "mail"):
        (root / name).mkdir()
    os.chown(root / "mail", pwd.getpwnam(mail_user).pw_uid, group)
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    port = free_port()
    (root / "dovecot.conf").write_text(CONFIG.format(root=root, port=port, internal=internal, login=login,
                                                     mail_user=mail_user, mail_group=group))
    # It forks into the background: its output goes to a file (a pipe would stay open).
    with open(root / "start.log", "w") as out:
        started = subprocess.run([binary, "-c", str(root / "dovecot.conf")], stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT, timeout=30)
    assert started.returncode == 0, (root / "start.log").read_text() + _log(root)
    deadline = time.monotonic() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "Dovecot did not listen: " + _log(root)
            time.sleep(0.1)
    yield port
    try:
        os.kill(int((root / "run" / "master.pid").read_text().strip()), signal.SIGTERM)
    except (OSError, ValueError):
        pass
    time.sleep(0.3)
    shutil.rmtree(root, ignore_errors=True)


def _log(root: Path) -> str:
    path = root / "dovecot.log"
    return path.read_text()[-2000:] if path.exists() else ""


@pytest.fixture
def imap(dovecot, settings_with):
    """The desk reads the Dovecot mailbox (IMAP_URL), emptied first; yields a logged-in client."""
    from imap_tools import MailBoxUnencrypted

    settings_with(imap_url=f"imap://{USER}:{PASSWORD}@127.0.0.1:{dovecot}/INBOX")
    box = MailBoxUnencrypted("127.0.0.1", dovecot, timeout=10).login(USER, PASSWORD)
    box.delete(box.uids("ALL"))
    yield box
    box.logout()


@pytest.fixture
def desk(founder, run_jobs):
    run_jobs()
    return desk_founder(founder, run_jobs)


def unseen(box) -> list[str]:
    box.client.noop()  # this session learns of the flags the desk's own session set
    return box.uids("UNSEEN")


def test_mail_appended_to_the_mailbox_becomes_tickets_and_is_marked_seen(imap, desk, run_jobs):
    from jobs import desk as desk_jobs

    imap.append(customer_mail(message_id="<imap-1@example.net>"), "INBOX")
    imap.append(customer_mail(subject="Return?", message_id="<imap-2@example.net>"), "INBOX")
    imap.append(customer_mail(to="sales@nobody-here.shop", message_id="<imap-3@example.net>"), "INBOX")
    assert len(unseen(imap)) == 3

    desk_jobs.poll_mail.send()  # what the clock sends every MAIL_POLL_SECONDS
    run_jobs()
    body = desk.get("/api/helpdesk").get_json()
    assert body["mail"]["checked"] is True
    assert sorted(t["subject"] for t in body["tickets"]) == ["Return?", "Where is my order?"]
    assert unseen(imap) == []  # all read, the unrouted one too
    assert inbound.poll()["read"] == 0

    # The customer answers our reply: the same ticket.
    ticket = next(t for t in body["tickets"] if t["subject"] == "Return?")
    reply = desk.post("/api/helpdesk", json={"action": "reply", "ticket_id": ticket["id"], "text": "Yes, 30 days."})
    our_id = reply.get_json()["message"]["message_id"]
    imap.append(customer_mail(subject="Re: Return?", text="Thanks", in_reply_to=our_id), "INBOX")
    inbound.poll()
    assert [m.direction for m in TicketMessage.select().where(TicketMessage.ticket == ticket["id"])
            .order_by(TicketMessage.id)] == ["in", "out", "in"]


def test_two_polls_at_once_take_each_message_once(imap, desk):
    for n in range(10):
        imap.append(customer_mail(subject=f"Question {n}", message_id=f"<imap-race-{n}@example.net>"), "INBOX")
    results = in_threads(2, lambda i: inbound.poll())
    assert sum(r["new_tickets"] for r in results) == 10 and all(r["error"] is None for r in results)
    assert Ticket.select().count() == 10 and TicketMessage.select().count() == 10
    assert unseen(imap) == []


def test_mail_stays_unseen_until_its_ticket_is_committed(imap, desk, monkeypatch):
    imap.append(customer_mail(), "INBOX")

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(inbound, "_file", broken)
    with pytest.raises(RuntimeError):
        inbound.poll()
    assert len(unseen(imap)) == 1
    monkeypatch.undo()
    assert inbound.poll()["new_tickets"] == 1 and unseen(imap) == []


def test_a_wrong_password_is_reported_and_never_logged(dovecot, settings_with, caplog):
    settings_with(imap_url=f"imap://{USER}:wrong-secret-here@127.0.0.1:{dovecot}/INBOX")
    with caplog.at_level(logging.INFO):
        result = inbound.poll()
    assert result["error"] and "***" in result["error"]
    assert "wrong-secret-here" not in result["error"] and "wrong-secret-here" not in caplog.text
