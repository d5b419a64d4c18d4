"""Store editing: an offline plain-language edit end to end, and POST /api/track sustained,
in-process web with a real worker process (a measurement, not a test).

On a PostgreSQL database it owns (default ff_edit_bench, created if missing; its name must
contain "bench": its schema is dropped and rebuilt) and a Redis database it flushes
(default redis://127.0.0.1:6379/8), it:

1. loads the demo catalog (bench/store_bench.py's loader) and makes --founders founders who
   claim a product, each bound to a Max 20 account (so the website_edit meter allows
   hundreds of edits: the bench measures the edit, not the meter's refusals);
2. starts one Procfile worker (`dramatiq workers.broker jobs`, AI_BACKEND=offline), builds
   every founder's store, then times --edits POST /api/ai/edit requests (founders in turn,
   each a headline change) from the request to the answer that carries the new version:
   the store_edit job's queueing, the offline editor, the checks and the version write;
3. publishes one store and drives POST /api/track (page_view, a new visitor each request, so
   every request records a row) --requests times through the Flask test client, next to
   bench/baseline_app.py's bare route posted the same way.

Usage::

    python bench/edit_bench.py [postgresql://postgres@127.0.0.1:5432/ff_edit_bench]
        [--redis-url redis://127.0.0.1:6379/8] [--founders 20] [--edits 200] [--requests 2000] [--json]
"""
from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.feed_bench import summary  # noqa: E402
from bench.store_bench import Workers, bench_service, claimed_founders, load_catalog, percentile  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_edit_bench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/8"
WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "juniper", "kestrel",
         "larch", "maple", "nectar", "onyx", "pine", "quartz", "rowan", "sage", "tundra"]


def wait_built(founders, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    for client, _product in founders:
        while client.get("/api/store").get_json().get("status") != "built":
            if time.monotonic() > deadline:
                raise SystemExit("the stores were not built in time")
            time.sleep(0.1)


def timed_posts(clients, path: str, bodies) -> list[float]:
    timings = []
    for index, body in enumerate(bodies):
        client = clients[index % len(clients)]
        started = time.perf_counter()
        response = client.post(path, json=body)
        timings.append(time.perf_counter() - started)
        if response.status_code != 200 or response.get_json().get("status") not in ("edited", "recorded", "ok"):
            raise SystemExit(f"POST {path} answered {response.status_code} {response.get_data(as_text=True)[:300]}")
    return timings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="a Redis database it flushes")
    parser.add_argument("--founders", type=int, default=20)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if "bench" not in urlsplit(args.database_url).path:
        sys.exit("the database's name must contain 'bench': its schema is dropped and rebuilt")
    app, env = bench_service(args.database_url, args.redis_url)
    from bench.baseline_app import app as bare_app

    logs = Path(tempfile.mkdtemp(prefix="edit-bench-"))
    load_catalog(args.founders)
    founders = claimed_founders(app, args.founders)
    for number, (client, _product) in enumerate(founders):
        _bind_account(client, number)
    clients = [client for client, _product in founders]
    with Workers(1, env, logs):
        for client in clients:
            client.post("/api/store")
        wait_built(founders, timeout=300)
        bodies = [{"message": f"Change the headline to Headline {WORDS[i % len(WORDS)]} {WORDS[(i // 20) % 20]}"}
                  for i in range(args.edits)]
        timings = timed_posts(clients, "/api/ai/edit", bodies)
        edits = {**summary(timings), "p95_ms": round(percentile(timings, 95) * 1000, 3)}
        published = clients[0].post("/api/store/publish").get_json()
    if published.get("status") != "published":
        raise SystemExit(f"POST /api/store/publish answered {published}")
    product = founders[0][1]
    visitor = app.test_client()
    track_bodies = [{"product_id": product, "event": "page_view", "session_id": secrets.token_hex(8)}
                    for _ in range(args.requests)]
    timed_posts([visitor], "/api/track", track_bodies[:100])  # warm up
    track = summary(timed_posts([visitor], "/api/track", track_bodies[100:]))
    bare_client = bare_app.test_client()
    bare = summary([_time(lambda: bare_client.get("/api/bare")) for _ in range(args.requests)])
    shutil.rmtree(logs)
    report = {"edits": edits, "track": track, "bare_route": bare,
              "track_ratio_rps": round(track["rps"] / bare["rps"], 3)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"POST /api/ai/edit, offline backend, {args.edits} edits over {args.founders} founders, one worker process:")
    print(f"  request to new version  p50 {edits['p50_ms']:7.1f} ms  p95 {edits['p95_ms']:7.1f} ms  "
          f"p99 {edits['p99_ms']:7.1f} ms")
    print(f"POST /api/track, {len(track_bodies) - 100} page views (a new visitor each), in-process:")
    for name, r in (("track", track), ("bare route", bare)):
        print(f"  {name:11} p50 {r['p50_ms']:7.3f} ms  p99 {r['p99_ms']:7.3f} ms  {r['rps']:7.0f} req/s")
    print(f"  ratio       rps {report['track_ratio_rps']} x")
    return 0


def _bind_account(client, number: int) -> None:
    from models.account import Account
    from models.session import Session
    from services.ownership import adopt
    from services.sessions import find_session

    account = Account.create(email=f"bench-{number}@example.com", verified=True, tier="max20")
    session = find_session(client.get_cookie("ff_session").value)
    Session.update(account_id=account.id).where(Session.id == session.id).execute()
    adopt(session.id, account.id)  # the claim the session made becomes the account's, as signing in does


def _time(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


if __name__ == "__main__":
    raise SystemExit(main())
