"""Running a program the service does not trust to behave: one capped runner for the AI
command backend (integrations/ai/command.py) and the discovery script
(services/discovery/runs.py).

The program runs without a shell (an argument list) in its own process group, so stopping
it stops whatever it started too. Both pipes are read at once by threads (either may fill
while the other waits), stdin is fed by a third (or is /dev/null), and:
- past `timeout` seconds the whole group is killed (`timed_out`); a child it left behind
  that still holds the pipes open after it exited gets until the same deadline;
- each stream keeps its first `cap` bytes; more is read and dropped (`truncated`), or,
  with `stop_past_cap`, stops the program then and there.
Starting it may raise OSError (not found, not executable): the caller says what that means.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

CHUNK = 64 * 1024


@dataclass(frozen=True)
class Finished:
    exit_code: int  # negative: stopped by that signal
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    truncated: bool = False


def run_capped(argv: list[str], *, timeout: float, cap: int, stdin: bytes | None = None, env: dict | None = None,
               cwd=None, stop_past_cap: bool = False) -> Finished:
    """Runs the program to its end, its deadline or (with stop_past_cap) its cap; see the module docstring."""
    process = subprocess.Popen(argv, cwd=None if cwd is None else str(cwd), env=env,
                               stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    cut = threading.Event()

    def drain(name, pipe):
        with pipe:
            while chunk := pipe.read1(CHUNK):
                room = cap - len(kept[name])
                if room > 0:
                    kept[name] += chunk[:room]
                if len(chunk) > max(room, 0):
                    cut.set()
                    if stop_past_cap:
                        _kill_group(process)
                        return

    def feed():
        try:
            process.stdin.write(stdin)
        except OSError:
            pass  # it stopped reading; its exit status or output says the rest
        finally:
            try:
                process.stdin.close()
            except OSError:
                pass

    threads = [threading.Thread(target=drain, args=(name, pipe), daemon=True)
               for name, pipe in (("stdout", process.stdout), ("stderr", process.stderr))]
    if stdin is not None:
        threads.append(threading.Thread(target=feed, daemon=True))
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        process.wait()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in threads):  # something it started still holds a pipe
        timed_out = True
        _kill_group(process)
        for thread in threads:
            thread.join(1)
    stopped = cut.is_set() and stop_past_cap
    return Finished(exit_code=process.returncode, stdout=bytes(kept["stdout"]), stderr=bytes(kept["stderr"]),
                    timed_out=timed_out and not stopped, truncated=cut.is_set())


def _kill_group(process: subprocess.Popen) -> None:
    """Kills the program and everything in its process group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError:
        process.kill()
