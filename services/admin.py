"""What the operator pages show (/admin and /marketing): plain queries, no Flask.

Every figure is aggregated in SQL and every list is one page (LIMIT/OFFSET) plus its count,
so the number of queries and the rows read back stay the same however large the tables grow.
Time buckets (hours of the last day, ages of queued jobs) are CASE expressions over bounds
computed here, so one query answers on SQLite and PostgreSQL alike; days are DATE().
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import peewee as pw

from models.account import Account, MeterUsage, Referral, ReferralCode
from models.catalog import Product
from models.clock import clock, iso, utcnow
from models.db import read_moment
from models.discovery import Claim
from models.fix import FixRun
from models.funnel import FunnelEvent
from models.job import Job, WorkerBeat
from models.session import Session
from services.health import worker_status
from services.meter import BUCKETS, FIVE_HOURS, WEEK, window_index

PAGE_SIZE = 20
MAX_PAGE = 1000  # a page past the last one shows an empty list; past this it is refused (invalid_page)
MAX_SEARCH = 100  # characters of `q`; longer is refused (invalid_search)
MAX_WORKERS = 50  # worker rows listed (beats older than a day are deleted anyway)
FUNNEL_DAYS = 30
FIX_DAYS = 14

# Queued jobs by how long they have waited: (label, lower bound in seconds).
QUEUE_AGES = (("under 1 min", 0), ("1-5 min", 60), ("5-15 min", 300), ("15-60 min", 900), ("1-6 h", 3600),
              ("6-24 h", 21600), ("over a day", 86400))


@dataclass(frozen=True)
class Listing:
    """One page of a list: its rows, the rows matching in all, and the pages they make."""

    rows: list[dict]
    total: int
    page: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / PAGE_SIZE))


def _page(query, page: int, to_row) -> Listing:
    total = query.count()
    rows = [to_row(r) for r in query.paginate(page, PAGE_SIZE)]
    return Listing(rows, total, page)


def _int(value) -> int:
    return int(value or 0)


def _count_if(condition) -> pw.Node:
    return pw.fn.SUM(pw.Case(None, [(condition, 1)], 0))


# --- /admin: the lists -----------------------------------------------------------------------

def accounts(q: str, page: int) -> Listing:
    """Accounts whose email contains `q` (all of them when it is empty), newest first."""
    query = Account.select(Account.id, Account.email, Account.tier, Account.verified, Account.created_at)
    if q:
        query = query.where(Account.email.contains(q))
    query = query.order_by(Account.created_at.desc(), Account.id.desc())
    return _page(query, page, lambda a: {"id": a.id, "email": a.email, "tier": a.tier, "verified": a.verified,
                                         "created_at": iso(a.created_at)})


def claims(q: str, page: int) -> Listing:
    """Claims whose product id, product name or account email contains `q`, newest first."""
    query = (Claim.select(Claim.id, Claim.product.alias("product_id"), Claim.session.alias("session_id"),
                          Claim.created_at, Product.name.alias("product_name"), Account.email.alias("email"))
             .join(Product, on=(Claim.product == Product.product_id))
             .switch(Claim).join(Account, pw.JOIN.LEFT_OUTER, on=(Claim.account == Account.id)))
    if q:
        query = query.where(Claim.product.contains(q) | Product.name.contains(q) | Account.email.contains(q))
    query = query.order_by(Claim.created_at.desc(), Claim.id.desc()).dicts()
    return _page(query, page, lambda c: {
        "id": c["id"], "product_id": c["product_id"], "product_name": c["product_name"],
        "owner": c["email"] or (f"session {c['session_id']} (no account)" if c["session_id"] else "nobody"),
        "created_at": iso(read_moment(c["created_at"]))})


def jobs(q: str, page: int) -> Listing:
    """Jobs whose kind or subject contains `q`, newest first."""
    query = Job.select(Job.id, Job.kind, Job.subject, Job.status, Job.stage, Job.attempt, Job.max_attempts,
                       Job.error, Job.created_at, Job.started_at, Job.finished_at)
    if q:
        query = query.where(Job.kind.contains(q) | Job.subject.contains(q))
    query = query.order_by(Job.created_at.desc(), Job.id.desc())
    return _page(query, page, lambda j: {
        "id": j.id, "kind": j.kind, "subject": j.subject, "status": j.status, "stage": j.stage,
        "attempt": f"{j.attempt}/{j.max_attempts}", "error": j.error, "created_at": iso(j.created_at),
        "started_at": iso(j.started_at), "finished_at": iso(j.finished_at)})


def workers(stale_seconds: int) -> dict:
    """Worker health: whether one was heard from lately, and each worker's last beat."""
    now = utcnow()
    beats = WorkerBeat.select().order_by(WorkerBeat.seen_at.desc()).limit(MAX_WORKERS)
    rows = [{"worker": b.worker, "seen_at": iso(b.seen_at),
             "age_seconds": round(max(0.0, (now - b.seen_at).total_seconds()), 1),
             "alive": (now - b.seen_at).total_seconds() <= stale_seconds} for b in beats]
    return {"status": worker_status(stale_seconds=stale_seconds), "workers": rows,
            "alive": sum(1 for r in rows if r["alive"])}


