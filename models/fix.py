"""Fix, the store-repair tool (issue 26; spec 2.15, decisions.md "Fix (store repair)"): a run
audits a store's pages and writes their repairs; its events and feedback are kept beside it.

A run is found by its token, which anyone who started it holds (POST /api/fix is public), and
is listed as the session's (or, once adopted or started signed in, the account's) own: the
token is the only way to reach someone else's run. The corrected pages are rows of their own
(a page may be up to the fetcher's 2 MiB) so a run's answer never loads them.
"""
import peewee as pw

from models.account import Account
from models.catalog import Product
from models.clock import utcnow
from models.db import BaseModel, JSONField
from models.session import Session


class FixRun(BaseModel):
    QUEUED, FETCHING, AUDITING, REPAIRING, DONE, FAILED = (
        "queued", "fetching", "auditing", "repairing", "done", "failed")
    STAGES = (QUEUED, FETCHING, AUDITING, REPAIRING, DONE, FAILED)
    FINISHED = (DONE, FAILED)

    id = pw.BigAutoField()
    token = pw.CharField(max_length=64, unique=True)
    url = pw.TextField()
    email = pw.CharField(max_length=254, null=True)  # where the report and one follow-up go, if given
    session = pw.ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="+", index=True)
    account = pw.ForeignKeyField(Account, null=True, on_delete="CASCADE", backref="+", index=True)
    stage = pw.CharField(max_length=12, default=QUEUED)
    reason = pw.CharField(max_length=40, null=True)  # a registered reason, when failed
    pages = JSONField(default=list)  # [{url, status, size}] in the order fetched
    findings = JSONField(default=list)  # [{id, check, severity, page, detail, fixed, fix, target}]
    score_before = pw.IntegerField(null=True)
    score_after = pw.IntegerField(null=True)
    # A store built by this service: its product and the version the run read...
    product = pw.ForeignKeyField(Product, null=True, on_delete="SET NULL", column_name="product_id", backref="+")
    audited_version = pw.IntegerField(null=True)
    # ...and once its owner applied the repairs (services/fix/apply.py): the version written,
    # when, and the fresh check of that version (a run of its own, recheck_of naming this one).
    store_version = pw.IntegerField(null=True)
    applied_at = pw.DateTimeField(null=True)
    recheck_id = pw.BigIntegerField(null=True)
    recheck_of = pw.BigIntegerField(null=True)
    # True once score_after is a measured score (the fresh check's), not the expected one.
    after_measured = pw.BooleanField(default=False)
    follow_up = pw.BooleanField(default=True)  # false once feedback asks for no follow-up
    report_mailed_at = pw.DateTimeField(null=True)
    followed_up_at = pw.DateTimeField(null=True)
    created_at = pw.DateTimeField(default=utcnow)
    finished_at = pw.DateTimeField(null=True)
    # Whether the address may be mailed (services/fix/mail.py): null without an address, else
    # one of MAIL_STATES. Only an address that asked for it is ever sent a report.
    mail = pw.CharField(max_length=16, null=True)

    # The signed-in founder's own verified address: the report goes when the run is done.
    MAIL_OWNER = "owner"
    # Anyone else's address: a link asking it to confirm goes when the run is done...
    MAIL_CONFIRM = "confirm"
    MAIL_CONFIRM_SENT = "confirm_sent"
    # ...and once it is opened, the report and its follow-up may go.
    MAIL_CONFIRMED = "confirmed"
    # The address has had its day's Fix mail: nothing is sent for this run.
    MAIL_CAPPED = "capped"
    MAIL_STATES = (MAIL_OWNER, MAIL_CONFIRM, MAIL_CONFIRM_SENT, MAIL_CONFIRMED, MAIL_CAPPED)
    MAIL_CONSENTED = (MAIL_OWNER, MAIL_CONFIRMED)

    class Meta:
        table_name = "fix_run"


class FixPage(BaseModel):
    """The corrected HTML of one page of a run, offered for download."""

    id = pw.BigAutoField()
    run = pw.ForeignKeyField(FixRun, on_delete="CASCADE", backref="+")
    position = pw.IntegerField()
    url = pw.TextField()
    html = pw.TextField()

    class Meta:
        table_name = "fix_page"
        indexes = ((("run", "position"), True),)


class FixEvent(BaseModel):
    REPORT_VIEWED, FIX_COPIED, FIX_APPLIED = "report_viewed", "fix_copied", "fix_applied"
    PAGE_DOWNLOADED, RERUN_REQUESTED, FEEDBACK = "page_downloaded", "rerun_requested", "feedback"
    EVENTS = (REPORT_VIEWED, FIX_COPIED, FIX_APPLIED, PAGE_DOWNLOADED, RERUN_REQUESTED, FEEDBACK)

    id = pw.BigAutoField()
    run = pw.ForeignKeyField(FixRun, on_delete="CASCADE", backref="+", index=True)
    event = pw.CharField(max_length=20)
    detail = pw.TextField(null=True)
    created_at = pw.DateTimeField(default=utcnow)

    class Meta:
        table_name = "fix_event"


class FixMailLink(BaseModel):
    """A one-time link asking an address to confirm it wants a run's report: only the SHA-256
    of its token is kept; one conditional UPDATE spends it."""

    id = pw.BigAutoField()
    token_hash = pw.CharField(max_length=64, unique=True)
    run = pw.ForeignKeyField(FixRun, on_delete="CASCADE", backref="+", index=True)
    created_at = pw.DateTimeField(default=utcnow)
    expires_at = pw.DateTimeField()
    spent_at = pw.DateTimeField(null=True)

    class Meta:
        table_name = "fix_mail_link"


class FixMailDay(BaseModel):
    """How many Fix mails of a kind (a confirmation link, a report or follow-up) one address
    was sent on one day (UTC): the daily bound is counted here, however many sessions ask."""

    CONFIRMATION, REPORT = "confirmation", "report"

    email = pw.CharField(max_length=254)
    day = pw.DateField()
    kind = pw.CharField(max_length=12)
    sent = pw.IntegerField(default=0)

    class Meta:
        table_name = "fix_mail_day"
        primary_key = pw.CompositeKey("email", "day", "kind")
