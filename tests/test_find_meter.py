"""The find meter on find and feed (issue 46, point 2): each metered request charges once, in
one conditional UPDATE under the plan it read for this request (the state's statement reads
it), the same way on both backends; nothing is charged and then refunded in the common case,
and a plan changed between requests is charged under its limits as they are now."""
from datetime import timedelta

import pytest

from models.account import Account, MeterUsage
from models.clock import utcnow
from models.session import Session
from tests.factories import catalog, claim, session_of
from tests.helpers import in_threads
from tests.metered_accounts import bind, make_account, row

pytestmark = pytest.mark.usefixtures("frozen_clock")
PATHS = ["/api/feed", "/api/find"]
COST = 5  # the find bucket's cost; a free account has 50 credits per five hours


@pytest.fixture
def refunds(monkeypatch) -> list:
    """The meter's refunds (Charge.refund) made meanwhile."""
    from services import meter

    made, real = [], meter.Charge.refund

    def counted(charge):
        made.append(charge.bucket)
        return real(charge)

    monkeypatch.setattr(meter.Charge, "refund", counted)
    return made


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
def test_an_accounts_repeat_request_charges_once_with_no_refund(founder, path, refunds):
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200  # the counter row is made here
    assert used(account) == (COST, COST)
    for spent in (2, 3):
        assert client.get(path).status_code == 200
        assert used(account) == (spent * COST, spent * COST)
    assert refunds == []  # charged once each: no charge-and-refund pair


@pytest.mark.parametrize("path", PATHS)
def test_a_plan_changed_since_is_spent_under_its_limits_as_they_are_now(founder, path):
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200  # free, 50 credits
    set_used(account, 50)
    Account.update(tier="pro").where(Account.id == account.id).execute()  # 500 credits now
    # Under the free plan there would be no room; under the plan read now there is.
    assert client.get(path).status_code == 200
    assert used(account) == (55, 55)
    Account.update(tier="free").where(Account.id == account.id).execute()
    # The free plan read now has no room: refused as the meter refuses, nothing spent.
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
def test_a_request_on_a_session_changed_since_charges_once(founder, path, refunds):
    """The remembered session is stale (here: signed in again to the same account): the
    request starts over on the session as it is, before anything is charged, and charges once
    (it used to charge in the stale statement, refund, and charge again)."""
    catalog(5)
    account = make_account("free")
    client = bound_founder(founder, account)
    assert client.get(path).status_code == 200
    Session.update(bound_at=utcnow()).where(Session.id == session_of(client).id).execute()
    assert client.get(path).status_code == 200
    assert used(account) == (2 * COST, 2 * COST)
    assert refunds == []


def test_concurrent_finds_never_spend_past_the_limit(founder):
    """Forty tabs of one account find at once: the conditional UPDATE lets exactly the credits
    left through."""
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
