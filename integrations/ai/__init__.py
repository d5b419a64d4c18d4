"""The AI backend seam: every AI-written piece of copy goes through complete().

A feature builds a Task (its kind and the Facts the copy may rest on) and gets an Answer:
copy valid against the kind's schema (integrations/ai/schemas.py), with every sentence the
facts cannot back removed and listed in `dropped` (integrations/ai/claims.py). AI_BACKEND
picks who writes it:

- `offline` (default): the deterministic copywriter (offline.py), no network;
- `openai`: an OpenAI-compatible chat-completions server (openai_compat.py);
- `command`: a program given the prompt on stdin (command.py).

An openai or command answer that is not one JSON object of the schema is asked for once
more, with what was wrong appended to the prompt; a second bad answer raises
AIError("invalid_ai_output"). A backend that cannot be reached or fails raises AIError
with cli_unavailable or cli_failed at once: retrying later is the job's decision. Neither
the prompt nor the key is ever logged.
"""
from __future__ import annotations

import json
import logging
import re
import time

from config import get_settings
from integrations.ai import claims, command, offline, openai_compat, prompts, schemas
from integrations.ai.errors import INVALID_OUTPUT, AIError, InvalidOutput
from integrations.ai.task import Answer, Facts, Task

__all__ = ["AIError", "Answer", "Facts", "Task", "backend_name", "backed_copy", "complete", "unbacked"]

log = logging.getLogger("ai")

BACKENDS = {"openai": openai_compat.ask, "command": command.ask}
# A model may wrap its JSON in one Markdown fence despite being told not to; that much is forgiven.
FENCED = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL | re.IGNORECASE)


def backend_name(settings=None) -> str:
    """Names the backend that complete() uses with these settings (offline, openai or command)."""
    return (settings or get_settings()).ai_backend


def complete(task: Task, *, settings=None) -> Answer:
    """Writes the task's copy with the configured backend, validated and stripped of unbacked claims."""
    settings = settings or get_settings()
    backend = backend_name(settings)
    schema = schemas.schema_for(task.kind)
    started = time.monotonic()
    if task.kind == "store_edit":
        # An edit is the founder's request: it is not filtered sentence by sentence (the caller
        # refuses an edit whose wording the facts cannot back, and says which sentence).
        if backend == "offline":
            written, attempts = offline.write(task), 1
        elif backend in BACKENDS:
            written, attempts = _ask(BACKENDS[backend], task, schema, settings)
        else:
            raise ValueError(f"unknown AI backend {backend!r}")
        problems = schemas.validate(written, schema)
        if problems:
            raise AIError(INVALID_OUTPUT, "the edited copy does not follow the schema: " + "; ".join(problems))
        log.info("ai edit written", extra={"fields": {"backend": backend, "attempts": attempts,
                                                      "seconds": round(time.monotonic() - started, 3)}})
        return Answer(copy=written, dropped=[], backend=backend)
    fallback = offline.write(task)
    if backend == "offline":
        written, attempts = fallback, 1
    elif backend in BACKENDS:
        written, attempts = _ask(BACKENDS[backend], task, schema, settings)
    else:
        raise ValueError(f"unknown AI backend {backend!r}")
    copy, dropped = claims.filter_copy(written, task.facts, fallback, schema)
    problems = schemas.validate(copy, schema)
    if problems:  # the filter keeps the copy valid; this guards that promise
        raise AIError(INVALID_OUTPUT, "the filtered copy does not follow the schema: " + "; ".join(problems))
    log.info("ai copy written", extra={"fields": {
        "backend": backend, "kind": task.kind, "attempts": attempts, "dropped": len(dropped),
        "seconds": round(time.monotonic() - started, 3)}})
    return Answer(copy=copy, dropped=dropped, backend=backend)


def _ask(send, task: Task, schema: dict, settings) -> tuple[dict, int]:
    """The backend's answer as a valid object, asking a second time if the first is not one."""
    problem = None
    for attempt in (1, 2):
        try:
            return _parse(send(prompts.build(task, schema, previous_error=problem), settings), schema), attempt
        except InvalidOutput as exc:
            problem = str(exc)
            log.warning("ai answer refused", extra={"fields": {
                "backend": settings.ai_backend, "kind": task.kind, "attempt": attempt, "problem": problem[:300]}})
        except AIError as exc:
            log.warning("ai backend failed", extra={"fields": {
                "backend": settings.ai_backend, "kind": task.kind, "reason": exc.reason, "detail": exc.detail}})
            raise
    raise AIError(INVALID_OUTPUT, f"two answers did not follow the schema; the last: {problem}")


def _parse(text: str, schema: dict) -> dict:
    """The one JSON object in an answer, valid against the schema, or InvalidOutput saying why."""
    text = text.strip()
    fenced = FENCED.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        raise InvalidOutput("the answer is not JSON") from None
    if not isinstance(value, dict):
        raise InvalidOutput("the answer is not one JSON object")
    problems = schemas.validate(value, schema)
    if problems:
        raise InvalidOutput("; ".join(problems))
    return value


def unbacked(copy: dict, facts: Facts, *, kind: str = "store_copy") -> list[dict]:
    """The sentences of stored copy that the facts no longer back (empty: all are backed).
    A store is checked with it before publishing: its product record may have changed
    since the copy was written."""
    schema = schemas.schema_for(kind)
    problems = schemas.validate(copy, schema)
    if problems:
        raise ValueError("the copy does not follow its schema: " + "; ".join(problems))
    _kept, dropped = claims.filter_copy(copy, facts, copy, schema)
    return dropped


def backed_copy(copy: dict, facts: Facts, *, kind: str = "store_copy") -> tuple[dict, list[dict]]:
    """Stored copy without the sentences the facts no longer back (the facts changed since it
    was written: a founder's own price or name), falling back to the offline copywriter's
    words where a field would no longer validate; returns (copy, dropped)."""
    schema = schemas.schema_for(kind)
    return claims.filter_copy(copy, facts, offline.store_copy(facts), schema)
