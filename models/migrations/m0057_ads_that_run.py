"""Ads that run (issue 49): ad_campaign_run (each campaign launched on the ad platform),
ad_delivery_day (what it delivered per UTC day, one row per run and day, its key unique),
ad_sandbox_campaign (the sandbox platform's record), and on ad_ledger the spend debits'
`delivery` key (unique: a day's spend is debited once) and the spending campaign's key."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "session"

    class Account(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "account"

    class Product(Base):
        product_id = pw.CharField(max_length=64, primary_key=True)

        class Meta:
            table_name = "product"

    class AdCampaignRun(Base):
        id = pw.BigAutoField()
        key = pw.CharField(max_length=32, unique=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        platform = pw.CharField(max_length=10)
        book_platform = pw.CharField(max_length=10)
        platform_ref = pw.CharField(max_length=64, null=True)
        state = pw.CharField(max_length=8)
        paused_because = pw.CharField(max_length=8, null=True)
        daily_budget_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        ctr_min_pct = pw.FloatField()
        cpc_max_minor = pw.BigIntegerField()
        flagged = pw.BooleanField(default=False)
        launched_at = pw.DateTimeField()
        paused_at = pw.DateTimeField(null=True)
        reported_through = pw.DateField(null=True)
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "ad_campaign_run"

    class AdDeliveryDay(Base):
        id = pw.BigAutoField()
        run = pw.ForeignKeyField(AdCampaignRun, on_delete="CASCADE")
        day = pw.DateField()
        impressions = pw.BigIntegerField()
        clicks = pw.BigIntegerField()
        spend_minor = pw.BigIntegerField()
        currency = pw.CharField(max_length=3)
        key = pw.CharField(max_length=120, unique=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "ad_delivery_day"
            indexes = ((("run", "day"), True),)

    class AdSandboxCampaign(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        reference = pw.CharField(max_length=64, unique=True)
        launch = pw.TextField()
        running = pw.TextField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "ad_sandbox_campaign"

    db.create_tables([AdCampaignRun, AdDeliveryDay, AdSandboxCampaign])
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("ad_ledger", "delivery", pw.CharField(max_length=120, null=True)),
            migrator.add_column("ad_ledger", "campaign", pw.CharField(max_length=32, null=True)),
            migrator.add_index("ad_ledger", ("delivery",), unique=True))
