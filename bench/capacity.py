"""`make capacity`: the founders the production processes serve (a measurement, not a test).

A ramp of founders goes through the whole journey until the answers get slow or one fails.

For each configuration (WEB web processes x WORKERS worker processes; by default 1 and 2 of
each) it starts the supervised topology as `make load` does (tests/topology.py: supervisord
with deploy/supervisord.conf, the front, gunicorn of WEB_CONCURRENCY processes, the workers,
the clock; a PostgreSQL database dropped and made again, migrated and seeded, the demo catalog
cloned so every founder has a product; the Redis database it is given, flushed; the offline AI
backend, the sandbox payment provider, the outbox mailer) and runs Locust headless with
bench/capacity_locust.py: bench/locustfile.py's founders (and store visitors) arriving in
steps, whatever the answers, until a step's window has a p99 over --p99-ms (500) or a failed
request. While it runs it samples, every --sample-seconds, the CPU time of the topology's
processes and their children (/proc/<pid>/stat: the web (front and gunicorn), the workers and
the clock) and of the PostgreSQL backends of its database (the pids pg_stat_activity names,
read from /proc the same way), and of Locust itself.

It reports, per configuration: the founders sustained (the last step whose window held), and
for that window requests/s, p50/p95/p99 over all requests and per endpoint, and CPU
milliseconds per request of the server processes and of PostgreSQL.

With --ref REF the same configurations run against REF too, checked out in a git worktree
(`git worktree add --detach /tmp/cap-<ref> REF`, its .venv a link to this one, removed at the
end): its own code, deploy/ and tests/topology.py, driven by this checkout's Locust files. The
two trees run one after the other for each configuration, so both meet the machine in the same
state, and one table compares them.

Usage::

    python bench/capacity.py [--ref HEAD] [--web 1 2] [--workers 1 2] [--start-founders 10]
        [--step-founders 10] [--step-seconds 20] [--max-founders 150] [--visitors-per-founder 2]
        [--arrival-rate 1] [--newcomers 0] [--p99-ms 500] [--threads 4] [--database-url URL] [--redis-url URL]
        [--ref-redis-url URL] [--out DIR] [--json]

The database's name must contain "capacity": it is dropped and made again for each case.
Locust and the sampler run on the same machine as the service and take CPU of their own.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.capacity_ramp import add_ramp_options, claims_at_most, ramp_arguments  # noqa: E402
from bench.load_run import LOCUST, start_topology  # noqa: E402
from tests.topology import Topology  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_capacity"
DEFAULT_REDIS = "redis://127.0.0.1:6379/3"
DEFAULT_REF_REDIS = "redis://127.0.0.1:6379/4"
TICKS = os.sysconf("SC_CLK_TCK")


# -- CPU time from /proc -----------------------------------------------------------------------

def proc_table() -> dict[int, tuple[int, float]]:
    """Every process's parent and its CPU seconds (its own, and its children's that it reaped)."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        table[int(entry.name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]) / TICKS)
    return table


