"""Customer satisfaction: one rating per reply message (issue 25)."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class Account(Base):
        id = pw.BigAutoField()

    class Ticket(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "ticket"

    class TicketMessage(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "ticket_message"

    class SatisfactionRating(Base):
        id = pw.BigAutoField()
        message = pw.ForeignKeyField(TicketMessage, on_delete="CASCADE", unique=True)
        ticket = pw.ForeignKeyField(Ticket, on_delete="CASCADE", index=True)
        owner = pw.CharField(max_length=40)
        session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", index=True)
        account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", index=True)
        score = pw.SmallIntegerField(constraints=[pw.Check("score BETWEEN 1 AND 5")])
        comment = pw.TextField(null=True)
        rated_at = pw.DateTimeField()

        class Meta:
            table_name = "satisfaction_rating"
            indexes = ((("owner", "rated_at"), False),)

    db.create_tables([SatisfactionRating])
