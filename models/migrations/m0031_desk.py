"""The support desk: tickets, their messages (inbound mail deduplicated by a unique owner
and Message-ID) and keyword rules (issue 25)."""
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

    class Ticket(Base):
        id = pw.BigAutoField()
        owner = pw.CharField(max_length=40)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        subject = pw.CharField(max_length=300)
        customer_email = pw.CharField(max_length=254)
        customer_name = pw.CharField(max_length=200, null=True)
        support_address = pw.CharField(max_length=254)
        status = pw.CharField(max_length=8, default="open")
        priority = pw.CharField(max_length=8, default="normal")
        category = pw.CharField(max_length=10, default="question")
        resolution = pw.TextField(null=True)
        product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id")
        agent_done_at = pw.DateTimeField(null=True)
        created_at = pw.DateTimeField()
        updated_at = pw.DateTimeField()

        class Meta:
            table_name = "ticket"
            indexes = ((("owner", "status", "updated_at"), False),)

    class TicketMessage(Base):
        id = pw.BigAutoField()
        ticket = pw.ForeignKeyField(Ticket, on_delete="CASCADE", index=True)
        owner = pw.CharField(max_length=40)
        direction = pw.CharField(max_length=6)
        author = pw.CharField(max_length=10)
        from_addr = pw.CharField(max_length=254, null=True)
        to_addr = pw.CharField(max_length=254, null=True)
        subject = pw.CharField(max_length=300, null=True)
        text = pw.TextField()
        message_id = pw.CharField(max_length=300, null=True)
        in_reply_to = pw.CharField(max_length=300, null=True)
        sent = pw.BooleanField(null=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "ticket_message"
            indexes = ((("owner", "message_id"), True),)

    class KeywordRule(Base):
        id = pw.BigAutoField()
        owner = pw.CharField(max_length=40, index=True)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        keyword = pw.CharField(max_length=100)
        set_category = pw.CharField(max_length=10, null=True)
        set_priority = pw.CharField(max_length=8, null=True)
        set_status = pw.CharField(max_length=8, null=True)
        created_at = pw.DateTimeField()

        class Meta:
            table_name = "keyword_rule"

    db.create_tables([Ticket, TicketMessage, KeywordRule])
