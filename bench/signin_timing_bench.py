"""POST /api/login/request for known and unknown addresses: how long each kind takes, in-process
(a measurement, not a test; tests/test_sign_in_same_work.py pins that both do the same work).

The reliability guide asks that timing not tell a known address from an unknown one. This
drives the request through the Flask test client (no sockets, one thread), alternating a
known address (an account exists, verified) with an unknown one, each request from a new
browser whose cookie was issued beforehand (a returning visitor; a repeat from the same
session and address would find its mail job pending and send nothing). No worker runs:
the request only queues the mail job, which is what is measured. It reports each kind's
median, p95 and p99 and the differences, and a second run of the known kind against itself
(the noise floor: a difference no larger than that says nothing).

By default it runs on a throwaway SQLite file; give a PostgreSQL URL to run there (its
database name must contain "bench" or "test": the schema is dropped and rebuilt).

Usage::

    python bench/signin_timing_bench.py [postgresql://postgres@127.0.0.1:5432/ff_test_x]
        [--requests 2000] [--warmup 200] [--accounts 200] [--json]
"""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def percentile(ordered: list[float], p: float) -> float:
    """Nearest rank, in milliseconds."""
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))] * 1000


def summary(timings: list[float]) -> dict:
    ordered = sorted(timings)
    return {"requests": len(ordered), "p50_ms": round(percentile(ordered, 50), 3),
            "p95_ms": round(percentile(ordered, 95), 3), "p99_ms": round(percentile(ordered, 99), 3),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 3)}


def service(database_url: str | None):
    """The app on an empty schema (a temporary SQLite file unless a URL is given)."""
    from config import Settings, use_settings

    if database_url is None:
        database_url = f"sqlite:///{tempfile.mkdtemp(prefix='ff-signin-bench-')}/bench.db"
    elif not any(word in urlsplit(database_url).path for word in ("bench", "test")):
        sys.exit("refusing: the schema is dropped and rebuilt; name a database with 'bench' or 'test' in it")
    outbox = tempfile.mkdtemp(prefix="ff-signin-outbox-")
    settings = use_settings(Settings(database_url=database_url, secret_key="bench-secret-key-0123456789",
                                     base_url="http://localhost", log_level="WARNING", build="bench",
                                     outbox_dir=outbox, db_pool_size=4))
    from models.db import db, init_db, is_sqlite
    from models.migrate import upgrade

    init_db(settings.database_url, pool_size=settings.db_pool_size)
    if not is_sqlite():
        db.execute_sql("DROP SCHEMA public CASCADE")
        db.execute_sql("CREATE SCHEMA public")
    upgrade()
    from api import create_app

    app = create_app(settings)
    logging.getLogger().setLevel(logging.WARNING)
    return app, database_url


def known_accounts(count: int) -> list[str]:
    from models.account import Account

    addresses = [f"known{n}@example.com" for n in range(count)]
    for address in addresses:
        Account.create(email=address, verified=True)
    return addresses


def timed(app, emails: list[str]) -> list[float]:
    """One request per address, each from a new browser whose session exists already."""
    timings = []
    for email in emails:
        client = app.test_client()
        client.get("/api/health")  # the cookie is issued outside the timed request
        started = time.perf_counter()
        response = client.post("/api/login/request", json={"email": email})
        timings.append(time.perf_counter() - started)
        if response.status_code != 200:
            sys.exit(f"POST /api/login/request answered {response.status_code}: {response.get_data(as_text=True)}")
    return timings


def run(app, *, requests: int, warmup: int, accounts: int) -> dict:
    known = known_accounts(accounts)
    unknown = [f"nobody{n}@example.com" for n in range(accounts)]
    timed(app, [known[n % accounts] for n in range(warmup)] + [unknown[n % accounts] for n in range(warmup)])
    kinds = {"known": [], "unknown": [], "known_again": []}
    # Interleaved in rounds, so drift of the machine falls on every kind alike.
    rounds = 20
    for round_ in range(rounds):
        share = range(round_ * requests // rounds, (round_ + 1) * requests // rounds)
        kinds["known"] += timed(app, [known[n % accounts] for n in share])
        kinds["unknown"] += timed(app, [unknown[n % accounts] for n in share])
        kinds["known_again"] += timed(app, [known[(n + 1) % accounts] for n in share])
    report = {kind: summary(timings) for kind, timings in kinds.items()}
    report["difference_ms"] = {f"{p}": round(report["unknown"][f"{p}_ms"] - report["known"][f"{p}_ms"], 3)
                               for p in ("p50", "p95", "p99")}
    report["noise_ms"] = {f"{p}": round(report["known_again"][f"{p}_ms"] - report["known"][f"{p}_ms"], 3)
                          for p in ("p50", "p95", "p99")}
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=None)
    parser.add_argument("--requests", type=int, default=2000, help="requests of each kind")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--accounts", type=int, default=200, help="known (and as many unknown) addresses")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    app, url = service(args.database_url)
    report = {"database": "sqlite" if url.startswith("sqlite") else urlsplit(url).path.lstrip("/"),
              **run(app, requests=args.requests, warmup=args.warmup, accounts=args.accounts)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"database: {report['database']}")
    for kind in ("known", "unknown", "known_again"):
        row = report[kind]
        print(f"{kind:12s} n={row['requests']}  p50 {row['p50_ms']:.3f} ms  p95 {row['p95_ms']:.3f} ms  "
              f"p99 {row['p99_ms']:.3f} ms  mean {row['mean_ms']:.3f} ms")
    print("unknown - known:      " + "  ".join(f"{p} {v:+.3f} ms" for p, v in report["difference_ms"].items()))
    print("known again - known:  " + "  ".join(f"{p} {v:+.3f} ms" for p, v in report["noise_ms"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
