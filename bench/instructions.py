"""Instructions a request of a hot path costs the web process, counted by valgrind's callgrind:
the same count for the same code whatever else the machine runs (a measurement, not a test).

Why: on a shared VM the bare route's requests/s moves by a fifth between runs and a request's
CPU time by as much, so a change of a few per cent in the service's own Python cannot be told
from the machine's weather by timing it (bench/README.md, sessions 15 and 16). Callgrind counts
the instructions the process executes instead; two runs of one commit agree within 0.3 %. What
it does not count: the kernel's part (sockets, scheduling), PostgreSQL's, and time spent waiting.

Each checkout runs in a process of its own under callgrind, in-process as
bench/hotpaths_inprocess.py runs a route (the Flask test client, the prepared founders of
STATE.json, their meters and holds reset): the app starts and answers --warmup requests with
callgrind's instrumentation off, a full garbage collection runs, then the instrumentation is
turned on (callgrind_control) for -n requests, and the process leaves with os._exit so that the
interpreter's teardown is not counted (its last full collection of the heap would be).

    python bench/hotpaths_inprocess.py prepare STATE.json DATABASE_URL --redis-url URL -c 8
    python bench/instructions.py STATE.json --route feed [-n 200] [--checkout ../before] [--checkout .]

Needs valgrind (Debian's package). A run of 200 feeds takes about 20 seconds.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUTES = ("find", "feed", "store", "store-building", "track", "usage", "dashboard")


def child(state_path: str, route: str, count: int, warmup: int, signals: str) -> None:
    """In the measured checkout (its folder first on sys.path): warm up, then wait for the
    instrumentation, answer `count` requests, and leave."""
    sys.path.insert(0, os.getcwd())
    from bench import hotpaths_inprocess as hi

    state = json.loads(Path(state_path).read_text())
    app = hi.service(state)
    send, before = hi.senders(app, state, route)
    if before:
        before()
    for _ in range(warmup):
        response = send()
    if before:
        before()  # the counted requests are the steady state too (credits left, holds live)
    gc.collect()
    ready, go = Path(signals, "ready"), Path(signals, "go")
    ready.touch()
    while not go.exists():
        time.sleep(0.05)
    for _ in range(count):
        response = send()
    problem = hi.check(route, response)
    os.write(2, f"last answer: {problem or 'ok'}\n".encode())
    os._exit(0 if problem is None else 1)  # no teardown: see the docstring


def count(checkout: Path, state: str, route: str, requests: int, warmup: int, keep: Path | None = None) -> float:
    """Instructions per request of `route` in `checkout`; with `keep`, callgrind's output is
    copied there (for callgrind_annotate or kcachegrind)."""
    python = checkout / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix="instructions-") as folder:
        out = Path(folder, "callgrind.out")
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
             str(python if python.exists() else sys.executable), str(Path(__file__).resolve()), "--child", state,
             route, str(requests), str(warmup), folder],
            cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while not Path(folder, "ready").exists():
            if proc.poll() is not None:
                raise SystemExit(f"{checkout}: the measured process ended early:\n{proc.stderr.read()[-2000:]}")
            time.sleep(0.2)
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True, capture_output=True)
        Path(folder, "go").touch()
        _out, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"{checkout}: {err[-2000:]}")
        if keep is not None:
            keep.write_bytes(out.read_bytes())
        totals = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        return int(totals.group(1)) / requests


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        state, route, requests, warmup, signals = argv[1:6]
        child(state, route, int(requests), int(warmup), signals)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("state")
    parser.add_argument("--route", choices=ROUTES, default="feed")
    parser.add_argument("-n", type=int, default=200, help="counted requests")
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--checkout", action="append", type=Path,
                        help="a checkout to measure (repeatable; default: this one)")
    parser.add_argument("--keep", type=Path, help="copy callgrind's output of the (last) checkout to this file")
    args = parser.parse_args(argv)
    state = str(Path(args.state).resolve())
    first = None
    for checkout in args.checkout or [Path(__file__).resolve().parent.parent]:
        per_request = count(checkout.resolve(), state, args.route, args.n, args.warmup, args.keep)
        first = first or per_request
        print(f"{args.route} {checkout}: {per_request:,.0f} instructions a request ({per_request / first:.3f} of the first)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
