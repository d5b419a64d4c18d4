"""Customer orders end to end against a real gunicorn server, and GET /api/revenue at 100k
paid orders (a measurement, not a test).

On a PostgreSQL database it owns (default ff_commerce_bench, created if missing; its name
must contain "bench": its schema is dropped and rebuilt with the migrations) and a Redis
database it flushes (default redis://127.0.0.1:6379/14), through store_bench.bench_service,
it:

1. sets up one founder's published store: the demo catalog (store_bench's loader), one
   anonymous founder who claims a product, and one Procfile worker (offline AI backend)
   for the research, the build and POST /api/store/publish; the worker is stopped after;
2. starts the web process as the Procfile does (gunicorn -c gunicorn.conf.py
   "api:create_app()": WEB_CONCURRENCY 2 processes of WEB_THREADS 8 threads, LOG_LEVEL
   WARNING) on a loopback port, and, unless --no-worker, one Procfile `worker` process
   with BASE_URL set to that server, so the sandbox provider's signed notifications are
   delivered to POST /pay/notify and confirmed by `payment_confirm` jobs while the
   customers confirm too (the race that must credit once). Then --clients threads, each
   one customer on one keep-alive HTTP/1.1 connection (its ff_session cookie kept), run
   --round-trips customer journeys (after --warmup uncounted ones):
       POST /api/store/checkout {product_id, quantity 1-3, email} -> {order_id, checkout_url}
       POST <checkout_url's path> action=pay and a shipping address (the sandbox's hosted page;
       303, not followed)
       GET /api/store/confirm?order_id= -> state paid
   Round trips/s is the counted round trips over the counted phase's wall time; p50/p95
   (nearest rank) per round trip and per step. Once the queued notification and confirm
   jobs are done, it checks that the store's RevenueTotal equals the sum of its paid
   orders, that the ledger has exactly one RevenueCredit per paid order with the same
   amounts, that every journey's order is paid, and that GET /api/revenue says the same;
3. GET /api/revenue in-process (Flask test client, one thread, no sockets) for the
   founder: the orders of step 2 plus paid orders (Payment, CustomerOrder, RevenueCredit)
   bulk-inserted through the models, with the store's RevenueTotal raised by exactly what
   they add (as each credit raises it), to --small (default 1,000) and then --orders
   (default 100,000) paid orders; at each size the SQL statements and round trips of one
   request (feed_bench.QueryCounter, on a warm pooled connection) and p50/p99 over
   --requests requests (default 2,000), next to the bare Flask route measured the same way.

Usage::

    python bench/commerce_bench.py [postgresql://postgres@127.0.0.1:5432/ff_commerce_bench]
        [--redis-url redis://127.0.0.1:6379/14] [--clients 8] [--round-trips 900] [--warmup 50]
        [--no-worker] [--port 0] [--orders 100000] [--small 1000] [--requests 2000] [--json]
"""
from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.compare import log_tail, stop, wait_until_ready, wait_until_settled  # noqa: E402
from bench.feed_bench import QueryCounter, drive, summary  # noqa: E402
from bench.load import STALE_CONNECTION_ERRORS, find_session_cookie  # noqa: E402
from bench.store_bench import Workers, bench_service, claimed_founders, load_catalog, percentile, wait_done  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_commerce_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/14"
HOST = "127.0.0.1"
PAYMENT_JOBS = ("sandbox_notify", "payment_confirm")  # sandbox_pages.NOTIFY_JOB, payments.CONFIRM_JOB


# --- Setup: one founder's published store -----------------------------------------------------


def published_store(app, env: dict, logs: Path):
    """One founder (a test client) who claimed a product, built and published its store."""
    from services.research import records

    load_catalog(1)
    founders = claimed_founders(app, 1)
    owner, product_id = founders[0]
    with Workers(1, env, logs) as workers:
        wait_done(records.RESEARCH, [records.subject(product_id)], time.perf_counter(), 120, workers.logs)
        owner.post("/api/store")
        deadline = time.monotonic() + 120
        while owner.get("/api/store").get_json().get("status") != "built":
            if time.monotonic() > deadline:
                raise SystemExit(f"the store was not built in time; see {logs}")
            time.sleep(0.1)
        published = owner.post("/api/store/publish").get_json()
    if published.get("status") != "published":
        raise SystemExit(f"POST /api/store/publish answered {published}")
    return owner, product_id


# --- The web process and the customers --------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


