"""The six hot paths under gunicorn, each as a ratio to the bare route of the same run (issue 28,
part 5; a measurement, not a test).

GET /api/find, GET /api/feed, GET /api/store (the build poll: a store built, and one whose
build is queued), POST /api/track (a published store's visitors, cookieless), GET /api/usage
and GET /api/dashboard, each driven by bench/compare.py's machinery: the bare Flask route
(bench/baseline_app.py) and the service, one gunicorn at a time with the same
gunicorn.conf.py and the service's environment, alternating --repeat times; the ratio is the
route's median requests/s over the bare route's median.

On a PostgreSQL database it owns (default ff_hotpaths_bench, created if missing; its name must
contain "bench": its schema is dropped and rebuilt) and a Redis database it flushes (default
redis://127.0.0.1:6379/6), it first prepares, through the Flask test client in this process:

1. a catalog of --products synthetic products (bench/feed_bench.py's, 3 evidence rows each)
   under the demo catalog's products (cloned with new ids until every founder below gets
   one; ranked above the synthetic ones, so the founders' products are real demo lines that
   research and build like the demo's);
2. per route, -c founders (one per load thread), each a session bound to a Max 20 account
   (as bench/edit_bench.py does), in the state its route answers a normal 200 for:
   - find, feed: holding a product (a find minted the hold), not claimed;
   - store (built): claimed, researched, store built (one Procfile worker process, offline AI);
   - store (building): claimed and researched, POST /api/store sent while no worker runs, so
     its build stays queued and the poll answers `building`;
   - dashboard: claimed and researched, one dashboard seen (its milestone recorded);
   - usage: an account with credits spent in two buckets;
   - track: one built store published; each request is a page_view of a new visitor
     (session_id %unique%, bench/load.py), so every request records a row;
3. with --history H: H funnel events of the tracked store, H meter rows of H/5 other accounts,
   H finished store jobs spread over the measured stores, and up to H seen rows of the find
   and feed founders.

Every load thread starts with its founder's cookie (load.py's prepared jars). What is checked:
the HTTP statuses, that no answer set a new cookie (a jar the server did not know would be a
newcomer's session), and what each answer says (its JSON `status`, or `card`/`cards` for find
and feed). Find and feed spend credits of the `find` bucket on every request (5 each, Max 20:
2,000 a five-hour window): before each of their runs their meter counters are set back to 0
and their holds to 30 minutes ahead, so every request is the steady state (a live hold served,
credits spent), never a limit refusal; a run that would spend past the window is refused.

The workers are stopped before the measurements. The SQL statements of one request of each
route (a warm pooled connection, in-process) are counted too (bench/feed_bench.QueryCounter).

Usage::

    python bench/hotpaths_bench.py [postgresql://postgres@127.0.0.1:5432/ff_hotpaths_bench]
        [--redis-url redis://127.0.0.1:6379/6] [--products 20000] [--history 0]
        [-n 5000] [-c 8] [--repeat 3] [--warmup 100] [--routes find feed ...] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import compare  # noqa: E402
from bench.edit_bench import _bind_account, wait_built  # noqa: E402
from bench.feed_bench import QueryCounter, build_catalog  # noqa: E402
from bench.store_bench import DEMO, Workers, bench_service, wait_done  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_hotpaths_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/6"
ROUTES = ("find", "feed", "store", "store-building", "track", "usage", "dashboard")
FIND_COST, FIND_5H_MAX20 = 5, 2000 * 5  # the find bucket: 5 credits a call, 10,000 a window at Max 20
_STATUS = re.compile(rb'"status":\s*"([A-Za-z_]+)"')


def classify(code: int, body: bytes) -> str:
    """What an answer says, cheaply (the driver shares the cores): a JSON list is cards (or an
    empty feed), an object its own `status` (the first key the service writes), else a card."""
    if body[:1] == b"[":
        return f"{code} {'empty' if body[:2] == b'[]' else 'cards'}"
    found = _STATUS.search(body, 0, 200)
    return f"{code} {found.group(1).decode() if found else 'card'}"


# --- Preparing the state -------------------------------------------------------------------

def demo_catalog(needed: int, above: float) -> int:
    """Clones of the demo catalog ranked above `above`, until `needed` of them clear the gate
    (the loader computes their gate figures)."""
    from models.discovery import ProductGate
    from services import evidence_gate
    from services.catalog import load_products, parse_catalog

    lines = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    copies = servable = 0
    while servable < needed:
        clones = [line | {"product_id": f"{line['product_id']}-d{copies}", "rank": above + line["rank"]}
                  for line in lines]
        load_products(parse_catalog([json.dumps(clone) for clone in clones]))
        copies += 1
        servable = ProductGate.select().where(evidence_gate.servable(), ProductGate.rank > above).count()
    return servable


def founders(app, count: int, *, claim: bool, first: int) -> list:
    """`count` founders bound to Max 20 accounts, each holding (or claiming) a product."""
    made = []
    for number in range(first, first + count):
        client = app.test_client()
        card = client.get("/api/find").get_json()
        if "product_id" not in card:
            raise SystemExit(f"GET /api/find answered {card}")
        if claim:
            answer = client.post("/api/pass", json={"action": "claim", "product_id": card["product_id"]}).get_json()
            if answer.get("status") != "claimed":
                raise SystemExit(f"claim refused: {answer}")
        _bind_account(client, number)
        made.append(SimpleNamespace(client=client, product=card["product_id"],
                                    cookie=client.get_cookie("ff_session").value))
    return made


def account_ids(group) -> list[int]:
    from services.sessions import find_session

    return [find_session(f.cookie).account_id for f in group]


def fresh_meter_and_holds(group):
    """Before a find or feed run: the founders' find credits back to 0 and their holds 30
    minutes ahead, so every request of the run serves a live hold and spends credits."""
    from models.account import MeterUsage
    from models.clock import utcnow
    from models.db import close_connection
    from models.discovery import Hold

    accounts = account_ids(group)

    def reset():
        MeterUsage.update(used_5h=0, used_week=0).where(MeterUsage.account.in_(accounts)).execute()
        Hold.update(expires_at=utcnow() + timedelta(minutes=30)).where(Hold.account.in_(accounts)).execute()
        close_connection()

    return reset


def add_history(rows: int, tracked: str | None, stores: list[str], readers) -> dict:
    """`rows` rows of each history kind the routes could be tempted to read (funnel events
    when a store is tracked, store jobs when stores are measured)."""
    from models.account import Account, MeterUsage
    from models.catalog import Product
    from models.clock import utcnow
    from models.db import db, transaction
    from models.discovery import Seen
    from models.funnel import FunnelEvent
    from models.job import Job
    from services.meter import BUCKETS
    from services.sessions import find_session
    from services.store import builds

    now, batch = utcnow(), 5000
    with transaction():
        events = [{"product": tracked, "visitor_session": f"hist-{n:010d}", "event": "page_view",
                   "day": (now - timedelta(days=n % 90)).date(), "created_at": now}
                  for n in range(rows if tracked else 0)]
        ids = []
        for start in range(0, rows // 5, batch):
            chunk = [{"email": f"history-{n}@example.com", "verified": True, "tier": "pro", "created_at": now}
                     for n in range(start, min(rows // 5, start + batch))]
            ids += [r[0] for r in Account.insert_many(chunk).returning(Account.id).tuples().execute()]
        meters = [{"account": a, "bucket": b, "window_5h": 0, "used_5h": 5, "window_week": 0, "used_week": 5}
                  for a in ids for b in BUCKETS]
        jobs = [{"id": f"hist{n:012d}", "kind": builds.BUILD, "subject": builds.subject(stores[n % len(stores)]),
                 "status": Job.DONE, "attempt": 1, "payload": {}, "created_at": now - timedelta(days=1 + n % 300),
                 "updated_at": now, "started_at": now, "finished_at": now} for n in range(rows if stores else 0)]
        catalog = [pid for (pid,) in Product.select(Product.product_id).limit(rows // max(1, len(readers)) + 1).tuples()]
        seen = [{"session": s.id, "account": s.account_id, "product": pid, "created_at": now}
                for s in (find_session(f.cookie) for f in readers) for pid in catalog][:rows]
        for model, data in ((FunnelEvent, events), (MeterUsage, meters), (Job, jobs)):
            for start in range(0, len(data), batch):
                model.insert_many(data[start:start + batch]).execute()
        for start in range(0, len(seen), batch):
            Seen.insert_many(seen[start:start + batch]).on_conflict_ignore().execute()
    db.execute_sql("ANALYZE")
    return {"funnel_events": len(events), "meter_rows": len(meters), "store_jobs": len(jobs), "seen_rows": len(seen)}


def prepare(app, env, args, logs: Path) -> dict:
    """Every route's founders, in the state their route answers 200 for; returns {route: Target}."""
    from models.db import close_connection

    wanted = set(args.routes)
    groups = _founder_groups(app, args.c, wanted)
    published = _bring_to_their_state(groups, wanted, env, logs)
    tracked = groups["store"][0].product if published else None
    history = {}
    if args.history:
        stores = [f.product for r in ("store", "store-building") for f in groups.get(r, [])]
        history = add_history(args.history, tracked, stores, groups.get("find", []) + groups.get("feed", []))
    else:
        # The planner's figures of the tables just filled (add_history ends with the same): a
        # short run would otherwise plan the feed's candidates on an empty table's estimates
        # (a scan and sort of the whole catalog rather than the walk of its index).
        from models.db import db

        db.execute_sql("ANALYZE")
    close_connection()
    return {"targets": _targets(groups, wanted, tracked), "groups": groups, "tracked": tracked, "history": history}


