"""Run the bare-Flask baseline and a target app under the same gunicorn
settings, one after the other, and print target/baseline ratios.

The two servers never run at the same time, so they do not compete for the
machine's two cores.  Each one is started as

    <this python> -m gunicorn -c <conf> --bind 127.0.0.1:<port> <app>

with cwd = the repository root, polled until it answers (60 s at most),
left until its process tree is CPU-quiet (every worker has booted; 30 s at
most), driven in-process with bench/load.py, then stopped with SIGTERM.
With --repeat R the pair is run R times, alternating, and the ratio line
compares the medians (single runs on a 2-core box are noisy).

Several --target-path values are driven one after the other on the one target
server, each with its own ratio line. With --conditional each of them is
driven once more with If-None-Match set to the ETag its first answer carried
(what a browser or CDN sends to revalidate: 304 expected). --env KEY=VALUE
(repeatable) is set for both servers, so the baseline runs with the same
gunicorn settings (workers, threads) as the target's environment gives it.

A --target-path is a path (GET), or a method and a path, optionally followed
by a JSON body: "POST /api/track {\"product_id\": \"p1\", ...}" (sent with
Content-Type: application/json; each %unique% in it becomes a new id per
request, see bench/load.py). The baseline is always GET /api/bare. A script
can pass `Target`s to `measure` for more: the per-user cookie jars a target
starts with (founders it prepared), a cookie mode of its own, a classifier of
its answers, and a step to run before each of its runs.

Usage::

    python bench/compare.py --target-app "api:create_app()" --target-path /api/health
    python bench/compare.py --target-app "api:create_app()" --target-path /store/<slug>/ --conditional \
        --env DATABASE_URL=postgresql://... --env REDIS_URL=redis://... --env SECRET_KEY=...
    python bench/compare.py --target-app "api:create_app()" --cookie-jar none \
        --target-path 'POST /api/track {"product_id": "p1", "event": "page_view", "session_id": "%unique%"}'
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench import load  # noqa: E402  (needs REPO_ROOT on sys.path)

HOST = "127.0.0.1"
BASELINE_APP = "bench.baseline_app:app"
BASELINE_PATH = "/api/bare"
READY_TIMEOUT = 60.0
READY_POLL = 0.2
SETTLE_TIMEOUT = 30.0
SETTLE_WINDOW = 1.0  # seconds of near-zero CPU that count as "all workers booted"
SETTLE_MAX_TICKS = 3  # CPU clock ticks (usually 10 ms) allowed in that window
STOP_TIMEOUT = 40.0  # above gunicorn's default graceful_timeout of 30 s
LOG_TAIL_CHARS = 3000


# --------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


@dataclass
class Target:
    """One request to drive on the target server, and how."""

    path: str
    method: str = "GET"
    body: str | None = None  # JSON text
    name: str = ""  # its label in the output (default: method and path)
    cookies: list[str] | None = None  # ff_session values the per-user jars start with
    cookie_jar: str | None = None  # None: --cookie-jar
    classify: Callable[[int, bytes], str] | None = None  # names each answer (load.run_load)
    before: Callable[[], None] | None = None  # runs before each run of it (not timed)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.path if self.method == "GET" else f"{self.method} {self.path}"


def parse_target(spec: str) -> Target:
    """'/path' (GET), 'METHOD /path' or 'METHOD /path {json body}'."""
    method, _, rest = spec.partition(" ") if not spec.startswith("/") else ("GET", "", spec)
    method = method.upper()
    path, _, body = rest.strip().partition(" ")
    if method not in METHODS:
        raise ValueError(f"{spec!r}: unknown method {method!r}")
    if not path.startswith("/"):
        raise ValueError(f"{spec!r}: the path must start with /")
    body = body.strip() or None
    if body is not None:
        try:
            json.loads(body)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{spec!r}: the body is not valid JSON: {exc}") from exc
    return Target(path=path, method=method, body=body)


# --------------------------------------------------------------------------
# Server lifecycle
# --------------------------------------------------------------------------

def ensure_port_free(port: int) -> None:
    """Refuse to start if something already listens there: we would measure it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise RuntimeError(f"port {HOST}:{port} is busy ({exc}); "
                               "pick another --port-base") from exc


def gunicorn_command(conf: str, port: int, app: str) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "-c", conf,
            "--bind", f"{HOST}:{port}", app]


