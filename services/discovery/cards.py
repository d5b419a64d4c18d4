"""Cards and candidates: a product as the find endpoints show it, which products an owner
may be shown now (one statement), and why there is nothing to show."""
from __future__ import annotations

from collections import namedtuple
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

import peewee as pw

from models.catalog import Evidence, Product
from models.clock import iso
from models.db import KeptSQL, db, param, read_row
from models.discovery import Claim, Hold, Passed, ProductGate, Seen, Watch
from services import evidence_gate
from services import evidence_kinds as kinds
from services.discovery import card_cache
from services.discovery.resolver import param_owner
from services.ownership import Owner

_CENT = Decimal("0.01")
# How many evidence series a card carries, and the readings each keeps (the API's decisions name them).
TREND_SERIES, TREND_POINTS = kinds.TREND_SERIES, kinds.TREND_POINTS


def _money(value) -> float:
    return float(Decimal(value).quantize(_CENT, rounding=ROUND_HALF_UP))


def card(product: Product, gate: ProductGate | None, *, yours: bool, held_until: datetime | None = None,
         claimed: bool = False) -> dict:
    """A product as the find endpoints show it (the card fields of decisions.md), its `trends`
    filled by `with_trends`. Built in the shape api/discovery.CardSchema dumps it to (its
    fields, in its order, each of its JSON type): find and feed send it without a dump
    (tests/test_card_shape.py dumps every form through the schema and compares)."""
    price, cost = Decimal(product.price), Decimal(product.cost)
    images = product.images or []
    body = {
        "product_id": product.product_id,
        "name": product.name,
        "description": product.description,
        "category": product.category,
        "image": images[0] if images else None,
        "price": _money(price),
        "cost": _money(cost),
        "margin": _money(price - cost),
        "margin_pct": float(gate.margin_pct if gate is not None else evidence_gate.margin_pct(price, cost)),
        "currency": product.currency,
        "evidence_count": gate.evidence_count if gate is not None else 0,
        "evidence_latest": _iso_date(gate.evidence_latest) if gate is not None else None,
        "trends": [],  # with_trends fills it; here, it is in CardSchema's place
        "rank": product.rank,
        "yours": yours,
    }
    if yours and claimed:
        body["claimed"] = True
    elif yours:
        body["held_until"] = iso(held_until)
    return body


def with_trends(cards: list[dict], versions=None) -> list[dict]:
    """Adds to each card `trends`, its dated evidence as series the app draws as sparklines
    (services/evidence_kinds.trends). `versions`, one per card, are their gate rows'
    evidence_version: trends kept under a card's version are served as kept
    (services/discovery/card_cache.py); the others are read for every such card in one
    query (Evidence's (product, date) index; a feed has at most FEED_SIZE cards, however
    large the catalog) and kept when they have a version."""
    versions = list(versions) if versions is not None else [None] * len(cards)
    keys = [(c["product_id"], version) for c, version in zip(cards, versions, strict=True)]
    found = card_cache.TRENDS.get_many([key for key in keys if key[1] is not None])
    rows: dict[str, list] = {key[0]: [] for key in keys if key not in found}
    if rows:
        for row in _evidence_of(list(rows)):
            rows[row.product].append(row)
        fresh = {key: kinds.trends(rows[key[0]], most=TREND_SERIES, points=TREND_POINTS)
                 for key in dict.fromkeys(keys) if key not in found}
        card_cache.TRENDS.put_many({key: trends for key, trends in fresh.items() if key[1] is not None})
        found.update(fresh)
    for c, key in zip(cards, keys, strict=True):
        c["trends"] = found[key]
    return cards


def version_of(gate: ProductGate | None) -> str | None:
    """A gate row's evidence version (None without a gate row: its trends are read afresh)."""
    return gate.evidence_version if gate is not None else None


EvidenceRow = namedtuple("EvidenceRow", "product date source metric value")
_EVIDENCE_READERS = (Evidence.product, Evidence.date, None, None, Evidence.value)


def _evidence_of(product_ids: list[str]) -> list[EvidenceRow]:
    """The dated evidence of products (find and feed read it for every card they serve)."""
    rows = _EVIDENCE.run(len(product_ids), **{f"p{n}": pid for n, pid in enumerate(product_ids)}).fetchall()
    return [EvidenceRow._make(read_row(_EVIDENCE_READERS, row)) for row in rows]


def _evidence_query(count: int):
    return (Evidence.select(Evidence.product, Evidence.date, Evidence.source, Evidence.metric, Evidence.value)
            .where(Evidence.product.in_([param(f"p{n}") for n in range(count)])))


