"""Sending jobs: only after the transaction that created the row has committed."""
from __future__ import annotations

import logging

from models.db import db, transaction
from models.job import Job
from services.jobs import create_job, note_sent
from workers.broker import broker, broker_status, enqueue_first, queue_depths  # noqa: F401  (the api reads these here)

log = logging.getLogger("jobs")


class SendInsideTransaction(RuntimeError):
    """A job was sent before its row committed; a worker could pick it up and not find it."""


def send(job: Job, *, delay_ms: int | None = None, first: bool = False) -> bool:
    """Puts the job's message on its actor's queue (at its head with `first`, for a job
    handed back by a stopping worker). Returns False when the broker could not be reached:
    the row stays queued and the stale-job reaper sends it again later."""
    if db.in_transaction():
        raise SendInsideTransaction(f"job {job.kind} sent inside an open transaction; send after commit")
    actor = broker.get_actor(job.kind)
    try:
        if first:
            enqueue_first(broker, actor.message_with_options(args=(job.id,)))
        else:
            actor.send_with_options(args=(job.id,), delay=delay_ms)
        note_sent(job.id, True)
        return True
    except Exception:
        log.warning("job not sent; the reaper will resend it", exc_info=True,
                    extra={"fields": {"job_id": job.id, "actor": job.kind}})
        note_sent(job.id, False)
        return False


def send_all(jobs) -> None:
    """Sends each job a service created (None stands for "nothing new to send")."""
    for job in jobs:
        if job is not None:
            send(job)


def start(*, kind: str, subject: str, payload: dict | None = None, max_attempts: int = 3) -> Job:
    """Creates a job (or finds the active one for the same kind and subject) and sends it
    if it is new. For jobs that must commit with other writes, call services.jobs.create_job
    inside that transaction and `send` after it."""
    broker.get_actor(kind)  # fail fast on a kind no actor handles
    with transaction():
        job, created = create_job(kind=kind, subject=subject, payload=payload, max_attempts=max_attempts)
    if created:
        send(job)
    return job