def _founder_groups(app, c: int, wanted: set) -> dict:
    """`c` founders for each route asked for (a store's for track too), numbered apart."""
    need_store = wanted & {"store", "track"}
    groups, number = {}, 0
    for route, claim in (("find", False), ("feed", False), ("usage", False), ("dashboard", True),
                         ("store", True), ("store-building", True)):
        if route in wanted or (route == "store" and need_store):
            groups[route] = founders(app, c, claim=claim, first=number)
            number += c
    return groups


def _bring_to_their_state(groups: dict, wanted: set, env, logs: Path) -> dict | None:
    """Researches the claimed products, builds the stores (one published for track), leaves
    the building group's builds queued, records the dashboard milestone and spends credits for
    usage. Returns the publish's answer (None when track is not asked for)."""
    from services.research import records

    claimed = [f for r in ("dashboard", "store", "store-building") for f in groups.get(r, [])]
    published = None
    with Workers(1, env, logs):
        wait_done(records.RESEARCH, [records.subject(f.product) for f in claimed], time.perf_counter(), 300, logs)
        if "store" in groups:
            for f in groups["store"]:
                f.client.post("/api/store")
            wait_built([(f.client, f.product) for f in groups["store"]], timeout=300)
            if "track" in wanted:
                published = groups["store"][0].client.post("/api/store/publish").get_json()
                if published.get("status") != "published":
                    raise SystemExit(f"POST /api/store/publish answered {published}")
    for f in groups.get("store-building", []):  # no worker runs now: the builds stay queued
        answer = f.client.post("/api/store").get_json()
        if answer.get("status") != "building":
            raise SystemExit(f"POST /api/store answered {answer}")
    for f in groups.get("dashboard", []):
        answer = f.client.get("/api/dashboard").get_json()  # records the milestone: the repeat is measured
        if answer.get("status") != "ok":
            raise SystemExit(f"GET /api/dashboard answered {answer}")
    for f in groups.get("usage", []):  # credits spent in two buckets, so the meter has rows to read
        f.client.get("/api/find")
        f.client.get("/api/feed")
    return published


