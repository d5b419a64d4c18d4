"""Retention: a year of traffic rows, the routes that read those tables before and after the
prune, on SQLite and PostgreSQL, in-process (a measurement, not a test).

What it does, per database (a SQLite file it owns, and a PostgreSQL database whose name
must contain "bench", because its schema is dropped and rebuilt):

1. builds a small catalog (--products, gate figures computed) and bulk-inserts a year of
   the rows that grow with traffic, spread evenly over 365 days: finished jobs
   (--jobs-per-day over 600 subjects, so each subject has a newest job the prune keeps), store funnel events (--events-per-day, a tenth of
   them on the measured founder's product), presence rows, Fix runs with two 4 KiB pages
   each, lapsed holds, spent sign-in links, expired journey carriers and sandbox checkouts
   that expired with their delivered notification;
2. measures GET /api/feed (--requests over 50 founders), GET /metrics (the scraper's call)
   and GET /api/editor/metrics?days=90 (the founder's funnel) through the Flask test client;
3. runs services/retention.apply_retention until a pass deletes nothing (each pass is what
   one hourly `prune_retained` does; with RETENTION_BUDGET_SECONDS the first pass should
   clear it all), timing each, and measures the three routes again. It prints the rows the
   prune deletes a second and so the write rate it keeps up with: rows a second times the
   budget is the rows an hour one run takes away.

Usage::

    python bench/retention_bench.py [--sqlite sqlite:////tmp/ff_retention_bench.sqlite]
        [--postgres postgresql://postgres@127.0.0.1:5432/ff_retention_bench] [--only sqlite|postgresql]
        [--jobs-per-day 500] [--events-per-day 1000] [--requests 200] [--json]
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.feed_bench import build_catalog, ensure_database, summary  # noqa: E402

DAYS = 365
BATCH = 1000
PAGE = "<html><body>" + "x" * 4096 + "</body></html>"


def open_app(database_url: str):
    """The service's app on a fresh schema of `database_url`."""
    from config import Settings, use_settings

    if database_url.startswith("postgres"):
        ensure_database(database_url)
    else:
        Path(urlsplit(database_url).path).unlink(missing_ok=True)
    settings = use_settings(Settings(database_url=database_url, secret_key="bench-secret-key-0123456789",
                                     base_url="http://localhost", log_level="WARNING", build="bench", db_pool_size=4,
                                     metrics_public=True))
    from models.db import db, init_db
    from models.migrate import upgrade

    init_db(settings.database_url, pool_size=settings.db_pool_size)
    if database_url.startswith("postgres"):
        db.execute_sql("DROP SCHEMA public CASCADE")
        db.execute_sql("CREATE SCHEMA public")
    upgrade()
    from api import create_app

    app = create_app(settings)
    logging.getLogger().setLevel(logging.WARNING)
    return app, settings


def _insert(model, rows) -> None:
    from models.db import transaction

    for start in range(0, len(rows), BATCH):
        with transaction():
            model.insert_many(rows[start:start + BATCH]).execute()


def _ids(model, key, where) -> list:
    return [row_id for (row_id,) in model.select(key).where(where).order_by(key).tuples()]


