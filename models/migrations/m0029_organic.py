"""Organic research: a founder's researched campaigns per platform and their approvals, one
approval per campaign, scope and post (a unique index: approving twice records once)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Product(Base):
        product_id = pw.CharField(max_length=120, primary_key=True)

    class OrganicResearch(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        query = pw.TextField()
        platforms = pw.TextField()
        backend = pw.CharField(max_length=20)
        dropped = pw.IntegerField()
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "organic_research"

    class OrganicCampaign(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        research = pw.ForeignKeyField(OrganicResearch, on_delete="CASCADE", index=True)
        position = pw.IntegerField()
        platform = pw.CharField(max_length=20)
        angle = pw.TextField()
        posts = pw.TextField()

        class Meta:
            table_name = "organic_campaign"

    class OrganicApproval(Base):
        id = pw.BigAutoField()
        campaign = pw.ForeignKeyField(OrganicCampaign, on_delete="CASCADE", index=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        scope = pw.CharField(max_length=10)
        post_id = pw.CharField(max_length=40)
        platform = pw.CharField(max_length=20)
        angle = pw.TextField()
        format = pw.CharField(max_length=40, null=True)
        text = pw.TextField(null=True)
        approved_at = pw.DateTimeField()

        class Meta:
            table_name = "organic_approval"
            indexes = ((("campaign", "scope", "post_id"), True),)

    db.create_tables([OrganicResearch, OrganicCampaign, OrganicApproval])
