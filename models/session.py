"""Browser sessions: the ff_session cookie, stored as a hash so a leaked table opens nothing."""
import peewee as pw

from models.clock import utcnow
from models.db import BaseModel


class Session(BaseModel):
    id = pw.BigAutoField()
    # sha256 of the cookie value. Rotating the cookie changes only this column, so
    # everything keyed by the session id follows the journey to the new value.
    token_hash = pw.CharField(max_length=64, unique=True)
    created_at = pw.DateTimeField(default=utcnow)
    # The account this cookie is signed in to: always a verified one, proven by a sign-in
    # link opened in this session (null = not signed in). Declared as a plain column here
    # because the account model imports this one.
    account_id = pw.BigIntegerField(null=True, index=True)
    # An address this session saved that nobody has proven yet (POST /api/account). It is
    # shown back to this session only; the session keeps acting for itself alone until a
    # link is redeemed, so two sessions naming one unverified address share nothing.
    saved_account_id = pw.BigIntegerField(null=True, index=True)
    bound_at = pw.DateTimeField(null=True)  # when the session was signed in or saved an address
    arrived_with_code = pw.CharField(max_length=32, null=True)  # from a coded referral link


# The prune of idle anonymous sessions walks them oldest first (migration m0006).
Session.add_index(Session.index(Session.created_at, Session.id, name="session_anonymous_age")
                  .where(Session.account_id.is_null()))
