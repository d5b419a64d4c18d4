"""Organic research (issue 24, part C): a founder's researched campaigns per platform, and the
approvals they record for a campaign or one of its post ideas. Nothing here is ever posted.

A research row is the founder's (session, and account once bound: services/ownership.py); its
campaigns are found by their own ids (POST /api/organic/approve names one), and an approval
belongs to the same founder. Approving is idempotent: one row per campaign, scope and post,
decided by a unique index (post_id is "" for a campaign's approval, so the index holds on
both databases, where NULLs would never collide).
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class OrganicResearch(BaseModel):
    id = pw.CharField(max_length=32, primary_key=True)  # 128 random bits, hex
    session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    query = pw.TextField()
    platforms = JSONField(default=list)
    backend = pw.CharField(max_length=20)  # the AI backend that wrote it: offline, openai or command
    dropped = pw.IntegerField(default=0)  # sentences the claim filter removed from the answer
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organic_research"


class OrganicCampaign(BaseModel):
    id = pw.CharField(max_length=32, primary_key=True)  # 128 random bits, hex
    research = pw.ForeignKeyField(OrganicResearch, on_delete="CASCADE", backref="campaigns", index=True)
    position = pw.IntegerField()
    platform = pw.CharField(max_length=20)
    angle = pw.TextField()
    posts = JSONField(default=list)  # [{id, format, text, cites: [...]}]

    class Meta:
        table_name = "organic_campaign"


class OrganicApproval(BaseModel):
    POST, CAMPAIGN = "post", "campaign"
    SCOPES = (POST, CAMPAIGN)

    id = pw.BigAutoField()
    campaign = pw.ForeignKeyField(OrganicCampaign, on_delete="CASCADE", backref="+", index=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    scope = pw.CharField(max_length=10)
    post_id = pw.CharField(max_length=40, default="")  # "" for a campaign's approval
    # What was approved, as it read then.
    platform = pw.CharField(max_length=20)
    angle = pw.TextField()
    format = pw.CharField(max_length=40, null=True)
    text = pw.TextField(null=True)
    approved_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "organic_approval"
        indexes = ((("campaign", "scope", "post_id"), True),)
