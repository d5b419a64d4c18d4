"""The find meter's spend made ahead, in the statement that reads a find's or a feed's state
(services/meter_ahead.py): on PostgreSQL an account's repeat find or feed is one statement,
and what it spends is exactly what the meter would spend on its own: under the account's
plan as it is now, given back when the request is not metered after all. On SQLite nothing
is spent ahead (the same tests pin the meter's own spend there)."""
from datetime import timedelta

import pytest

from models.account import Account, MeterUsage
from models.clock import clock, utcnow
from models.db import is_sqlite
from models.session import Session
from services import meter, meter_ahead
from services.discovery.state import AccountPlan
from services.meter_ahead import Ahead
from tests.factories import catalog, claim, session_of, statements
from tests.helpers import in_threads
from tests.metered_accounts import bind, make_account, row

pytestmark = pytest.mark.usefixtures("frozen_clock")
PATHS = ["/api/feed", "/api/find"]
COST = 5  # the find bucket's cost; a free account has 50 credits per five hours


def used(account) -> tuple[int, int]:
    found = row(account)
    return (found.used_5h, found.used_week) if found is not None else (0, 0)


def set_used(account, credits: int) -> None:
    MeterUsage.update(used_5h=credits, used_week=credits).where(MeterUsage.account == account.id).execute()


def bound_founder(founder, account):
    client = founder()
    bind(client, account)
    return client


@pytest.mark.parametrize("path", PATHS)
def test_an_accounts_repeat_request_spends_in_its_one_statement(founder, path):
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200  # the plan is read here (and the counter row made)
    assert used(account) == (COST, COST)
    for spent in (2, 3):
        with statements() as seen:
            assert client.get(path).status_code == 200
        assert used(account) == (spent * COST, spent * COST)
        assert len(seen) == (2 if is_sqlite() else 1), seen  # SQLite: the state, then the spend


@pytest.mark.parametrize("path", PATHS)
def test_a_plan_changed_since_is_spent_under_its_limits_as_they_are_now(founder, path):
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200  # remembered: free, 50 credits
    set_used(account, 50)
    Account.update(tier="pro").where(Account.id == account.id).execute()  # 500 credits now
    # Spent ahead under the free plan there was no room; under the plan read now there is.
    assert client.get(path).status_code == 200
    assert used(account) == (55, 55)
    Account.update(tier="free").where(Account.id == account.id).execute()
    # Spent ahead under the pro plan remembered; the free plan read now has no room: given
    # back, and refused as the meter refuses.
    refused = client.get(path)
    assert refused.status_code == 429, refused.get_data(as_text=True)
    assert (refused.get_json()["reason"], refused.get_json()["used"], refused.get_json()["limit"]) == \
        ("usage_limit_reached", 55, 50)
    assert used(account) == (55, 55)


@pytest.mark.parametrize("path", PATHS)
def test_a_paid_term_ending_between_requests_meters_as_free(founder, path):
    """The plan's columns are the same, but the term ended: its limits are the free tier's."""
    catalog(5)
    account = make_account("pro", term_ends_at=utcnow() + timedelta(minutes=1))
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200
    set_used(account, 50)
    assert client.get(path).status_code == 200  # pro: room
    Account.update(term_ends_at=utcnow() - timedelta(seconds=1)).where(Account.id == account.id).execute()
    set_used(account, 50)
    assert client.get(path).status_code == 429
    assert used(account) == (50, 50)


def test_a_feed_at_the_claim_allowance_spends_nothing(founder):
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get("/api/feed").status_code == 200
    assert claim(client).get_json()["status"] == "claimed"  # the allowance (one claim) is used
    for _ in range(2):
        assert client.get("/api/feed").get_json() == []
        assert used(account) == (COST, COST)
    card = client.get("/api/find").get_json()  # the claimed product, not metered
    assert card["claimed"] is True and used(account) == (COST, COST)


@pytest.mark.parametrize("path", PATHS)
def test_a_request_on_a_session_changed_since_spends_once(founder, path):
    """The remembered session is stale (here: signed in again to the same account): the
    statement's spend is given back and the request starts over, spending once."""
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200
    Session.update(bound_at=utcnow()).where(Session.id == session_of(client).id).execute()
    assert client.get(path).status_code == 200
    assert used(account) == (2 * COST, 2 * COST)


def test_concurrent_finds_spending_ahead_never_spend_past_the_limit(founder):
    """The plan is read first, so every one of the concurrent finds spends in its state's
    statement (on PostgreSQL): the database still lets exactly the credits left through."""
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get("/api/find").status_code == 200  # 5 of 50 spent, the plan remembered
    tabs = [founder() for _ in range(40)]
    for tab in tabs:
        tab.set_cookie("ff_session", client.get_cookie("ff_session").value)
    statuses = [r.status_code for r in in_threads(40, lambda i: tabs[i].get("/api/find"))]
    assert (statuses.count(200), statuses.count(429)) == (9, 31), statuses
    assert used(account) == (50, 50)


def test_a_spend_given_back_for_a_changed_plan_is_never_given_back_twice():
    """The meter gives back a spend made under a plan that changed since; a later give-back
    of the same spend (a request that ends unmetered) returns nothing more."""
    account = make_account("free")
    old_plan = AccountPlan(account.id, "free", None, 0)
    meter.spend(account.id, "find", account=old_plan)  # the counter row: 5 used
    ahead = Ahead(old_plan, meter.spend_values(old_plan, meter.BUCKETS["find"], clock.time()), spent=True)
    meter.spend(account.id, "find", account=old_plan)  # what the statement spent ahead: 10 used
    Account.update(tier="pro").where(Account.id == account.id).execute()
    now_plan = AccountPlan(account.id, "pro", None, 0)
    charge = meter.spend(account.id, "find", account=now_plan, ahead=ahead)  # given back, spent again
    assert charge is not None and used(account) == (2 * COST, 2 * COST)
    meter_ahead.give_back(ahead)
    assert used(account) == (2 * COST, 2 * COST)
