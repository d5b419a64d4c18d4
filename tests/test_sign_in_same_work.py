"""POST /api/login/request does the same work for a known and an unknown address (reliability
guide, "Sessions and sign-in"): the bodies are identical (tests/test_accounts.py), and so is
what the request does, so its timing cannot tell them apart: the same SQL statements in the
same order (counted by peewee's query hook on the real database, both backends), one
sign-in mail job created and sent in both cases, and no mail sent inside the request in
either; the job, later, mails the known address alone. How long each kind takes is measured,
not tested: bench/signin_timing_bench.py."""
from __future__ import annotations

import re
import sys

import jobs.send  # noqa: F401  (the module, read from sys.modules: the package's `send` shadows it)
from integrations.mail.outbox import OutboxMailer
from models.job import Job
from services.accounts import SIGN_IN_MAIL
from tests.factories import new_account, statements
from tests.mailbox import messages_to

KNOWN, UNKNOWN = "known-timing@example.com", "unknown-timing@example.com"


def recording(monkeypatch) -> dict:
    """From now on, records the jobs sent and the mails handed to the mailer (the outbox's,
    the suite's mailer; a recorded mail is not written)."""
    seen = {"sent": [], "mailed": []}
    module = sys.modules["jobs.send"]
    send = module.send

    def recorded_send(job, **options):
        seen["sent"].append(job.kind)
        return send(job, **options)

    def recorded_mail(mailer, message):
        seen["mailed"].append(message)

    monkeypatch.setattr(module, "send", recorded_send)
    monkeypatch.setattr(OutboxMailer, "send", recorded_mail)
    return seen


def request_link(client, email, work) -> dict:
    """One link request from a browser whose session exists already (the cookie is issued
    outside the counted request, as a returning browser has it); what it did."""
    client.get("/api/health")
    work["sent"].clear()
    work["mailed"].clear()
    with statements() as seen:
        response = client.post("/api/login/request", json={"email": email})
    assert response.status_code == 200, response.get_data(as_text=True)
    return {"body": response.get_data(), "statements": [shape(sql) for sql in seen],
            "sent": list(work["sent"]), "mailed": list(work["mailed"])}


def shape(sql: str) -> str:
    """The statement with its literals (and peewee's random savepoint names) made placeholders:
    what it does, not to whom."""
    return re.sub(r"'[^']*'|\b\d+\b|\"s[0-9a-f]{32}\"", "?", sql)


def test_a_known_and_an_unknown_address_cost_the_request_the_same_statements_and_one_job(
        founder, run_jobs, worker, monkeypatch):
    new_account(founder, run_jobs, KNOWN)
    work = recording(monkeypatch)
    worker.pause()  # the jobs wait in the queue: whatever a request does, it does itself
    try:
        # Twice each, interleaved, so a first request's warm-up would show as a difference.
        answers = [request_link(founder(), email, work) for email in (KNOWN, UNKNOWN, UNKNOWN, KNOWN)]
        queued = Job.select().where(Job.kind == SIGN_IN_MAIL, Job.status == Job.QUEUED)
        assert sorted(job.payload["email"] for job in queued) == sorted([KNOWN, UNKNOWN, UNKNOWN, KNOWN])
    finally:
        worker.resume()
    known, unknown = answers[0], answers[1]
    assert known["body"] == unknown["body"]
    assert known["statements"] == unknown["statements"] and known["statements"]
    assert answers[2]["statements"] == answers[3]["statements"] == known["statements"]
    assert all(answer["sent"] == [SIGN_IN_MAIL] for answer in answers)
    assert all(answer["mailed"] == [] for answer in answers)


def test_the_job_mails_the_known_address_and_nothing_for_the_unknown(founder, run_jobs, worker):
    new_account(founder, run_jobs, KNOWN)
    mails_before = len(messages_to(KNOWN))
    worker.pause()
    try:
        for email in (KNOWN, UNKNOWN):
            assert founder().post("/api/login/request", json={"email": email}).status_code == 200
        assert len(messages_to(KNOWN)) == mails_before  # nothing mailed by the requests themselves
    finally:
        worker.resume()
    run_jobs()
    assert len(messages_to(KNOWN)) == mails_before + 1
    assert messages_to(UNKNOWN) == []
    assert Job.select().where(Job.kind == SIGN_IN_MAIL, Job.status == Job.DONE).count() == 3  # the account's own too
