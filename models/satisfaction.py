"""Customer satisfaction (issue 25 point 5; spec 2.17 "satisfaction sample"): a customer's
one-click rating of a reply the desk sent.

One rating per reply message, kept by a unique index on the message, so two clicks (or a
replayed form) at once record one rating and the second insert is refused by the database.
The ticket's owner is copied onto the row (with the session and account beside it, like the
desk's rows), so a founder's analysis reads only their own ratings.
"""
import peewee as pw

from models.account import Account
from models.clock import utcnow
from models.db import BaseModel
from models.desk import Ticket, TicketMessage
from models.session import Session


class SatisfactionRating(BaseModel):
    LOWEST, HIGHEST = 1, 5
    SATISFIED = 4  # a score of 4 or 5 counts as satisfied
    MAX_COMMENT = 1000

    id = pw.BigAutoField()
    message = pw.ForeignKeyField(TicketMessage, on_delete="CASCADE", unique=True, backref="+")
    ticket = pw.ForeignKeyField(Ticket, on_delete="CASCADE", index=True, backref="+")
    owner = pw.CharField(max_length=40)
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    score = pw.SmallIntegerField(constraints=[pw.Check("score BETWEEN 1 AND 5")])
    comment = pw.TextField(null=True)
    rated_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "satisfaction_rating"
        indexes = ((("owner", "rated_at"), False),)