class Server:
    """The Procfile's `web` command (gunicorn with gunicorn.conf.py) on a loopback port,
    ready once it answers and its process tree is CPU-quiet; SIGTERM on exit."""

    def __init__(self, env: dict, port: int):
        self.env, self.port = env, port

    def __enter__(self):
        fd, self.log_path = tempfile.mkstemp(prefix="commerce-bench-gunicorn-", suffix=".log")
        command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--bind", f"{HOST}:{self.port}",
                   "--no-control-socket", "api:create_app()"]
        with os.fdopen(fd, "wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        try:
            wait_until_ready(self.process, self.port, "/api/health")
            wait_until_settled(self.process)
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, exc_type, *exc):
        stop(self.process)
        if exc_type is not None:
            print(log_tail(self.log_path), file=sys.stderr)
        else:
            os.unlink(self.log_path)
        return False


class Customer:
    """One customer: one keep-alive HTTP/1.1 connection and the ff_session cookie it is given."""

    def __init__(self, port: int):
        self.port, self.conn, self.cookie, self.used = port, None, None, 0

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None):
        for attempt in (1, 2):  # one retry when a reused keep-alive socket turned out dead
            if self.conn is None:
                self.conn, self.used = http.client.HTTPConnection(HOST, self.port, timeout=30), 0
            reused = self.used > 0
            headers = {"Accept": "application/json"}
            if content_type:
                headers["Content-Type"] = content_type
            if self.cookie:
                headers["Cookie"] = f"ff_session={self.cookie}"
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except STALE_CONNECTION_ERRORS:
                self.close()
                if reused and attempt == 1:
                    continue
                raise
            self.used += 1
            self.cookie = self.cookie or find_session_cookie(response.headers.get_all("Set-Cookie") or [])
            if response.will_close:
                self.close()
            return response.status, response.headers, data

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


SHIPPING = {"name": "Bench Customer", "line1": "1 Test Street", "city": "Dublin", "postal_code": "D01 F5P2",
            "country": "IE"}


def revenue_figures(stores: list[dict]) -> list[dict]:
    """GET /api/revenue's figures per store (the answer also names the product, for the screen)."""
    return [{key: store[key] for key in ("product_id", "currency", "confirmed_minor", "orders")} for store in stores]


def journey(customer: Customer, product_id: str, number: int) -> dict:
    """Checkout, pay on the hosted page, confirm: the timings of each step and the order."""
    marks = [time.perf_counter()]
    body = json.dumps({"product_id": product_id, "quantity": 1 + number % 3,
                       "email": f"buyer-{number}@example.com"}).encode()
    status, _, data = customer.request("POST", "/api/store/checkout", body, "application/json")
    started = json.loads(data)
    if status != 200 or started.get("status") != "checkout_started":
        raise RuntimeError(f"POST /api/store/checkout answered {status} {data[:300]!r}")
    marks.append(time.perf_counter())
    hosted = urlsplit(started["checkout_url"]).path
    # A store that ships asks the hosted page for an address (what a customer types there).
    status, headers, data = customer.request("POST", hosted, urlencode({"action": "pay", **SHIPPING}).encode(),
                                             "application/x-www-form-urlencoded")
    if status != 303 or "/pay/landing?payment=" not in (headers.get("Location") or ""):
        raise RuntimeError(f"POST {hosted} answered {status} {headers.get('Location')} {data[:300]!r}")
    marks.append(time.perf_counter())
    status, _, data = customer.request("GET", "/api/store/confirm?" + urlencode({"order_id": started["order_id"]}))
    confirmed = json.loads(data)
    if status != 200 or confirmed.get("state") != "paid" or not confirmed.get("provider_answered"):
        raise RuntimeError(f"GET /api/store/confirm answered {status} {data[:300]!r}")
    marks.append(time.perf_counter())
    return {"order_id": started["order_id"], "amount_minor": confirmed["amount_minor"],
            "currency": confirmed["currency"], "steps": [b - a for a, b in itertools.pairwise(marks)],
            "total": marks[-1] - marks[0]}


def run_journeys(port: int, product_id: str, clients: int, total: int, first: int) -> tuple[list[dict], float]:
    """`total` journeys over `clients` threads (numbered from `first`); answers them and the wall time."""
    customers = [Customer(port) for _ in range(clients)]
    lock, counter, results, errors = threading.Lock(), iter(range(first, first + total)), [], []

    def loop(customer):
        while not errors:
            with lock:
                number = next(counter, None)
            if number is None:
                return
            try:
                outcome = journey(customer, product_id, number)
            except Exception as exc:  # noqa: BLE001 (reported after the phase)
                errors.append(exc)
                return
            with lock:
                results.append(outcome)

    threads = [threading.Thread(target=loop, args=(customer,)) for customer in customers]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    for customer in customers:
        customer.close()
    if errors:
        raise SystemExit(f"a journey failed: {errors[0]}")
    return results, seconds