# --- /admin: the figures ---------------------------------------------------------------------

def job_states() -> dict[str, int]:
    """Every job row by status."""
    counts = dict(Job.select(Job.status, pw.fn.COUNT(Job.id)).group_by(Job.status).tuples())
    return {status: _int(counts.get(status)) for status in (Job.QUEUED, Job.RUNNING, Job.DONE, Job.FAILED)}


def jobs_by_hour(now: datetime | None = None) -> dict:
    """Jobs created in each hour of the last 24 (oldest first), by their state now."""
    now = now or utcnow()
    end = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    starts = [end - timedelta(hours=24 - i) for i in range(24)]
    columns = [_count_if((Job.created_at >= start) & (Job.created_at < start + timedelta(hours=1)))
               for start in starts]
    rows = (Job.select(Job.status, *columns).where(Job.created_at >= starts[0], Job.created_at < end)
            .group_by(Job.status).tuples())
    series = {status: [0] * 24 for status in (Job.QUEUED, Job.RUNNING, Job.DONE, Job.FAILED)}
    for status, *counts in rows:
        if status in series:
            series[status] = [_int(c) for c in counts]
    return {"hours": [s.strftime("%H:00") for s in starts], "series": series,
            "totals": {status: sum(values) for status, values in series.items()}}


def queue_ages(now: datetime | None = None) -> dict:
    """Jobs still queued, by how long they have waited, and the oldest one's wait."""
    now = now or utcnow()
    bounds = [seconds for _label, seconds in QUEUE_AGES] + [None]
    columns = []
    for low, high in zip(bounds, bounds[1:], strict=False):
        # Waited at least `low` seconds (created at or before now - low) and less than `high`.
        condition = Job.created_at <= now - timedelta(seconds=low)
        if high is not None:
            condition &= Job.created_at > now - timedelta(seconds=high)
        columns.append(_count_if(condition))
    *counts, oldest = Job.select(*columns, pw.fn.MIN(Job.created_at)).where(Job.status == Job.QUEUED).tuples().get()
    oldest = read_moment(oldest)
    return {"buckets": [(label, _int(c)) for (label, _s), c in zip(QUEUE_AGES, counts, strict=True)],
            "oldest_seconds": round(max(0.0, (now - oldest).total_seconds())) if oldest else None}


