"""Anonymous sessions are found by age: the hourly prune (services/sessions.py) walks this
partial index instead of the whole session table."""
import peewee as pw

from models.migrations._frozen import frozen_base


def upgrade(db):
    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()
        created_at = pw.DateTimeField()
        account_id = pw.BigIntegerField(null=True)

    db.execute(Session.index(Session.created_at, Session.id, name="session_anonymous_age")
               .where(Session.account_id.is_null()))