_EVIDENCE = KeptSQL(_evidence_query)


def _iso_date(value) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, date) else str(value)


def product_rows(product_ids) -> dict[str, tuple[Product, ProductGate | None]]:
    """Products with their gate figures, by id (one query)."""
    if not product_ids:
        return {}
    query = (Product.select(Product, ProductGate)
             .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id), attr="gate_row")
             .where(Product.product_id.in_(list(product_ids))))
    return {p.product_id: (p, getattr(p, "gate_row", None)) for p in query}


def _live_holds(now):
    """The products held now, for `NOT IN`: the candidates read them once into a hash
    rather than probe the hold index for every product they step over. Holds gather at
    the top of the ranking (every find takes the best free product), so the walk steps
    over all of them, and a hash probe costs a fraction of an index probe (the feed
    benchmark's walk over 1,200 held products: 1.9 ms probing, 0.7 ms hashed). The hold
    table keeps a row per product held recently (an expired row is taken over by the next
    hold on that product, and released holds are deleted), so it stays near the number of
    founders at work; PostgreSQL hashes it while it fits in hash_mem (some 100,000 held
    products with the default work_mem). product_id is the key, never null (a null would
    make NOT IN exclude everything)."""
    return Hold.select(Hold.product).where(Hold.expires_at > now)


def _claim_on(product_field):
    return Claim.select(Claim.product).where(Claim.product == product_field)


def _passed_by(owner: Owner, product_field):
    return Passed.select(Passed.product).where((Passed.product == product_field) & owner.owns(Passed))


def seen_flag(owner: Owner, product_field):
    """Whether recording the product as seen would change nothing: this session has a seen
    row for it already ((session, product) is unique, so the insert would be ignored),
    whoever owns that row now. A column (1 or 0) read with the cards, so a repeat feed
    writes nothing; it needs only the unique index. See `_probe` for its form."""
    return _probe(Seen.select(pw.SQL("1")).where((Seen.session == owner.session_id) & (Seen.product == product_field)))


def _probe(query):
    """1 when `query` finds a row, else 0: one index probe per card. Written as EXISTS,
    PostgreSQL may instead read every row the outer filter allows (here, every product the
    session ever saw, or every open watch) into a hash once per statement; it plans for the
    ~100 rows the ranking walk might reach, not for the 11 a feed takes, so a founder's feed
    grew with their history (2,000 seen products: +0.35 ms a feed). A scalar subquery with
    LIMIT 1 is never hashed."""
    return pw.fn.COALESCE(query.limit(1), 0)


def _open_watch_on(product_field):
    return Watch.select(pw.SQL("1")).where((Watch.product == product_field) & Watch.closed_at.is_null())


def candidates(owner: Owner, now: datetime, gate, day: date, limit: int, exclude=()) -> list:
    """The best products this owner may be shown now: clearing the gate, neither held
    (live) nor claimed by anyone, not passed by the owner. Ranking key: rank descending,
    then product_id ascending. One query, walking the product_gate_feed_order index and
    stopping after `limit` rows.

    Each row, as the driver returned it (a Candidate: `candidate_card` makes its card),
    carries the card's columns, `seen` (see `seen_flag`) and `watched` (someone waits for
    it), so a feed writes only what is new."""
    rows = db.execute_sql(*candidates_sql(owner, now, gate, day, limit, exclude)).fetchall()
    return [Candidate._make(row) for row in rows]


def candidates_sql(owner: Owner, now: datetime, gate, day: date, limit: int, exclude=()) -> tuple[str, list]:
    """The statement `candidates` runs (see there), as SQL text and its parameters."""
    exclude = list(exclude)
    return _CANDIDATES.sql(owner.account_id is not None, limit, len(exclude), session_id=owner.session_id,
                           account_id=owner.account_id, now=now, cutoff=gate.cutoff(day),
                           min_margin=gate.min_margin_pct, **{f"x{n}": pid for n, pid in enumerate(exclude)})


# What a card shows of a product and its gate row, besides its id, in a candidate's row's order.
CARD_FIELDS = (Product.name, Product.description, Product.category, Product.price, Product.cost, Product.currency,
               Product.images, Product.rank, ProductGate.margin_pct, ProductGate.evidence_count,
               ProductGate.evidence_latest, ProductGate.gate_date, ProductGate.evidence_version)


