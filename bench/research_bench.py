"""GET /api/offer and GET /api/dashboard for researched products on a large catalog,
in-process (a measurement, not a test).

On a PostgreSQL database it owns (default ff_bench; the schema is dropped and rebuilt):

1. builds a catalog of --products products (bench/feed_bench.py's catalog: 3 evidence rows
   each, gate figures computed as the loader does);
2. makes --founders anonymous founders, each holding one product (GET /api/find), and
   researches every held product (the research job's work, run in-process);
3. drives GET /api/offer and GET /api/dashboard through the Flask test client, --requests
   times each, founders in turn, and prints p50/p99;
4. counts the SQL statements of one offer and one dashboard for a researched product on
   this catalog and on a --small one, to show the count does not grow with the catalog.

Usage::

    python bench/research_bench.py [postgresql://postgres@127.0.0.1:5432/ff_bench] [--products 100000]
        [--requests 2000] [--founders 100] [--small 1000] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.feed_bench import (  # noqa: E402
    DEFAULT_URL,
    QueryCounter,
    bench_app,
    build_catalog,
    clear_founders,
    drive,
    summary,
)

PATHS = ("/api/offer", "/api/dashboard")


def researched_founders(app, count: int) -> list:
    """`count` founders, each holding a product whose research is stored."""
    from services.research import records

    founders = []
    for _ in range(count):
        client = app.test_client()
        body = client.get("/api/find").get_json()
        records.run(body["product_id"])
        founders.append(client)
    return founders


def count_queries(app) -> dict:
    """Statements and round trips of one offer and one dashboard of a researched product
    (a warm pooled connection: another founder's requests ran first)."""
    from models.db import db

    warm, client = researched_founders(app, 2)
    for path in PATHS:
        assert warm.get(path).status_code == 200
        client.get(path)  # the first dashboard records the milestone: count the steady state
    counts = {}
    for path in PATHS:
        with QueryCounter(db.obj) as counted:
            body = client.get(path).get_json()
        assert body["status"] == "ok", body
        counts[path] = {"statements": counted.count, "round_trips": counted.round_trips}
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--founders", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    app = bench_app(args.database_url)

    report = {"database": urlsplit(args.database_url).path.lstrip("/"), "queries_per_request": {}}
    build_catalog(args.small, 0)
    report["queries_per_request"][f"{args.small}_products"] = count_queries(app)
    clear_founders()
    started = time.perf_counter()
    build_catalog(args.products, 0)
    report["setup_seconds"] = round(time.perf_counter() - started, 1)
    report["queries_per_request"][f"{args.products}_products"] = count_queries(app)
    clear_founders()

    founders = researched_founders(app, args.founders)
    for path in PATHS:
        drive(founders, path, args.warmup)
        report[path] = summary(drive(founders, path, args.requests))
    report["catalog"] = {"products": args.products, "founders": args.founders}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.products:,} products, {args.founders} founders each holding a researched product, "
              f"{args.requests} requests per path, in-process:")
        for path in PATHS:
            r = report[path]
            print(f"  {path:15} p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms  {r['rps']:.0f} req/s")
        for size, counts in report["queries_per_request"].items():
            print(f"  SQL per request, {size}: " + ", ".join(
                f"{path} {c['statements']} statements / {c['round_trips']} round trips" for path, c in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
