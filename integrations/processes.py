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

A program never runs on for nobody (its answer would be thrown away):
- on Linux it is killed when the thread that started it ends, the process with it, however
  it ends (SIGKILL included): prctl(PR_SET_PDEATHSIG) in the child before it runs;
- anything raised in the waiting thread (a job's time limit, dramatiq raises it there) kills
  its group before it propagates;
- a worker handing back its runs at a stop ends the programs its threads started
  (`stop_programs_of`).
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

CHUNK = 64 * 1024
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Looked up once here: the child, between fork and exec, only calls it.
_PRCTL = _prctl()

# The programs running now: pid -> (the process, the ident of the thread that started it).
_running: dict[int, tuple[subprocess.Popen, int]] = {}
_running_guard = threading.Lock()


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
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=_ending_with(os.getpid()))
    with _running_guard:
        _running[process.pid] = (process, threading.get_ident())
    try:
        return _watch(process, timeout=timeout, cap=cap, stdin=stdin, stop_past_cap=stop_past_cap)
    except BaseException:
        # Stopped from outside while it waited (a job's time limit raises in this thread):
        # nobody will read the program's answer.
        _kill_group(process)
        process.wait()
        raise
    finally:
        with _running_guard:
            _running.pop(process.pid, None)


def _watch(process: subprocess.Popen, *, timeout: float, cap: int, stdin: bytes | None,
           stop_past_cap: bool) -> Finished:
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


def stop_programs_of(threads) -> int:
    """Kills the programs, and their groups, that the given threads started and that still
    run (a stopping worker's runs were handed back: their answers would be thrown away).
    Their threads see them stopped by a signal. Returns how many were killed."""
    idents = {thread.ident for thread in threads}
    with _running_guard:
        chosen = [process for process, ident in _running.values() if ident in idents]
    for process in chosen:
        _kill_group(process)
    return len(chosen)


def _ending_with(parent: int):
    """The function the child runs before the program (Linux): it is killed when the thread
    that started it ends, with its process however that ends. None elsewhere."""
    if _PRCTL is None:
        return None

    def end_with_parent():
        _PRCTL(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != parent:  # the parent died before the line above: nothing would signal
            os._exit(1)

    return end_with_parent


def _kill_group(process: subprocess.Popen) -> None:
    """Kills the program and everything in its process group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError:
        process.kill()
