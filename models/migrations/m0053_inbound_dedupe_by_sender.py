"""ticket_message's duplicate key names the sender (issue 44): an inbound message is the same
message only when it has the same Message-ID from the same address, so a Message-ID seen from
one sender never makes another sender's mail a duplicate (dropped unread). The new unique
index is (owner, from_addr, message_id), which every pair of rows the old one let through
also satisfies."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class TicketMessage(Base):
        id = pw.BigAutoField()
        owner = pw.CharField(max_length=40)
        from_addr = pw.CharField(max_length=254, null=True)
        message_id = pw.CharField(max_length=300, null=True)

        class Meta:
            table_name = "ticket_message"

    db.execute(TicketMessage.index(TicketMessage.owner, TicketMessage.from_addr, TicketMessage.message_id,
                                   unique=True, name="ticket_message_owner_from_addr_message_id"))
    db.execute_sql("DROP INDEX ticket_message_owner_message_id")
