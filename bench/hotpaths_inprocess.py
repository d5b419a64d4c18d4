"""The six hot paths in-process (the Flask test client, no gunicorn, no sockets): each route's
requests/s and, on demand, a cProfile of its requests (issue 28, part 5; a measurement, not
a test). What bench/hotpaths_bench.py measures under gunicorn, without the driver and the
server sharing the cores: a change to the pipeline or a route shows here in a minute.

Two steps, so that one prepared state serves every measurement (before and after a change,
each in a fresh process running the code as it is then):

    python bench/hotpaths_inprocess.py prepare STATE.json [DATABASE_URL] [--redis-url URL]
        [--products 2000] [-c 4]
    python bench/hotpaths_inprocess.py measure STATE.json [-n 500] [--warmup 50] [--routes find feed ...]
        [--profile DIR] [--repeat 3] [--json]

`prepare` is bench/hotpaths_bench.py's preparation (a PostgreSQL database whose name contains
"bench": its schema is dropped and rebuilt; a Redis database it flushes; one Procfile worker
for the research and the builds) and writes the founders' cookies to STATE.json. `measure`
opens the same database and, per route, sends --warmup requests then -n counted ones through
the test client, one founder after the other (their cookies, as load.py's prepared jars), and
checks that every answer is a 200 saying what its route should and that none set a new
cookie. Find and feed founders get their meter counters and holds reset before each route's
run, as hotpaths_bench.py does. Requests are sent one at a time (one thread).

As in gunicorn: LOG_LEVEL INFO, each request's JSON log line formatted (then written to
/dev/null), and prometheus-client in multiprocess mode (its figures in a temporary folder).
Each route's line: its median requests/s, the wall time of a request, and the CPU time this
process spent per request (the median run's; PostgreSQL's own time is not in it, and it moves
less with what else the machine runs). --profile DIR writes one cProfile file per route (DIR/<route>.prof; `python -m pstats`).
"""
from __future__ import annotations

import argparse
import cProfile
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ROUTES = ("find", "feed", "store", "store-building", "track", "usage", "dashboard")
EXPECTED = {"find": "card", "feed": "cards", "store": ("built", "published"), "store-building": "building",
            "track": "recorded", "usage": "ok", "dashboard": "ok"}
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_hotpaths_bench"


def prepare_state(argv) -> int:
    from bench import hotpaths_bench as hb
    from bench.feed_bench import build_catalog
    from bench.store_bench import bench_service

    parser = argparse.ArgumentParser(prog="hotpaths_inprocess.py prepare")
    parser.add_argument("state")
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=hb.DEFAULT_REDIS)
    parser.add_argument("--products", type=int, default=2000)
    parser.add_argument("--history", type=int, default=0)
    parser.add_argument("-c", type=int, default=4, help="founders per route")
    args = parser.parse_args(argv)
    args.routes = list(ROUTES)
    app, env = bench_service(args.database_url, args.redis_url)
    build_catalog(args.products, 0)
    hb.demo_catalog(args.c * 6 + 4, above=args.products + 1000)
    logs = Path(tempfile.mkdtemp(prefix="hotpaths-inprocess-"))
    prepared = hb.prepare(app, env, args, logs)
    state = {"database_url": args.database_url, "redis_url": args.redis_url, "products": args.products,
             "tracked": prepared["tracked"],
             "cookies": {route: [f.cookie for f in group] for route, group in prepared["groups"].items()}}
    state["cookies"]["store-building"] = state["cookies"].get("store-building", [])
    Path(args.state).write_text(json.dumps(state, indent=1))
    print(f"state written to {args.state}")
    return 0


def service(state: dict):
    """The app on the prepared database, logging and counting as it does under gunicorn."""
    from integrations.metrics import use_multiprocess_dir

    use_multiprocess_dir(tempfile.mkdtemp(prefix="hotpaths-inprocess-metrics-"))
    from bench.store_bench import SECRET
    from config import Settings, use_settings

    settings = use_settings(Settings(database_url=state["database_url"], redis_url=state["redis_url"],
                                     secret_key=SECRET, base_url="http://localhost", log_level="INFO",
                                     build="bench", db_pool_size=4))
    from api import create_app

    app = create_app(settings)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115  (formatted, then dropped)
    return app


