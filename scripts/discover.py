#!/usr/bin/env python3
"""Discovery run: supplier feed -> filter -> evidence gate -> catalog.

POST /api/discover runs this script in a worker (services/discovery/runs.py); an operator can run
it by hand too. It

1. reads the supplier feed named by SUPPLIER_FEED (or --feed): the bundled offline feed
   scripts/data/supplier_feed.jsonl.gz by default, a folder of *.jsonl / *.jsonl.gz files,
   or an http(s) URL fetched with a time and size cap. Lines are catalog lines
   (decisions.md); a line that does not parse is skipped with a note on stderr. An offer
   line (a supplier's offer of a product listed elsewhere, such as the bundled feed's
   offers of the demo catalog: a supplier and a cost but no price) is not a product and is
   passed over quietly; the summary counts them;
2. keeps the products matching every word of --query (in the name, description or
   category) and, with --use-research-brief, those the latest nightly research brief
   seeds: its candidates and the products that crossed into the evidence gate (by
   product_id), and any product in one of their categories; all of them when neither is
   given (the scheduled run). Without a brief yet, --use-research-brief says so on stderr
   and filters nothing;
3. scores each against the evidence gate (services/evidence_gate.py, the same thresholds
   the service serves by);
4. upserts the best qualified products (rank descending) into the catalog, at most
   DISCOVER_MAX_ADD of them: with --mode new (the default) only products not yet in the
   catalog, with --mode refresh also those already in it (their evidence is replaced).

It prints one line per product added or updated and one summary line on stdout; notes go
to stderr. Exit status: 0 done (even when nothing qualified), 1 the feed or the database
could not be read or written, 2 bad arguments.

`--refresh-gate` recomputes the gate figures of the whole catalog (after EVIDENCE_MIN_ROWS
has changed) and exits.

It runs inside the service's settings and database (config + services), never Flask.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from config import settings_or_exit  # noqa: E402

FEED_MAX_BYTES = 64 * 1024 * 1024  # read (and decompressed) bytes accepted from one feed
FETCH_TIMEOUT = 20  # seconds for a feed URL to answer each read
MODES = ("new", "refresh")


class FeedError(Exception):
    """The supplier feed cannot be read; the message is one line."""


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="scripts/discover.py",
                                     description="Adds qualified supplier products to the catalog.")
    parser.add_argument("--query", help="keep products matching every word of this query")
    parser.add_argument("--mode", choices=MODES, default="new",
                        help="new: add products not yet in the catalog (default); refresh: also update those in it")
    parser.add_argument("--use-research-brief", action="store_true", help="filter by the nightly research brief")
    parser.add_argument("--today", type=date.fromisoformat, help="the day to apply the gate on (YYYY-MM-DD)")
    parser.add_argument("--feed", help="a feed file, folder or http(s) URL instead of SUPPLIER_FEED")
    parser.add_argument("--max-add", type=int, help="most products to add or update (default DISCOVER_MAX_ADD)")
    parser.add_argument("--refresh-gate", action="store_true", help="recompute the gate figures of the whole catalog")
    return parser.parse_args(argv)


# --- Reading the feed ----------------------------------------------------------------------

class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if not newurl.lower().startswith(("http://", "https://")):
            raise FeedError(f"the feed URL redirected to a non-http(s) address: {newurl}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _capped(stream, what: str) -> bytes:
    data = bytearray()
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > FEED_MAX_BYTES:
            raise FeedError(f"{what} is larger than {FEED_MAX_BYTES // (1024 * 1024)} MiB")


def _decoded(raw: bytes, what: str) -> list[str]:
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = _capped(gzip.GzipFile(fileobj=io.BytesIO(raw)), what)
        except (OSError, EOFError) as exc:
            raise FeedError(f"{what} is not a readable gzip file ({exc})") from None
    return raw.decode("utf-8", errors="replace").splitlines()


def read_feed(source: str) -> list[tuple[str, int, str]]:
    """(origin, line number, text) for every line of the feed."""
    if "://" in source:
        if not source.lower().startswith(("http://", "https://")):
            raise FeedError(f"a feed URL must be http(s), got {source}")
        opener = urllib.request.build_opener(_HttpOnlyRedirects())
        try:
            with opener.open(source, timeout=FETCH_TIMEOUT) as response:
                return [(source, n, line) for n, line in enumerate(_decoded(_capped(response, "the feed"), "the feed"), 1)]
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise FeedError(f"cannot fetch the feed {source}: {getattr(exc, 'reason', exc)}") from None
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")) and p.is_file())
        if not files:
            raise FeedError(f"the feed folder {path} has no .jsonl or .jsonl.gz files")
    elif path.is_file():
        files = [path]
    else:
        raise FeedError(f"the feed {source} does not exist")
    lines = []
    for file in files:
        try:
            with open(file, "rb") as handle:
                raw = _capped(handle, str(file))
        except OSError as exc:
            raise FeedError(f"cannot read {file}: {exc.strerror}") from None
        lines += [(file.name, n, line) for n, line in enumerate(_decoded(raw, str(file)), 1)]
    return lines


# --- Filtering and scoring -------------------------------------------------------------------

def is_offer_line(item: dict) -> bool:
    """A supplier's offer of a product listed elsewhere (GET /api/suppliers reads it), not a
    product: it names a supplier and a cost but gives no price to sell at."""
    return "price" not in item and "supplier" in item and "cost" in item


def research_brief_seed() -> dict | None:
    """The latest nightly research brief's seed ({day, product_ids, categories}), or None
    while no brief has been made (services/brief.py)."""
    from services import brief

    return brief.seed()


def matches(item: dict, terms: list[str], seed: dict | None) -> bool:
    text = " ".join(str(item.get(k, "")) for k in ("name", "description", "category")).casefold()
    if terms and not all(term in text for term in terms):
        return False
    if seed is not None and not (item["product_id"] in seed["product_ids"]
                                 or str(item.get("category", "")).casefold() in seed["categories"]):
        return False
    return True


def score(item: dict, *, on: date, gate):
    """The gate assessment of a raw feed product, or None when its figures are unreadable."""
    from services.evidence_gate import assess

    try:
        price, cost = float(item["price"]), float(item["cost"])
        if price <= 0:
            return None
        dates = [date.fromisoformat(str(row["date"])) for row in item.get("evidence") or []]
    except (KeyError, TypeError, ValueError):
        return None
    return assess(price=price, cost=cost, evidence_dates=dates, on=on, gate=gate)


def _describe(item: dict, assessment) -> str:
    latest = assessment.evidence_latest.isoformat() if assessment.evidence_latest else "none"
    return (f"{item['product_id']} | {item['name']} | {item['currency']} {float(item['price']):.2f}, "
            f"margin {assessment.margin_pct} %, {assessment.recent_rows} recent evidence rows, latest {latest}")


# --- The run ---------------------------------------------------------------------------------
# main() reads the arguments and settings, then runs the steps of the module docstring in
# order; each step is a function below. A step that must end the run raises _Stop with the
# note it ends on and the exit status, so main is the one place an exit status is chosen.

class _Stop(Exception):
    """Ends the run with `status`; the message is the one line said on stderr."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def _one_line(what: str, exc: Exception) -> str:
    """What failed, with the error's first line: the database's errors can run to many."""
    return f"discover: {what} ({type(exc).__name__}: {exc})".splitlines()[0]


