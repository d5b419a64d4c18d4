"""What the hot paths cost the database does not grow with the catalog or the history (issue 28,
part 5): the SQL statements of one steady-state request of GET /api/find, GET /api/feed,
GET /api/store (a store built and published, and one whose build is queued), POST /api/track,
GET /api/usage and GET /api/dashboard, counted by a query hook of the real database
(tests.factories.statements), once on a small catalog and history and once on ten times as
much: products (and other founders' holds on the best of them), the founder's seen products,
the store's funnel events, its past build jobs, other accounts' meter rows, and the founder's
referrals. The counts must be equal: a route that read a row at a time, or a query per
product, event, job or meter row, would take more statements on the larger one.

Each route is asked once before it is counted (the first answer may record what it showed, a
milestone, a seen card): what is counted is the request a polling browser repeats."""
from __future__ import annotations

from datetime import timedelta

import pytest

from models.account import Account, MeterUsage, Referral, ReferralCode
from models.clock import utcnow
from models.discovery import Seen
from models.funnel import FunnelEvent
from models.job import Job
from models.session import Session
from services.meter import BUCKETS
from services.sessions import hash_token
from services.store import builds
from tests.factories import built, catalog, claim, demo_item, find, item, load, session_of, statements

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

SMALL, TIMES = 30, 10


def bind(client, tier="max20") -> Account:
    """Signs the founder's session in to a new account (before it finds anything, so its holds
    and claims are the account's from the start)."""
    client.get("/api/usage")
    account = Account.create(email=f"founder{Account.select().count()}@example.com", verified=True, tier=tier)
    token = hash_token(client.get_cookie("ff_session").value)
    assert Session.update(account_id=account.id).where(Session.token_hash == token).execute() == 1
    return account


def grow(*, products: int, events: int, jobs: int, accounts: int, referrals: int, finder, founder,
         first: int) -> None:
    """Adds the history of every kind the routes could be tempted to read."""
    now = utcnow()
    load(*[item(f"q{first + n:04d}", rank=5000 - first - n) for n in range(products)])
    for _ in range(3):  # other founders hold the best products: the feed's walk steps over them
        assert find(founder()).status_code == 200
    news = [f"q{first + n:04d}" for n in range(products)]
    session = session_of(finder)
    Seen.insert_many([{"session": session.id, "account": session.account_id, "product": pid, "created_at": now}
                      for pid in news[len(news) // 2:]]).on_conflict_ignore().execute()
    FunnelEvent.insert_many([{"product": "p00", "visitor_session": f"old-{first}-{n:06d}", "event": "page_view",
                              "day": (now - timedelta(days=n % 30)).date(), "created_at": now}
                             for n in range(events)]).execute()
    Job.insert_many([{"id": f"old-{pid}-{first:04d}-{n:06d}", "kind": builds.BUILD, "subject": builds.subject(pid),
                      "status": Job.DONE, "attempt": 1, "payload": {}, "created_at": now - timedelta(days=n + 1),
                      "updated_at": now, "started_at": now, "finished_at": now}
                     for n in range(jobs) for pid in ("p00", "p01")]).execute()
    others = [Account.create(email=f"other-{first}-{n}@example.com") for n in range(accounts)]
    MeterUsage.insert_many([{"account": a.id, "bucket": b, "window_5h": 0, "used_5h": 5, "window_week": 0,
                             "used_week": 5} for a in others for b in BUCKETS]).execute()
    code, _ = ReferralCode.get_or_create(code=f"code{session.account_id}", defaults={"account": session.account_id})
    for n in range(referrals):
        friend = Account.create(email=f"friend-{first}-{n}@example.com")
        Referral.create(code=code.code, friend=friend.id, qualified_at=now)


def counted(send) -> tuple[int, object]:
    send()  # the first answer may record what it showed: count the repeat
    with statements() as seen:
        response = send()
    assert response.status_code == 200, response.get_data(as_text=True)
    return len(seen), response.get_json()


def costs(routes) -> dict:
    out = {}
    for name, (send, expect) in routes.items():
        count, body = counted(send)
        assert expect(body), (name, body)
        out[name] = count
    return out


@pytest.fixture
def paused(worker):
    """Pauses the worker when called (builds then stay queued); resumed after the test."""
    yield worker.pause
    worker.resume()


def test_no_hot_path_takes_more_statements_on_ten_times_the_catalog_and_history(founder, run_jobs, paused):
    catalog(SMALL)
    load(demo_item())  # p00: the demo line the offline builder makes a store of
    owner = founder()
    bind(owner)
    find(owner)
    assert claim(owner).get_json()["status"] == "claimed"
    built(owner, run_jobs)
    assert owner.post("/api/store/publish").get_json()["status"] == "published"
    assert owner.get("/api/dashboard").get_json()["status"] == "ok"  # researched with the claim
    waiting = founder()  # p01: claimed, its build queued while the worker is paused
    bind(waiting)
    find(waiting)
    assert claim(waiting).get_json()["status"] == "claimed"
    run_jobs()  # its research
    paused()
    assert waiting.post("/api/store").get_json()["status"] == "building"
    finder = founder()  # holds p02, not claimed: find and feed serve it and spend find credits
    bind(finder)
    assert find(finder).get_json()["product_id"] == "p02"
    visitor, visits = founder(), iter(range(10**6))

    def track():
        return visitor.post("/api/track", json={"product_id": "p00", "event": "page_view",
                                                "session_id": f"visitor-{next(visits):06d}"})

    routes = {
        "find": (lambda: finder.get("/api/find"), lambda b: b["product_id"] == "p02" and b["yours"]),
        "feed": (lambda: finder.get("/api/feed"), lambda b: len(b) > 1 and b[0]["product_id"] == "p02"),
        "store built": (lambda: owner.get("/api/store"), lambda b: b["status"] == "published"),
        "store building": (lambda: waiting.get("/api/store"), lambda b: b["status"] == "building"),
        "track": (track, lambda b: b == {"status": "recorded"}),
        "usage": (lambda: finder.get("/api/usage"),
                  lambda b: b["account"] and next(f for f in b["features"] if f["feature"] == "find")["used_5h"] > 0),
        "dashboard": (lambda: owner.get("/api/dashboard"), lambda b: b["status"] == "ok"),
    }
    common = {"finder": finder, "founder": founder}
    grow(products=SMALL, events=SMALL, jobs=3, accounts=2, referrals=1, first=0, **common)
    small = costs(routes)
    grow(products=SMALL * TIMES, events=SMALL * TIMES, jobs=3 * TIMES, accounts=2 * TIMES, referrals=TIMES,
         first=SMALL, **common)
    large = costs(routes)
    assert FunnelEvent.select().count() > SMALL * TIMES and Seen.select().count() > SMALL * TIMES / 2
    assert small == large, (small, large)