def _targets(groups: dict, wanted: set, tracked: str | None) -> dict:
    targets = {}
    for route, path in (("find", "/api/find"), ("feed", "/api/feed"), ("usage", "/api/usage"),
                        ("dashboard", "/api/dashboard"), ("store", "/api/store"), ("store-building", "/api/store")):
        if route in wanted:
            group = groups[route]
            before = fresh_meter_and_holds(group) if route in ("find", "feed") else None
            targets[route] = compare.Target(path=path, name=f"{route} GET {path}", cookies=[f.cookie for f in group],
                                            classify=classify, before=before)
    if "track" in wanted:
        body = json.dumps({"product_id": tracked, "event": "page_view", "session_id": "%unique%"})
        targets["track"] = compare.Target(path="/api/track", method="POST", body=body, name="track POST /api/track",
                                          cookie_jar="none", classify=classify)
    return targets


def statements_per_request(app, prepared) -> dict:
    """SQL statements of one request of each route, for one of its founders (in-process; the
    route's warm-up request first, so the pooled connection has prepared its statements)."""
    from models.db import close_connection, db

    counts = {}
    for route, target in prepared["targets"].items():
        if target.before:
            target.before()
        if route == "track":
            client, body = app.test_client(), json.loads(target.body)
            send = lambda client=client, body=body: client.post(  # noqa: E731
                "/api/track", json=body | {"session_id": os.urandom(8).hex()})
        else:
            client = prepared["groups"][route][0].client
            send = lambda client=client, path=target.path: client.get(path)  # noqa: E731
        send()
        with QueryCounter(db.obj) as counted:
            response = send()
        counts[route] = {"statements": counted.count, "round_trips": counted.round_trips,
                         "answer": classify(response.status_code, response.get_data())}
    close_connection()
    return counts


# --- Measuring and the table ----------------------------------------------------------------

def table(baselines: list[dict], results: dict[str, list[dict]], counts: dict) -> list[dict]:
    bare = compare.median_figures(baselines)
    rows = []
    for route, runs in results.items():
        key = route.split(" ")[0]
        median = compare.median_figures(runs)
        statuses, answers = {}, {}
        for run in runs:
            for code, n in run["statuses"].items():
                statuses[code] = statuses.get(code, 0) + n
            for what, n in run["answers"].items():
                answers[what] = answers.get(what, 0) + n
        rows.append({"route": route, "rps": median["rps"], "bare_rps": bare["rps"],
                     "ratio": round(median["rps"] / bare["rps"], 3) if bare["rps"] else None,
                     "p50_ms": median["p50_ms"], "p99_ms": median["p99_ms"],
                     "run_ratios": [round(t["rps"] / b["rps"], 2) for b, t in zip(baselines, runs, strict=True)],
                     "statuses": statuses, "answers": answers,
                     "new_sessions": sum(r["new_sessions"] for r in runs), "errors": sum(r["errors"] for r in runs),
                     "statements": counts.get(key, {}).get("statements")})
    return rows