def a_year_of_traffic(*, products: int, jobs_per_day: int, events_per_day: int) -> tuple[str, dict]:
    """Bulk-inserts the rows; answers the measured founder's cookie value and the row counts."""
    from models.account import Account, SignInToken
    from models.clock import utcnow
    from models.discovery import Claim, Hold
    from models.fix import FixPage, FixRun
    from models.funnel import FunnelEvent, Presence
    from models.job import Job
    from models.payment import SandboxCheckout, SandboxNotification
    from models.session import Session
    from models.walkthrough import JourneyCarrier
    from services.sessions import open_session

    now = utcnow()
    founder, cookie = open_session()
    owned = "bench-000999"  # low in rank: the feed's top products stay free
    Claim.create(product=owned, session=founder.id)

    def moment(day: int, n: int = 0):
        return now - timedelta(days=DAYS - day, seconds=n % 86000)

    sessions_made = [{"token_hash": f"bench-visitor-{n:08d}".ljust(64, "0"), "created_at": moment(n % DAYS)}
                     for n in range(20_000)]
    _insert(Session, sessions_made)
    visitors = _ids(Session, Session.id, Session.token_hash.startswith("bench-visitor-"))
    _insert(Presence, [{"session": sid, "area": "find", "screen": "feed", "updated_at": moment(n % DAYS, n)}
                       for n, sid in enumerate(visitors)])
    _insert(Account, [{"email": f"bench{n}@example.com", "verified": True, "created_at": moment(0)}
                      for n in range(1000)])
    accounts = _ids(Account, Account.id, Account.email.startswith("bench"))

    for day in range(DAYS):
        _insert(Job, [{"id": f"{day:03d}{n:06d}".ljust(32, "0"), "kind": ("discover", "store_build", "store_publish",
                       "sign_in_mail", "ad_build", "fix_run")[n % 6], "subject": f"bench:{n % 600}",
                       "status": "done" if n % 20 else "failed", "attempt": 1, "payload": {},
                       "created_at": moment(day, n), "updated_at": moment(day, n + 5),
                       "started_at": moment(day, n + 1), "finished_at": moment(day, n + 5)}
                      for n in range(jobs_per_day)])
        date = moment(day).date()
        _insert(FunnelEvent, [{"product": owned if n % 10 == 0 else f"bench-{n % products:06d}",
                               "visitor_session": f"v{day}-{n // 4}", "event": ("page_view", "add_to_cart",
                               "checkout", "paid")[n % 4], "day": date, "created_at": moment(day, n)}
                              for n in range(events_per_day)])
        _insert(SignInToken, [{"token_hash": f"bench-token-{day:03d}-{n:04d}".ljust(64, "0"),
                               "account": accounts[(day * 200 + n) % len(accounts)], "created_at": moment(day, n),
                               "expires_at": moment(day, n + 900), "mailed_at": moment(day, n),
                               "spent_at": moment(day, n + 60) if n % 3 else None} for n in range(200)])
        _insert(JourneyCarrier, [{"id_hash": f"bench-carrier-{day:03d}-{n:04d}".ljust(64, "0"), "route": "#/app/home",
                                  "created_at": moment(day, n), "expires_at": moment(day, n + 900)}
                                 for n in range(100)])
        _insert(SandboxCheckout, [{"id": f"cs_sbx_bench_{day}_{n}", "reference": f"r{day}-{n}", "amount_minor": 2500,
                                   "currency": "USD", "description": "Bench", "success_url": "http://localhost/ok",
                                   "cancel_url": "http://localhost/no", "state": "expired",
                                   "created_at": moment(day, n), "expires_at": moment(day, n) + timedelta(days=1),
                                   "settled_at": moment(day, n) + timedelta(days=1)} for n in range(100)])
        _insert(SandboxNotification, [{"id": f"evt_sbx_bench_{day}_{n}", "checkout": f"cs_sbx_bench_{day}_{n}",
                                       "type": "checkout.expired", "payload": "{}", "attempts": 1,
                                       "delivered_at": moment(day, n) + timedelta(days=1),
                                       "created_at": moment(day, n) + timedelta(days=1)} for n in range(100)])
        _insert(FixRun, [{"token": f"bench-fix-{day}-{n}", "url": "https://shop.example/", "stage": "done",
                          "pages": [], "findings": [], "created_at": moment(day, n),
                          "finished_at": moment(day, n + 30)} for n in range(10)])
    runs = _ids(FixRun, FixRun.id, FixRun.token.startswith("bench-fix-"))
    _insert(FixPage, [{"run": run, "position": p, "url": f"https://shop.example/{p}", "html": PAGE}
                      for run in runs for p in range(2)])
    # Lapsed holds on the lower half of the catalog (a day or more ago), by the visitors.
    _insert(Hold, [{"product": f"bench-{n:06d}", "session": visitors[n], "expires_at": moment(n % (DAYS - 2)),
                    "created_at": moment(n % (DAYS - 2))} for n in range(products // 2, products) if n != 999])
    return cookie, table_counts()


def table_counts() -> dict:
    from models.account import SignInToken
    from models.discovery import Hold
    from models.fix import FixPage, FixRun
    from models.funnel import FunnelEvent, Presence
    from models.job import Job
    from models.payment import SandboxCheckout, SandboxNotification
    from models.walkthrough import JourneyCarrier

    return {model._meta.table_name: model.select().count() for model in
            (Job, FunnelEvent, Presence, FixRun, FixPage, Hold, SignInToken, JourneyCarrier, SandboxCheckout,
             SandboxNotification)}


def drive(clients, path: str, total: int) -> list[float]:
    timings = []
    for n in range(total):
        started = time.perf_counter()
        response = clients[n % len(clients)].get(path)
        timings.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return timings


def measure(app, cookie: str, requests: int) -> dict:
    from models.db import close_connection

    founders = [app.test_client() for _ in range(50)]
    owner = app.test_client()
    owner.set_cookie("ff_session", cookie)
    scraper = [app.test_client()]
    figures = {}
    for name, clients, path, count in (("feed", founders, "/api/feed", requests),
                                       ("metrics_scrape", scraper, "/metrics", max(20, requests // 10)),
                                       ("store_metrics_90d", [owner], "/api/editor/metrics?days=90", requests)):
        drive(clients, path, max(5, count // 10))  # warm-up
        figures[name] = summary(drive(clients, path, count))
    close_connection()
    return figures


def prune_until_done(settings) -> dict:
    """Runs apply_retention until a run deletes nothing (since RETENTION_BUDGET_SECONDS, one
    run should do it all), and answers the write rate the prune keeps up with: the rows it
    deletes a second, times the budget, is how many rows an hour it can take away."""
    from services.retention import apply_retention

    passes, seconds, removed = [], 0.0, {}
    while True:
        started = time.perf_counter()
        counts = apply_retention(settings)
        took = time.perf_counter() - started
        seconds += took
        passes.append(round(took, 2))
        for kind, count in counts.items():
            removed[kind] = removed.get(kind, 0) + count
        if not any(counts.values()):
            break
    total = sum(removed.values())
    per_second = total / seconds if seconds else 0.0
    return {"passes": len(passes), "seconds_per_pass": passes, "seconds": round(seconds, 1), "removed": removed,
            "rows_per_second": round(per_second), "budget_seconds": settings.retention_budget_seconds,
            "keeps_up_with_rows_per_hour": round(per_second * settings.retention_budget_seconds)}


def run(database_url: str, args) -> dict:
    app, settings = open_app(database_url)
    started = time.perf_counter()
    build_catalog(args.products, 0)
    cookie, before_counts = a_year_of_traffic(products=args.products, jobs_per_day=args.jobs_per_day,
                                              events_per_day=args.events_per_day)
    from models.db import db

    db.execute_sql("ANALYZE")
    setup = round(time.perf_counter() - started, 1)
    before = measure(app, cookie, args.requests)
    pruned = prune_until_done(settings)
    db.execute_sql("ANALYZE")
    after = measure(app, cookie, args.requests)
    return {"backend": settings.database_backend, "setup_seconds": setup, "rows_before": before_counts,
            "rows_after": table_counts(), "prune": pruned, "before": before, "after": after}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sqlite", default="sqlite:////tmp/ff_retention_bench.sqlite")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/ff_retention_bench")
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--products", type=int, default=2000)
    parser.add_argument("--jobs-per-day", type=int, default=500)
    parser.add_argument("--events-per-day", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    urls = [url for kind, url in (("sqlite", args.sqlite), ("postgresql", args.postgres))
            if args.only in (None, kind)]
    reports = []
    for url in urls:  # each backend's table is printed as soon as it is measured
        reports.append(run(url, args))
        if not args.json:
            show(reports[-1])
    if args.json:
        print(json.dumps(reports, indent=2))
    return 0


def show(report: dict) -> None:
    print(f"\n{report['backend']}: a year of traffic rows (setup {report['setup_seconds']} s); "
          f"prune: {report['prune']['passes']} passes, {report['prune']['seconds']} s "
          f"({report['prune']['seconds_per_pass']}); {report['prune']['rows_per_second']:,} rows a second, so a "
          f"{report['prune']['budget_seconds']} s budget keeps up with "
          f"{report['prune']['keeps_up_with_rows_per_hour']:,} rows an hour")
    for table, count in report["rows_before"].items():
        print(f"  {table:<22} {count:>9,} -> {report['rows_after'][table]:>9,}")
    for route in report["before"]:
        b, a = report["before"][route], report["after"][route]
        print(f"  {route:<18} p50 {b['p50_ms']:8.2f} -> {a['p50_ms']:8.2f} ms   "
              f"p99 {b['p99_ms']:8.2f} -> {a['p99_ms']:8.2f} ms", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
