"""Two checkouts of the service, side by side under gunicorn, measured in pairs: for a change
smaller than a noisy machine's own swing (a measurement, not a test).

Why: on a shared 2-core VM the bare route moves by a fifth or more from one run to the next,
so a ratio taken from one run of each commit (hotpaths_bench.py) cannot tell a 5 % change
from noise. Here both servers are up at once on one prepared database (idle while the other
is driven), and short runs alternate A, B, B, A, A, B...: each pair ran in nearly the same
conditions, and the median of the pairs' B/A ratios is what changed. Two figures per run:
requests/s, and the CPU the server's processes and PostgreSQL used per request (from
/proc; the load driver's own CPU is not in it), which moves less than requests/s.

    python bench/hotpaths_inprocess.py prepare STATE.json DATABASE_URL --redis-url URL -c 8
    python bench/paired_ab.py STATE.json --a ../before --b . --route feed [--rounds 8] [-n 3000]

--a and --b are checkouts (a git worktree of the commit before, say); each runs with its own
.venv when it has one. The route's founders (STATE.json's cookies, one per load thread) are
the prepared ones; find and feed get their meter counters and holds reset before every run,
as hotpaths_bench.py does. Every answer must be a 200.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import compare, load  # noqa: E402
from bench import hotpaths_bench as hb  # noqa: E402
from bench.hotpaths_bench import classify  # noqa: E402
from bench.store_bench import SECRET  # noqa: E402

PATHS = {"find": "/api/find", "feed": "/api/feed", "usage": "/api/usage", "dashboard": "/api/dashboard",
         "store": "/api/store", "store-building": "/api/store"}
HZ = os.sysconf("SC_CLK_TCK")


def server(checkout: Path, port: int, env: dict) -> subprocess.Popen:
    python = checkout / ".venv" / "bin" / "python"
    command = [str(python if python.exists() else sys.executable), "-m", "gunicorn", "-c", "gunicorn.conf.py",
               "--bind", f"127.0.0.1:{port}", "api:create_app()"]
    compare.ensure_port_free(port)
    return subprocess.Popen(command, cwd=checkout, env=dict(env, PORT=str(port)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_ticks(pid: int) -> tuple[int, int]:
    """CPU ticks of the gunicorn master `pid` and its workers (compare.py's count), and of every
    PostgreSQL process."""
    postgres = 0
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue  # exited meanwhile
        if stat and stat[stat.index("(") + 1:].startswith("postgres"):
            fields = compare.stat_fields(stat)
            postgres += int(fields[11]) + int(fields[12])
    tree = compare.process_tree_cpu(pid)
    return (tree[1] if tree else 0), postgres


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("state")
    parser.add_argument("--a", required=True, type=Path, help="the checkout measured first (before)")
    parser.add_argument("--b", required=True, type=Path, help="the checkout compared with it (after)")
    parser.add_argument("--route", choices=sorted(PATHS), default="feed")
    parser.add_argument("--rounds", type=load.positive_int, default=8)
    parser.add_argument("-n", type=load.positive_int, default=3000, help="counted requests per run")
    parser.add_argument("-c", type=load.positive_int, default=8, help="load threads")
    parser.add_argument("--warmup", type=load.non_negative_int, default=100)
    parser.add_argument("--port-base", type=int, default=8720)
    args = parser.parse_args(argv)
    state = json.loads(Path(args.state).read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_", "AI_"))}
    env.update(DATABASE_URL=state["database_url"], REDIS_URL=state["redis_url"], SECRET_KEY=SECRET,
               BASE_URL="http://localhost", AI_BACKEND="offline", LOG_LEVEL="INFO")
    sides = {"A": (args.a.resolve(), args.port_base + 1), "B": (args.b.resolve(), args.port_base + 2)}
    reset = None
    if args.route in ("find", "feed"):  # hotpaths_bench.py's reset, on the prepared database
        from models.db import init_db

        init_db(state["database_url"])
        reset = hb.fresh_meter_and_holds([SimpleNamespace(cookie=c) for c in state["cookies"][args.route]])
    procs = {side: server(checkout, port, env) for side, (checkout, port) in sides.items()}
    rps = {"A": [], "B": []}
    cpu = {"A": [], "B": []}
    server_part = {"A": [], "B": []}  # the server's share of each run's CPU (the rest is PostgreSQL's)
    try:
        for side, (_checkout, port) in sides.items():
            compare.wait_until_ready(procs[side], port, "/api/health")
            compare.wait_until_settled(procs[side])
        for round_ in range(args.rounds):
            for side in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                if reset is not None:
                    reset()
                before = cpu_ticks(procs[side].pid)
                result = load.run_load(f"http://127.0.0.1:{sides[side][1]}{PATHS[args.route]}", requests=args.n,
                                       concurrency=args.c, warmup=args.warmup, cookies=state["cookies"][args.route],
                                       classify=classify)
                if result["statuses"] != {"200": args.n}:
                    raise SystemExit(f"{side}: answers {result['statuses']}")
                rps[side].append(result["rps"])
                after = cpu_ticks(procs[side].pid)
                served, database = after[0] - before[0], after[1] - before[1]
                cpu[side].append((served + database) / HZ * 1000 / (args.n + args.warmup))
                server_part[side].append(served / max(served + database, 1))
                print(f"round {round_ + 1} {side}: {result['rps']:.0f} req/s, {cpu[side][-1]:.2f} ms CPU a request "
                      f"({server_part[side][-1]:.0%} the server's)", flush=True)
    finally:
        for proc in procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            proc.wait(30)
    for side in ("A", "B"):
        print(f"{side} ({sides[side][0]}): median {statistics.median(rps[side]):.0f} req/s, "
              f"{statistics.median(cpu[side]):.2f} ms CPU a request (server and PostgreSQL; "
              f"{statistics.median(server_part[side]):.0%} the server's)")
    pairs = {name: statistics.median(b / a for a, b in zip(figures["A"], figures["B"], strict=True))
             for name, figures in (("requests/s", rps), ("CPU a request", cpu))}
    print("B/A, median of the pairs: " + ", ".join(f"{name} {ratio:.3f}" for name, ratio in pairs.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
