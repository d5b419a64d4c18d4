"""Mail after a sale, and an address to ship to (issue 20, point 7).

A customer order keeps the shipping address the provider's page collected (ship_*; NULL
for orders from before, and for any order whose checkout collected none) and when its
receipt and the founder's notice were mailed (services/commerce/order_mail.py). The
sandbox provider's checkout keeps the countries its page offers and the address the
customer gave, as a remote provider would. Nothing existing moves: the new columns are
all nullable, so every order paid before this reads as "no address collected" and is
never mailed a receipt after the fact.
"""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(
        migrator.add_column("customer_order", "ship_name", pw.CharField(max_length=200, null=True)),
        migrator.add_column("customer_order", "ship_line1", pw.CharField(max_length=200, null=True)),
        migrator.add_column("customer_order", "ship_line2", pw.CharField(max_length=200, null=True)),
        migrator.add_column("customer_order", "ship_city", pw.CharField(max_length=100, null=True)),
        migrator.add_column("customer_order", "ship_region", pw.CharField(max_length=100, null=True)),
        migrator.add_column("customer_order", "ship_postal_code", pw.CharField(max_length=20, null=True)),
        migrator.add_column("customer_order", "ship_country", pw.CharField(max_length=2, null=True)),
        migrator.add_column("customer_order", "receipt_sent_at", pw.DateTimeField(null=True)),
        migrator.add_column("customer_order", "receipt_error", pw.CharField(max_length=40, null=True)),
        migrator.add_column("customer_order", "notice_sent_at", pw.DateTimeField(null=True)),
        migrator.add_column("sandbox_checkout", "shipping_countries", pw.TextField(null=True)),
        migrator.add_column("sandbox_checkout", "shipping", pw.TextField(null=True)),
    )
