"""What a hot route costs the database does not grow with the catalog or the history (issue 46,
point 5): one test per hot route counts the SQL statements of its request (tests.factories.
statements, a query hook of the real database; on PostgreSQL the statements built once run as
`EXECUTE ff_...` and count the same) once on a small catalog and history and once on a larger
one, and asserts the two counts are equal. The number itself is not pinned: a refactor of the
route may change it, a route that reads a row at a time (a query per product, seen card, hold,
event, job, meter row or referral) may not.

Small is 5 products and one prior request; large is 60 products and 30 of what the route could
be tempted to read one by one. The founders are the app's test clients, a cookie jar each."""
from __future__ import annotations

from datetime import timedelta

import pytest

from models.account import Account, MeterUsage, Referral, ReferralCode
from models.catalog import Product
from models.clock import clock, utcnow
from models.funnel import FunnelEvent
from models.job import Job
from models.session import Session
from services.discovery import HOLD_MINUTES, card_cache
from services.meter import BUCKETS
from services.research import records
from services.sessions import hash_token
from services.store import builds
from tests.factories import (
    catalog,
    claim,
    claimed_founder,
    demo_item,
    find,
    item,
    load,
    looks_up_session,
    pass_on,
    published_store,
    statements,
)

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

SMALL, LARGE = 5, 60  # products in the catalog
FEW, MANY = 1, 30  # prior requests, seen cards, holds, events, jobs, referrals, sessions


def bound(client, tier="max20") -> Account:
    """Signs the founder's session in to a new account of `tier` (a metered one: its finds spend)."""
    client.get("/api/health")  # the cookie (a new session row) is issued outside the counted requests
    account = Account.create(email=f"founder{Account.select().count()}@example.com", verified=True, tier=tier)
    token = hash_token(client.get_cookie("ff_session").value)
    assert Session.update(account_id=account.id).where(Session.token_hash == token).execute() == 1
    return account


def more_products(count: int) -> None:
    """Products ranked above every one loaded before: the best of the catalog from now on."""
    first = Product.select().count()
    load(*[item(f"q{first + n:05d}", rank=5000 - n) for n in range(count)])


def cost(send, expect=lambda body: True) -> int:
    """The statements of one request, whose answer is a 200 that `expect` accepts."""
    with statements() as seen:
        response = send()
    assert response.status_code == 200, response.get_data(as_text=True)
    assert expect(response.get_json()), response.get_json()
    return len(seen)


def repeat_cost(send, expect=lambda body: True) -> int:
    """The statements of the request a polling browser repeats (the first answer may record
    what it showed: a seen card, a milestone)."""
    assert send().status_code == 200
    return cost(send, expect)


def past_jobs(kind: str, subject: str, count: int) -> None:
    now = utcnow()
    Job.insert_many([{"id": f"old-{kind}-{subject}-{Job.select().count()}-{n}", "kind": kind, "subject": subject,
                      "status": Job.DONE, "attempt": 1, "payload": {}, "created_at": now - timedelta(days=n + 1),
                      "updated_at": now, "started_at": now, "finished_at": now} for n in range(count)]).execute()


def qualified_referrals(account: Account, count: int) -> None:
    code, _ = ReferralCode.get_or_create(code=f"code{account.id}", defaults={"account": account.id})
    for _ in range(count):
        friend = Account.create(email=f"friend{Account.select().count()}@example.com")
        Referral.create(code=code.code, friend=friend.id, qualified_at=utcnow())


def metered_strangers(count: int) -> None:
    """Other accounts that spent credits in every bucket."""
    others = [Account.create(email=f"other{Account.select().count()}@example.com") for _ in range(count)]
    MeterUsage.insert_many([{"account": a.id, "bucket": b, "window_5h": 0, "used_5h": 5, "window_week": 0,
                             "used_week": 5} for a in others for b in BUCKETS]).execute()


def track(browser, visitor: str):
    """A page view of the published store of p00 by the store's visitor `visitor`."""
    return browser.post("/api/track", json={"product_id": "p00", "event": "page_view", "session_id": visitor})


def recorded(body) -> bool:
    return body == {"status": "recorded"}


def visits(browser, count: int) -> None:
    """Funnel events of the store's visitors, each recorded through POST /api/track."""
    start = FunnelEvent.select().count()
    for n in range(count):
        assert recorded(track(browser, f"visitor-{start + n:06d}").get_json())


@pytest.fixture
def paused(worker):
    """Pauses the worker when called (builds then stay queued); resumed after the test."""
    yield worker.pause
    worker.resume()


# --- GET /api/find and GET /api/feed ----------------------------------------------------------

def holding_costs(founder, finder, path, expect, *, others: int) -> tuple[int, int]:
    """(a newcomer's first request, which holds a product; the repeat of `finder`, the founder
    with the history), once every hold so far expired and `others` founders took the best
    products (the walk down the ranking steps over them)."""
    clock.freeze(utcnow() + timedelta(minutes=HOLD_MINUTES + 1))
    for _ in range(others):
        assert find(founder()).status_code == 200
    newcomer = founder()
    bound(newcomer)
    for kept in (card_cache.TRENDS, card_cache.CARDS):
        kept.clear()  # the cards it shows are read afresh, as by a process that served none of them
    return cost(lambda: newcomer.get(path), expect), repeat_cost(lambda: finder.get(path), expect)


