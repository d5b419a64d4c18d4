"""Storefront builds on real worker processes, and GET /store/<slug>/ in-process (a
measurement, not a test).

On a PostgreSQL database it owns (default ff_store_bench, created if missing; its name must
contain "bench": its schema is dropped and rebuilt) and a Redis database it flushes
(default redis://127.0.0.1:6379/12), it:

1. loads the demo catalog (scripts/data/demo_catalog.jsonl) with the project's loader and
   evidence gate, cloned with new ids (`<id>-c1`, ...) until enough products clear the gate
   for every store of every round;
2. for each K in --workers (default 1 2), on fresh stores: --stores anonymous founders
   (default 200; a round of 40 lasts under a second, a third of it the POSTs) find and claim
   a product (GET /api/find, POST /api/pass) through the Flask test client. K Procfile
   `worker` commands (`dramatiq workers.broker jobs`, WORKER_PROCESSES=1, WORKER_THREADS
   --threads, default 4 as in the Procfile, AI_BACKEND=offline) start as subprocesses and,
   once booted, run the research jobs the claims started (not timed: a founder sees the
   offer before building). Then every founder POSTs /api/store, and the clock runs until
   the last store_build job is done, which is when GET /api/store turns `built` (polled as
   one count of the round's jobs every 0.1 s, since a GET per store per sweep would take a
   sizable share of the CPU the workers need; every store's GET /api/store is checked to
   say `built` afterwards). Stores/min come from that wall time, "busy" stores/min from the
   job rows (first build started to last finished), build durations p50/p95 from each
   store_build row (started_at to finished_at: a worker's threads share one interpreter
   lock, so with 4 threads a build takes several times its own CPU time). The workers get
   SIGTERM at the end of the round, and on any error. The POSTs run in this process, on
   the same cores as the workers; with --backlog the workers stop after the research, every
   store is POSTed, and they start again, so "busy" times the workers alone on a full queue;
3. publishes one store (POST /api/store/publish, one worker running), then drives
   GET /store/<slug>/ through the Flask test client (no sockets, one thread) --requests
   times over --visitors returning visitors, and the bare Flask route (bench/baseline_app.py)
   the same way; counts the SQL statements of a first visit (no cookie: a session is
   minted) and a returning one, and times --first-visits cookieless requests. With --compare
   it instead serves it with gunicorn (gunicorn.conf.py, the service's environment) and runs
   bench/compare.py on its home and product pages, each also with If-None-Match (304),
   against the bare route, one server at a time (`--stores 1 --workers 1 --compare` for
   that alone).

Usage::

    python bench/store_bench.py [postgresql://postgres@127.0.0.1:5432/ff_store_bench]
        [--redis-url redis://127.0.0.1:6379/12] [--stores 200] [--workers 1 2] [--threads 4]
        [--backlog] [--requests 2000] [--visitors 20] [--first-visits 200] [--json]
        [--compare [--compare-args "-n 10000 -c 8 --repeat 3"]]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.feed_bench import CountingCursor, QueryCounter, drive, ensure_database, rebuild_schema, summary  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_store_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"
DEMO = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
SECRET = "bench-secret-key-0123456789"


def percentile(values, p: float) -> float:
    ordered = sorted(values)  # nearest rank, as feed_bench.summary
    return ordered[max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))]


def load_catalog(needed: int) -> dict:
    """The demo catalog, and clones of it with new ids, until `needed` products clear the gate."""
    from models.discovery import ProductGate
    from services import evidence_gate
    from services.catalog import load_products, parse_catalog

    lines = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    copies = servable = 0
    while servable < needed:
        clones = [line | {"product_id": line["product_id"] + (f"-c{copies}" if copies else "")} for line in lines]
        load_products(parse_catalog([json.dumps(clone) for clone in clones]))
        copies += 1
        servable = ProductGate.select().where(evidence_gate.servable()).count()
    return {"products": copies * len(lines), "servable": servable, "copies_of_demo": copies}


def claimed_founders(app, count: int) -> list:
    """`count` anonymous founders, each having found and claimed a product."""
    founders = []
    for _ in range(count):
        client = app.test_client()
        card = client.get("/api/find").get_json()
        claimed = client.post("/api/pass", json={"action": "claim", "product_id": card.get("product_id")}).get_json()
        if claimed.get("status") != "claimed":
            raise SystemExit(f"claim refused: {claimed}")
        founders.append((client, card["product_id"]))
    return founders


class Workers:
    """K Procfile `worker` commands as subprocesses (each its own process group), ready once
    each has booted (its beat row is written); stopped with SIGTERM on exit."""

    def __init__(self, count: int, env: dict, logs: Path):
        procfile = dict(line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if ":" in line)
        self.command, self.count, self.env, self.logs, self.processes = procfile["worker"].strip(), count, env, logs, []

    def __enter__(self):
        from models.clock import utcnow
        from models.db import close_connection
        from models.job import WorkerBeat

        since = utcnow()
        for _ in range(self.count):
            with open(self.logs / f"worker-{len(list(self.logs.iterdir())) + 1}.log", "w") as log:
                self.processes.append(subprocess.Popen(["sh", "-c", "exec " + self.command], cwd=ROOT, env=self.env,
                                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 60
        while WorkerBeat.select().where(WorkerBeat.seen_at >= since).count() < self.count:
            close_connection()
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                self.__exit__(None, None, None)
                raise SystemExit(f"workers did not boot; see {self.logs}")
            time.sleep(0.2)
        close_connection()
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.processes = []
        return False


def post_all(founders) -> None:
    for client, _ in founders:
        answer = client.post("/api/store").get_json()
        if answer.get("status") != "building":
            raise SystemExit(f"POST /api/store answered {answer}")


def wait_done(kind: str, subjects: list, started: float, timeout: float, logs: Path) -> None:
    """Until every job of `kind` on `subjects` is done: one count every 0.1 s (a GET /api/store
    per store per sweep would take a sizable share of the CPU the workers need)."""
    from peewee import fn

    from models.db import close_connection
    from models.job import Job

    by_status = (Job.select(Job.status, fn.COUNT(Job.id)).where(Job.kind == kind, Job.subject.in_(subjects))
                 .group_by(Job.status))
    while (counts := dict(by_status.tuples())).get(Job.DONE, 0) < len(subjects):
        close_connection()
        if counts.get(Job.FAILED):
            raise SystemExit(f"{counts[Job.FAILED]} {kind} jobs failed; see {logs}")
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"{kind} jobs not done after {timeout:.0f} s; see {logs}")
        time.sleep(0.1)
    close_connection()


def build_round(founders, workers: Workers, timeout: float, backlog: bool) -> dict:
    """Lets the workers finish the research each claim started (not timed: a founder sees the
    offer before building), then POSTs /api/store for every founder (with the workers
    running, or with --backlog while they are stopped) and times until all are built."""
    from models.db import close_connection
    from models.job import Job
    from services.research import records
    from services.store import builds

    subjects = [builds.subject(pid) for _, pid in founders]
    with workers:
        wait_done(records.RESEARCH, [records.subject(pid) for _, pid in founders], time.perf_counter(), timeout,
                  workers.logs)
        if not backlog:
            started = time.perf_counter()
            post_all(founders)
            posted = time.perf_counter() - started
            # The last build job done is when GET /api/store turns `built` (checked below).
            wait_done(builds.BUILD, subjects, started, timeout, workers.logs)
            seconds = time.perf_counter() - started
    if backlog:
        post_all(founders)  # every message waits in Redis before a worker runs
        with workers:
            started, posted = time.perf_counter(), 0.0
            wait_done(builds.BUILD, subjects, started, timeout, workers.logs)
            seconds = time.perf_counter() - started
    for client, product_id in founders:
        state = client.get("/api/store").get_json()
        if state["status"] != "built":
            raise SystemExit(f"the store of {product_id} is {state['status']}: {state}")
    rows = list(Job.select().where(Job.kind == builds.BUILD, Job.subject.in_(subjects)))
    close_connection()
    durations = [(job.finished_at - job.started_at).total_seconds() for job in rows]
    waits = [(job.started_at - job.created_at).total_seconds() for job in rows]
    # The workers' busy span: the first build started to the last one finished (job rows).
    busy = (max(job.finished_at for job in rows) - min(job.started_at for job in rows)).total_seconds()
    return {"workers": workers.count, "stores": len(founders), "backlog": backlog, "seconds": round(seconds, 2),
            "posts_seconds": round(posted, 2),
            "stores_per_minute": round(len(founders) / seconds * 60, 1),
            "busy_seconds": round(busy, 2), "busy_stores_per_minute": round(len(rows) / busy * 60, 1),
            "build_p50_ms": round(percentile(durations, 50) * 1000, 1),
            "build_p95_ms": round(percentile(durations, 95) * 1000, 1),
            "build_max_ms": round(max(durations) * 1000, 1),
            "queued_p50_ms": round(percentile(waits, 50) * 1000, 1),
            "attempts": sum(job.attempt for job in rows), "jobs": len(rows)}


def serving(app, slug_path: str, args) -> dict:
    from bench.baseline_app import app as bare_app
    from models.db import db

    visitors = [app.test_client() for _ in range(args.visitors)]
    newcomer = app.test_client()
    with QueryCounter(db.obj) as first:
        first_page = newcomer.get(slug_path)
    with QueryCounter(db.obj) as repeat:
        newcomer.get(slug_path)
    drive(visitors, slug_path, 100)
    page = summary(drive(visitors, slug_path, args.requests))
    fresh = summary(drive([app.test_client() for _ in range(args.first_visits)], slug_path, args.first_visits))
    drive([bare_app.test_client()], "/api/bare", 100)
    bare = summary(drive([bare_app.test_client()], "/api/bare", args.requests))
    return {"path": slug_path, "page_bytes": len(first_page.get_data()), "page": page, "first_visit": fresh,
            "bare_route": bare, "ratio": {"p50": round(page["p50_ms"] / bare["p50_ms"], 1),
                                          "p99": round(page["p99_ms"] / bare["p99_ms"], 1),
                                          "rps": round(page["rps"] / bare["rps"], 3)},
            "sets_cookie_for_new_visitor": "ff_session" in first_page.headers.get("Set-Cookie", ""),
            "statements": {"first_visit": first.count, "returning": repeat.count,
                           "first_visit_round_trips": first.round_trips, "returning_round_trips": repeat.round_trips}}


def served_by_gunicorn(public_url: str, env: dict, args) -> int:
    """bench/compare.py on the published store's home and product pages, each also with
    If-None-Match (its 304), against the bare route: both servers with the service's
    environment (PostgreSQL, Redis: WEB_CONCURRENCY processes), one at a time."""
    from bench import compare

    path = urlsplit(public_url).path
    keep = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "BASE_URL")
    return compare.main(["--target-app", "api:create_app()", "--target-path", path, path + "product",
                         "--conditional", *[f"--env={k}={env[k]}" for k in keep], *args.compare_args.split()])


def bench_service(database_url: str, redis_url: str, *, threads: int = 4):
    """The app (in-process, on an emptied database and Redis db it owns) and the environment
    its Procfile workers run with: offline AI backend, one process of `threads` threads."""
    if not urlsplit(redis_url).path.strip("/").isdigit():
        sys.exit("--redis-url must name its database (redis://host:port/N): it is flushed")
    ensure_database(database_url)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    from config import Settings, use_settings

    settings = use_settings(Settings(database_url=database_url, redis_url=redis_url, secret_key=SECRET,
                                     base_url="http://localhost", log_level="WARNING", build="bench", db_pool_size=4))
    from models.db import init_db

    init_db(settings.database_url, pool_size=settings.db_pool_size).connect_params["cursor_factory"] = CountingCursor
    rebuild_schema()
    from api import create_app

    app = create_app(settings)
    logging.getLogger().setLevel(logging.WARNING)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEST_", "DATABASE_", "REDIS_", "WORKER_", "AI_"))}
    env.update(DATABASE_URL=database_url, REDIS_URL=redis_url, SECRET_KEY=SECRET, BASE_URL="http://localhost",
               AI_BACKEND="offline", WORKER_PROCESSES="1", WORKER_THREADS=str(threads),
               WORKER_METRICS_PORT="0", PATH=f"{ROOT / '.venv' / 'bin'}:{env.get('PATH', '')}")
    return app, env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes")
    parser.add_argument("--stores", type=int, default=200, help="stores built per round")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker processes of each round")
    parser.add_argument("--threads", type=int, default=4, help="WORKER_THREADS of each worker process")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--visitors", type=int, default=20)
    parser.add_argument("--first-visits", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=300, help="seconds a round may take")
    parser.add_argument("--backlog", action="store_true",
                        help="POST every store before the workers start: times the workers alone (see the docstring)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare", action="store_true",
                        help="after publishing, serve it with gunicorn and run bench/compare.py on its pages "
                             "(200 and 304) against the bare route, instead of the in-process serving figures")
    parser.add_argument("--compare-args", default="-n 10000 -c 8 --repeat 3",
                        help="compare.py's options with --compare (default: -n 10000 -c 8 --repeat 3)")
    args = parser.parse_args(argv)

    app, env = bench_service(args.database_url, args.redis_url, threads=args.threads)
    logs = Path(tempfile.mkdtemp(prefix="store-bench-"))

    report = {"database": urlsplit(args.database_url).path.lstrip("/"), "redis": args.redis_url,
              "catalog": load_catalog(args.stores * len(args.workers)), "rounds": []}
    for count in args.workers:
        founders = claimed_founders(app, args.stores)
        report["rounds"].append(build_round(founders, Workers(count, env, logs), args.timeout, args.backlog))
    owner = founders[0][0]
    with Workers(1, env, logs):
        published = owner.post("/api/store/publish").get_json()
    if published.get("status") != "published":
        raise SystemExit(f"POST /api/store/publish answered {published}")
    if args.compare:
        shutil.rmtree(logs)
        return served_by_gunicorn(published["public_url"], env, args)
    report["serving"] = serving(app, published["public_url"], args)
    shutil.rmtree(logs)  # the workers' logs are kept only when something went wrong

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    catalog = report["catalog"]
    print(f"Store builds: {args.stores} stores per round, offline AI backend, {catalog['products']} products "
          f"({catalog['servable']} clear the gate), worker threads {args.threads} per process")
    print(f"  {'workers':>7} {'seconds':>7} {'POSTs':>6} {'stores/min':>10} {'busy':>6} {'busy/min':>8} "
          f"{'build p50':>9} {'build p95':>9} {'build max':>9} {'queued p50':>10} {'attempts':>8}")
    for r in report["rounds"]:
        wall = ("{:>7} {:>6} {:>10}".format("-", "-", "-") if r["backlog"] else  # no POSTs while they ran
                f"{r['seconds']:>6.1f}s {r['posts_seconds']:>5.1f}s {r['stores_per_minute']:>10.0f}")
        print(f"  {r['workers']:>7} {wall} {r['busy_seconds']:>5.1f}s {r['busy_stores_per_minute']:>8.0f} {r['build_p50_ms']:>6.0f} ms "
              f"{r['build_p95_ms']:>6.0f} ms {r['build_max_ms']:>6.0f} ms {r['queued_p50_ms']:>7.0f} ms "
              f"{r['attempts']:>4}/{r['jobs']}")
    s = report["serving"]
    print(f"GET {s['path']} ({s['page_bytes']:,} bytes), {args.requests} requests over {args.visitors} returning "
          f"visitors, in-process:")
    for name, r in (("store home", s["page"]), ("first visit", s["first_visit"]), ("bare route", s["bare_route"])):
        print(f"  {name:12} p50 {r['p50_ms']:7.3f} ms  p99 {r['p99_ms']:7.3f} ms  {r['rps']:7.0f} req/s"
              f"  ({r['requests']} requests)")
    print(f"  ratio        p50 {s['ratio']['p50']} x  p99 {s['ratio']['p99']} x  rps {s['ratio']['rps']} x")
    st = s["statements"]
    print(f"  SQL statements per page: returning visitor {st['returning']} ({st['returning_round_trips']} round "
          f"trips), first visit {st['first_visit']} ({st['first_visit_round_trips']} round trips; "
          f"sets a session cookie: {s['sets_cookie_for_new_visitor']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
