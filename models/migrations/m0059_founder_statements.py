"""The founder's own statements of their business's policy (issue 50.2): the return window,
free returns, the shipping time, the guarantee in their words and where they ship, kept on
their business settings row (services/founder_statements.py). Each is null (or false) until
stated, so existing rows state nothing."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("business_settings", "return_days", pw.IntegerField(null=True)),
            migrator.add_column("business_settings", "free_returns", pw.BooleanField(default=False)),
            migrator.add_column("business_settings", "shipping_days_min", pw.IntegerField(null=True)),
            migrator.add_column("business_settings", "shipping_days_max", pw.IntegerField(null=True)),
            migrator.add_column("business_settings", "guarantee", pw.CharField(max_length=200, null=True)),
            migrator.add_column("business_settings", "ships_to", pw.CharField(max_length=200, null=True)))