def print_table(rows: list[dict], bare_p50: float, bare_p99: float) -> None:
    print(f"{'route':28} {'req/s':>7} {'bare':>7} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7} {'SQL':>4}  "
          f"statuses / answers / new cookies")
    for r in rows:
        statuses = " ".join(f"{k}:{v}" for k, v in r["statuses"].items())
        answers = ", ".join(f"{k}:{v}" for k, v in r["answers"].items())
        print(f"{r['route']:28} {r['rps']:7.0f} {r['bare_rps']:7.0f} {r['ratio']:6.2f} {r['p50_ms']:7.2f} "
              f"{r['p99_ms']:7.2f} {r['statements'] if r['statements'] is not None else '-':>4}  "
              f"{statuses} / {answers} / {r['new_sessions']}  (runs: {', '.join(map(str, r['run_ratios']))})")
    print(f"{'bare route GET /api/bare':28} {'':7} {'':7} {'':6} {bare_p50:7.2f} {bare_p99:7.2f}")


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes")
    parser.add_argument("--products", type=int, default=20_000, help="synthetic products under the demo ones")
    parser.add_argument("--history", type=int, default=0, help="rows of each history kind (see the docstring)")
    parser.add_argument("--routes", nargs="+", choices=ROUTES, default=list(ROUTES))
    parser.add_argument("-n", type=int, default=5000, help="counted requests per run and route")
    parser.add_argument("-c", type=int, default=8, help="load threads = founders per route")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--port-base", type=int, default=8660)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if "bench" not in urlsplit(args.database_url).path:
        sys.exit("the database's name must contain 'bench': its schema is dropped and rebuilt")
    if (args.n + args.warmup) / args.c * FIND_COST > FIND_5H_MAX20 and {"find", "feed"} & set(args.routes):
        sys.exit(f"-n {args.n} over -c {args.c} founders would spend past a Max 20 five-hour find window "
                 f"({FIND_5H_MAX20} credits): raise -c or lower -n")

    started = time.perf_counter()
    app, env = bench_service(args.database_url, args.redis_url)
    build_catalog(args.products, 0)
    demo_catalog(args.c * 6 + 4, above=args.products + 1000)
    logs = Path(tempfile.mkdtemp(prefix="hotpaths-bench-"))
    prepared = prepare(app, env, args, logs)
    shutil.rmtree(logs)
    counts = statements_per_request(app, prepared)
    setup = round(time.perf_counter() - started, 1)
    for route, count in counts.items():
        if not count["answer"].startswith("200 ") or count["answer"].endswith(("refused", "not_claimed", "ignored")):
            sys.exit(f"{route} answered {count['answer']} after the preparation")

    keep = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "BASE_URL")
    options = compare.build_parser().parse_args(
        ["--target-app", "api:create_app()", "--target-path", "/", "-n", str(args.n), "-c", str(args.c),
         "--repeat", str(args.repeat), "--warmup", str(args.warmup), "--port-base", str(args.port_base)])
    options.env = {k: env[k] for k in keep}
    options.ready_path = "/api/health"  # the targets' own paths would open sessions and holds
    load_before = load_average()
    baselines, results = compare.alternate(options, list(prepared["targets"].values()))
    rows = table(baselines, results, counts)
    bare = compare.median_figures(baselines)
    report = {"load_average": {"before": load_before, "after": load_average()}, "setup_seconds": setup,
              "products": args.products, "history": prepared["history"], "requests": args.n, "threads": args.c,
              "repeat": args.repeat, "bare": {**bare, "runs": [b["rps"] for b in baselines]}, "routes": rows,
              "statements": counts}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"\n{args.products:,} synthetic products, history {prepared['history'] or 'none'}; {args.n} requests x "
              f"{args.c} threads per run, medians of {args.repeat} alternations; load average "
              f"{report['load_average']['before']} -> {report['load_average']['after']}")
        print_table(rows, bare["p50_ms"], bare["p99_ms"])
        print(f"bare route req/s per run: {', '.join(f'{b:.0f}' for b in report['bare']['runs'])} "
              f"(median {statistics.median(report['bare']['runs']):.0f})")
    failed = any(r["errors"] or r["new_sessions"] or set(r["statuses"]) != {"200"} for r in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
