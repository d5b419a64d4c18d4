"""Full-text search over the catalog: one interface, two backends.

- SQLite: the external-content FTS5 table `product_fts` (name, category, description;
  tokenizer `porter unicode61`), kept in step with `product` by triggers
  (models/migrations/m0009_search.py), ranked by bm25 with the name weighted above the
  category and the category above the description.
- PostgreSQL: a GIN index on the weighted tsvector of the same columns (name A, category B,
  description C, the `english` configuration), ranked by ts_rank_cd. The query writes the
  index's own expression (`_pg_vector`), so the planner uses the index.

Either way the catalog loader needs to do nothing: the triggers (SQLite) and the
expression index (PostgreSQL) follow every write of a product.

User text never reaches MATCH or to_tsquery as syntax: `query_terms` keeps only words of
letters and digits, and each one (and its plural or singular, `variants`) is quoted as a
single term, so `"foo" OR bar* NEAR(` searches for foo, bar and near. Terms are OR-ed.

Visibility: a product claimed by another founder never appears (the claim is exclusive
everywhere); otherwise only products the evidence gate serves today appear, the same
condition find and feed use (services/evidence_gate.servable_from). A product claimed by
the owner asking appears whether or not it clears the gate today.

The statement is built once per shape (models/compiled.py): on PostgreSQL it is prepared
once per pooled connection.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import peewee as pw

from models.catalog import Product
from models.clock import utcnow
from models.compiled import Param, Statement
from models.db import db, is_sqlite, transaction
from models.discovery import Claim, ProductGate
from services import evidence_gate
from services.discovery.resolver import param_owner
from services.ownership import Owner

MAX_TERMS = 12  # words of one question searched for; the rest are ignored
MAX_LIMIT = 50  # most hits one search answers
SNIPPET_WORDS = 20  # the longest excerpt of the description a hit carries

# Relative weights of a match in the name, the category and the description. SQLite's bm25
# takes them as they are; PostgreSQL's ts_rank_cd weighs the labels A, B, C with its
# defaults {A: 1.0, B: 0.4, C: 0.2}: the same order, name above description.
SQLITE_WEIGHTS = (10.0, 4.0, 1.0)

# English stop words (the usual list), and the words a question is phrased with that say
# nothing about which product is meant.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
i'm ive im youre dont doesnt isnt arent cant wont shall may might must also else ever every yet via per
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
    if is_sqlite():
        statement, query = _SQLITE, " OR ".join(f'"{w}"' for w in words)
    else:
        statement, query = _POSTGRES, " | ".join(f"'{w}'" for w in words)
    mode = "none" if owner is None else "account" if owner.account_id is not None else "session"
    gate = evidence_gate.current_gate()
    values = {"query": query, "cutoff": gate.cutoff(utcnow().date()), "min_margin": gate.min_margin_pct}
    if owner is not None:
        values.update(session_id=owner.session_id, account_id=owner.account_id)
    return [Hit(product_id=row.product_id, name=row.name, category=row.category, price=round(float(row.price), 2),
                currency=row.currency, score=round(float(row.score), 6), snippet=(row.snippet or "").strip())
            for row in statement.rows(mode, limit, **values)]


def rebuild() -> None:
    """Re-indexes the whole catalog (SQLite; PostgreSQL's index needs nothing). For after a
    VACUUM, which may renumber the rowids the FTS5 table is keyed by."""
    if is_sqlite():
        with transaction():
            db.execute_sql("INSERT INTO product_fts(product_fts) VALUES ('rebuild')")


# --- The statements ------------------------------------------------------------------------

def _visible(mode: str, product_field):
    """Who may see a product: unclaimed and served by the evidence gate today, or claimed by
    the owner asking (mode "session" or "account": an anonymous or a bound owner whose ids
    are parameters; "none": no owner)."""
    claim_on = Claim.select(Claim.id).where(Claim.product == product_field)
    shown = evidence_gate.servable_from(Param("cutoff"), Param("min_margin")) & ~pw.fn.EXISTS(claim_on)
    if mode == "none":
        return shown
    owner = param_owner(mode == "account")
    # A claim is unique per product, so "claimed by me" needs no NOT on the other claims
    # (whose account may be NULL, which a plain != would let through).
    return shown | pw.fn.EXISTS(claim_on.where(owner.owns(Claim)))


_FTS = pw.Table("product_fts")
_FTS_ROW = pw.Column(_FTS, "product_fts")  # FTS5's hidden column named after its table: MATCH and bm25 take it


def _sqlite_query(mode: str, limit: int):
    rank = pw.fn.bm25(_FTS_ROW, *[pw.SQL(repr(w)) for w in SQLITE_WEIGHTS])  # lower is better
    snippet = pw.fn.snippet(_FTS_ROW, pw.SQL("2"), pw.SQL("''"), pw.SQL("''"), pw.SQL("''"),
                            pw.SQL(str(SNIPPET_WORDS)))  # column 2: the description
    return (Product.select(Product.product_id, Product.name, Product.category, Product.price, Product.currency,
                           (pw.SQL("0") - rank).alias("score"), snippet.alias("snippet"))
            .join(_FTS, on=(_FTS.c.rowid == pw.Column(Product, "rowid")))
            .join_from(Product, ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id))
            .where(pw.Expression(_FTS_ROW, "MATCH", Param("query")), _visible(mode, Product.product_id))
            .order_by(rank, Product.product_id)
            .limit(limit))


def _pg_vector():
    """The expression the GIN index product_search is built on (models/migrations/m0009_search.py),
    written the same way: the planner matches an index expression by its parsed form, with
    the configuration and weights as constants (as parameters they would not match)."""
    english = pw.SQL("'english'::regconfig")

    def weighted(field, label):
        return pw.fn.setweight(pw.fn.to_tsvector(english, field), pw.SQL(f"'{label}'"))

    return (weighted(Product.name, "A").concat(weighted(Product.category, "B"))
            .concat(weighted(Product.description, "C")))


def _pg_query(mode: str, limit: int):
    tsquery = pw.fn.to_tsquery(pw.SQL("'english'::regconfig"), Param("query"))
    score = pw.fn.ts_rank_cd(_pg_vector(), tsquery)
    best = (Product.select(Product.product_id, Product.name, Product.category, Product.price, Product.currency,
                           Product.description, score.alias("score"))
            .join(ProductGate, pw.JOIN.LEFT_OUTER, on=(ProductGate.product == Product.product_id))
            .where(pw.Expression(_pg_vector(), "@@", tsquery), _visible(mode, Product.product_id))
            .order_by(score.desc(), Product.product_id)
            .limit(limit)
            .alias("best"))
    # The excerpt is cut for the few rows answered only: ts_headline reads the whole text.
    options = (f"MaxFragments=1, MaxWords={SNIPPET_WORDS}, MinWords={SNIPPET_WORDS // 2}, "
               'StartSel="", StopSel="", FragmentDelimiter=" "')
    snippet = pw.fn.ts_headline(pw.SQL("'english'::regconfig"), best.c.description, tsquery, pw.SQL(f"'{options}'"))
    return (pw.Select([best], [best.c.product_id.alias("product_id"), best.c.name.alias("name"),
                               best.c.category.alias("category"), best.c.price.alias("price"),
                               best.c.currency.alias("currency"), best.c.score.alias("score"),
                               snippet.alias("snippet")])
            .order_by(best.c.score.desc(), best.c.product_id))


_SQLITE = Statement("search_sqlite", _sqlite_query)
_POSTGRES = Statement("search_postgres", _pg_query)