@dataclass
class _Scan:
    """One pass over the feed: the counts the summary line reports and the products that
    cleared the gate, best rank first."""

    read: int = 0  # product lines (not offer lines, not unreadable)
    matched: int = 0  # of those, the ones the query and the brief kept
    unreadable: int = 0  # lines skipped with a note on stderr
    offer_lines: int = 0  # offers of products listed elsewhere, passed over quietly
    qualified: list = field(default_factory=list)  # (item, assessment)


def _brief_seed() -> dict | None:
    """Step 2's research brief filter: its day, product ids and case-folded categories, or
    None (with a note) while no brief has been published, so the run filters nothing by it."""
    try:
        found = research_brief_seed()
    except Exception as exc:  # the database: say what failed in one line, exit 1
        raise _Stop(_one_line("the research brief could not be read", exc), 1) from None
    if found is None:
        print("discover: no nightly research brief has been published yet; running with an empty brief filter",
              file=sys.stderr)
        return None
    return {"day": found["day"], "product_ids": set(found["product_ids"]),
            "categories": {c.casefold() for c in found["categories"]}}


def _product(text: str) -> dict | None:
    """The feed line's product object, or None when the line is not one."""
    try:
        item = json.loads(text)
    except ValueError:
        return None
    return item if isinstance(item, dict) and isinstance(item.get("product_id"), str) else None


def _scan(lines, *, terms: list[str], seed: dict | None, day: date, gate) -> _Scan:
    """Steps 2 and 3: every product line filtered by the query and the brief, and scored against the gate."""
    scan = _Scan()
    for origin, number, text in lines:
        if not text.strip():
            continue
        item = _product(text)
        if item is None:
            scan.unreadable += 1
            print(f"discover: {origin} line {number}: skipped, not a product line", file=sys.stderr)
            continue
        if is_offer_line(item):
            scan.offer_lines += 1
            continue
        scan.read += 1
        if not matches(item, terms, seed):
            continue
        scan.matched += 1
        assessment = score(item, on=day, gate=gate)
        if assessment is None:
            scan.unreadable += 1
            print(f"discover: {origin} line {number}: skipped, unreadable price, cost or evidence", file=sys.stderr)
        elif assessment.clears:
            scan.qualified.append((item, assessment))
    scan.qualified.sort(key=lambda pair: (-float(pair[0].get("rank") or 0), pair[0]["product_id"]))
    return scan


