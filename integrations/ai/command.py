"""The command backend: a configured program answers the prompt.

AI_COMMAND is split like a shell would (shlex) but run without one, through the capped
runner (integrations/processes.py): in its own process group, so stopping it stops
whatever it started too, and never longer than the job that asked: it is killed when its
job's time limit stops the job, when its worker hands the job back at a stop, and when its
worker process dies (even by SIGKILL). The program inherits the service's environment, gets the
prompt's request as one JSON object on stdin and must print one JSON object on stdout.

What a failure means to the caller (AIError.reason):
- the program cannot be started (not found, not executable): UNAVAILABLE;
- it exits with a non-zero status, or runs past AI_TIMEOUT_SECONDS (it is killed): FAILED;
- its stdout is not one JSON object, or it writes more than 1 MiB (it is stopped):
  InvalidOutput, which the seam asks again once before giving up with INVALID_OUTPUT.
Its stderr goes to the debug log only (it may echo the prompt).
"""
from __future__ import annotations

import json
import logging
import os
import shlex

from integrations.ai import prompts
from integrations.ai.errors import FAILED, UNAVAILABLE, AIError, InvalidOutput
from integrations.ai.task import Task
from integrations.processes import run_capped

log = logging.getLogger("ai")

MAX_STDOUT_BYTES = 1024 * 1024
STDERR_KEPT_BYTES = 2000


class CommandBackend:
    """Runs AI_COMMAND with the task's prompt on stdin and reads the object it prints."""

    name = "command"

    def __init__(self, settings):
        self.command = settings.ai_command or ""
        self.timeout = settings.ai_timeout_seconds

    def write(self, task: Task) -> dict:
        return prompts.answer_object(self.ask(prompts.build(task)))

    def ask(self, prompt: prompts.Prompt) -> str:
        """What the program printed for the prompt."""
        argv = shlex.split(self.command)
        if not argv:
            raise AIError(UNAVAILABLE, "AI_COMMAND must be set for the command backend")
        # Only the program's name: the rest of the command line may carry a key.
        program = os.path.basename(argv[0])
        try:
            run = run_capped(argv, timeout=self.timeout, cap=MAX_STDOUT_BYTES, stop_past_cap=True,
                             stdin=json.dumps(prompt.request).encode())
        except FileNotFoundError:
            raise AIError(UNAVAILABLE, f"the AI command {program!r} was not found") from None
        except PermissionError:
            raise AIError(UNAVAILABLE, f"the AI command {program!r} is not executable") from None
        except OSError as exc:
            raise AIError(UNAVAILABLE, f"the AI command {program!r} cannot be started ({exc.strerror})") from None
        if run.stderr:
            log.debug("ai command stderr", extra={"fields": {
                "program": program, "stderr": run.stderr[-STDERR_KEPT_BYTES:].decode("utf-8", "replace")}})
        if run.truncated:
            raise InvalidOutput(f"the AI command wrote more than {MAX_STDOUT_BYTES} bytes")
        if run.timed_out:
            raise AIError(FAILED, f"the AI command {program!r} took longer than {self.timeout} s and was stopped")
        if run.exit_code != 0:
            how = (f"was stopped by signal {-run.exit_code}" if run.exit_code < 0
                   else f"exited with status {run.exit_code}")
            raise AIError(FAILED, f"the AI command {program!r} {how}")
        return run.stdout.decode("utf-8", "replace")