def card_columns() -> list:
    """CARD_FIELDS as a statement reads them, by their names. The decimals are read as their
    text: a card's columns are the key it is kept under (`candidate_card`), and the driver's
    Decimal objects cost more to make and to hash than the card's whole lookup (card() and
    evidence_gate.row_clears read a decimal's text as they read a Decimal)."""
    return [(field.cast("text") if isinstance(field, pw.DecimalField) else field).alias(field.column_name)
            for field in CARD_FIELDS]


# The columns of a candidate's row (`candidates_query`), best first by (feed_rank, product_id).
CANDIDATE_COLUMNS = ("product_id", "name", "description", "category", "price", "cost", "currency", "images", "rank",
                     "margin_pct", "evidence_count", "evidence_latest", "gate_date", "evidence_version", "seen", "watched",
                     "feed_rank")
Candidate = namedtuple("Candidate", CANDIDATE_COLUMNS)
# A card shows the columns up to its evidence version (gate_date among them, which it does not show).
_CARD_COLUMNS = CANDIDATE_COLUMNS.index("evidence_version") + 1
CardColumns = namedtuple("CardColumns", CANDIDATE_COLUMNS[:_CARD_COLUMNS])
# How a card's columns are read back (read_row), its product id first: the decimals stay
# their text (card_columns).
CARD_READERS = (Product.product_id, *(None if isinstance(field, pw.DecimalField) else field for field in CARD_FIELDS))


def candidates_query(bound: bool, limit: int, excluded: int):
    """The candidates statement for an anonymous or a bound owner (`session_id`,
    `account_id`), a LIMIT and a number of products left out (`x0`...: the ones a find lost
    to a concurrent hold), at `now`, for the gate's `cutoff` and least margin `min_margin`
    (named values: models/db.KeptSQL). Its rows are read as the driver returns them."""
    owner = param_owner(bound)
    query = (ProductGate.select(ProductGate.product.alias("product_id"), *card_columns(),
                                seen_flag(owner, ProductGate.product).alias("seen"),
                                _probe(_open_watch_on(ProductGate.product)).alias("watched"),
                                ProductGate.rank.alias("feed_rank"))
             .join(Product, on=(ProductGate.product == Product.product_id))
             .where(evidence_gate.servable_from(param("cutoff"), param("min_margin")),
                    ProductGate.product.not_in(_live_holds(param("now"))),
                    ~pw.fn.EXISTS(_claim_on(ProductGate.product)),
                    ~pw.fn.EXISTS(_passed_by(owner, ProductGate.product)))
             .order_by(ProductGate.rank.desc(), ProductGate.product.asc())
             .limit(limit))
    if excluded:
        query = query.where(ProductGate.product.not_in([param(f"x{n}") for n in range(excluded)]))
    return query


_CANDIDATES = KeptSQL(candidates_query)


def candidate_card(row, *, yours: bool = False, held_until: datetime | None = None) -> dict:
    """The card of a candidate's row as the driver returned it (`candidates`, or
    services/discovery/state.py; its first _CARD_COLUMNS values are enough), its `trends`
    filled by `with_trends`. Its card for nobody in particular is kept under the row's card
    columns (card_cache.CARDS), so a product served before is neither decoded nor built
    again."""
    key = row[:_CARD_COLUMNS]  # a tuple (a row's slice)
    shown = card_cache.CARDS.get(key)
    if shown is None:
        decoded = CardColumns._make(read_row(CARD_READERS, key))
        shown = card(decoded, decoded, yours=False)
        card_cache.CARDS.put(key, shown)
    body = dict(shown)  # the kept card is shared: this request's own copy
    if yours:
        body["yours"] = True
        body["held_until"] = iso(held_until)
    return body


def version_in(columns) -> str | None:
    """The evidence version among a row's card columns (the last of them)."""
    return columns[_CARD_COLUMNS - 1]


def why_nothing(owner: Owner, now: datetime, gate, day: date) -> str:
    """Why no candidate is left for this owner (only asked when there is none)."""
    servable = (ProductGate.select().where(evidence_gate.servable(gate, day),
                                           ~pw.fn.EXISTS(_claim_on(ProductGate.product))))
    if not Product.select().where(~pw.fn.EXISTS(_claim_on(Product.product_id))).exists():
        reason = "catalog_exhausted"  # every product is claimed, or there are none
    elif not servable.exists():
        reason = "not_servable"  # none of the unclaimed products clears the gate now
    elif not servable.where(~pw.fn.EXISTS(_passed_by(owner, ProductGate.product))).exists():
        reason = "passed_out"
    else:
        reason = "all_held"  # the rest are held by other founders now
    return reason
