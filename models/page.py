"""Generated pages (issue 27; decisions.md "Pages"): a landing page, a policy page or an FAQ
written from a store's own facts, owned like every founder row (services/ownership.py) or,
for a guest, also named by the guest id that request-link passes through so the sign-in
link's redemption upgrades the guest's pages to the account (spec 4.2)."""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class Page(BaseModel):
    LANDING, RETURNS, SHIPPING, PRIVACY, FAQ = "landing", "returns", "shipping", "privacy", "faq"
    KINDS = (LANDING, RETURNS, SHIPPING, PRIVACY, FAQ)

    id = pw.CharField(max_length=32, primary_key=True)  # secrets.token_hex(16): 128 random bits, the public URL
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    # An anonymous owner's guest id (32 hex characters), shared by all of its pages; kept after
    # the upgrade, when the account owns the row.
    guest_id = pw.CharField(max_length=32, null=True, index=True)
    kind = pw.CharField(max_length=12)
    intent = pw.TextField()  # the founder's words
    product_id = pw.CharField(max_length=120)
    title = pw.CharField(max_length=200)
    document = JSONField()  # {title, intro, sections: [{heading, paragraphs: [..]}]}, as the AI seam answered
    created_at = pw.DateTimeField(default=utcnow)