def senders(app, state: dict, route: str):
    """A function sending one request of the route (cycling over its founders), and the step
    run before its measurement (find and feed: fresh meters and holds)."""
    from bench import hotpaths_bench as hb

    if route == "track":
        client = app.test_client()
        body = {"product_id": state["tracked"], "event": "page_view"}
        return (lambda: client.post("/api/track", json=body | {"session_id": os.urandom(8).hex()})), None
    key = "store" if route == "store" else route
    cookies = state["cookies"][key]
    clients = []
    for cookie in cookies:
        client = app.test_client()
        client.set_cookie("ff_session", cookie, domain="localhost")
        clients.append(client)
    path = {"store-building": "/api/store"}.get(route, f"/api/{route}")
    turn = iter(range(10**12))

    def send():
        return clients[next(turn) % len(clients)].get(path)

    before = hb.fresh_meter_and_holds([SimpleNamespace(cookie=c) for c in cookies]) if route in ("find", "feed") \
        else None
    return send, before


def check(route: str, response) -> str | None:
    from bench.hotpaths_bench import classify

    said = classify(response.status_code, response.get_data())
    expected = EXPECTED[route]
    ok = response.status_code == 200 and said.split(" ", 1)[1] in (expected if isinstance(expected, tuple)
                                                                     else (expected,))
    if not ok:
        return said
    if "ff_session=" in (response.headers.get("Set-Cookie") or ""):
        return "new cookie"
    return None


def measure(argv) -> int:
    parser = argparse.ArgumentParser(prog="hotpaths_inprocess.py measure")
    parser.add_argument("state")
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="counted runs per route (the median is shown)")
    parser.add_argument("--routes", nargs="+", choices=ROUTES, default=list(ROUTES))
    parser.add_argument("--profile", help="a folder for one cProfile file per route (profiled runs only)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    state = json.loads(Path(args.state).read_text())
    app = service(state)
    from models.db import close_connection

    results = {}
    for route in args.routes:
        send, before = senders(app, state, route)
        if before:
            before()
        problems = {}
        for _ in range(args.warmup):
            problem = check(route, send())
            if problem:
                problems[problem] = problems.get(problem, 0) + 1
        runs, cpu = [], []
        profiler = cProfile.Profile() if args.profile else None
        for _ in range(args.repeat):
            if before:
                before()
            close_connection()
            started, cpu_started = time.perf_counter(), time.process_time()
            if profiler:
                profiler.enable()
            answers = [send() for _ in range(args.n)]
            if profiler:
                profiler.disable()
            runs.append(args.n / (time.perf_counter() - started))
            cpu.append((time.process_time() - cpu_started) * 1000 / args.n)
            for response in answers:
                problem = check(route, response)
                if problem:
                    problems[problem] = problems.get(problem, 0) + 1
        if profiler:
            Path(args.profile).mkdir(parents=True, exist_ok=True)
            profiler.dump_stats(str(Path(args.profile) / f"{route}.prof"))
        results[route] = {"rps": round(statistics.median(runs)), "runs": [round(r) for r in runs],
                          "ms": round(1000 / statistics.median(runs), 3),
                          "cpu_ms": round(statistics.median(cpu), 3), "problems": problems}
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    if args.json:
        print(json.dumps({"load_average": load, "routes": results}, indent=1))
    else:
        print(f"in-process, {args.n} requests x {args.repeat} runs per route, one thread; load average now {load}")
        for route, r in results.items():
            print(f"{route:16} {r['rps']:6d} req/s  {r['ms']:7.3f} ms/request  {r['cpu_ms']:7.3f} ms CPU here  runs {r['runs']}  "
                  f"{'ok' if not r['problems'] else r['problems']}")
    return 1 if any(r["problems"] for r in results.values()) else 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("prepare", "measure"):
        sys.exit(__doc__)
    return prepare_state(argv[1:]) if argv[0] == "prepare" else measure(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
