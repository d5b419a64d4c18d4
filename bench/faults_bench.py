"""Faults under the process supervisor, with more builds than the tests (a measurement, not a test).

Each scenario starts the production topology on its own (tests/topology.py: supervisord with
deploy/supervisord.conf as `make procs` runs it; web, --workers worker processes of --threads
threads, the clock; a PostgreSQL database it recreates, migrated and seeded, and a Redis server
of its own on a free port), drives --builds founders over HTTP (find, claim, POST /api/store,
GET /api/store until built; every store build waits --build-seconds in a slow model program),
injects its fault, and prints what it measured:

- kill: kill -9 one worker process while it runs builds. Which processes restarted, client
  connection errors of a thread asking GET /api/health every 0.1 s, the seconds from the kill to
  the second attempt of each build the killed worker held, and to the last store built.
- stop: one SIGTERM to a worker while it runs builds. Whether they finished in that process,
  when it exited and ran again, the attempts, and the seconds to the last store built.
- past: as stop, with WORKER_SHUTDOWN_SECONDS=2 and builds of --long-build-seconds: when the
  worker exited, and how soon its unfinished builds ran again elsewhere (attempt 2).
- flush: FLUSHALL on the Redis while every thread is busy and the rest wait queued: the seconds
  from the flush to the last store built.

Usage::

    python bench/faults_bench.py [postgresql://postgres@127.0.0.1:5432/ff_faults_bench]
        [--scenarios kill stop past flush] [--builds 24] [--workers 2] [--threads 2]
        [--build-seconds 3] [--long-build-seconds 12] [--json]

The database's name must contain "bench": it is dropped and made again for each scenario.
Needs redis-server (Debian's package) and `make install` (the .venv programs supervisord runs).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.topology import (  # noqa: E402
    Topology,
    flush_redis_with_builds_queued,
    kill_worker_mid_batch,
    stop_worker_during_builds,
    stop_worker_past_its_shutdown_time,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_faults_bench"


def run(name: str, args) -> dict:
    options = {"worker_processes": args.workers, "worker_threads": args.threads,
               "build_seconds": args.build_seconds, "catalog_copies": 1 + args.builds // 20}
    scenario = {"kill": kill_worker_mid_batch, "stop": stop_worker_during_builds,
                "past": stop_worker_past_its_shutdown_time, "flush": flush_redis_with_builds_queued}[name]
    if name == "past":
        options |= {"build_seconds": args.long_build_seconds, "env": {"WORKER_SHUTDOWN_SECONDS": "2"}}
    workdir = Path(tempfile.mkdtemp(prefix=f"faults-bench-{name}-"))
    topo = Topology(workdir, args.database_url, **options)
    started = time.perf_counter()
    topo.start()
    try:
        figures = scenario(topo, builds=args.builds, timeout=args.timeout)
    except BaseException:
        print(f"{name}: failed; the processes' output is in {topo.output_file}", file=sys.stderr)
        raise
    finally:
        topo.stop()
    topo.drop()
    figures["scenario_seconds"] = round(time.perf_counter() - started, 1)
    shutil.rmtree(workdir, ignore_errors=True)  # kept only when something went wrong
    return figures


def _spread(values) -> str:
    values = sorted(v for v in values if v is not None)
    if not values:
        return "-"
    return f"{values[0]:.1f}-{values[-1]:.1f} s ({len(values)})" if len(values) > 1 else f"{values[0]:.1f} s (1)"


def show(name: str, f: dict) -> None:
    once = "every build done once" if f["all_done_once"] else "NOT every build done once"
    if name == "kill":
        print(f"kill -9 {f['worker']} mid-batch, {f['builds']} builds: restarted after {f['restarted_after_seconds']:.2f} s "
              f"(unchanged: {', '.join(f['unchanged'])}); GET /api/health {f['health_answers']} answers, "
              f"{f['health_errors']} connection errors; held {len(f['held'])} ({f['queued_at_hit']} builds queued), "
              f"run again (attempt 2) "
              f"{_spread(f['rerun_started_after_seconds'].values())} after the kill; last store built "
              f"{f['all_built_after_hit_seconds']:.1f} s after the kill; {once}")
    elif name == "stop":
        print(f"SIGTERM {f['worker']} during builds, {f['builds']} builds: held {len(f['held'])}, finished in that "
              f"process {len(f['held_finished_in_process'])}; exited {f['exited_after_seconds']:.1f} s after the "
              f"signal, running again {f['restarted_after_seconds']:.1f} s after; attempts {f['attempts']}; last store "
              f"built {f['all_built_after_hit_seconds']:.1f} s after the signal; {once}")
    elif name == "past":
        print(f"SIGTERM {f['worker']}, WORKER_SHUTDOWN_SECONDS=2, {f['builds']} long builds: exited "
              f"{f['exited_after_seconds']:.1f} s after the signal; held {len(f['held'])} ({f['queued_at_hit']} builds queued "
              f"ahead of them), run again (attempt 2) "
              f"{_spread(f['rerun_started_after_seconds'].values())} after the signal; last store built "
              f"{f['all_built_after_hit_seconds']:.1f} s after; {once}")
    else:
        print(f"FLUSHALL with {f['queued_at_flush']} of {f['builds']} builds queued: last store built "
              f"{f['all_built_after_flush_seconds']:.1f} s after the flush; attempts {sorted(set(f['attempts']))}; {once}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--scenarios", nargs="+", default=["kill", "stop", "past", "flush"],
                        choices=["kill", "stop", "past", "flush"])
    parser.add_argument("--builds", type=int, default=24, help="store builds per scenario")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (WORKER_PROCESSES)")
    parser.add_argument("--threads", type=int, default=2, help="threads per worker process (WORKER_THREADS)")
    parser.add_argument("--build-seconds", type=float, default=3.0, help="the slow model's pause per build")
    parser.add_argument("--long-build-seconds", type=float, default=12.0, help="the same, for `past`")
    parser.add_argument("--timeout", type=float, default=300, help="seconds the builds of a scenario may take")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if "bench" not in urlsplit(args.database_url).path:
        parser.error("the database's name must contain 'bench': it is dropped and made again")

    results = {}
    for name in args.scenarios:
        results[name] = run(name, args)
        if not args.json:
            show(name, results[name])
    if args.json:
        print(json.dumps({name: {k: v for k, v in f.items() if k not in ("jobs",)} for name, f in results.items()},
                         indent=2, default=str))
    return 0 if all(f["all_done_once"] for f in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
