"""Full-text search over the catalog (services/search.py), one structure per backend.

SQLite: an external-content FTS5 table over `product` (name, category, description; the
porter stemmer over unicode61 words), so the text is not stored twice; triggers keep it in
step with every insert, update and delete of a product (the catalog loader's upsert fires
the update trigger), and products already in the catalog are indexed here ('rebuild').
It keys rows by the product table's rowid (its primary key is text): a VACUUM may renumber
those, after which `services.search.rebuild()` re-indexes the catalog.

PostgreSQL: a GIN index on the weighted tsvector of the same three columns (name A,
category B, description C), and one on the name's alone. The indexes are on expressions,
so they are always current and need nothing from the loader; a query uses one only when it
writes the very same expression, which services/search.py does (tests/test_ask.py checks
the plan).
"""
import peewee as pw

# The expression of the PostgreSQL index; services/search.py builds the same one.
PG_VECTOR = ("setweight(to_tsvector('english'::regconfig, name), 'A') || "
             "setweight(to_tsvector('english'::regconfig, category), 'B') || "
             "setweight(to_tsvector('english'::regconfig, description), 'C')")

# The name alone: which matches name a word (they are ranked first when a question matches
# more products than the search ranks, services/search.py).
PG_NAME_VECTOR = "to_tsvector('english'::regconfig, name)"

SQLITE_STATEMENTS = (
    "CREATE VIRTUAL TABLE product_fts USING fts5(name, category, description, content='product', "
    "content_rowid='rowid', tokenize='porter unicode61')",
    "CREATE TRIGGER product_fts_insert AFTER INSERT ON product BEGIN "
    "INSERT INTO product_fts(rowid, name, category, description) "
    "VALUES (new.rowid, new.name, new.category, new.description); END",
    "CREATE TRIGGER product_fts_delete AFTER DELETE ON product BEGIN "
    "INSERT INTO product_fts(product_fts, rowid, name, category, description) "
    "VALUES ('delete', old.rowid, old.name, old.category, old.description); END",
    "CREATE TRIGGER product_fts_update AFTER UPDATE OF name, category, description ON product BEGIN "
    "INSERT INTO product_fts(product_fts, rowid, name, category, description) "
    "VALUES ('delete', old.rowid, old.name, old.category, old.description); "
    "INSERT INTO product_fts(rowid, name, category, description) "
    "VALUES (new.rowid, new.name, new.category, new.description); END",
    "INSERT INTO product_fts(product_fts) VALUES ('rebuild')",
)


def upgrade(db):
    database = getattr(db, "obj", db)  # the proxy's database
    if isinstance(database, pw.SqliteDatabase):
        for statement in SQLITE_STATEMENTS:
            db.execute_sql(statement)
    else:
        db.execute_sql(f"CREATE INDEX product_search ON product USING GIN (({PG_VECTOR}))")
        db.execute_sql(f"CREATE INDEX product_search_name ON product USING GIN (({PG_NAME_VECTOR}))")