def served_growth(founder, path, expect) -> None:
    catalog(SMALL)
    finder = founder()
    bound(finder)
    assert find(finder).status_code == 200  # the prior request
    small = holding_costs(founder, finder, path, expect, others=FEW)
    more_products(LARGE - SMALL)
    for _ in range(MANY - FEW):  # seen cards passed on for good, each a request that held the next
        assert pass_on(finder).status_code == 200
    large = holding_costs(founder, finder, path, expect, others=MANY // 5)
    assert small == large, (small, large)


def test_find_takes_as_many_statements_on_a_larger_catalog_and_history(founder):
    served_growth(founder, "/api/find", lambda body: body["yours"])


def test_feed_takes_as_many_statements_on_a_larger_catalog_and_history(founder):
    served_growth(founder, "/api/feed", lambda body: body and body[0]["yours"])


# --- GET /api/store, the build poll -----------------------------------------------------------

def test_the_store_poll_takes_as_many_statements_on_a_larger_catalog_and_history(founder, run_jobs, paused):
    owner = published_store(founder, run_jobs)  # p00, built and published
    catalog(SMALL - 1, prefix="c")
    waiting = claimed_founder(founder, demo_item("c00"))  # c00: its build queued while the worker is paused
    run_jobs()  # its research
    paused()
    assert waiting.post("/api/store").get_json()["status"] == "building"
    polls = {"published": owner, "building": waiting}

    def costs():
        return {state: repeat_cost(lambda c=client: c.get("/api/store"), lambda b, s=state: b["status"] == s)
                for state, client in polls.items()}

    visitor = founder()
    visits(visitor, FEW)
    for pid in ("p00", "c00"):
        past_jobs(builds.BUILD, builds.subject(pid), FEW)
    small = costs()
    more_products(LARGE - SMALL)
    visits(visitor, MANY - FEW)
    for pid in ("p00", "c00"):
        past_jobs(builds.BUILD, builds.subject(pid), MANY - FEW)
    large = costs()
    assert small == large, (small, large)


# --- POST /api/track ---------------------------------------------------------------------------

def test_track_takes_as_many_statements_on_a_larger_catalog_and_history(founder, run_jobs):
    published_store(founder, run_jobs)
    catalog(SMALL - 1, prefix="c")
    visitor = founder()
    visits(visitor, FEW)
    small = cost(lambda: track(visitor, "counted-small"), recorded)
    more_products(LARGE - SMALL)
    visits(visitor, MANY - FEW)
    large = cost(lambda: track(visitor, "counted-large"), recorded)
    assert FunnelEvent.select().count() == MANY + 2
    assert small == large, (small, large)


# --- GET /api/usage ----------------------------------------------------------------------------

def test_usage_takes_as_many_statements_on_a_larger_catalog_and_history(founder):
    catalog(SMALL)
    finder = founder()
    account = bound(finder)

    def used(body):
        return body["account"] and next(f for f in body["features"] if f["feature"] == "find")["used_5h"]

    assert find(finder).status_code == 200  # the prior (metered) request
    qualified_referrals(account, FEW)
    metered_strangers(FEW)
    small = cost(lambda: finder.get("/api/usage"), used)
    before = finder.get("/api/usage").get_json()
    more_products(LARGE - SMALL)
    for _ in range(MANY - FEW):
        assert find(finder).status_code == 200
    qualified_referrals(account, MANY - FEW)
    metered_strangers(MANY - FEW)
    large = cost(lambda: finder.get("/api/usage"), used)
    after = finder.get("/api/usage").get_json()
    assert used(after) > used(before) and after["referral_multiplier"] > before["referral_multiplier"]
    assert small == large, (small, large)


# --- GET /api/dashboard -------------------------------------------------------------------------

def test_the_dashboard_takes_as_many_statements_on_a_larger_catalog_and_history(founder, run_jobs):
    referrer = Account.create(email="referrer@example.com", verified=True)
    code = ReferralCode.create(code="referrer", account=referrer.id)
    owner = founder()
    Referral.create(code=code.code, friend=bound(owner).id)  # the dashboard qualifies it
    load(demo_item())
    find(owner)
    assert claim(owner).get_json()["status"] == "claimed"
    run_jobs()  # its research
    catalog(SMALL - 1, prefix="c")

    def poll():
        return owner.get("/api/dashboard")

    def ok(body):
        return body["status"] == "ok" and body["product_id"] == "p00"

    past_jobs(records.RESEARCH, records.subject("p00"), FEW)
    small = repeat_cost(poll, ok)
    assert Referral.get(Referral.code == code.code).qualified_at is not None
    more_products(LARGE - SMALL)
    for _ in range(MANY - FEW):
        assert poll().status_code == 200
    past_jobs(records.RESEARCH, records.subject("p00"), MANY - FEW)
    qualified_referrals(referrer, MANY - FEW)
    large = repeat_cost(poll, ok)
    assert small == large, (small, large)


# --- The session lookup every request makes --------------------------------------------------------

def test_the_session_lookup_takes_as_many_statements_on_more_sessions_and_history(founder):
    catalog(SMALL)
    browser = founder()
    account = bound(browser)

    def costs() -> tuple[int, int]:
        with statements() as seen:
            assert browser.get("/api/health").status_code == 200
        lookups = sum(map(looks_up_session, seen))
        assert lookups, seen  # the request did look its session up
        return len(seen), lookups

    def grow(count):
        for _ in range(count):  # other browsers, each with a session of its own
            assert founder().get("/api/health").status_code == 200
        # The account's other devices, and the browser's own requests.
        Session.insert_many([{"token_hash": hash_token(f"device-{Session.select().count()}-{n}"),
                              "account_id": account.id} for n in range(count)]).execute()
        for _ in range(count):
            assert find(browser).status_code == 200

    grow(FEW)
    small = costs()
    more_products(LARGE - SMALL)
    grow(MANY - FEW)
    large = costs()
    assert Session.select().where(Session.account_id == account.id).count() == MANY + 1
    assert small == large, (small, large)

