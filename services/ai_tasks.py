"""Writing with the AI from a job: one retry policy for every caller.

A backend that cannot be reached (ai.errors.TRANSIENT) is raised as TransientError, so the
job runner tries the job again: a job that writes with the AI is created with ATTEMPTS
and its actor declared with RETRY_DELAYS (integrations/ai/__init__.py says why). Any
other AIError is the caller's to turn into its refusal or failure.
"""
from __future__ import annotations

from integrations import ai
from services.errors import TransientError

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