def wait_payment_jobs(timeout: float) -> dict:
    """Until no notification delivery or confirm job is queued or running; their counts."""
    from peewee import fn

    from models.db import close_connection
    from models.job import Job

    deadline = time.monotonic() + timeout
    while True:
        counts = dict(Job.select(Job.status, fn.COUNT(Job.id)).where(Job.kind.in_(PAYMENT_JOBS))
                      .group_by(Job.status).tuples())
        close_connection()
        if not any(counts.get(status) for status in Job.ACTIVE) or time.monotonic() > deadline:
            return counts
        time.sleep(0.2)


def ledger(product_id: str) -> dict:
    """The store's paid orders, its credits and its running total, summed."""
    from peewee import fn

    from models.db import close_connection
    from models.payment import CustomerOrder, RevenueCredit, RevenueTotal

    orders = (CustomerOrder.select(fn.COUNT(CustomerOrder.id), fn.COALESCE(fn.SUM(CustomerOrder.amount_minor), 0))
              .where(CustomerOrder.product == product_id, CustomerOrder.state == CustomerOrder.PAID).tuples()[0])
    credits = (RevenueCredit.select(fn.COUNT(RevenueCredit.payment), fn.COALESCE(fn.SUM(RevenueCredit.amount_minor), 0),
                                    fn.COUNT(fn.DISTINCT(RevenueCredit.order)))
               .where(RevenueCredit.product == product_id).tuples()[0])
    totals = list(RevenueTotal.select(RevenueTotal.currency, RevenueTotal.confirmed_minor, RevenueTotal.orders)
                  .where(RevenueTotal.product == product_id).tuples())
    unpaid_credits = (RevenueCredit.select().join(CustomerOrder, on=(RevenueCredit.order == CustomerOrder.id))
                      .where(RevenueCredit.product == product_id, CustomerOrder.state != CustomerOrder.PAID).count())
    close_connection()
    return {"paid_orders": orders[0], "paid_minor": int(orders[1]), "credits": credits[0],
            "credited_minor": int(credits[1]), "credited_orders": credits[2], "totals": totals,
            "credits_of_unpaid_orders": unpaid_credits}


def check_revenue(owner, product_id: str, journeys: list[dict]) -> dict:
    """Revenue equals the sum of the paid orders exactly, each credited once; raises otherwise."""
    from models.payment import CustomerOrder

    state = ledger(product_id)
    currencies = {j["currency"] for j in journeys}
    expected = sum(j["amount_minor"] for j in journeys)
    ids = [j["order_id"] for j in journeys]
    paid = CustomerOrder.select().where(CustomerOrder.id.in_(ids), CustomerOrder.state == CustomerOrder.PAID).count()
    answer = owner.get("/api/revenue").get_json()["stores"]
    problems = []
    if len(currencies) != 1 or len(state["totals"]) != 1:
        problems.append(f"one currency expected: {currencies}, totals {state['totals']}")
    else:
        currency, total_minor, total_orders = state["totals"][0]
        if paid != len(journeys):
            problems.append(f"{len(journeys) - paid} journeys' orders are not paid")
        if (state["paid_orders"], state["paid_minor"]) != (len(journeys), expected):
            problems.append(f"paid orders {state['paid_orders']} / {state['paid_minor']} != journeys "
                            f"{len(journeys)} / {expected}")
        if (state["credits"], state["credited_minor"], state["credited_orders"]) != (
                state["paid_orders"], state["paid_minor"], state["paid_orders"]):
            problems.append(f"credits {state['credits']} / {state['credited_minor']} over "
                            f"{state['credited_orders']} orders != paid orders")
        if (total_minor, total_orders) != (state["paid_minor"], state["paid_orders"]):
            problems.append(f"RevenueTotal {total_minor} / {total_orders} != paid orders")
        if revenue_figures(answer) != [{"product_id": product_id, "currency": currency, "confirmed_minor": total_minor,
                        "orders": total_orders}]:
            problems.append(f"GET /api/revenue answered {answer}")
    if state["credits_of_unpaid_orders"]:
        problems.append(f"{state['credits_of_unpaid_orders']} credits for orders that are not paid")
    if problems:
        raise SystemExit("revenue check failed: " + "; ".join(problems))
    return {"ok": True, "paid_orders": state["paid_orders"], "revenue_minor": state["paid_minor"],
            "currency": currencies.pop(), "credits": state["credits"]}


