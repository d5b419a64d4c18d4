"""Full-text search over the catalog: one interface, two backends.

- SQLite: the external-content FTS5 table `product_fts` (name, category, description;
  tokenizer `porter unicode61`), kept in step with `product` by triggers
  (models/migrations/m0009_search.py), ranked by bm25 with the name weighted above the
  category and the category above the description.
- PostgreSQL: a GIN index on the weighted tsvector of the same columns (name A, category B,
  description C, the `english` configuration), ranked by ts_rank_cd. The query writes the
  index's own expression (`_pg_vector`), so the planner uses the index. ts_rank_cd must
  compute each ranked product's tsvector again (an expression index stores none), so it
  ranks at most CANDIDATES of the matches: those matching every word first, then those
  whose name matches a word (a second GIN index, on the name), then the best in catalog
  rank (`_pg_query`). A catalog where a question matches fewer products than
  that is ranked in full, like SQLite.

Either way the catalog loader needs to do nothing: the triggers (SQLite) and the
expression index (PostgreSQL) follow every write of a product.

User text never reaches MATCH or to_tsquery as syntax: `query_terms` keeps only words of
letters and digits, and each one (and its plural or singular, `variants`) is quoted as a
single term, so `"foo" OR bar* NEAR(` searches for foo, bar and near. Terms are OR-ed.

Visibility: a product claimed by another founder never appears (the claim is exclusive
everywhere); otherwise only products the evidence gate serves today appear, the same
condition find and feed use (services/evidence_gate.servable_from). A product claimed by
the owner asking appears whether or not it clears the gate today.
"""
from __future__ import annotations

import re
import threading
import weakref
from dataclasses import dataclass

import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.db import db, is_sqlite, transaction
from models.discovery import Claim, ProductGate
from services import evidence_gate
from services.ownership import Owner

MAX_TERMS = 12  # words of one question searched for; the rest are ignored
MAX_LIMIT = 50  # most hits one search answers
SNIPPET_WORDS = 20  # the longest excerpt of the description a hit carries
# PostgreSQL ranks at most this many of the products that match (those matching every word
# first, then those whose name matches, then by catalog rank): see `_pg_query` for why,
# bench/README.md for what it costs.
CANDIDATES = 100
WALK = 4  # matches looked at per candidate, for the visible ones among them

# Relative weights of a match in the name, the category and the description. SQLite's bm25
# takes them as they are; PostgreSQL's ts_rank_cd weighs the labels A, B, C with its
# defaults {A: 1.0, B: 0.4, C: 0.2}: the same order, name above description.
SQLITE_WEIGHTS = (10.0, 4.0, 1.0)

