"""A supplier connection and a sample order name the offer line (supplier and SKU), with what
the line offers: a supplier offers many products, so its name alone bought the wrong goods.

The connection gets `sku`, `name` and `offers_product_id`; the sample order (which had
`sku` already) gets `name` and `offers_product_id`. Rows made before stay as they were
(null): a connection then named a supplier alone, and no line can be told from it now."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(
        migrator.add_column("supplier_connection", "sku", pw.CharField(max_length=120, null=True)),
        migrator.add_column("supplier_connection", "name", pw.CharField(max_length=300, null=True)),
        migrator.add_column("supplier_connection", "offers_product_id", pw.CharField(max_length=120, null=True)),
        migrator.add_column("sample_order", "name", pw.CharField(max_length=300, null=True)),
        migrator.add_column("sample_order", "offers_product_id", pw.CharField(max_length=120, null=True)),
    )
