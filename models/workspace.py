"""The research workspace of an account: its notes, shortlisted products and saved queries.

Every row belongs to an account (never to a bare session: the workspace needs a signed-in
account), so all the account's sessions see the same workspace. The shortlist holds a
product once per account and a query is saved once per account: unique indexes settle
duplicate adds, even two arriving at once.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel


class ResearchNote(BaseModel):
    id = pw.BigAutoField()
    account = pw.ForeignKeyField(Account, on_delete="CASCADE", backref="+", index=True)
    text = pw.TextField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "research_note"


class ShortlistEntry(BaseModel):
    id = pw.BigAutoField()
    account = pw.ForeignKeyField(Account, on_delete="CASCADE", backref="+")
    product = pw.ForeignKeyField(Product, on_delete="CASCADE", column_name="product_id", backref="+", index=True)
    added_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "research_shortlist"
        indexes = ((("account", "product"), True),)


class SavedQuery(BaseModel):
    id = pw.BigAutoField()
    account = pw.ForeignKeyField(Account, on_delete="CASCADE", backref="+")
    query = pw.TextField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "research_saved_query"
        indexes = ((("account", "query"), True),)
