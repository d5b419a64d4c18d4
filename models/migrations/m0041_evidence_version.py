"""Each product's gate row names the version of its evidence: a token written by every
evidence_gate.refresh (the catalog load rewrites a product's evidence and then refreshes
it), so find and feed can keep a card's trends between requests and know when to read them
again (services/discovery/card_cache.py). Rows there before take one token: they are
read afresh once, then kept."""
import uuid

import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("product_gate", "evidence_version", pw.CharField(max_length=32, null=True)))
    db.execute_sql(f"UPDATE product_gate SET evidence_version = {db.param}", (uuid.uuid4().hex,))