def wait_until_ready(proc: subprocess.Popen, port: int, path: str) -> None:
    """Poll until the server gives any HTTP response; bounded by READY_TIMEOUT."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode} "
                               "before it was ready")
        conn = http.client.HTTPConnection(HOST, port, timeout=2)
        try:
            conn.request("GET", path)
            conn.getresponse().read()
            return
        except (OSError, http.client.HTTPException):
            time.sleep(READY_POLL)
        finally:
            conn.close()
    raise RuntimeError(f"gunicorn on port {port} not ready after "
                       f"{READY_TIMEOUT:.0f} s")


def process_tree_cpu(pid: int) -> tuple[int, int] | None:
    """(worker count, CPU ticks of master + workers) from /proc; None if unreadable."""
    try:
        master = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    stats = [master]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name == str(pid):
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        if stat_fields(text)[1] == str(pid):
            stats.append(text)
    ticks = sum(int(f[11]) + int(f[12]) for f in map(stat_fields, stats))
    return len(stats) - 1, ticks


def stat_fields(stat: str) -> list[str]:
    """Fields of /proc/PID/stat after "(comm)": state, ppid, ..., utime=[11], stime=[12]."""
    return stat[stat.rindex(")") + 2:].split()


def wait_until_settled(proc: subprocess.Popen) -> None:
    """Wait until every worker has booted: the process tree goes CPU-quiet.

    The first answer only proves that ONE worker is up.  Keep-alive
    connections opened while another worker is still importing the app all
    land on the first one and stay there, which can halve the figures, so
    wait for a quiet SETTLE_WINDOW (bounded by SETTLE_TIMEOUT).
    """
    deadline = time.monotonic() + SETTLE_TIMEOUT
    previous = process_tree_cpu(proc.pid)
    if previous is None:  # no /proc: fall back to a fixed pause
        time.sleep(2 * SETTLE_WINDOW)
        return
    while time.monotonic() < deadline:
        time.sleep(SETTLE_WINDOW)
        current = process_tree_cpu(proc.pid)
        if current is None:
            return  # master gone; the load run will report the errors
        workers, ticks = current
        if (workers > 0 and workers == previous[0]
                and ticks - previous[1] <= SETTLE_MAX_TICKS):
            return
        previous = current
    print(f"warning: gunicorn still busy after {SETTLE_TIMEOUT:.0f} s; "
          "measuring anyway", file=sys.stderr)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM (graceful shutdown), then SIGKILL if it hangs."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def log_tail(log_path: str) -> str:
    try:
        text = Path(log_path).read_text(errors="replace")
    except OSError:
        return ""
    return f"--- gunicorn log ({log_path}) ---\n{text[-LOG_TAIL_CHARS:]}"


@contextmanager
def gunicorn(conf: str, port: int, app: str, ready_path: str, extra_env: dict | None = None):
    """Start gunicorn, yield once it answers, always stop it afterwards."""
    ensure_port_free(port)
    env = dict(os.environ, **(extra_env or {}), PORT=str(port))
    fd, log_path = tempfile.mkstemp(prefix="bench-gunicorn-", suffix=".log")
    command = gunicorn_command(conf, port, app)
    print("$ " + " ".join(command), flush=True)
    with os.fdopen(fd, "wb") as log:
        proc = subprocess.Popen(command, cwd=REPO_ROOT, env=env,
                                stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT)
    failed = True
    try:
        wait_until_ready(proc, port, ready_path)
        wait_until_settled(proc)
        yield
        failed = False
    finally:
        stop(proc)
        if failed:  # keep the log and show its end
            print(log_tail(log_path), file=sys.stderr)
        else:
            os.unlink(log_path)


# --------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------

def etag_of(port: int, path: str) -> str | None:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.getheader("ETag")
    finally:
        conn.close()


def measure(label: str, conf: str, port: int, app: str, targets: list[Target | str],
            args: argparse.Namespace, conditional: bool = False) -> dict[str, dict]:
    """Drives each target on one server (and, with --conditional, each GET again
    with If-None-Match); returns {run label: figures}."""
    targets = [parse_target(t) if isinstance(t, str) else t for t in targets]
    # Any answer proves the server is up; a script may name a path that changes nothing
    # (the first GET target could mint a session, a hold, ...).
    ready = getattr(args, "ready_path", None) or next((t.path for t in targets if t.method == "GET"), "/")
    results = {}
    with gunicorn(conf, port, app, ready, args.env):
        for target in targets:
            runs = [(target.name, None)]
            if conditional and target.method == "GET":
                tag = etag_of(port, target.path)
                if tag is None:
                    raise RuntimeError(f"{target.path} sent no ETag; --conditional needs one")
                runs.append((f"{target.name} (If-None-Match)", {"If-None-Match": tag}))
            for name, headers in runs:
                if target.before is not None:
                    target.before()
                result = load.run_load(f"http://{HOST}:{port}{target.path}",
                                       requests=args.n, concurrency=args.c,
                                       method=target.method, body=target.body,
                                       cookie_jar=target.cookie_jar or args.cookie_jar,
                                       warmup=args.warmup, headers=headers,
                                       cookies=target.cookies, classify=target.classify)
                print(f"== {label} {name} ({app}) ==")
                print(load.format_summary(result), flush=True)
                print()
                results[name] = result
    return results


def alternate(args: argparse.Namespace, targets: list[Target]) -> tuple[list[dict], dict[str, list[dict]]]:
    """The baseline, then the target server with every target, --repeat times (one
    server at a time); returns the baseline's runs and each target's runs, in order."""
    baselines: list[dict] = []
    results: dict[str, list[dict]] = {}
    for _ in range(args.repeat):  # bounded
        baselines += measure("baseline", args.conf, args.port_base,
                             BASELINE_APP, [BASELINE_PATH], args).values()
        for name, result in measure("target", args.conf, args.port_base + 1,
                                    args.target_app, targets, args,
                                    args.conditional).items():
            results.setdefault(name, []).append(result)
    return baselines, results


def median_figures(results: list[dict]) -> dict:
    """Median p50, p99 and rps over repeated runs of one app."""
    figures = {}
    for key in ("p50_ms", "p99_ms", "rps"):
        values = [r[key] for r in results if r[key] is not None]
        figures[key] = statistics.median(values) if values else None
    return figures


def ratio(target: float | None, baseline: float | None) -> str:
    if target is None or not baseline:
        return "n/a"
    return f"{target / baseline:.2f}"


def ratio_line(baseline: dict, target: dict, name: str = "") -> str:
    return (f"ratio{' ' + name if name else ''}: "
            f"target p50 = {ratio(target['p50_ms'], baseline['p50_ms'])} x baseline, "
            f"target p99 = {ratio(target['p99_ms'], baseline['p99_ms'])} x baseline, "
            f"target rps = {ratio(target['rps'], baseline['rps'])} x baseline")


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Compare a target app against bare Flask under one gunicorn config.")
    parser.add_argument("--target-app", required=True,
                        help='gunicorn app spec, e.g. "api:create_app()"')
    parser.add_argument("--target-path", required=True, nargs="+",
                        help="path(s) to drive on the target, e.g. /api/health; or "
                             "'METHOD /path [JSON body]', e.g. 'POST /api/track {...}'")
    parser.add_argument("--conditional", action="store_true",
                        help="also drive each path with If-None-Match: its ETag")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="environment for both servers (repeatable)")
    parser.add_argument("-n", type=load.positive_int, default=2000,
                        help="counted requests per run (default 2000)")
    parser.add_argument("-c", type=load.positive_int, default=16,
                        help="concurrency (default 16)")
    parser.add_argument("--warmup", type=load.non_negative_int, default=50,
                        help="uncounted warmup requests per run (default 50)")
    parser.add_argument("--cookie-jar", choices=load.COOKIE_MODES,
                        default="per-user", help="see bench/load.py")
    parser.add_argument("--repeat", type=load.positive_int, default=1,
                        help="alternate baseline/target this many times and "
                             "compare medians (default 1)")
    parser.add_argument("--port-base", type=int, default=8600,
                        help="baseline uses this port, target the next (default 8600)")
    parser.add_argument("--conf", default="gunicorn.conf.py",
                        help="gunicorn config, relative to the repo root "
                             "(default gunicorn.conf.py)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        targets = [parse_target(spec) for spec in args.target_path]
    except ValueError as exc:
        print(f"compare.py: --target-path {exc}", file=sys.stderr)
        return 2
    if not all("=" in pair for pair in args.env):
        print("compare.py: --env takes KEY=VALUE", file=sys.stderr)
        return 2
    args.env = dict(pair.split("=", 1) for pair in args.env)
    if not (REPO_ROOT / args.conf).is_file():  # an absolute --conf wins the join
        print(f"compare.py: gunicorn config {args.conf!r} not found "
              f"(relative to {REPO_ROOT}); pass --conf", file=sys.stderr)
        return 2
    try:
        baselines, results = alternate(args, targets)
    except RuntimeError as exc:
        print(f"compare.py: {exc}", file=sys.stderr)
        return 1
    if args.repeat > 1:
        print(f"(medians of {args.repeat} runs each)")
    for name, runs in results.items():
        print(ratio_line(median_figures(baselines), median_figures(runs),
                         name if len(results) > 1 else ""))
        if args.repeat > 1:  # run i's target against run i's baseline
            print("  rps ratio of each run: " + ", ".join(
                ratio(t["rps"], b["rps"]) for b, t in zip(baselines, runs, strict=True)))
    every = baselines + [r for runs in results.values() for r in runs]
    failed = any(load.all_failed(r) for r in every)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