def tree_seconds(table: dict[int, tuple[int, float]], root: int) -> float:
    """CPU seconds of `root` and every live descendant (those that exited are in their parent's)."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _cpu) in table.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in table:
            total += table[pid][1]
            todo.extend(children.get(pid, ()))
    return total


class Sampler(threading.Thread):
    """CPU seconds of the topology's programs (by role), its database's backends and the driver,
    sampled every `every` seconds: samples of (wall time, {role: cumulative seconds})."""

    def __init__(self, topo, database_url: str, every: float):
        super().__init__(daemon=True)
        import psycopg2

        parts = urlsplit(database_url)
        self.database = parts.path.lstrip("/")
        # The sampler's own backend is in another database, so it is never counted.
        self.conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                                     password=parts.password, dbname="postgres")
        self.conn.autocommit = True
        self.topo, self.every = topo, every
        self.driver: int | None = None
        self.samples: list[tuple[float, dict]] = []
        self.backends: dict[int, list[float]] = {}  # pid -> [seconds when first counted, latest seconds]
        # (role, root pid) -> its tree's latest seconds: a program restarted, or the driver gone,
        # keeps what it used.
        self.trees: dict[tuple[str, int], float] = {}
        self.started = datetime.now(UTC)
        self.stop_event = threading.Event()
        self.programs: dict[str, int] = {}

    def role(self, program: str) -> str:
        return "web" if program in ("web", "front") else "workers" if program.startswith("worker") else (
            "clock" if program == "clock" else "other")

    def sample(self) -> None:
        if not self.programs or len(self.samples) % 10 == 0:
            self.programs = {name: pid for name, pid in self.topo.pids().items() if pid}
        with self.conn.cursor() as cur:
            cur.execute("SELECT pid, backend_start FROM pg_stat_activity WHERE datname = %s", (self.database,))
            backends = cur.fetchall()
        now = time.time()
        table = proc_table()
        roots = [(self.role(name), pid) for name, pid in self.programs.items()]
        for role, pid in roots + ([("driver", self.driver)] if self.driver else []):
            if pid in table:
                self.trees[(role, pid)] = tree_seconds(table, pid)
        seconds = {role: 0.0 for role in ("web", "workers", "clock", "other", "driver")}
        for (role, _pid), used in self.trees.items():
            seconds[role] += used
        for pid, backend_start in backends:
            if pid not in table:
                continue
            cpu = table[pid][1]
            if pid not in self.backends:
                # A backend that started before the sampler counts from now; a newer one from its start.
                self.backends[pid] = [cpu if backend_start < self.started else 0.0, cpu]
            self.backends[pid][1] = cpu
        seconds["postgres"] = sum(last - first for first, last in self.backends.values())
        self.samples.append((now, seconds))

    def run(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.sample()
            except Exception as exc:  # noqa: BLE001  (a sample missed is a coarser figure, not a failed run)
                print(f"cpu sample missed: {type(exc).__name__}: {exc}", file=sys.stderr)
            self.stop_event.wait(self.every)

    def stop(self) -> None:
        self.stop_event.set()
        self.join(timeout=10)
        self.sample()
        self.conn.close()

    def at(self, moment: float) -> dict[str, float]:
        """Each role's cumulative CPU seconds at `moment`, interpolated between samples."""
        before = [s for s in self.samples if s[0] <= moment]
        after = [s for s in self.samples if s[0] >= moment]
        if not before or not after:
            return (before or after)[-1 if before else 0][1]
        (t0, a), (t1, b) = before[-1], after[0]
        share = 0.0 if t1 == t0 else (moment - t0) / (t1 - t0)
        return {role: a[role] + (b[role] - a[role]) * share for role in a}


# -- the trees ---------------------------------------------------------------------------------

def topology_of(tree: Path):
    """The Topology class of a tree: its own tests/topology.py, so its processes run its code,
    deploy/ and migrations (ROOT in that module is the tree)."""
    if tree == ROOT:
        return Topology
    spec = importlib.util.spec_from_file_location(f"topology_{tree.name.replace('-', '_')}",
                                                  tree / "tests" / "topology.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    path = list(sys.path)
    spec.loader.exec_module(module)
    sys.path[:] = path  # it put its tree first; this process imports nothing more from it
    return module.Topology


def add_worktree(ref: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", ref)
    tree = Path(tempfile.gettempdir()) / f"cap-{name}"
    if tree.exists():
        remove_worktree(tree)
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), ref], cwd=ROOT, check=True,
                   capture_output=True, text=True)
    (tree / ".venv").symlink_to(ROOT / ".venv")
    return tree


