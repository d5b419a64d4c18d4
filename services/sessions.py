"""Browser sessions behind the ff_session cookie."""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

import peewee as pw
from playhouse.shortcuts import model_to_dict

from models.account import Milestone, SignInToken
from models.ad_balance import AdTopup
from models.business import BusinessSettings, PayoutDestination, Todo
from models.campaign_book import CampaignBook
from models.clock import utcnow
from models.db import KeptSQL, is_sqlite, param, transaction
from models.desk import KeywordRule, Ticket
from models.discovery import Claim, ClaimAllowance, Hold, Passed, Seen, ShareAction, Watch
from models.domain import DomainOrder
from models.job import Job
from models.organic import OrganicApproval, OrganicResearch
from models.payment import SampleOrder
from models.session import Session
from models.supplier import SupplierConnection
from services.accounts import SIGN_IN_MAIL
from services.kept import Kept
from services.tokens import hash_token

# secrets.token_hex(16): 32 lowercase hexadecimal characters, 128 random bits.
_COOKIE_SHAPE = re.compile(r"[0-9a-f]{32}")


# Every column of a session, in the model's order (what remembered_session keeps and the
# statements that check it read again).
SESSION_FIELDS = tuple(Session._meta.sorted_fields)
# The sessions this web process has read, by token hash, at most this many.
REMEMBERED_SESSIONS = 10_000
_remembered = Kept(REMEMBERED_SESSIONS)


class StaleSession(Exception):
    """A remembered session is no longer the row of its token (signed in since, given a new
    token, pruned): raised by a statement that checked it, before anything was written."""


@dataclass(frozen=True)
class Remembered:
    session: Session
    values: dict  # every column as read then, by field name


def find_session(cookie_value: str | None) -> Session | None:
    """The session a cookie value was issued for, or None for a value the server never issued."""
    if not cookie_value or not _COOKIE_SHAPE.fullmatch(cookie_value):
        return None
    token_hash = hash_token(cookie_value)
    # Every request asks this, so its SQL text is kept (models/db.KeptSQL), and the row is
    # made a Session by peewee's own raw query, as a select would make it.
    sql, values = _BY_TOKEN.sql(token_hash=token_hash)
    session = next(iter(Session.raw(sql, *values)), None)
    if session is None:
        return None
    _remembered.put(token_hash, model_to_dict(session, recurse=False))  # every column, by field name
    return session


_BY_TOKEN = KeptSQL(lambda: Session.select().where(Session.token_hash == param("token_hash")))


def remembered_session(cookie_value: str | None) -> Remembered | None:
    """The session this process last read for a cookie value, not read again: only for a
    statement that reads the token's row itself and refuses to act on a stale one (find and
    feed: services/discovery/state.read_state's `check`). It saves their session lookup, a
    statement of every request; nothing else may trust it. None when never read here."""
    if not cookie_value or not _COOKIE_SHAPE.fullmatch(cookie_value):
        return None
    values = _remembered.get(hash_token(cookie_value))
    return Remembered(Session(**values), values) if values is not None else None


def open_session() -> tuple[Session, str]:
    """Issues a new session; returns it with the cookie value (never stored in clear)."""
    while True:
        value = secrets.token_hex(16)
        try:
            return Session.create(token_hash=hash_token(value)), value
        except pw.IntegrityError:  # a 128-bit collision: draw again
            continue


def rotate(session: Session) -> str:
    """Gives the session a new cookie value; the old value stops resolving."""
    value = secrets.token_hex(16)
    Session.update(token_hash=hash_token(value)).where(Session.id == session.id).execute()
    return value


