"""The support desk (issue 25; spec 2.14, 2.17): tickets, their messages and the founder's
keyword rules.

Rows are a founder's, keyed by owner ("session:<id>" or "account:<id>",
services/ownership.py) with the session and account beside it, like the business records.
Inbound mail is taken exactly once per founder: a message's Message-ID (or, when the mail
has none, a digest of its bytes) is unique per owner and sender on TicketMessage, so two polls that
read the same mail at once leave one message and the loser's insert is refused by the
index, not by a read-then-write check.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session
from models.store import Store


class Ticket(BaseModel):
    OPEN, PENDING, SOLVED, CLOSED = "open", "pending", "solved", "closed"
    STATUSES = (OPEN, PENDING, SOLVED, CLOSED)
    FINISHED = (SOLVED, CLOSED)  # reaching these needs a resolution
    PRIORITIES = ("low", "normal", "high", "urgent")
    CATEGORIES = ("question", "order", "shipping", "return", "billing", "other")

    id = pw.BigAutoField()
    owner = pw.CharField(max_length=40)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    subject = pw.CharField(max_length=300)
    customer_email = pw.CharField(max_length=254)
    customer_name = pw.CharField(max_length=200, null=True)
    support_address = pw.CharField(max_length=254)  # where the customer wrote; our replies' From/Reply-To
    status = pw.CharField(max_length=8, default=OPEN)
    priority = pw.CharField(max_length=8, default="normal")
    category = pw.CharField(max_length=10, default="question")
    resolution = pw.TextField(null=True)
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    # When the agent hook (services.desk.agent.on_new_ticket) was run for the new ticket: set
    # once, so a poll that crashed after committing the ticket runs it on the next poll.
    agent_done_at = pw.DateTimeField(null=True)
    created_at = pw.DateTimeField(default=utcnow)
    updated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ticket"
        indexes = ((("owner", "status", "updated_at"), False),)


class TicketMessage(BaseModel):
    IN, OUT, NOTE, DRAFT = "in", "out", "note", "draft"
    DIRECTIONS = (IN, OUT, NOTE, DRAFT)
    CUSTOMER, FOUNDER, AGENT = "customer", "founder", "agent"
    AUTHORS = (CUSTOMER, FOUNDER, AGENT)

    id = pw.BigAutoField()
    ticket = pw.ForeignKeyField(Ticket, on_delete="CASCADE", backref="messages", index=True)
    owner = pw.CharField(max_length=40)  # the ticket's owner, repeated for the dedupe index
    direction = pw.CharField(max_length=6)
    author = pw.CharField(max_length=10)
    from_addr = pw.CharField(max_length=254, null=True)
    to_addr = pw.CharField(max_length=254, null=True)
    subject = pw.CharField(max_length=300, null=True)
    text = pw.TextField()
    # The RFC 5322 Message-ID ("<...>"): the customer's on inbound mail, ours on replies; null
    # on notes and drafts. Unique per owner and sender: the same mail polled twice is one
    # message, and another sender's mail with the same Message-ID is still taken.
    message_id = pw.CharField(max_length=300, null=True)
    in_reply_to = pw.CharField(max_length=300, null=True)
    sent = pw.BooleanField(null=True)  # replies: whether the mailer accepted the send
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "ticket_message"
        indexes = ((("owner", "from_addr", "message_id"), True),)


class KeywordRule(BaseModel):
    """When a new ticket's subject or text contains `keyword` (case-insensitive), set the
    fields given (each null = leave it)."""

    id = pw.BigAutoField()
    owner = pw.CharField(max_length=40, index=True)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    keyword = pw.CharField(max_length=100)
    set_category = pw.CharField(max_length=10, null=True)
    set_priority = pw.CharField(max_length=8, null=True)
    set_status = pw.CharField(max_length=8, null=True)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "keyword_rule"


class PublicAnswer(BaseModel):
    """An answer the support agent wrote to a visitor's question on a published store, kept
    so the same question about the same facts is answered again without writing (or
    spending) anything. `key` is a digest of the store's facts as the agent read them and
    of the question's words (services/desk/public.py), so a change of the store's facts
    makes a new key and the old answer is never given for them."""

    key = pw.CharField(max_length=64, primary_key=True)
    store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id", backref="+", index=True)
    question = pw.TextField()  # the question's words, as compared
    answer = pw.TextField()
    cites = JSONField()
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "public_answer"


class PublicQuestionDay(BaseModel):
    """How a store's visitors' questions went on one day (UTC): answered (from_earlier of them
    from a kept answer, at no cost) and turned away (the founder's share was used up)."""

    store = pw.ForeignKeyField(Store, on_delete="CASCADE", column_name="product_id", backref="+")
    day = pw.DateField()
    answered = pw.IntegerField(default=0)
    from_earlier = pw.IntegerField(default=0)
    turned_away = pw.IntegerField(default=0)

    class Meta:
        table_name = "public_question_day"
        primary_key = pw.CompositeKey("store", "day")