def round_trips(owner, product_id: str, env: dict, logs: Path, args) -> dict:
    port = args.port or free_port()
    base = f"http://{HOST}:{port}"
    web_env = {k: v for k, v in env.items() if not k.startswith(("WORKER_", "WEB_", "DB_POOL"))}
    web_env.update(PORT=str(port), HOST=HOST, BASE_URL=base, LOG_LEVEL="WARNING", PAYMENT_PROVIDER="sandbox",
                   BUILD_ID="bench")
    worker_env = dict(env, BASE_URL=base, LOG_LEVEL="WARNING", PAYMENT_PROVIDER="sandbox", BUILD_ID="bench")
    worker = Workers(0 if args.no_worker else 1, worker_env, logs)
    with Server(web_env, port), worker:
        warm, _ = run_journeys(port, product_id, args.clients, args.warmup, 0)
        counted, seconds = run_journeys(port, product_id, args.clients, args.round_trips, args.warmup)
        jobs = wait_payment_jobs(120) if not args.no_worker else None
    check = check_revenue(owner, product_id, warm + counted)
    if not args.no_worker:
        from models.job import Job

        if jobs.get(Job.FAILED) or any(jobs.get(status) for status in Job.ACTIVE):
            raise SystemExit(f"payment jobs did not all finish: {jobs}")
    totals = [j["total"] for j in counted]
    steps = list(zip(*(j["steps"] for j in counted), strict=True))

    def ms(values, p):
        return round(percentile(values, p) * 1000, 2)

    return {"clients": args.clients, "round_trips": len(counted), "warmup": len(warm), "seconds": round(seconds, 2),
            "round_trips_per_second": round(len(counted) / seconds, 1),
            "requests_per_second": round(3 * len(counted) / seconds, 1),
            "p50_ms": ms(totals, 50), "p95_ms": ms(totals, 95), "p99_ms": ms(totals, 99),
            "max_ms": round(max(totals) * 1000, 2),
            "steps": {name: {"p50_ms": ms(values, 50), "p95_ms": ms(values, 95)}
                      for name, values in zip(("checkout", "pay", "confirm"), steps, strict=True)},
            "worker": not args.no_worker, "payment_jobs": jobs, "revenue_check": check}


# --- GET /api/revenue at 1k and 100k paid orders ----------------------------------------------


def add_paid_orders(product_id: str, count: int) -> int:
    """`count` more paid orders of the store (a payment, an order and a credit each), inserted
    in bulk, and the store's RevenueTotal raised by exactly what they add. Answers their sum."""
    from models.clock import utcnow
    from models.db import db, transaction
    from models.payment import CustomerOrder, Payment, RevenueCredit, RevenueTotal
    from models.store import Store

    if count <= 0:
        return 0
    version = Store.get(Store.product == product_id).published_version
    unit, currency = (CustomerOrder.select(CustomerOrder.unit_price_minor, CustomerOrder.currency)
                      .where(CustomerOrder.product == product_id).tuples().first())
    now = utcnow()
    added, batch = 0, 2000
    with transaction():
        for start in range(0, count, batch):
            payments, orders, credits = [], [], []
            for n in range(start, min(count, start + batch)):
                payment_id, order_id = secrets.token_hex(16), secrets.token_hex(16)
                quantity = 1 + n % 3
                amount = unit * quantity
                at = now - timedelta(minutes=count - n)
                payments.append({"id": payment_id, "purpose": Payment.ORDER, "subject": order_id,
                                 "amount_minor": amount, "currency": currency, "provider": "sandbox",
                                 "state": Payment.PAID, "payment_ref": f"pi_bench_{payment_id}", "created_at": at,
                                 "checked_at": at, "paid_at": at})
                orders.append({"id": order_id, "product": product_id, "email": f"bulk-{n}@example.com",
                               "quantity": quantity, "unit_price_minor": unit, "amount_minor": amount,
                               "currency": currency, "store_version": version, "payment": payment_id,
                               "state": CustomerOrder.PAID, "created_at": at, "paid_at": at})
                credits.append({"payment": payment_id, "order": order_id, "product": product_id,
                                "amount_minor": amount, "currency": currency, "credited_at": at})
                added += amount
            Payment.insert_many(payments).execute()
            CustomerOrder.insert_many(orders).execute()
            RevenueCredit.insert_many(credits).execute()
        (RevenueTotal.update(confirmed_minor=RevenueTotal.confirmed_minor + added,
                             orders=RevenueTotal.orders + count, updated_at=now)
         .where(RevenueTotal.product == product_id, RevenueTotal.currency == currency).execute())
    db.execute_sql("ANALYZE")
    return added