def _in_catalog(ids: list[str]) -> set[str]:
    """Which of the product ids the catalog already holds (asked 500 at a time, under any
    database's limit on bound parameters)."""
    from models.catalog import Product

    existing = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        existing.update(pid for (pid,) in Product.select(Product.product_id)
                        .where(Product.product_id.in_(chunk)).tuples())
    return existing


def _catalog_lines(qualified: list, *, existing: set[str], mode: str, limit: int) -> list:
    """Step 4's choice: (parsed, item, assessment) for at most `limit` of the qualified products
    the mode lets in, best first, each parsed as a catalog line; one the catalog format
    refuses is skipped with a note and does not count against the limit."""
    from services.catalog import CatalogError, parse_catalog

    chosen = [(item, a) for item, a in qualified if mode == "refresh" or item["product_id"] not in existing]
    valid = []
    for item, assessment in chosen:
        if len(valid) >= limit:
            break
        try:
            valid.append((parse_catalog([json.dumps(item)])[0], item, assessment))
        except CatalogError as exc:
            print(f"discover: {item['product_id']}: skipped, {exc.errors[0][1] if exc.errors else exc}",
                  file=sys.stderr)
    return valid


def _upsert(valid: list, *, gate) -> None:
    """Step 4's write: the chosen products and their gate figures, in one transaction."""
    from models.db import transaction
    from services import evidence_gate
    from services.catalog import load_products

    # Written in product_id order, so two runs touching the same products lock them in
    # the same order.
    valid = sorted(valid, key=lambda triple: triple[0]["product_id"])
    with transaction():
        if valid:
            load_products([parsed for parsed, _, _ in valid])
            evidence_gate.refresh([parsed["product_id"] for parsed, _, _ in valid], gate=gate)


def _report(scan: _Scan, valid: list, *, existing: set[str], query: str | None, terms: list[str],
            seed: dict | None, day: date) -> None:
    """Stdout: one line per product added or updated (best rank first), then the summary line."""
    added = updated = 0
    for parsed, item, assessment in sorted(valid, key=lambda t: (-float(t[0]["rank"]), t[0]["product_id"])):
        if parsed["product_id"] in existing:
            updated += 1
            print(f"updated {_describe(item, assessment)}")
        else:
            added += 1
            print(f"added {_describe(item, assessment)}")
    already = sum(1 for item, _ in scan.qualified if item["product_id"] in existing) - updated
    scopes = [f'the query "{query}"'] if terms else []
    if seed is not None:
        scopes.append(f"the research brief of {seed['day']}: {len(seed['product_ids'])} products in "
                      f"{len(seed['categories'])} categories")
    scope = " and ".join(scopes) or "no filter"
    print(f"discover: {scan.read} feed products read, {scan.matched} matched ({scope}), {len(scan.qualified)} "
          f"cleared the evidence gate on {day.isoformat()}, {added} added, {updated} updated, {already} already in "
          f"the catalog"
          + (f", {scan.unreadable} lines skipped" if scan.unreadable else "")
          + (f", {scan.offer_lines} offer lines of products listed elsewhere passed over" if scan.offer_lines else ""))


def main(argv=None) -> int:
    args = parse_args(argv)
    settings = settings_or_exit()

    from models.clock import utcnow
    from models.db import init_db
    from services import evidence_gate

    init_db(settings.database_url, pool_size=2)
    gate = evidence_gate.current_gate(settings)
    if args.refresh_gate:
        count = evidence_gate.refresh(gate=gate)
        print(f"discover: gate figures recomputed for {count} catalog products "
              f"(EVIDENCE_MIN_ROWS={gate.min_rows})")
        return 0

    day = args.today or utcnow().date()
    limit = args.max_add if args.max_add is not None else settings.discover_max_add
    if limit < 0:
        print("discover: --max-add must be zero or more", file=sys.stderr)
        return 2
    terms = [t.casefold() for t in (args.query or "").split() if t.strip()]
    try:
        seed = _brief_seed() if args.use_research_brief else None
        try:
            lines = read_feed(args.feed or settings.supplier_feed)
        except FeedError as exc:
            raise _Stop(f"discover: {exc}", 1) from None
        scan = _scan(lines, terms=terms, seed=seed, day=day, gate=gate)
        try:
            existing = _in_catalog([item["product_id"] for item, _ in scan.qualified])
            valid = _catalog_lines(scan.qualified, existing=existing, mode=args.mode, limit=limit)
            _upsert(valid, gate=gate)
        except Exception as exc:  # the database: say what failed in one line, exit 1
            raise _Stop(_one_line("the catalog could not be updated", exc), 1) from None
    except _Stop as stop:
        print(str(stop), file=sys.stderr)
        return stop.status

    _report(scan, valid, existing=existing, query=args.query, terms=terms, seed=seed, day=day)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