# English stop words (the usual list, which includes PostgreSQL's, so both backends drop the
# same words; with the pieces a contraction splits into: doesn't -> doesn, t), and the words
# a question is phrased with that say nothing about which product is meant.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
im ive youre dont doesnt isnt arent cant wont shall may might must also else ever every yet via per
don doesn didn isn aren wasn weren haven hasn hadn couldn shouldn wouldn ll ve re
anything something everything nothing thing things product products item items catalog catalogue
please tell show find give list know get got buy sell sells selling sold want need looking look like recommend
suggest good best great ok okay let us one ones
""".split())

# Irregular plurals, both ways: the stemmers of both backends leave these apart.
_IRREGULAR = {"teeth": "tooth", "feet": "foot", "mice": "mouse", "geese": "goose", "children": "child",
              "women": "woman", "men": "man", "people": "person"}
_IRREGULAR.update({singular: plural for plural, singular in list(_IRREGULAR.items())})

_WORD = re.compile(r"[^\W_]+")  # letters and digits only (any script); never an operator of either syntax


@dataclass(frozen=True)
class Hit:
    product_id: str
    name: str
    category: str
    price: float
    currency: str
    score: float  # higher is better; comparable within one search only
    snippet: str  # plain text: an excerpt of the description around the words matched


def query_terms(text: str) -> list[str]:
    """The words of `text` worth searching for: lower-cased runs of letters and digits,
    without English stop words, question filler and one-character words, each once, in the
    order they come, at most MAX_TERMS."""
    terms: list[str] = []
    for word in _WORD.findall((text or "").lower()):
        if len(word) < 2 or word in STOP_WORDS or word in terms:
            continue
        terms.append(word)
        if len(terms) == MAX_TERMS:
            break
    return terms


def variants(term: str) -> list[str]:
    """The term and its other number where the stemmers miss it: knives/knife,
    shelves/shelf, teeth/tooth (porter and snowball stem "knives" to "knive")."""
    found = [term]
    if term in _IRREGULAR:
        found.append(_IRREGULAR[term])
    elif term.endswith("ves") and len(term) > 4:
        stem = term[:-3]
        found.append(stem + ("f" if stem[-1] in "lra" else "fe"))  # shelves, leaves, scarves; knives, wives
    elif term.endswith("fe") and len(term) > 3:
        found.append(term[:-2] + "ves")
    elif term.endswith(("lf", "af", "rf")):
        found.append(term[:-1] + "ves")
    return found


def search(text: str, *, limit: int = 10, owner: Owner | None = None) -> list[Hit]:
    """The catalog products matching any word of `text`, best first (ties by product_id),
    at most `limit`, visible to `owner` (see the module docstring; None: no founder, so
    no claimed product at all)."""
    terms = query_terms(text)
    limit = min(int(limit), MAX_LIMIT)
    if not terms or limit <= 0:
        return []
    words = list(dict.fromkeys(v for term in terms for v in variants(term)))
    gate = evidence_gate.current_gate()
    servable = evidence_gate.servable_from(gate.cutoff(utcnow().date()), gate.min_margin_pct)
    if is_sqlite():
        query = _sqlite_query(" OR ".join(f'"{w}"' for w in words), owner, servable, limit)
    else:
        _without_jit()
        every_word = None
        if len(terms) > 1:
            every_word = " & ".join("(" + " | ".join(f"'{w}'" for w in variants(t)) + ")" for t in terms)
        query = _pg_query(" | ".join(f"'{w}'" for w in words), every_word, owner, servable, limit, CANDIDATES)
    return [Hit(product_id=row.product_id, name=row.name, category=row.category, price=round(float(row.price), 2),
                currency=row.currency, score=round(float(row.score), 6), snippet=(row.snippet or "").strip())
            for row in query.namedtuples().execute(db)]


def rebuild() -> None:
    """Re-indexes the whole catalog (SQLite; PostgreSQL's index needs nothing). For after a
    VACUUM, which may renumber the rowids the FTS5 table is keyed by."""
    if is_sqlite():
        with transaction():
            db.execute_sql("INSERT INTO product_fts(product_fts) VALUES ('rebuild')")


# --- The statements ------------------------------------------------------------------------

def _visible(owner: Owner | None, product_field, servable):
    """Who may see a product: unclaimed and `servable` (the evidence gate today, on the
    product_gate row joined to the query), or claimed by the owner asking (None: no owner)."""
    claim_on = Claim.select(Claim.id).where(Claim.product == product_field)
    shown = servable & ~pw.fn.EXISTS(claim_on)
    if owner is None:
        return shown
    # A claim is unique per product, so "claimed by me" needs no NOT on the other claims
    # (whose account may be NULL, which a plain != would let through).
    return shown | pw.fn.EXISTS(claim_on.where(owner.owns(Claim)))


_FTS = pw.Table("product_fts")
_FTS_ROW = pw.Column(_FTS, "product_fts")  # FTS5's hidden column named after its table: MATCH and bm25 take it


def _sqlite_query(match: str, owner: Owner | None, servable, limit: int):
    rank = pw.fn.bm25(_FTS_ROW, *[pw.SQL(repr(w)) for w in SQLITE_WEIGHTS])  # lower is better
    snippet = pw.fn.snippet(_FTS_ROW, pw.SQL("2"), pw.SQL("''"), pw.SQL("''"), pw.SQL("''"),
                            pw.SQL(str(SNIPPET_WORDS)))  # column 2: the description
    return (Product.select(Product.product_id, Product.name, Product.category, Product.price, Product.currency,
                           (pw.SQL("0") - rank).alias("score"), snippet.alias("snippet"))
            .join(_FTS, on=(_FTS.c.rowid == pw.Column(Product, "rowid")))
            .join_from(Product, ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id))
            .where(pw.Expression(_FTS_ROW, "MATCH", match), _visible(owner, Product.product_id, servable))
            .order_by(rank, Product.product_id)
            .limit(limit))


def _pg_vector(source=Product):
    """The expression the GIN index product_search is built on (models/migrations/m0009_search.py),
    written the same way: the planner matches an index expression by its parsed form, with
    the configuration and weights as constants (as parameters they would not match).
    `source` is the product table, or a subquery with the same three columns."""
    columns = source.c if isinstance(source, pw.SelectQuery) else source  # a subquery, or the model (or an alias)
    english = pw.SQL("'english'::regconfig")

    def weighted(field, label):
        return pw.fn.setweight(pw.fn.to_tsvector(english, field), pw.SQL(f"'{label}'"))

    return (weighted(columns.name, "A").concat(weighted(columns.category, "B"))
            .concat(weighted(columns.description, "C")))


def _pg_name_vector(source=Product):
    """The expression of the GIN index product_search_name: the name's words alone."""
    return pw.fn.to_tsvector(pw.SQL("'english'::regconfig"), source.name)


def _tsquery(text: str):
    return pw.fn.to_tsquery(pw.SQL("'english'::regconfig"), text)


def _pg_query(any_word: str, every_word: str | None, owner: Owner | None, servable, limit: int, candidates: int):
    """Four steps, so that the costly work is done for few rows:

    1. `matches`: the products matching any word, found through the GIN index (a bitmap
       scan), with their catalog rank, whether they match every word (several words only)
       and whether their name matches one. Materialized: otherwise the planner may walk the
       catalog-rank index and run to_tsvector on each product it passes, to find the first
       matches in rank order.
    2. `walk`, `chosen`: the first `candidates` visible ones among the first
       `candidates * WALK` matches: those matching every word first, then those whose name
       matches, then by catalog rank.
       Sorting only that many is a top-N sort; visibility is asked only of the matches walked
       (the walk's LIMIT keeps the filter above it, and the outer limit stops the walk), each
       with an index probe, instead of joining every match with the whole product_gate
       table. Fewer than `candidates` are chosen only when most of the walk is invisible
       (claimed, or not served by the gate).
    3. `best`: the chosen products ranked by ts_rank_cd, best first, `limit` rows. ts_rank_cd
       needs each row's tsvector, which an expression index does not store: to_tsvector runs
       again per row (some 50 microseconds for a product's text), so ranking every match of
       a common word in a large catalog would take seconds; `candidates` bounds it.
    4. the excerpt (ts_headline, which reads the whole text too) for those rows only.
    """
    # Each flag is a hashed set read once through its own GIN index, not a test per match.
    flags = {}
    if every_word is not None:  # several words (with one, every match matches every word)
        all_of = Product.alias("every_word")
        flags["every_word"] = Product.product_id.in_(
            all_of.select(all_of.product_id).where(pw.Expression(_pg_vector(all_of), "@@", _tsquery(every_word))))
    by_name = Product.alias("by_name")
    flags["in_name"] = Product.product_id.in_(
        by_name.select(by_name.product_id).where(pw.Expression(_pg_name_vector(by_name), "@@", _tsquery(any_word))))
    matches = (Product.select(Product.product_id, Product.rank, *[flag.alias(n) for n, flag in flags.items()])
               .where(pw.Expression(_pg_vector(), "@@", _tsquery(any_word)))
               .cte("matches", materialized=True))
    names = list(flags)
    walk = (matches.select_from(matches.c.product_id, matches.c.rank, *[getattr(matches.c, n) for n in names])
            .order_by(*[getattr(matches.c, n).desc() for n in names], matches.c.rank.desc(), matches.c.product_id)
            .limit(candidates * WALK)
            .alias("walk"))
    # A scalar subquery, not a join: it is probed per product walked (a join or an EXISTS
    # may be planned as a hash of the whole product_gate table).
    servable = pw.Expression(ProductGate.select(servable).where(ProductGate.product == walk.c.product_id),
                             "IS", pw.SQL("TRUE"))  # no gate row: NULL, not servable
    walk_order = [getattr(walk.c, n).desc() for n in names] + [walk.c.rank.desc(), walk.c.product_id]
    chosen = (pw.Select([walk], [walk.c.product_id.alias("product_id")])
              # One expression, IS TRUE: a bare NOT EXISTS would be planned as an anti-join of
              # every match (losing the walk's order); inside an expression it is a filter.
              .where(pw.Expression(_visible(owner, walk.c.product_id, servable), "IS", pw.SQL("TRUE")))
              .order_by(*walk_order)  # the walk's own order, so no second sort
              .limit(candidates)
              .alias("chosen"))
    pool = (Product.select(Product.product_id, Product.name, Product.category, Product.price, Product.currency,
                           Product.description)
            .join(chosen, on=(chosen.c.product_id == Product.product_id))
            .alias("pool"))
    score = pw.fn.ts_rank_cd(_pg_vector(pool), _tsquery(any_word))
    names = ("product_id", "name", "category", "price", "currency", "description")
    best = (pw.Select([pool], [getattr(pool.c, n).alias(n) for n in names] + [score.alias("score")])
            .order_by(score.desc(), pool.c.product_id)
            .limit(limit)
            .alias("best"))
    options = (f"MaxFragments=1, MaxWords={SNIPPET_WORDS}, MinWords={SNIPPET_WORDS // 2}, "
               'StartSel="", StopSel="", FragmentDelimiter=" "')
    snippet = pw.fn.ts_headline(pw.SQL("'english'::regconfig"), best.c.description, _tsquery(any_word),
                                pw.SQL(f"'{options}'"))
    return (pw.Select([best], [getattr(best.c, n).alias(n) for n in names[:-1]]
                      + [best.c.score.alias("score"), snippet.alias("snippet")])
            .order_by(best.c.score.desc(), best.c.product_id))


# JIT compilation costs some 50 ms per run of the search (its plan's estimated cost, inflated
# by to_tsvector, is past jit_above_cost) and never pays off for a statement this short; it
# is turned off once per pooled connection (a SET, outside any transaction so that it lasts:
# inside one, a rollback would undo it). Set per connection rather than in the connection's
# startup options, which poolers such as pgbouncer refuse.
JIT_OFF = "SET jit = off"
_jit_off: weakref.WeakSet = weakref.WeakSet()
_jit_lock = threading.Lock()


def _without_jit() -> None:
    if db.in_transaction():
        return
    connection = db.obj.connection()
    if connection in _jit_off:
        return
    db.execute_sql(JIT_OFF)
    with _jit_lock:
        _jit_off.add(connection)

