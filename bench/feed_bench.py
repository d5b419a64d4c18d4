"""GET /api/feed on a large catalog with many live holds, in-process (a measurement, not a test).

What it does, on a PostgreSQL database it owns (default ff_bench, created if missing; its
name must contain "bench", because the schema is dropped and rebuilt):

1. builds a catalog of --products products (3 evidence rows each, gate figures computed
   by services/evidence_gate.refresh, as the loader will) and gives --holds sessions a
   live hold on the best-ranked products: the worst case for the feed, whose index walk
   must step over every held product before it finds free ones;
2. drives GET /api/feed through the Flask test client (no sockets, one thread) for
   --founders anonymous founders in turn, --requests times: each founder's first call
   mints a hold, the rest serve it (the steady state a browser produces);
3. measures a bare Flask route (bench/baseline_app.py) the same way and prints the ratio;
4. counts the SQL statements of one request (by wrapping the database's execute_sql) for
   a first call (mint) and a repeat call, on this catalog and on a --small catalog, to
   show the count does not grow with the catalog; and the round trips to the server
   (every cursor.execute, BEGIN, COMMIT and the pool's liveness check included),
   on a warm pooled connection.

Usage::

    python bench/feed_bench.py [postgresql://postgres@127.0.0.1:5432/ff_bench] [--products 100000]
        [--holds 1000] [--requests 3000] [--founders 200] [--small 1000] [--json]
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import psycopg2.extensions

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_bench"
CATEGORIES = ["Home & Kitchen", "Pet Supplies", "Fitness", "Beauty & Personal Care", "Outdoor & Camping",
              "Tech Accessories", "Baby & Kids", "Office & Desk"]


def ensure_database(url: str) -> None:
    import psycopg2

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if "bench" not in name:
        sys.exit(f"refusing to use {name!r}: the benchmark drops its schema; use a database named *bench*")
    admin = psycopg2.connect(host=parts.hostname or "127.0.0.1", port=parts.port or 5432,
                             user=parts.username or "postgres", password=parts.password, dbname="postgres")
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE DATABASE "{name}"')
    admin.close()


def rebuild_schema() -> None:
    from models.db import db
    from models.migrate import upgrade

    db.execute_sql("DROP SCHEMA public CASCADE")
    db.execute_sql("CREATE SCHEMA public")
    upgrade()


def build_catalog(count: int, holds: int) -> None:
    """`count` products (rank count..1) with three recent evidence rows, and live holds on
    the `holds` best ones."""
    from models.catalog import Evidence, Product
    from models.clock import utcnow
    from models.db import db, transaction
    from models.discovery import Hold, ProductGate
    from models.session import Session
    from services import evidence_gate

    for model in (Hold, ProductGate, Evidence, Product):
        model.delete().execute()
    Session.delete().where(Session.token_hash.startswith("bench-holder-")).execute()
    now = utcnow()
    today = now.date()
    batch = 2000
    with transaction():
        for start in range(0, count, batch):
            rows, evidence = [], []
            for n in range(start, min(count, start + batch)):
                pid = f"bench-{n:06d}"
                price = 15 + (n * 7919) % 90
                rows.append({"product_id": pid, "name": f"Bench product {n}", "description": "A product for the benchmark.",
                             "category": CATEGORIES[n % len(CATEGORIES)], "price": price,
                             "cost": round(price * (0.25 + (n % 5) * 0.1), 2), "currency": "USD",
                             "images": [f"/static/bench/{pid}.svg"], "rank": float(count - n), "extra": {},
                             "created_at": now, "updated_at": now})
                for k, days in enumerate((12, 60, 200)):
                    evidence.append({"product": pid, "date": today - timedelta(days=days + n % 7), "source": "bench",
                                     "metric": "m", "value": k, "note": ""})
            Product.insert_many(rows).execute()
            Evidence.insert_many(evidence).execute()
        evidence_gate.refresh()
        sessions = []
        for start in range(0, holds, batch):
            chunk = [{"token_hash": f"bench-holder-{n:08d}".ljust(64, "0"), "created_at": now}
                     for n in range(start, min(holds, start + batch))]
            sessions += [row[0] for row in Session.insert_many(chunk).returning(Session.id).tuples().execute()]
        held = [{"product": f"bench-{n:06d}", "session": sessions[n], "account": None,
                 "expires_at": now + timedelta(minutes=30), "created_at": now} for n in range(holds)]
        for start in range(0, len(held), batch):
            Hold.insert_many(held[start:start + batch]).execute()
    db.execute_sql("ANALYZE")


def clear_founders() -> None:
    """Forgets the benchmark founders (their holds, seen rows, milestones and sessions)."""
    from models.account import Milestone
    from models.db import db
    from models.discovery import Hold, Seen
    from models.session import Session

    founders = Session.select(Session.id).where(~Session.token_hash.startswith("bench-holder-"))
    Seen.delete().execute()
    Milestone.delete().execute()
    Hold.delete().where(Hold.session.in_(founders)).execute()
    Session.delete().where(Session.id.in_(founders)).execute()
    db.close()


def drive(clients, path: str, total: int) -> list[float]:
    timings = []
    for n in range(total):
        client = clients[n % len(clients)]
        started = time.perf_counter()
        response = client.get(path)
        timings.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return timings


def summary(timings: list[float]) -> dict:
    ordered = sorted(timings)

    def rank(p):  # nearest rank
        return ordered[max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))]

    return {"requests": len(ordered), "p50_ms": round(rank(50) * 1000, 3), "p99_ms": round(rank(99) * 1000, 3),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 3), "rps": round(len(ordered) / sum(ordered), 1)}


class QueryCounter:
    """Counts the statements the database runs (execute_sql of the proxied database) and
    the round trips to the server (every cursor.execute of every pooled connection: also
    BEGIN, COMMIT and the pool's liveness check, which bypass execute_sql)."""

    def __init__(self, database):
        self.database = database
        self.count = 0
        self.original = database.execute_sql

    def __enter__(self):
        def counted(sql, params=None, *args, **kwargs):
            self.count += 1
            return self.original(sql, params, *args, **kwargs)

        self.database.execute_sql = counted
        self.trips_before = CountingCursor.executed
        return self

    def __exit__(self, *exc):
        del self.database.execute_sql  # back to the class's method
        self.round_trips = CountingCursor.executed - self.trips_before
        return False


class CountingCursor(psycopg2.extensions.cursor):
    executed = 0

    def execute(self, query, vars=None):
        CountingCursor.executed += 1
        return super().execute(query, vars)


def count_queries(app) -> dict:
    """Statements (and round trips) of one feed for a new founder (mints a hold) and for a
    repeat (serves it). Another founder's feed runs first, so the pooled connection is
    warm (what a running server has: a connection that prepared its statements already)."""
    from models.db import db

    assert app.test_client().get("/api/feed").status_code == 200
    client = app.test_client()
    client.get("/api/health")  # the cookie is issued outside the counted requests
    with QueryCounter(db.obj) as first:
        assert client.get("/api/feed").status_code == 200
    with QueryCounter(db.obj) as repeat:
        assert client.get("/api/feed").status_code == 200
    return {"first_feed": first.count, "repeat_feed": repeat.count,
            "first_feed_round_trips": first.round_trips, "repeat_feed_round_trips": repeat.round_trips}


def bench_app(database_url: str):
    """The service's app on a fresh schema of `database_url` (made if missing), every statement
    counted (CountingCursor), logging at WARNING: what the catalog benchmarks share."""
    ensure_database(database_url)
    from config import Settings, use_settings

    settings = use_settings(Settings(database_url=database_url, secret_key="bench-secret-key-0123456789",
                                     base_url="http://localhost", log_level="WARNING", build="bench", db_pool_size=4))
    from models.db import init_db

    database = init_db(settings.database_url, pool_size=settings.db_pool_size)
    database.connect_params["cursor_factory"] = CountingCursor  # round trips, for count_queries
    rebuild_schema()
    from api import create_app

    app = create_app(settings)
    logging.getLogger().setLevel(logging.WARNING)
    return app


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--holds", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=3_000)
    parser.add_argument("--founders", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--small", type=int, default=1_000, help="the small catalog of the query-count comparison")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    app = bench_app(args.database_url)
    from bench.baseline_app import app as bare_app

    report = {"database": urlsplit(args.database_url).path.lstrip("/")}
    queries = {}
    small_holds = max(1, args.small // 10)
    started = time.perf_counter()
    build_catalog(args.small, small_holds)
    queries[f"{args.small}_products_{small_holds}_holds"] = count_queries(app)
    clear_founders()
    build_catalog(args.products, args.holds)
    report["setup_seconds"] = round(time.perf_counter() - started, 1)
    queries[f"{args.products}_products_{args.holds}_holds"] = count_queries(app)
    clear_founders()
    report["queries_per_request"] = queries

    founders = [app.test_client() for _ in range(args.founders)]
    drive(founders, "/api/feed", args.warmup)
    feed = summary(drive(founders, "/api/feed", args.requests))
    bare_clients = [bare_app.test_client()]
    drive(bare_clients, "/api/bare", args.warmup)
    bare = summary(drive(bare_clients, "/api/bare", args.requests))
    report.update(feed=feed, bare_route=bare, ratio={
        "p50": round(feed["p50_ms"] / bare["p50_ms"], 1),
        "p99": round(feed["p99_ms"] / bare["p99_ms"], 1),
        "rps": round(feed["rps"] / bare["rps"], 3),
    }, catalog={"products": args.products, "live_holds": args.holds + args.founders, "founders": args.founders})
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"GET /api/feed, {args.products:,} products, {args.holds:,} live holds on the best-ranked "
              f"(+{args.founders} of the founders), {args.requests} requests over {args.founders} founders, in-process:")
        print(f"  feed      p50 {feed['p50_ms']:.2f} ms  p99 {feed['p99_ms']:.2f} ms  {feed['rps']:.0f} req/s")
        print(f"  bare      p50 {bare['p50_ms']:.3f} ms  p99 {bare['p99_ms']:.3f} ms  {bare['rps']:.0f} req/s")
        print(f"  ratio     p50 {report['ratio']['p50']} x  p99 {report['ratio']['p99']} x  rps {report['ratio']['rps']} x")
        for name, counts in queries.items():
            print(f"  SQL statements per feed, {name}: first (mints a hold) {counts['first_feed']}, "
                  f"repeat {counts['repeat_feed']}; round trips {counts['first_feed_round_trips']} and "
                  f"{counts['repeat_feed_round_trips']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
