"""`make load`: Locust (bench/locustfile.py), headless, against the production processes
(a measurement, not a test).

For each case (WEB web processes x WORKERS worker processes) it starts the production
topology as the fault tests do (tests/topology.py: supervisord with deploy/supervisord.conf,
one gunicorn of WEB_CONCURRENCY=WEB processes, WORKERS worker processes of --threads threads,
the clock) on a loopback port, with a PostgreSQL database it drops and makes again (migrated
and seeded with the project's own commands, the demo catalog cloned until every founder has a
product of its own) and the Redis database it is given (flushed), the offline AI backend, the
sandbox payment provider and the outbox mailer; then runs

    locust -f bench/locustfile.py --headless -u USERS -r RATE -t TIME --founders F --host ... --csv ...

and prints, per endpoint (Locust's name: the route, with a tag for a step), requests/s, p50,
p95, p99 and failures; the store builds the workers finished during the run (per minute, and
per minute per worker process), with their queue wait and run time from the job rows; job
rows by kind that failed or were still waiting at the end; then stops everything.

Usage::

    python bench/load_run.py [postgresql://postgres@127.0.0.1:5432/ff_load_bench]
        [--redis-url redis://127.0.0.1:6379/13] [--web 1] [--workers 1] [--matrix]
        [--users 30] [--founders 10] [--spawn-rate 2] [--time 90s] [--threads 4] [--out DIR] [--json]

--matrix runs 1 and 2 web processes x 1 and 2 worker processes, one case after the other.
The database's name must contain "load" or "bench": it is dropped and made again for each
case. Locust runs on the same machine as the service and takes CPU of its own.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.store_bench import percentile  # noqa: E402
from tests.topology import Topology, utcnow  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_load_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
LOCUST = ROOT / ".venv" / "bin" / "locust"
DEMO_PRODUCTS = 72  # lines of scripts/data/demo_catalog.jsonl; not all of them clear the evidence gate


class GivenRedis:
    """The Redis database the run was given, in the place of the topology's own server: flushed
    at the start, left running at the end."""

    def __init__(self, url: str):
        if not urlsplit(url).path.strip("/").isdigit():
            sys.exit("--redis-url must name its database (redis://host:port/N): it is flushed")
        self._url = url

    def url(self, db: int = 0) -> str:
        return self._url

    def start(self) -> None:
        import redis

        redis.Redis.from_url(self._url).flushdb()

    def close(self) -> None:
        pass


def start_topology(args, web: int, workers: int, *, founders: int | None = None, redis_url: str | None = None,
                   topology_class=Topology, label: str = "load") -> Topology:
    """The supervised topology for `web` x `workers` processes, on the given database and Redis,
    with the catalog copied enough times for `founders` (args.founders) to claim two each.
    bench/capacity.py passes the topology class of the tree it measures, and its own label."""
    workdir = Path(tempfile.mkdtemp(prefix=f"{label}-{web}x{workers}-"))
    topo = topology_class(workdir, args.database_url, worker_processes=workers, worker_threads=args.threads,
                          catalog_copies=1 + (2 * (founders or args.founders)) // DEMO_PRODUCTS,
                          env={"WEB_CONCURRENCY": str(web), "AI_BACKEND": "offline", "LOG_LEVEL": "WARNING",
                               "INBOUND_MAILDIR": str(workdir / "inbound"), "PAYMENT_PROVIDER": "sandbox",
                               "BUILD_ID": label})
    topo.redis = GivenRedis(redis_url or args.redis_url)
    topo.start()
    return topo


def run_locust(topo: Topology, args, prefix: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, LOAD_OUTBOX_DIR=str(topo.dir / "outbox"), LOAD_INBOUND_MAILDIR=str(topo.dir / "inbound"))
    command = [str(LOCUST), "-f", str(ROOT / "bench" / "locustfile.py"), "--headless", "-u", str(args.users),
               "-r", str(args.spawn_rate), "-t", args.time, "--founders", str(args.founders), "--host", topo.base_url,
               "--csv", str(prefix), "--only-summary", "--stop-timeout", "10", "--loglevel", "WARNING"]
    with open(prefix.with_suffix(".log"), "w") as log:
        return subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=3600)


def endpoint_rows(prefix: Path) -> list[dict]:
    rows = []
    with open(f"{prefix}_stats.csv") as table:
        for row in csv.DictReader(table):
            rows.append({"method": row["Type"], "name": row["Name"], "requests": int(row["Request Count"]),
                         "failures": int(row["Failure Count"]), "rps": float(row["Requests/s"]),
                         "p50_ms": float(row["50%"] or 0), "p95_ms": float(row["95%"] or 0),
                         "p99_ms": float(row["99%"] or 0), "max_ms": float(row["Max Response Time"] or 0)})
    return rows


def failures(prefix: Path) -> list[dict]:
    found = []
    for name in ("failures", "exceptions"):
        path = Path(f"{prefix}_{name}.csv")
        if path.exists():
            with open(path) as table:
                found += [dict(row, kind=name) for row in csv.DictReader(table)]
    return found


def builds(topo: Topology, started: datetime, ended: datetime, workers: int) -> dict:
    """Store builds the workers finished during the run, from the job rows."""
    rows = topo.sql("SELECT status, created_at, started_at, finished_at FROM job WHERE kind = 'store_build' "
                    "AND created_at >= %s", started)
    done = [r for r in rows if r[0] == "done" and r[3] is not None and r[3] <= ended]
    minutes = (ended - started).total_seconds() / 60
    waits = [(r[2] - r[1]).total_seconds() for r in done]
    runs = [(r[3] - r[2]).total_seconds() for r in done]

    def ms(values, p):
        return round(percentile(values, p) * 1000) if values else None

    return {"done": len(done), "failed": sum(r[0] == "failed" for r in rows), "minutes": round(minutes, 2),
            "per_minute": round(len(done) / minutes, 1),
            "per_minute_per_worker": round(len(done) / minutes / workers, 1),
            "queued_p50_ms": ms(waits, 50), "queued_p95_ms": ms(waits, 95),
            "run_p50_ms": ms(runs, 50), "run_p95_ms": ms(runs, 95)}


def job_faults(topo: Topology) -> dict:
    """Job rows that failed, or that still waited a minute after they were made, by kind."""
    rows = topo.sql("SELECT kind, status, COUNT(*) FROM job WHERE status = 'failed' OR (status IN ('queued', 'running') "
                    "AND created_at < (now() AT TIME ZONE 'utc') - interval '1 minute') GROUP BY kind, status")
    return {f"{kind} {status}": count for kind, status, count in rows}


def run_case(args, web: int, workers: int, out: Path) -> dict:
    prefix = out / f"web{web}-workers{workers}"
    began = time.perf_counter()
    topo = start_topology(args, web, workers)
    try:
        started = utcnow()
        done = run_locust(topo, args, prefix)
        ended = utcnow()
        time.sleep(2)  # the last jobs the users started settle before the rows are read
        report = {"web": web, "workers": workers, "users": args.users, "founders": args.founders,
                  "threads": args.threads, "time": args.time, "locust_exit": done.returncode,
                  "endpoints": endpoint_rows(prefix), "failures": failures(prefix),
                  "store_builds": builds(topo, started, ended, workers), "job_faults": job_faults(topo),
                  "published_stores": topo.sql("SELECT COUNT(*) FROM store WHERE published_version IS NOT NULL")[0][0],
                  "paid_orders": topo.sql("SELECT COUNT(*) FROM customer_order WHERE state = 'paid'")[0][0]}
    except BaseException:
        print(f"web {web} x workers {workers}: failed; the processes' output is in {topo.output_file}, "
              f"Locust's in {prefix}.log", file=sys.stderr)
        raise
    finally:
        topo.stop()
    topo.drop()
    report["case_seconds"] = round(time.perf_counter() - began, 1)
    return report


def show(report: dict) -> None:
    b = report["store_builds"]
    total = next((r for r in report["endpoints"] if r["name"] == "Aggregated"), None)
    print(f"\n== {report['web']} web process(es) x {report['workers']} worker process(es) "
          f"({report['threads']} threads): {report['users']} users ({report['founders']} founders), {report['time']}; "
          f"locust exit {report['locust_exit']}")
    print(f"{'method':6} {'endpoint':46} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
          f"{'fail':>5}")
    for r in report["endpoints"]:
        if r["name"] != "Aggregated":
            print(f"{r['method']:6} {r['name'][:46]:46} {r['requests']:>8} {r['rps']:>7.2f} {r['p50_ms']:>7.0f} "
                  f"{r['p95_ms']:>7.0f} {r['p99_ms']:>7.0f} {r['failures']:>5}")
    if total:
        print(f"{'':6} {'all':46} {total['requests']:>8} {total['rps']:>7.2f} {total['p50_ms']:>7.0f} "
              f"{total['p95_ms']:>7.0f} {total['p99_ms']:>7.0f} {total['failures']:>5}")
    print(f"store builds: {b['done']} done in {b['minutes']} min = {b['per_minute']}/min, "
          f"{b['per_minute_per_worker']}/min per worker process (queued p50 {b['queued_p50_ms']} ms, "
          f"p95 {b['queued_p95_ms']} ms; run p50 {b['run_p50_ms']} ms, p95 {b['run_p95_ms']} ms); failed {b['failed']}")
    print(f"published stores {report['published_stores']}, paid orders {report['paid_orders']}; "
          f"job faults: {report['job_faults'] or 'none'}; request failures: {len(report['failures'])} kinds")
    for failure in report["failures"][:10]:
        print(f"  {failure}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes")
    parser.add_argument("--web", type=int, default=1, help="web processes (WEB_CONCURRENCY)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (WORKER_PROCESSES)")
    parser.add_argument("--matrix", action="store_true", help="1 and 2 web x 1 and 2 worker processes")
    parser.add_argument("--threads", type=int, default=4, help="WORKER_THREADS of each worker process")
    parser.add_argument("--users", type=int, default=30, help="Locust users in all (-u)")
    parser.add_argument("--founders", type=int, default=10, help="of them Founders (the rest StoreVisitors)")
    parser.add_argument("--spawn-rate", type=float, default=2, help="users started per second (-r)")
    parser.add_argument("--time", default="90s", help="how long Locust runs (-t), e.g. 90s, 5m")
    parser.add_argument("--out", type=Path, help="where the CSVs and the report go (default var/load/<UTC time>)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    name = urlsplit(args.database_url).path
    if "load" not in name and "bench" not in name:
        parser.error("the database's name must contain 'load' or 'bench': it is dropped and made again")
    if not 1 <= args.founders <= args.users:
        parser.error("--founders must be between 1 and --users")
    out = args.out or ROOT / "var" / "load" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out.mkdir(parents=True, exist_ok=True)
    cases = [(w, k) for w in (1, 2) for k in (1, 2)] if args.matrix else [(args.web, args.workers)]
    reports = []
    for web, workers in cases:
        reports.append(run_case(args, web, workers, out))
        if not args.json:
            show(reports[-1])
    (out / "report.json").write_text(json.dumps(reports, indent=2, default=str))
    if args.json:
        print(json.dumps(reports, indent=2, default=str))
    else:
        print(f"\nCSVs, Locust's logs and report.json in {out}")
    clean = all(r["locust_exit"] == 0 and not r["failures"] and not r["job_faults"] for r in reports)
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
