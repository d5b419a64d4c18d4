"""GET /api/helpdesk reads what the polls filed and never reads the mailbox itself; the
clock's `poll_mail` entry (every MAIL_POLL_SECONDS) files the inbound mail, and the desk says
when the mailbox was last read (issue 46 point 7: polling belongs to the clock)."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from integrations.mail.inbound import InboundUnavailable
from models.clock import clock, utcnow
from models.job import Job
from services.desk import inbound
from tests.conftest import SETTINGS
from tests.factories import customer_mail, deliver, desk_founder


@pytest.fixture
def desk(founder, run_jobs):
    """A founder customers write to at support@knife-strip.shop."""
    run_jobs()
    return desk_founder(founder, run_jobs)


@pytest.fixture
def reads(monkeypatch):
    """Every time the mailbox is opened (the desk's mail source, recorded before it is made)."""
    opened = []
    real = inbound.source_for

    def recording(settings):
        opened.append(settings.inbound_maildir)
        return real(settings)

    monkeypatch.setattr(inbound, "source_for", recording)
    return opened


def helpdesk(client) -> dict:
    response = client.get("/api/helpdesk")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def clock_polls_the_mail(broker, run_jobs) -> None:
    """What the clock does every MAIL_POLL_SECONDS: fires its `poll_mail` entry; a worker runs it."""
    from workers.clock import schedule

    [entry] = [e for e in schedule(SETTINGS) if e.name == "poll_mail"]
    assert entry.seconds == SETTINGS.mail_poll_seconds
    entry.fire(broker)
    run_jobs()


def test_opening_the_desk_reads_no_mailbox_and_starts_no_poll(desk, run_jobs, reads):
    deliver(customer_mail(message_id="<waiting@example.net>"))
    first = helpdesk(desk)
    run_jobs()  # anything the request sent has run
    assert reads == []
    assert Job.select().where(Job.kind == inbound.MAIL_POLL).count() == 0
    assert helpdesk(desk)["tickets"] == [] and first["tickets"] == []


def test_the_clock_files_inbound_mail_and_the_desk_shows_it(desk, broker, run_jobs, reads):
    deliver(customer_mail(message_id="<clock@example.net>"))
    assert helpdesk(desk)["tickets"] == []

    clock_polls_the_mail(broker, run_jobs)
    body = helpdesk(desk)
    [ticket] = body["tickets"]
    assert ticket["messages"][0]["message_id"] == "<clock@example.net>"
    assert ticket["support_address"] == body["support_email"]
    assert len(reads) == 1  # the clock's poll; opening the desk read nothing
    [job] = Job.select().where(Job.kind == inbound.MAIL_POLL)
    assert job.status == Job.DONE and job.result["new_tickets"] == 1

    mail = body["mail"]
    assert mail["checked"] is True and mail["every_seconds"] == SETTINGS.mail_poll_seconds
    checked_at = datetime.fromisoformat(mail["checked_at"].removesuffix("Z"))
    assert abs(checked_at - job.finished_at) < timedelta(seconds=1)


def test_the_desk_says_when_the_mailbox_was_not_read_lately(desk, broker, run_jobs, monkeypatch):
    before = helpdesk(desk)["mail"]
    assert before == {"checked": False, "checked_at": None, "every_seconds": SETTINGS.mail_poll_seconds}

    clock_polls_the_mail(broker, run_jobs)
    assert helpdesk(desk)["mail"]["checked"] is True
    # Two periods later with no poll since (the clock or the workers stopped): not read lately.
    clock.freeze(utcnow() + timedelta(seconds=2 * SETTINGS.mail_poll_seconds + 5))
    stale = helpdesk(desk)["mail"]
    assert stale["checked"] is False and stale["checked_at"] is not None
    clock.reset()

    # A poll that could not open the mailbox finished, but read nothing.
    def unavailable(settings):
        raise InboundUnavailable("the mailbox is away")

    monkeypatch.setattr(inbound, "source_for", unavailable)
    clock_polls_the_mail(broker, run_jobs)
    assert Job.select().where(Job.kind == inbound.MAIL_POLL).count() == 2
    failed_read = helpdesk(desk)["mail"]
    assert failed_read["checked"] is False and failed_read["checked_at"] is not None
