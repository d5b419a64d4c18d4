"""Orders attributed to ad campaigns (issue 49.5): the utm_campaign of the link a store's
visitor arrived by, on their funnel events and on the order they open (indexed: a campaign's
paid orders are read by it)."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("customer_order", "campaign", pw.CharField(max_length=64, null=True)),
            migrator.add_column("funnel_event", "campaign", pw.CharField(max_length=64, null=True)),
            migrator.add_index("customer_order", ("campaign",), False))