def meter_use() -> dict:
    """Credits used in the current five-hour window and week, per bucket, over every account."""
    t = clock.time()
    w5, ww = window_index(t, FIVE_HOURS), window_index(t, WEEK)
    rows = (MeterUsage.select(MeterUsage.bucket,
                              pw.fn.SUM(pw.Case(None, [(MeterUsage.window_5h >= w5, MeterUsage.used_5h)], 0)),
                              pw.fn.SUM(pw.Case(None, [(MeterUsage.window_week >= ww, MeterUsage.used_week)], 0)),
                              _count_if(MeterUsage.window_week >= ww))
            .group_by(MeterUsage.bucket).tuples())
    found = {bucket: (_int(a), _int(b), _int(c)) for bucket, a, b, c in rows}
    return {"buckets": [{"bucket": b.id, "name": b.name, "used_5h": found.get(b.id, (0, 0, 0))[0],
                         "used_week": found.get(b.id, (0, 0, 0))[1], "accounts": found.get(b.id, (0, 0, 0))[2]}
                        for b in BUCKETS.values()]}


# --- /marketing ------------------------------------------------------------------------------

def referrals() -> dict:
    """The referral funnel: codes made, sessions that arrived through one, friends who
    signed up with one, and those who qualified (reached the dashboard)."""
    codes = ReferralCode.select().count()
    arrived = Session.select().where(Session.arrived_with_code.is_null(False)).count()
    joined, qualified = Referral.select(pw.fn.COUNT(Referral.id),
                                        _count_if(Referral.qualified_at.is_null(False))).tuples().get()
    return {"steps": [("codes made", codes), ("arrived by a coded link", arrived),
                      ("signed up", _int(joined)), ("qualified", _int(qualified))]}


def store_funnel(today: date | None = None) -> dict:
    """Distinct store visitors per funnel step over the last FUNNEL_DAYS days, every store."""
    today = today or utcnow().date()
    since = today - timedelta(days=FUNNEL_DAYS - 1)
    counts = dict(FunnelEvent.select(FunnelEvent.event, pw.fn.COUNT(FunnelEvent.visitor_session.distinct()))
                  .where(FunnelEvent.day >= since).group_by(FunnelEvent.event).tuples())
    return {"since": since.isoformat(), "until": today.isoformat(),
            "steps": [(event, _int(counts.get(event))) for event in FunnelEvent.EVENTS]}


def fix_days(today: date | None = None) -> dict:
    """Fix runs started on each of the last FIX_DAYS days: how many, done, failed, and the
    average score before and after over the done runs."""
    today = today or utcnow().date()
    since = today - timedelta(days=FIX_DAYS - 1)
    done = FixRun.stage == FixRun.DONE
    day = pw.fn.DATE(FixRun.created_at)
    rows = (FixRun.select(day, pw.fn.COUNT(FixRun.id), _count_if(done), _count_if(FixRun.stage == FixRun.FAILED),
                          pw.fn.AVG(pw.Case(None, [(done, FixRun.score_before)], None)),
                          pw.fn.AVG(pw.Case(None, [(done, FixRun.score_after)], None)))
            .where(FixRun.created_at >= datetime.combine(since, datetime.min.time()))
            .group_by(day).tuples())
    found = {str(d)[:10]: (r, ok, bad, before, after) for d, r, ok, bad, before, after in rows}
    days = []
    for offset in range(FIX_DAYS):
        key = (since + timedelta(days=offset)).isoformat()
        runs, ok, bad, before, after = found.get(key, (0, 0, 0, None, None))
        days.append({"day": key, "runs": _int(runs), "done": _int(ok), "failed": _int(bad),
                     "score_before": None if before is None else round(float(before), 1),
                     "score_after": None if after is None else round(float(after), 1)})
    return {"days": days, "totals": _fix_totals(days)}


def _fix_totals(days: list[dict]) -> dict:
    done = sum(d["done"] for d in days)

    def average(key):
        weighted = [(d[key], d["done"]) for d in days if d[key] is not None]
        total = sum(n for _v, n in weighted)
        return round(sum(v * n for v, n in weighted) / total, 1) if total else None

    return {"runs": sum(d["runs"] for d in days), "done": done, "failed": sum(d["failed"] for d in days),
            "score_before": average("score_before"), "score_after": average("score_after")}