# --- Pruning idle anonymous sessions ----------------------------------------------------
#
# Every cookieless request stores a session, so anonymous sessions that never did anything
# are deleted once they are ANON_SESSION_DAYS old. What refers to a session, and what the
# prune does with it (a test checks that every foreign key to the session table is listed):
SESSION_REFERENCES = {
    "product_hold.session_id": "keeps the session: it holds a product (deleting it would cascade the hold away)",
    "product_claim.session_id": "keeps the session: it claimed a product",
    "domain_order.session_id": "keeps the session: it ordered a domain for its store (a payment may be pending "
                               "or made); were it deleted anyway, the order would stay without it (ON DELETE "
                               "SET NULL)",
    "sample_order.session_id": "keeps the session: it ordered a supplier's sample (a payment may be pending or "
                               "made); were it deleted anyway, the order would stay without it (ON DELETE SET NULL)",
    "ad_topup.session_id": "keeps the session: it topped up its ad balance (a payment may be pending or made); "
                           "were it deleted anyway, the top-up would stay without it (ON DELETE SET NULL)",
    "ad_ledger.session_id": "kept through its top-up (an entry is a top-up's credit, or a day's spend of a "
                            "campaign the balance paid for, which only a top-up fills, and the top-up keeps the "
                            "session); were it deleted anyway, the entry would stay without it (ON DELETE SET NULL)",
    "ad_campaign_run.session_id": "kept through its top-up (a campaign starts only with a day of its budget in the "
                                  "ad balance, which only a top-up fills, and the top-up keeps the session); were it "
                                  "deleted anyway, the run would stay without it (ON DELETE SET NULL)",
    "campaign_book.session_id": "keeps the session while the book is its own (owner 'session:<id>'); a book its "
                                "account adopted is the account's and stays without it (ON DELETE SET NULL)",
    "business_settings.session_id": "keeps the session while the settings are its own (owner 'session:<id>'); "
                                     "adopted ones are the account's (ON DELETE SET NULL)",
    "payout_destination.session_id": "keeps the session while the payout destination is its own (owner "
                                      "'session:<id>'); adopted ones are the account's (ON DELETE SET NULL)",
    "ticket.session_id": "keeps the session while its support desk has a ticket of its own (owner "
                         "'session:<id>'); adopted tickets are the account's (ON DELETE SET NULL)",
    "keyword_rule.session_id": "keeps the session while a keyword rule of its desk is its own (owner "
                               "'session:<id>'); adopted rules are the account's (ON DELETE SET NULL)",
    "satisfaction_rating.session_id": "kept without the reference (ON DELETE SET NULL): a rating belongs to its "
                                      "ticket, and the ticket keeps an anonymous founder's session while it is theirs",
    "todo.session_id": "history: an anonymous founder's task list, deleted with it (ON DELETE CASCADE); a task "
                       "written within the cutoff keeps it",
    "organic_research.session_id": "history: deleted with it (ON DELETE CASCADE); research within the cutoff "
                                   "keeps it",
    "organic_approval.session_id": "history: deleted with it (ON DELETE CASCADE); an approval within the cutoff "
                                   "keeps it",
    "fix_run.session_id": "kept without the reference (ON DELETE SET NULL): a run is reached by its token, which "
                          "its visitor holds; only the session's list of its runs goes with the session",
    "walkthrough.session_id": "history: an anonymous founder's place in the walkthrough, deleted with it (ON "
                              "DELETE CASCADE); it keeps no session",
    "journey_carrier.session_id": "kept without the reference (ON DELETE SET NULL): a carrier is reached by its "
                                  "id for 15 minutes, whoever issued it",
    "payment.session_id": "kept without the reference (ON DELETE SET NULL): a payment is the money's record and "
                          "outlives whoever started it",
    "customer_order.session_id": "kept without the reference (ON DELETE SET NULL): a store's order belongs to the "
                                 "store; the customer's session only started it",
    "claim_allowance.owner": "keeps the session ('session:<id>', not a foreign key): its claim meter, made by a "
                             "claim or a share, carries allowance it earned",
    "product_watch.session_id": "keeps the session while a watch is open (the notice is still owed); closed "
                                "watches are history and go with it (ON DELETE CASCADE)",
    "sign_in_token.requested_by_id": "keeps the session while the token is live (a guest redeeming it elsewhere "
                                     "adopts this session's rows); otherwise the token stays as the account's "
                                     "history (the hourly mail bound counts it) and loses the reference "
                                     "(ON DELETE SET NULL)",
    "page.session_id": "kept without the reference (ON DELETE SET NULL): a generated page is reached by its id, "
                       "and a guest's pages by their guest id, which the guest holds and request-link passes on",
    "sign_in_token.spent_by_id": "keeps the session: it signed in, so it was bound once",
    "sign_in_confirmation.session_id": "history: a sign-in link held for this browser's confirmation (minutes "
                                       "long), deleted with it (ON DELETE CASCADE); a session that has one "
                                       "had work of its own or an account, which keep it",
    "job.subject": "keeps the session while its sign-in mail job is queued or running (the job mints a token "
                   "naming the session)",
    "product_seen.session_id": "history: deleted with it (ON DELETE CASCADE)",
    "product_pass.session_id": "history: deleted with it (ON DELETE CASCADE)",
    "share_action.session_id": "history: deleted with it (ON DELETE CASCADE)",
    "milestone.session_id": "history: deleted with it (ON DELETE CASCADE)",
    "session_presence.session_id": "history: the session's last screen, deleted with it (ON DELETE CASCADE); it "
                                   "keeps no session (funnel events name no session: a visitor's id is not one)",
    "supplier_connection.session_id": "keeps the session while the connection is its own (owner 'session:<id>'): "
                                      "the founder chose a supplier; an account's connection loses the reference "
                                      "(ON DELETE SET NULL), though a bound session is never pruned",
    "referral_code.session_id": "kept without the reference (ON DELETE SET NULL): a published coded link keeps "
                                "resolving to its code",
}
# History rows never keep a session by existing, only by what they say: a row an account
# adopted (the session was bound once; adopted rows keep their session_id and would cascade
# with it) or a row younger than the cutoff (the visitor came back: not idle).
ANONYMOUS_KEY_PREFIX = "session:"  # services.ownership.Owner.key of an anonymous owner
PRUNE_BATCH = 500


