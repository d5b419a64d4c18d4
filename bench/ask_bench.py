"""POST /api/ask on a large catalog, in-process (a measurement, not a test).

What it does, on a PostgreSQL database it owns (default ff_bench, created if missing; its
name must contain "bench", because the schema is dropped and rebuilt):

1. builds a catalog of --products products whose names and descriptions are drawn from a
   vocabulary of product words (seeded, so every run builds the same catalog), with their
   evidence gate figures, and gives --claims of them to other founders (they must never be
   cited, so every ask checks for them);
2. drives POST /api/ask through the Flask test client (no sockets, one thread) with a fixed
   list of questions, --requests times over --founders anonymous founders;
3. measures a bare Flask route (bench/baseline_app.py) the same way;
4. counts the SQL statements and round trips of one ask on a warm pooled connection, on
   this catalog and on a --small one, and checks that PostgreSQL answers the search through
   the GIN index (`product_search`) and how many products the questions match.

Usage::

    python bench/ask_bench.py [postgresql://postgres@127.0.0.1:5432/ff_ask_bench] [--products 100000]
        [--claims 1000] [--requests 2000] [--founders 100] [--small 1000] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.feed_bench import CATEGORIES, QueryCounter, bench_app, drive, summary  # noqa: E402

NOUNS = ("bowl mug knife board lantern headlamp bottle backpack tent hammock chair stool lamp speaker charger "
         "cable stand holder rack organizer tray basket bin towel blanket pillow mat rug brush comb mirror "
         "scale timer clock kettle pan pot skillet spatula whisk grater peeler colander jar container bag "
         "pouch wallet case cover sleeve glove sock scarf hat cap belt leash collar harness feeder toy ball "
         "rope band roller dumbbell kettlebell bench bar wheel strap lock hook clip fan heater humidifier "
         "diffuser purifier projector keyboard mouse webcam tripod ring light frame planner notebook pen "
         "marker easel puzzle game shelf drawer divider hanger bottle-opener corkscrew shaker grinder press "
         "scoop sponge cloth duster mop broom vacuum").split()
ADJECTIVES = ("compact foldable portable rechargeable wireless magnetic adjustable ergonomic insulated waterproof "
              "lightweight heavy-duty slim premium classic modern rustic minimalist deluxe travel mini large "
              "smart silent cordless reusable eco-friendly non-slip quick-dry anti-slip stackable collapsible").split()
MATERIALS = ("bamboo steel aluminium silicone ceramic glass oak walnut acacia cotton linen wool leather nylon "
             "canvas cork copper brass marble stone rubber plastic felt velvet mesh").split()
USES = ("camping hiking travel kitchen office desk garden bathroom bedroom car gym yoga running cycling baby pet dog "
        "cat coffee tea baking grilling reading gaming streaming cleaning storage").split()
TEMPLATES = (
    "A {adj} {noun} made of {material} for {use} and {use2}.",
    "This {material} {noun} is {adj} and easy to carry; ideal for {use}.",
    "Keeps your {use} gear tidy: a {adj} {noun} with a {material} finish.",
    "Built for {use}, the {noun} folds flat and pairs with any {noun2}.",
    "A {adj} {material} {noun} that fits most {noun2}s. Great gift for {use} fans.",
)
DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/ff_ask_bench"  # its own: the feed bench's is dropped and rebuilt too
QUESTIONS = (
    "Which dog leash or harness do you have?",
    "Do you sell a rechargeable headlamp for camping?",
    "What bamboo kitchen organizers are there?",
    "I need a waterproof backpack for hiking",
    "Anything for my cat?",
    "Show me cordless vacuum cleaners",
    "Which knives would suit a small kitchen?",
    "Looking for a silent desk fan for the office",
    "What could I sell to yoga and gym people?",
    "Copper kettle for tea",
    "Do you have magnetic phone stands or holders?",
    "Ergonomic keyboard and mouse for gaming",
)


def build_catalog(count: int, claims: int, seed: int = 7) -> None:
    """`count` products with generated text and three recent evidence rows each (all clear
    the gate), and `claims` of them claimed by other founders."""
    from models.catalog import Evidence, Product
    from models.clock import utcnow
    from models.db import db, transaction
    from models.discovery import Claim, ProductGate
    from models.session import Session
    from services import evidence_gate

    for model in (Claim, ProductGate, Evidence, Product):
        model.delete().execute()
    Session.delete().where(Session.token_hash.startswith("bench-claimer-")).execute()
    rng = random.Random(seed)
    now = utcnow()
    today = now.date()
    batch = 2000
    with transaction():
        for start in range(0, count, batch):
            rows, evidence = [], []
            for n in range(start, min(count, start + batch)):
                pid = f"bench-{n:06d}"
                noun, noun2 = rng.choice(NOUNS), rng.choice(NOUNS)
                adj, material, use, use2 = (rng.choice(ADJECTIVES), rng.choice(MATERIALS), rng.choice(USES),
                                            rng.choice(USES))
                words = dict(adj=adj, noun=noun, noun2=noun2, material=material, use=use, use2=use2)
                description = " ".join(rng.choice(TEMPLATES).format(**words) for _ in range(2))
                price = 15 + (n * 7919) % 90
                rows.append({"product_id": pid, "name": f"{adj.title()} {material.title()} {noun.title()}",
                             "description": description, "category": CATEGORIES[n % len(CATEGORIES)],
                             "price": price, "cost": round(price * 0.4, 2), "currency": "USD",
                             "images": [f"/static/bench/{pid}.svg"], "rank": float(count - n), "extra": {},
                             "created_at": now, "updated_at": now})
                for k, days in enumerate((12, 60, 200)):
                    evidence.append({"product": pid, "date": today - timedelta(days=days + n % 7), "source": "bench",
                                     "metric": "m", "value": k, "note": ""})
            Product.insert_many(rows).execute()
            Evidence.insert_many(evidence).execute()
        evidence_gate.refresh()
        sessions = []
        for start in range(0, claims, batch):
            chunk = [{"token_hash": f"bench-claimer-{n:08d}".ljust(64, "0"), "created_at": now}
                     for n in range(start, min(claims, start + batch))]
            sessions += [row[0] for row in Session.insert_many(chunk).returning(Session.id).tuples().execute()]
        # Every step-th product is claimed, so claims are spread over every kind of product.
        step = max(1, count // max(1, claims))
        claimed = [{"product": f"bench-{n * step:06d}", "session": sessions[n], "account": None, "created_at": now}
                   for n in range(min(claims, count))]
        for start in range(0, len(claimed), batch):
            Claim.insert_many(claimed[start:start + batch]).execute()
    db.execute_sql("ANALYZE")


def clear_founders() -> None:
    from models.db import db
    from models.session import Session

    Session.delete().where(~Session.token_hash.startswith("bench-claimer-")).execute()
    db.close()


def ask_all(clients, total: int) -> list[float]:
    timings = []
    for n in range(total):
        client = clients[n % len(clients)]
        question = QUESTIONS[n % len(QUESTIONS)]
        started = time.perf_counter()
        response = client.post("/api/ask", json={"question": question})
        timings.append(time.perf_counter() - started)
        body = response.get_json(silent=True) or {}
        if response.status_code != 200 or body.get("status") != "ok":
            raise SystemExit(f"POST /api/ask answered {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return timings


def count_queries(app) -> dict:
    """Statements (and round trips) of one ask by an anonymous founder, on a warm pooled
    connection (another founder asked first)."""
    from models.db import db

    assert app.test_client().post("/api/ask", json={"question": QUESTIONS[0]}).status_code == 200
    client = app.test_client()
    client.get("/api/health")  # the cookie is issued outside the counted request
    with QueryCounter(db.obj) as counted:
        assert client.post("/api/ask", json={"question": QUESTIONS[1]}).status_code == 200
    return {"ask": counted.count, "ask_round_trips": counted.round_trips}


def search_facts() -> dict:
    """Whether the search runs on the GIN index, and how many products each question
    matches (what ts_rank_cd has to rank before the LIMIT)."""
    from models.db import db
    from services import search

    text = search._POSTGRES.text("session", 5, search.CANDIDATES, True)
    values = {"query": "'dog' | 'leash' | 'harness'", "query_all": "'dog' & 'leash' & 'harness'",
              "cutoff": "2000-01-01", "min_margin": 0, "session_id": 0}
    plan = "\n".join(row[0] for row in db.execute_sql("EXPLAIN " + text.sql, text.params(values)).fetchall())
    matched = {}
    for question in QUESTIONS:
        words = [v for term in search.query_terms(question) for v in search.variants(term)]
        query = " | ".join(f"'{w}'" for w in words)
        (count,) = db.execute_sql(
            "SELECT count(*) FROM product WHERE (" + _vector_sql() + ") @@ to_tsquery('english', %s)", (query,)
        ).fetchone()
        matched[question] = count
    db.close()
    return {"uses_gin_index": "product_search" in plan, "matched_per_question": matched}


def _vector_sql() -> str:
    from models.migrations.m0009_search import PG_VECTOR

    return PG_VECTOR


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--claims", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--founders", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--small", type=int, default=1_000, help="the small catalog of the statement count")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    app = bench_app(args.database_url)
    from bench.baseline_app import app as bare_app

    report = {"database": urlsplit(args.database_url).path.lstrip("/")}
    queries = {}
    started = time.perf_counter()
    build_catalog(args.small, max(1, args.claims * args.small // max(1, args.products)))
    queries[f"{args.small}_products"] = count_queries(app)
    clear_founders()
    build_catalog(args.products, args.claims)
    report["setup_seconds"] = round(time.perf_counter() - started, 1)
    queries[f"{args.products}_products"] = count_queries(app)
    clear_founders()
    report["queries_per_request"] = queries
    report["search"] = search_facts()

    founders = [app.test_client() for _ in range(args.founders)]
    ask_all(founders, args.warmup)
    timings = ask_all(founders, args.requests)
    asked = summary(timings)
    # The cost follows how many products a question matches: each question's median.
    report["p50_ms_per_question"] = {
        question: round(statistics.median(timings[n::len(QUESTIONS)]) * 1000, 1) for n, question in enumerate(QUESTIONS)
        if timings[n::len(QUESTIONS)]}
    bare_clients = [bare_app.test_client()]
    drive(bare_clients, "/api/bare", args.warmup)
    bare = summary(drive(bare_clients, "/api/bare", args.requests))
    report.update(ask=asked, bare_route=bare, ratio={
        "p50": round(asked["p50_ms"] / bare["p50_ms"], 1),
        "p99": round(asked["p99_ms"] / bare["p99_ms"], 1),
        "rps": round(asked["rps"] / bare["rps"], 3),
    }, catalog={"products": args.products, "claims": args.claims, "founders": args.founders,
                "questions": len(QUESTIONS)})
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"POST /api/ask, {args.products:,} products ({args.claims:,} claimed by others), {args.requests} asks "
              f"of {len(QUESTIONS)} questions over {args.founders} anonymous founders, in-process:")
        print(f"  ask       p50 {asked['p50_ms']:.2f} ms  p99 {asked['p99_ms']:.2f} ms  {asked['rps']:.0f} req/s")
        print(f"  bare      p50 {bare['p50_ms']:.3f} ms  p99 {bare['p99_ms']:.3f} ms  {bare['rps']:.0f} req/s")
        print(f"  ratio     p50 {report['ratio']['p50']} x  p99 {report['ratio']['p99']} x  rps {report['ratio']['rps']} x")
        for name, counts in queries.items():
            print(f"  SQL statements per ask, {name}: {counts['ask']} ({counts['ask_round_trips']} round trips)")
        matched = report["search"]["matched_per_question"]
        for question, p50 in report["p50_ms_per_question"].items():
            print(f"    {p50:7.1f} ms  {matched[question]:>7,} matches  {question}")
        facts = report["search"]
        print(f"  search on the GIN index: {facts['uses_gin_index']}; products matched per question: "
              f"{min(facts['matched_per_question'].values()):,} to {max(facts['matched_per_question'].values()):,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
