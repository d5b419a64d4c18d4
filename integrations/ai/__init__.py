"""The AI backend seam: every AI-written piece of copy goes through complete().

A feature registers a Kind of writing (kinds.register: its schema, the prompt's task, its
offline writer and what is done with an answer), builds a Task (its kind and the Facts
the copy may rest on) and gets an Answer. AI_BACKEND picks the Backend that writes it;
each answers the same protocol, `write(task) -> dict`:

- `offline` (default): the kind's offline writer (offline.py), no network;
- `openai`: an OpenAI-compatible chat-completions server (openai_compat.py, the SDK);
- `command`: a program given the prompt on stdin (command.py).

The seam checks every answer against the kind's schema (schemas.py); one that is not one
JSON object of it is asked for once more, with what was wrong in the prompt, and a
second bad answer raises AIError(INVALID_OUTPUT). Then the kind's `finish` runs: by
default every sentence the facts cannot back is removed and listed in `dropped`
(claims.py); a kind read by shoppers (store_copy here; ad_copy, page_copy) is backed by
the facts without the seller's research (claims.public_backing), so a research figure
never reaches a public page; a kind whose answer is the founder's own words (store_edit)
keeps it whole and checks it itself. Neither the prompt nor the key is ever logged.

Errors (errors.py) and the one retry policy: a backend that cannot be reached or started
raises AIError(UNAVAILABLE), which is transient: every job that writes with the AI (a
store build, its publish, an edit) turns it into a retry (services/ai_tasks.py), ATTEMPTS
runs in all, RETRY_DELAYS seconds apart, and when they are spent the job fails with
cli_unavailable. A backend that answered with an error or too late raises AIError(FAILED)
and a twice-invalid answer AIError(INVALID_OUTPUT): neither is retried (the same request
would fail the same way, and a founder waiting on an edit is told at once).
"""
from __future__ import annotations

import dataclasses
import logging
import time

from config import get_settings
from integrations.ai import claims, errors, offline, schemas
from integrations.ai.command import CommandBackend
from integrations.ai.errors import INVALID_OUTPUT, AIError, InvalidOutput
from integrations.ai.kinds import as_written, kind_of, register
from integrations.ai.offline import OfflineBackend
from integrations.ai.openai_compat import OpenAIBackend
from integrations.ai.task import Answer, Backend, Facts, Kind, Task

__all__ = ["AIError", "ATTEMPTS", "Answer", "Backend", "Facts", "Kind", "RETRY_DELAYS", "Task", "as_written",
           "backend_for", "backend_name", "backed_copy", "complete", "errors", "register", "unbacked"]

log = logging.getLogger("ai")

ATTEMPTS = 3  # runs of a job whose backend could not be reached, in all
RETRY_DELAYS = (2, 10)  # seconds before the second and the third
BACKENDS = {"offline": OfflineBackend, "openai": OpenAIBackend, "command": CommandBackend}


def _public_store_copy(copy: dict, task: Task) -> tuple[dict, list[dict]]:
    """The store_copy kind's finish: a store page is read by shoppers, so a sentence is
    backed by the facts without the seller's research (claims.public_backing) and one that
    quotes a research figure is dropped like an invented one, the offline writer's words
    standing in where a field would no longer validate."""
    return claims.filter_copy(copy, claims.public_backing(task.facts), offline.write_store_copy(task),
                              schemas.STORE_COPY)


register(Kind("store_copy", schemas.STORE_COPY,
              "Write the copy of the store page that sells this product. " + claims.SPEAK_TO_THE_BUYER,
              offline=offline.write_store_copy, finish=_public_store_copy))


def backend_name(settings=None) -> str:
    """Names the backend that complete() uses with these settings (offline, openai or command)."""
    return (settings or get_settings()).ai_backend


def backend_for(settings=None) -> Backend:
    """The Backend AI_BACKEND names."""
    name = backend_name(settings)
    if name not in BACKENDS:
        raise ValueError(f"unknown AI backend {name!r}")
    return BACKENDS[name](settings or get_settings())


def complete(task: Task, *, settings=None) -> Answer:
    """Writes the task's copy with the configured backend: valid against its kind's schema, finished as the kind says."""
    kind = kind_of(task.kind)
    backend = backend_for(settings)
    started = time.monotonic()
    written, attempts = _ask(backend, task, kind)
    copy, dropped = (kind.finish or _backed)(written, task)
    problems = schemas.validate(copy, kind.schema)
    if problems:  # the finish keeps the copy valid; this guards that promise
        raise AIError(INVALID_OUTPUT, "the finished copy does not follow the schema: " + "; ".join(problems))
    log.info("ai copy written", extra={"fields": {
        "backend": backend.name, "kind": task.kind, "attempts": attempts, "dropped": len(dropped),
        "seconds": round(time.monotonic() - started, 3)}})
    return Answer(copy=copy, dropped=dropped, backend=backend.name)


def _ask(backend: Backend, task: Task, kind: Kind) -> tuple[dict, int]:
    """The backend's answer as a valid object, asking a second time if the first is not one
    (or fails the kind's own check)."""
    for attempt in (1, 2):
        try:
            written = backend.write(task)
            problems = schemas.validate(written, kind.schema)
            # The offline writers read whole by construction (and carry out the founder's exact
            # words); a model's rewrite is held to the same by the kind's check, and asked again.
            if not problems and kind.check is not None and backend.name != "offline":
                problems = kind.check(written, task)
            if problems:
                raise InvalidOutput("; ".join(problems))
            return written, attempt
        except InvalidOutput as exc:
            task = dataclasses.replace(task, previous_error=str(exc))
            log.warning("ai answer refused", extra={"fields": {
                "backend": backend.name, "kind": task.kind, "attempt": attempt, "problem": str(exc)[:300]}})
        except AIError as exc:
            log.warning("ai backend failed", extra={"fields": {
                "backend": backend.name, "kind": task.kind, "reason": exc.reason, "detail": exc.detail}})
            raise
    raise AIError(INVALID_OUTPUT, f"two answers did not follow the schema; the last: {task.previous_error}")


def _backed(copy: dict, task: Task) -> tuple[dict, list[dict]]:
    """The default finish: the copy without the sentences the facts cannot back, the kind's
    offline writer standing in for a field that would no longer validate."""
    kind = kind_of(task.kind)
    return claims.filter_copy(copy, task.facts, kind.offline(task), kind.schema)


def unbacked(copy: dict, facts: Facts, *, kind: str = "store_copy") -> list[dict]:
    """The sentences of stored copy that the facts no longer back (empty: all are backed).
    A store is checked with it before publishing: its product record may have changed
    since the copy was written."""
    schema = kind_of(kind).schema
    problems = schemas.validate(copy, schema)
    if problems:
        raise ValueError("the copy does not follow its schema: " + "; ".join(problems))
    _kept, dropped = claims.filter_copy(copy, facts, copy, schema)
    return dropped


def backed_copy(copy: dict, facts: Facts, *, kind: str = "store_copy") -> tuple[dict, list[dict]]:
    """Stored copy without the sentences the facts no longer back (the facts changed since it
    was written: a founder's own price or name), falling back to the kind's offline writer's
    words where a field would no longer validate; returns (copy, dropped)."""
    registered = kind_of(kind)
    return claims.filter_copy(copy, facts, registered.offline(Task(kind=kind, facts=facts)), registered.schema)