def revenue_at(owner, product_id: str, size: int, requests: int) -> dict:
    """GET /api/revenue's statements (a warm pooled connection) and timings with `size` paid orders."""
    from models.db import db

    state = ledger(product_id)
    add_paid_orders(product_id, size - state["paid_orders"])
    state = ledger(product_id)
    total = state["totals"][0]
    if (state["paid_orders"], state["paid_minor"]) != (size, total[1]) or total[2] != size or \
            (state["credits"], state["credited_minor"]) != (size, total[1]):
        raise SystemExit(f"the bulk orders are not consistent: {state}")
    owner.get("/api/revenue")
    with QueryCounter(db.obj) as counted:
        answer = owner.get("/api/revenue").get_json()
    if revenue_figures(answer["stores"]) != [{"product_id": product_id, "currency": total[0], "confirmed_minor": total[1],
                             "orders": size}]:
        raise SystemExit(f"GET /api/revenue answered {answer}")
    drive([owner], "/api/revenue", 100)
    timings = drive([owner], "/api/revenue", requests)
    return {"paid_orders": size, "revenue_minor": total[1], "currency": total[0],
            "statements": counted.count, "round_trips": counted.round_trips,
            **summary(timings), "p95_ms": round(percentile(timings, 95) * 1000, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes")
    parser.add_argument("--clients", type=int, default=8, help="customer threads, one connection each")
    parser.add_argument("--round-trips", type=int, default=900, help="counted checkout-pay-confirm journeys")
    parser.add_argument("--warmup", type=int, default=50, help="uncounted journeys first (checked all the same)")
    parser.add_argument("--no-worker", action="store_true",
                        help="no worker process while the customers run: notifications stay queued")
    parser.add_argument("--port", type=int, default=0, help="the server's loopback port (default: a free one)")
    parser.add_argument("--orders", type=int, default=100_000, help="paid orders of the large GET /api/revenue run")
    parser.add_argument("--small", type=int, default=1_000, help="paid orders of the small GET /api/revenue run")
    parser.add_argument("--requests", type=int, default=2000, help="GET /api/revenue requests per size")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.warmup + args.round_trips <= args.small <= args.orders:
        sys.exit("--small must be at least --warmup + --round-trips, and --orders at least --small")

    app, env = bench_service(args.database_url, args.redis_url)
    logs = Path(tempfile.mkdtemp(prefix="commerce-bench-"))
    owner, product_id = published_store(app, env, logs)
    report = {"database": urlsplit(args.database_url).path.lstrip("/"), "product_id": product_id,
              "journeys": round_trips(owner, product_id, env, logs, args)}
    from bench.baseline_app import app as bare_app

    report["revenue"] = [revenue_at(owner, product_id, size, args.requests) for size in (args.small, args.orders)]
    drive([bare_app.test_client()], "/api/bare", 100)
    report["bare_route"] = summary(drive([bare_app.test_client()], "/api/bare", args.requests))
    shutil.rmtree(logs)  # the workers' logs are kept only when something went wrong

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    j = report["journeys"]
    print(f"Checkout -> hosted-page pay -> confirm, gunicorn (gunicorn.conf.py), {j['clients']} customer threads, "
          f"{j['round_trips']} round trips (+{j['warmup']} warm-up), worker process running: {j['worker']}")
    print(f"  {j['round_trips_per_second']:.1f} round trips/s ({j['requests_per_second']:.0f} requests/s)  "
          f"p50 {j['p50_ms']:.1f} ms  p95 {j['p95_ms']:.1f} ms  p99 {j['p99_ms']:.1f} ms  max {j['max_ms']:.1f} ms")
    for name, step in j["steps"].items():
        print(f"    {name:9} p50 {step['p50_ms']:6.1f} ms  p95 {step['p95_ms']:6.1f} ms")
    c = j["revenue_check"]
    print(f"  revenue check: {c['paid_orders']} paid orders, {c['credits']} credits, revenue "
          f"{c['revenue_minor']} {c['currency']} minor units = the sum of the paid orders; payment jobs "
          f"{j['payment_jobs']}")
    print(f"GET /api/revenue for the founder, in-process, {args.requests} requests per size:")
    for r in report["revenue"]:
        print(f"  {r['paid_orders']:>7,} paid orders  p50 {r['p50_ms']:.3f} ms  p95 {r['p95_ms']:.3f} ms  "
              f"p99 {r['p99_ms']:.3f} ms  {r['rps']:.0f} req/s  SQL statements {r['statements']} "
              f"({r['round_trips']} round trips)")
    b = report["bare_route"]
    print(f"  bare route      p50 {b['p50_ms']:.3f} ms  p99 {b['p99_ms']:.3f} ms  {b['rps']:.0f} req/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