def _prunable(cutoff, now):
    """The conditions under which a session may be deleted, evaluated per row inside the
    statement itself (correlated NOT EXISTS), so they are checked against what is committed
    when the statement runs."""
    def none(query):
        return ~pw.fn.EXISTS(query)

    def history(model):
        return none(model.select(pw.SQL("1")).where(
            (model.session == Session.id) & (model.account.is_null(False) | (model.created_at >= cutoff))))

    session_id_text = pw.Cast(Session.id, "TEXT")
    return (
        (Session.created_at < cutoff)
        & Session.account_id.is_null()
        & Session.bound_at.is_null()
        & none(Hold.select(pw.SQL("1")).where(Hold.session == Session.id))
        & none(Claim.select(pw.SQL("1")).where(Claim.session == Session.id))
        & none(DomainOrder.select(pw.SQL("1")).where(DomainOrder.session == Session.id))
        & none(SampleOrder.select(pw.SQL("1")).where(SampleOrder.session == Session.id))
        & none(AdTopup.select(pw.SQL("1")).where(AdTopup.session == Session.id))
        & none(CampaignBook.select(pw.SQL("1")).where(
            CampaignBook.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(BusinessSettings.select(pw.SQL("1")).where(
            BusinessSettings.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(PayoutDestination.select(pw.SQL("1")).where(
            PayoutDestination.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(Ticket.select(pw.SQL("1")).where(Ticket.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(KeywordRule.select(pw.SQL("1")).where(
            KeywordRule.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(ClaimAllowance.select(pw.SQL("1")).where(
            ClaimAllowance.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(SupplierConnection.select(pw.SQL("1")).where(
            SupplierConnection.owner == pw.Value(ANONYMOUS_KEY_PREFIX).concat(session_id_text)))
        & none(Watch.select(pw.SQL("1")).where(
            (Watch.session == Session.id)
            & (Watch.closed_at.is_null() | Watch.account.is_null(False) | (Watch.created_at >= cutoff))))
        & none(SignInToken.select(pw.SQL("1")).where(
            ((SignInToken.requested_by == Session.id) & SignInToken.spent_at.is_null() & (SignInToken.expires_at > now))
            | (SignInToken.spent_by == Session.id)))
        # services.accounts.sign_in_mail_job names its job "mail:<email>:<session id>:<surface>".
        & none(Job.select(pw.SQL("1")).where(
            (Job.kind == SIGN_IN_MAIL) & Job.status.in_(Job.ACTIVE)
            # Plain SQL LIKE (peewee's .like() becomes a case-sensitive GLOB on SQLite).
            & pw.NodeList((Job.subject, pw.SQL("LIKE"), pw.Value("mail:%:").concat(session_id_text).concat(":%")))))
        & history(Seen) & history(Passed) & history(ShareAction) & history(Milestone)
        & history(Todo) & history(OrganicResearch)
        & none(OrganicApproval.select(pw.SQL("1")).where(
            (OrganicApproval.session == Session.id)
            & (OrganicApproval.account.is_null(False) | (OrganicApproval.approved_at >= cutoff))))
    )


def prune_anonymous_sessions(*, older_than_days: int, batch_size: int = PRUNE_BATCH, max_batches: int = 100) -> int:
    """Deletes anonymous sessions older than `older_than_days` that never held, claimed,
    metered or bound anything, in batches; returns how many were deleted."""
    now = utcnow()
    cutoff = now - timedelta(days=older_than_days)
    oldest_first = (Session.created_at, Session.id)
    removed = 0
    for _ in range(max_batches):
        with transaction():
            if is_sqlite():
                # SQLite has one writer at a time (the transaction takes the write lock up
                # front), so nothing can take a hold between the check and the delete.
                batch = Session.select(Session.id).where(_prunable(cutoff, now)).order_by(*oldest_first).limit(batch_size)
                found = deleted = Session.delete().where(Session.id.in_(batch)).execute()
            else:
                # PostgreSQL: lock the candidates first, skipping any row a writer is using
                # right now (inserting a hold takes a key-share lock on its session). Then
                # the DELETE checks every condition again in a fresh snapshot: a hold that
                # committed after the first statement began is seen, and none can commit
                # later, since inserting one waits for this transaction's row lock. (That
                # insert then fails on its foreign key: the request errs, nothing is lost.)
                candidates = [row.id for row in Session.select(Session.id).where(_prunable(cutoff, now))
                              .order_by(*oldest_first).limit(batch_size).for_update(skip_locked=True)]
                found = len(candidates)
                deleted = Session.delete().where(Session.id.in_(candidates), _prunable(cutoff, now)).execute() if candidates else 0
        removed += deleted
        if found < batch_size:
            break
    return removed
