"""Writing with the AI from a job: one retry policy for every caller.

A backend that cannot be reached (ai.errors.TRANSIENT) is raised as TransientError, so the
job runner tries the job again: a job that writes with the AI is created with ATTEMPTS
and its actor declared with RETRY_DELAYS (integrations/ai/__init__.py says why). Any
other AIError is the caller's to turn into its refusal or failure.
"""
from __future__ import annotations

import time

from integrations import ai
from models.job import Job
from services.errors import Refused, TransientError
from services.jobs import wait_for_job

ATTEMPTS = ai.ATTEMPTS
RETRY_DELAYS = ai.RETRY_DELAYS


def write(task: ai.Task) -> ai.Answer:
    """ai.complete, with an unreachable backend raised as TransientError (the job tries again)."""
    try:
        return ai.complete(task)
    except ai.AIError as exc:
        if exc.transient:
            # The job row keeps this as its error: it starts with the reason (see gave_up_on).
            raise TransientError(f"{exc.reason}: {exc.detail}") from None
        raise


def gave_up_on(error: str | None) -> str:
    """The AI error kind a failed job ended on (its row's error): UNAVAILABLE when its
    attempts were spent on a backend that could not be reached, else FAILED."""
    return ai.errors.UNAVAILABLE if (error or "").startswith(ai.errors.UNAVAILABLE) else ai.errors.FAILED


def wait(job_id: str, *, seconds: float):
    """The AI job's row once it finished, or as last read after `seconds` (real time).

    A job queued again after an attempt (its backend could not be reached) was taken by a
    worker, so the early answer for a queue no worker reads does not apply: the wait goes
    on to the deadline through the retries."""
    deadline = time.monotonic() + seconds
    done = wait_for_job(job_id, seconds=seconds)
    while done is not None and done.status == Job.QUEUED and done.attempt and time.monotonic() < deadline:
        left = deadline - time.monotonic()
        done = wait_for_job(job_id, seconds=left, no_worker_grace=left)
    return done


def finished(job_id: str, *, seconds: float, unavailable: str, failed: str) -> dict:
    """What the AI job answered, for a route that waits on it; raises its refusal: the job's own
    ({refused: {reason, explanation}}), 200 cli_unavailable with `unavailable` when its tries were
    spent on a backend that could not be reached, and cli_failed with `failed` when it failed or
    did not finish in time."""
    done = wait(job_id, seconds=seconds)
    if done is not None and done.status == Job.FAILED and gave_up_on(done.error) == ai.errors.UNAVAILABLE:
        raise Refused("cli_unavailable", unavailable)
    if done is None or done.status != Job.DONE:
        raise Refused("cli_failed", failed)
    outcome = done.result or {}
    if "refused" in outcome:
        raise Refused(**outcome["refused"])
    return outcome
