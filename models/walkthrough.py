"""The walkthrough's position and the journey carriers (issue 27; spec 4.7 walkthrough and
journey rows, decisions.md "Product surface and the browser app").

A walkthrough row is one per founder, keyed by owner ("session:<id>" or "account:<id>",
services/ownership.py): which step they are at and whether they dismissed it. A journey
carrier hands a route of the app from one browser to another: it is reached by its id, of
which only the SHA-256 is stored (the id is a bearer secret for 15 minutes), and spent once.
"""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class Walkthrough(BaseModel):
    owner = pw.CharField(max_length=40, primary_key=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="CASCADE", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    position = pw.IntegerField(default=0)
    dismissed = pw.BooleanField(default=False)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "walkthrough"


class JourneyCarrier(BaseModel):
    id_hash = pw.CharField(max_length=64, primary_key=True)  # services.tokens.hash_token of the id
    route = pw.CharField(max_length=300)
    data = JSONField(null=True)
    # The session that issued it (the route is public, but every request has a session).
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField(index=True)
    consumed_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "journey_carrier"
