"""A dashboard poll sends what it sent for the same research (api/research.py keeps the bytes
under answers.Verdict.key) and writes the reached_dashboard milestone once per session, token
and account (answers.reached_dashboard): both must follow what changes. A new research, a
refresh starting, a sign-in are seen on the next poll, and what is sent is what a fresh build
of the body would send."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from api.research import _DASHBOARD
from models.account import Account, Milestone
from models.session import Session
from services import milestones
from services.research import answers
from services.sessions import hash_token
from tests.factories import TODAY, claim, find, item, load, session_of, statements
from tests.mailbox import last_link, path_of

pytestmark = pytest.mark.usefixtures("frozen_clock")  # research runs keep one researched_at: the key must still move


def ago(days: int) -> date:
    return TODAY - timedelta(days=days)


def line(quote: float | None = None) -> dict:
    """Margin about 51 %, three fresh rows: go. With a supplier quote above the catalog cost,
    the research prices at the quote (a smaller margin)."""
    out = item("strong", price=34.99, cost=11.20)
    out["evidence"] = [{"date": ago(days).isoformat(), "source": source, "metric": metric, "value": value, "note": ""}
                       for days, metric, value, source in ((10, "monthly_searches", 22400, "search_volume"),
                                                           (40, "interest_index", 50, "google_trends"),
                                                           (90, "interest_index", 50, "google_trends"))]
    if quote is not None:
        out["evidence"].append({"date": ago(1).isoformat(), "source": "supplier_quote", "metric": "unit_price_quote",
                                "value": quote, "note": ""})
    return out


def built_now(client) -> dict:
    """The dashboard's body as a fresh build would dump it, for the client's session now."""
    verdict, _jobs = answers.dashboard(session=session_of(client))
    return _DASHBOARD(verdict.build())


def test_a_poll_sends_the_kept_verdict_until_the_research_changes(client, run_jobs, held_worker):
    load(line())
    find(client)
    claim(client)
    held_worker.resume()
    run_jobs()
    held_worker.pause()  # the refresh below waits until the stale answers are compared (resumed after the test)
    first = client.get("/api/dashboard")
    assert first.get_json() == built_now(client) and first.get_json()["refreshing"] is False
    assert client.get("/api/dashboard").data == first.data  # the kept bytes, sent again

    load(line(quote=14.0))  # a new evidence row: the research is stale and refreshed
    stale = client.get("/api/dashboard").get_json()
    assert stale["refreshing"] is True and stale["offer"] == first.get_json()["offer"]
    assert stale == built_now(client)
    held_worker.resume()
    run_jobs()
    fresh = client.get("/api/dashboard").get_json()
    assert fresh["refreshing"] is False and fresh["offer"]["unit_margin"] < first.get_json()["offer"]["unit_margin"]
    assert fresh == built_now(client)
    assert fresh["researched_at"] == first.get_json()["researched_at"]  # the clock is stopped: the row told them apart


def test_a_founder_without_a_verdict_is_not_sent_another_founders(founder, run_jobs):
    load(line(), item("other", rank=10))
    owner, other = founder(), founder()
    find(owner)
    claim(owner)
    run_jobs()
    assert owner.get("/api/dashboard").get_json()["product_id"] == "strong"
    assert other.get("/api/dashboard").get_json()["status"] == "not_claimed"


def writes(client) -> bool:
    """Whether a poll wrote the milestone: its INSERT on SQLite, the EXECUTE of its prepared
    statement (named after it) on PostgreSQL."""
    with statements() as seen:
        assert client.get("/api/dashboard").get_json()["status"] == "ok"
    return any('"milestone"' in sql or "reached_dashboard" in sql for sql in seen)


def test_the_milestone_is_written_once_per_session_and_again_for_its_account(client, run_jobs):
    load(line())
    find(client)
    claim(client)
    run_jobs()
    assert writes(client)  # the first poll records the milestone
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_of(client).id)
    assert not writes(client)  # recorded: a poll writes nothing

    client.post("/api/account", json={"email": "kept@x.com"})
    run_jobs()
    client.get(path_of(last_link("kept@x.com")))
    account_id = session_of(client).account_id
    assert account_id is not None
    Milestone.delete().where(Milestone.account == account_id).execute()  # whatever sign-in carried over
    assert writes(client)  # the session is now the account's, with a new token: written again
    assert milestones.reached(milestones.REACHED_DASHBOARD, account_id=account_id)
    assert not writes(client)


def test_a_session_bound_to_an_account_under_the_same_token_records_the_account_milestone(client):
    """A session's account can change without a new token (bound as the hot-path tests bind, or
    unbound when another session proves the address it only saved: services/sign_in.py): the
    remembered key holds the account too."""
    client.get("/api/usage")
    answers.reached_dashboard(session_of(client))
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_of(client).id)
    account = Account.create(email="bound@x.com", verified=True)
    token = hash_token(client.get_cookie("ff_session").value)
    assert Session.update(account_id=account.id).where(Session.token_hash == token).execute() == 1
    answers.reached_dashboard(session_of(client))
    assert milestones.reached(milestones.REACHED_DASHBOARD, account_id=account.id)
