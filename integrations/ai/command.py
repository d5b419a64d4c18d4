"""The command backend: a configured program answers the prompt.

AI_COMMAND is split like a shell would (shlex) but run without one. The program gets the
prompt's request as one JSON object on stdin and must print one JSON object on stdout. It
inherits the service's environment and runs in its own process group, so stopping it
stops whatever it started too.

What a failure means to the caller (AIError.reason):
- the program cannot be started (not found, not executable): cli_unavailable;
- it exits with a non-zero status, or runs past AI_TIMEOUT_SECONDS (it is killed):
  cli_failed;
- its stdout is not one JSON object of the schema, or is larger than 1 MiB: InvalidOutput,
  which the caller retries once before giving up with invalid_ai_output.
Its stderr goes to the debug log only (it may echo the prompt).
"""
from __future__ import annotations

import json
import logging
import os
import shlex
import signal
import subprocess
import threading
import time

from integrations.ai.errors import FAILED, UNAVAILABLE, AIError, InvalidOutput
from integrations.ai.prompts import Prompt

log = logging.getLogger("ai")

MAX_STDOUT_BYTES = 1024 * 1024
STDERR_KEPT_BYTES = 2000


def ask(prompt: Prompt, settings) -> str:
    """Runs AI_COMMAND with the prompt on stdin and returns what it printed."""
    argv = shlex.split(settings.ai_command or "")
    if not argv:
        raise AIError(UNAVAILABLE, "AI_COMMAND must be set for the command backend")
    # Only the program's name: the rest of the command line may carry a key.
    program = os.path.basename(argv[0])
    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
    except FileNotFoundError:
        raise AIError(UNAVAILABLE, f"the AI command {program!r} was not found") from None
    except PermissionError:
        raise AIError(UNAVAILABLE, f"the AI command {program!r} is not executable") from None
    except OSError as exc:
        raise AIError(UNAVAILABLE, f"the AI command {program!r} cannot be started ({exc.strerror})") from None
    stdout, stderr, too_long, timed_out = _talk(process, json.dumps(prompt.request).encode(),
                                                settings.ai_timeout_seconds)
    if stderr:
        log.debug("ai command stderr", extra={"fields": {"program": program, "stderr": stderr}})
    if too_long:
        raise InvalidOutput(f"the AI command printed more than {MAX_STDOUT_BYTES} bytes")
    if timed_out:
        raise AIError(FAILED, f"the AI command {program!r} took longer than {settings.ai_timeout_seconds} s "
                              "and was stopped")
    if process.returncode != 0:
        how = (f"was stopped by signal {-process.returncode}" if process.returncode < 0
               else f"exited with status {process.returncode}")
        raise AIError(FAILED, f"the AI command {program!r} {how}")
    return stdout.decode("utf-8", "replace")


def _talk(process: subprocess.Popen, data: bytes, timeout: int) -> tuple[bytes, str, bool, bool]:
    """Feeds stdin and reads both outputs at once (either pipe may fill while the other
    waits), killing the process group on the deadline or past the stdout cap."""
    out = bytearray()
    err = bytearray()
    too_long = threading.Event()

    def feed():
        try:
            process.stdin.write(data)
        except (BrokenPipeError, OSError):
            pass  # it stopped reading; its exit status or output says the rest
        finally:
            try:
                process.stdin.close()
            except OSError:
                pass

    def read_out():
        while chunk := process.stdout.read1(64 * 1024):
            if len(out) + len(chunk) > MAX_STDOUT_BYTES:
                too_long.set()
                _kill(process)
                return
            out.extend(chunk)

    def read_err():
        while chunk := process.stderr.read1(64 * 1024):
            err.extend(chunk)
            del err[:-STDERR_KEPT_BYTES]

    threads = [threading.Thread(target=t, daemon=True) for t in (feed, read_out, read_err)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(process)
        process.wait()
    # A child it left behind may still hold the pipes open: it gets until the deadline.
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in threads):
        timed_out = True
        _kill(process)
        for thread in threads:
            thread.join(1)
    return bytes(out), err.decode("utf-8", "replace"), too_long.is_set(), timed_out and not too_long.is_set()


def _kill(process: subprocess.Popen) -> None:
    """Kills the program and everything in its process group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
