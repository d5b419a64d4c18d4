"""The founder's campaign book (GET, POST /api/ads-manager; spec 2.10): one row per founder,
keyed by its owner ("session:<id>" or "account:<id>", services/ownership.py), holding the
campaigns as a JSON list, the next campaign identifier and the book's settings.

`next_id` only moves forward: an identifier handed out once is never handed out again,
even after its campaign is removed. A save locks the row (services/growth/book.py), so two
saves at once each get their own identifiers.
"""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class CampaignBook(BaseModel):
    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    campaigns = JSONField(default=list)  # [{id, name, platform, status, daily_budget_minor, objective, audience}]
    next_id = pw.IntegerField(default=1)
    settings = JSONField(default=dict)  # only the keys saved; the defaults fill the rest when read
    # Moved by every save (and taken first, so a save holds the row until it commits).
    version = pw.IntegerField(default=0)
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "campaign_book"
