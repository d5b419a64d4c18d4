"""A store records who built it: stores may now be built on a hold (which lapses), so the
product's next founder must not find the last one's draft. Existing stores were all built on
claims, and are their claimant's."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("store", "owner", pw.CharField(max_length=40, null=True)),
            migrator.add_index("store", ("owner",), False))
    db.execute_sql(
        "UPDATE store SET owner = (SELECT CASE WHEN c.account_id IS NOT NULL "
        "THEN 'account:' || CAST(c.account_id AS TEXT) ELSE 'session:' || CAST(c.session_id AS TEXT) END "
        "FROM product_claim c WHERE c.product_id = store.product_id)")