def remove_worktree(tree: Path) -> None:
    venv = tree / ".venv"
    if venv.is_symlink():
        venv.unlink()
    done = subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode != 0 and tree.exists():
        shutil.rmtree(tree, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def commit_of(tree: Path) -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    # GIT_OPTIONAL_LOCKS=0: status only reads (it would otherwise refresh the index of a tree others work in).
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=tree, capture_output=True,
                           text=True, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")


# -- one case ----------------------------------------------------------------------------------



def run_ramp(topo, args, prefix: Path, sampler: Sampler) -> subprocess.CompletedProcess:
    steps = prefix.with_name(prefix.name + "-steps.jsonl")
    env = dict(os.environ, LOAD_OUTBOX_DIR=str(topo.dir / "outbox"), LOAD_INBOUND_MAILDIR=str(topo.dir / "inbound"))
    command = [str(LOCUST), "-f", str(ROOT / "bench" / "capacity_locust.py"), "--headless", "--host", topo.base_url,
               *ramp_arguments(args), "--steps-file", str(steps), "--csv", str(prefix), "--only-summary",
               "--stop-timeout", "5", "--loglevel", "WARNING"]
    limit = (args.max_founders // max(1, args.step_founders) + 2) * args.step_seconds + 120
    with open(prefix.with_suffix(".log"), "w") as log:
        locust = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        sampler.driver = locust.pid
        try:
            locust.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            locust.terminate()
            locust.wait(timeout=30)
    return locust


def with_cpu(window: dict, sampler: Sampler) -> dict:
    start, end = sampler.at(window["started"]), sampler.at(window["ended"])
    used = {role: end[role] - start[role] for role in end}
    requests = max(1, window["requests"])
    server = used["web"] + used["workers"] + used["clock"] + used["other"]
    return {**window, "cpu_seconds": {role: round(s, 2) for role, s in used.items()},
            "cpu_ms_per_request": {"server": round(server * 1000 / requests, 2),
                                   "web": round(used["web"] * 1000 / requests, 2),
                                   "workers_and_clock": round((used["workers"] + used["clock"]) * 1000 / requests, 2),
                                   "postgres": round(used["postgres"] * 1000 / requests, 2),
                                   "driver": round(used["driver"] * 1000 / requests, 2)}}


def run_case(args, tree_label: str, tree: Path, topology_class, redis_url: str, web: int, workers: int,
             out: Path) -> dict:
    prefix = out / f"{tree_label}-web{web}-workers{workers}"
    began, commit = time.perf_counter(), commit_of(tree)
    # start_topology copies the catalog for two claims a founder: enough for every claim the ramp can make.
    topo = start_topology(args, web, workers, founders=claims_at_most(args) // 2 + 1, redis_url=redis_url,
                          topology_class=topology_class, label=f"capacity-{tree_label}")
    sampler = None
    try:
        sampler = Sampler(topo, args.database_url, args.sample_seconds)
        sampler.start()
        done = run_ramp(topo, args, prefix, sampler)
        sampler.stop()
        steps_file = prefix.with_name(prefix.name + "-steps.jsonl")
        steps = [with_cpu(json.loads(line), sampler) for line in steps_file.read_text().splitlines()
                 if line.strip()] if steps_file.exists() else []
    except BaseException:
        print(f"{tree_label} web {web} x workers {workers}: failed; the processes' output is in "
              f"{topo.output_file}, Locust's in {prefix}.log", file=sys.stderr)
        raise
    finally:
        if sampler is not None and sampler.is_alive():
            sampler.stop_event.set()
        topo.stop()
    topo.drop()
    held = [s for s in steps if s["held"]]
    last = steps[-1] if steps else None
    ended_by = ("no window closed" if last is None else f"reached --max-founders ({args.max_founders})" if last["held"]
                else f"{last['founders']} founders: " + (f"{last['failures']} failed" if last["failures"] else
                                                         f"p99 {last['p99_ms']:.0f} ms"))
    return {"tree": tree_label, "commit": commit, "web": web, "workers": workers,
            "founders_sustained": held[-1]["founders"] if held else 0, "ended_by": ended_by,
            "sustained": held[-1] if held else None, "steps": steps, "locust_exit": done.returncode,
            "case_seconds": round(time.perf_counter() - began, 1)}


# -- the report --------------------------------------------------------------------------------

def ms(value) -> str:
    return "-" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def summary_table(reports: list[dict]) -> str:
    lines = ["| tree | web x workers | founders sustained | ended by | req/s | p50 / p95 / p99 ms | "
             "CPU ms/request: server (web + workers) | PostgreSQL | driver |",
             "|---|---|---:|---|---:|---|---|---:|---:|"]
    for r in reports:
        s = r["sustained"]
        if s is None:
            lines.append(f"| {r['tree']} ({r['commit']}) | {r['web']} x {r['workers']} | 0 | {r['ended_by']} "
                         "| | | | | |")
            continue
        cpu = s["cpu_ms_per_request"]
        lines.append(f"| {r['tree']} ({r['commit']}) | {r['web']} x {r['workers']} | {r['founders_sustained']} | "
                     f"{r['ended_by']} | {s['rps']:.1f} | {ms(s['p50_ms'])} / {ms(s['p95_ms'])} / {ms(s['p99_ms'])} | "
                     f"{cpu['server']:.2f} ({cpu['web']:.2f} + {cpu['workers_and_clock']:.2f}) | "
                     f"{cpu['postgres']:.2f} | {cpu['driver']:.2f} |")
    return "\n".join(lines)


def endpoint_table(reports: list[dict]) -> str:
    """p50 / p95 / p99 ms (requests) of each endpoint in each case's last window that held."""
    cases = [r for r in reports if r["sustained"]]
    names = sorted({name for r in cases for name in r["sustained"]["endpoints"]}, key=lambda n: n.split(" ", 1)[::-1])
    head = "| endpoint | " + " | ".join(f"{r['tree']} {r['web']}x{r['workers']} ({r['founders_sustained']})"
                                        for r in cases) + " |"
    lines = [head, "|---|" + "---|" * len(cases)]
    for name in names:
        cells = []
        for r in cases:
            e = r["sustained"]["endpoints"].get(name)
            cells.append("" if e is None else f"{ms(e['p50_ms'])} / {ms(e['p95_ms'])} / {ms(e['p99_ms'])} "
                                              f"({e['requests']})")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref", help="also measure this git ref (a worktree under the temporary folder)")
    parser.add_argument("--web", type=int, nargs="+", default=[1, 2], help="web processes (WEB_CONCURRENCY)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker processes")
    parser.add_argument("--threads", type=int, default=4, help="WORKER_THREADS of each worker process")
    add_ramp_options(parser)
    parser.add_argument("--sample-seconds", type=float, default=1.0, help="how often CPU times are read")
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes (this tree)")
    parser.add_argument("--ref-redis-url", default=DEFAULT_REF_REDIS, help="a Redis database it flushes (--ref)")
    parser.add_argument("--out", type=Path, help="where the CSVs, windows and report go (default var/capacity/<UTC>)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if "capacity" not in urlsplit(args.database_url).path:
        parser.error("the database's name must contain 'capacity': it is dropped and made again")
    if args.start_founders < 1 or args.step_founders < 1 or args.max_founders < args.start_founders:
        parser.error("founders: --start-founders and --step-founders at least 1, --max-founders at least the start")
    out = args.out or ROOT / "var" / "capacity" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out.mkdir(parents=True, exist_ok=True)
    trees = [("after", ROOT, Topology, args.redis_url)]
    worktree = None
    reports = []
    try:
        if args.ref:
            worktree = add_worktree(args.ref)
            trees.insert(0, ("before", worktree, topology_of(worktree), args.ref_redis_url))
        for web in args.web:
            for workers in args.workers:
                for label, tree, topology_class, redis_url in trees:
                    report = run_case(args, label, tree, topology_class, redis_url, web, workers, out)
                    reports.append(report)
                    if not args.json:
                        print(f"{label} {web} web x {workers} workers: {report['founders_sustained']} founders "
                              f"sustained ({report['ended_by']}; {report['case_seconds']:.0f} s)", flush=True)
    finally:
        if worktree is not None:
            remove_worktree(worktree)
        (out / "report.json").write_text(json.dumps(reports, indent=2, default=str))
    if args.json:
        print(json.dumps(reports, indent=2, default=str))
    else:
        print("\n" + summary_table(reports) + "\n\n" + endpoint_table(reports))
        print(f"\nCSVs, Locust's logs, each window (-steps.jsonl) and report.json in {out}")
    return 0 if reports and all(r["steps"] for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
