"""What a process keeps between requests, the database can vouch for (issue 46, point 3): a
cache stays only where its key is the content (a card under every value it shows, a store
page under its published version) or where the same statement re-reads what proves it
current (a remembered session). Rows deleted or rewritten from another connection (a
restore, an erase, a second writer) are seen by the next answer: the dashboard's verdict,
the milestones a poll, a find or a feed records, a card's fields, a remembered session."""
from __future__ import annotations

import threading
from datetime import date, timedelta

import pytest

from api.research import DashboardAnswer
from models.account import Account, Milestone, Referral, ReferralCode
from models.catalog import Product
from models.db import close_connection
from models.research import Research
from models.session import Session
from services import milestones
from services.research import answers
from services.sessions import hash_token
from tests.factories import TODAY, catalog, claim, find, item, load, session_of, statements
from tests.mailbox import last_link, path_of

pytestmark = pytest.mark.usefixtures("frozen_clock")  # research runs keep one researched_at


def from_another_connection(write) -> None:
    """Runs `write` on a connection of its own (another thread's), as another process would."""
    failed = []

    def run():
        try:
            write()
        except Exception as exc:  # noqa: BLE001  (reported below)
            failed.append(exc)
        finally:
            close_connection()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert failed == []


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
    answer, _jobs = answers.dashboard(session=session_of(client))
    return DashboardAnswer().dump(answer.body() if isinstance(answer, answers.Verdict) else answer)


def researched(client, run_jobs, held_worker) -> dict:
    load(line())
    find(client)
    claim(client)
    held_worker.resume()
    run_jobs()
    held_worker.pause()
    return client.get("/api/dashboard").get_json()


def test_a_research_row_rewritten_in_place_is_on_the_next_poll(client, run_jobs, held_worker):
    """Same product, same fingerprint, same researched_at (the clock is stopped): only the
    row's offer changed, by another writer. The poll before kept nothing that hides it."""
    first = researched(client, run_jobs, held_worker)
    assert first["status"] == "ok" and first == built_now(client)
    row = Research.get(Research.product == "strong")
    offer = dict(row.offer, price=39.99)
    from_another_connection(lambda: Research.update(offer=offer).where(Research.product == "strong").execute())
    again = client.get("/api/dashboard").get_json()
    assert again["offer"]["price"] == 39.99 != first["offer"]["price"], (again["offer"], first["offer"])
    assert again == built_now(client)


def test_a_poll_follows_a_refresh_and_its_new_research(client, run_jobs, held_worker):
    first = researched(client, run_jobs, held_worker)
    load(line(quote=14.0))  # a new evidence row: the research is stale and refreshed
    stale = client.get("/api/dashboard").get_json()
    assert stale["refreshing"] is True and stale["offer"] == first["offer"]
    assert stale == built_now(client)
    held_worker.resume()
    run_jobs()
    fresh = client.get("/api/dashboard").get_json()
    assert fresh["refreshing"] is False and fresh["offer"]["unit_margin"] < first["offer"]["unit_margin"]
    assert fresh == built_now(client)


def test_a_founder_without_a_verdict_is_not_sent_another_founders(founder, run_jobs):
    load(line(), item("other", rank=10))
    owner, other = founder(), founder()
    find(owner)
    claim(owner)
    run_jobs()
    assert owner.get("/api/dashboard").get_json()["product_id"] == "strong"
    assert other.get("/api/dashboard").get_json()["status"] == "not_claimed"


def test_a_milestone_erased_by_another_writer_is_recorded_again_by_the_next_poll(client, run_jobs, held_worker):
    researched(client, run_jobs, held_worker)
    session_id = session_of(client).id
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_id)
    from_another_connection(lambda: Milestone.delete().where(Milestone.session == session_id).execute())
    assert client.get("/api/dashboard").get_json()["status"] == "ok"
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_id)


def researched_and_signed_in(client, run_jobs, held_worker, address: str) -> int:
    """The client's product researched, then its session signed in to a new account at
    `address` by the mailed link; answers the account's id."""
    researched(client, run_jobs, held_worker)
    held_worker.resume()
    client.post("/api/account", json={"email": address})
    run_jobs()
    client.get(path_of(last_link(address)))
    account_id = session_of(client).account_id
    assert account_id is not None
    return account_id


def test_a_signed_in_session_records_the_dashboard_milestone_for_its_account(client, run_jobs, held_worker):
    account_id = researched_and_signed_in(client, run_jobs, held_worker, "kept@x.com")
    Milestone.delete().where(Milestone.account == account_id).execute()  # whatever sign-in carried over
    assert client.get("/api/dashboard").get_json()["status"] == "ok"
    assert milestones.reached(milestones.REACHED_DASHBOARD, account_id=account_id)


def test_a_session_bound_to_an_account_under_the_same_token_records_the_account_milestone(client):
    """A session's account can change without a new token (unbound when another session
    proves the address it only saved: services/sign_in.py)."""
    client.get("/api/usage")
    answers.visit_dashboard(session_of(client))
    assert milestones.reached(milestones.REACHED_DASHBOARD, session_id=session_of(client).id)
    account = Account.create(email="bound@x.com", verified=True)
    token = hash_token(client.get_cookie("ff_session").value)
    assert Session.update(account_id=account.id).where(Session.token_hash == token).execute() == 1
    answers.visit_dashboard(session_of(client))
    assert milestones.reached(milestones.REACHED_DASHBOARD, account_id=account.id)


def test_a_dashboard_poll_with_nothing_to_record_writes_nothing(client, run_jobs, held_worker):
    """After the first poll, a poll only reads: its milestones are there and no referral is
    pending, so no insert, update or transaction of the milestone and referral writes runs."""
    researched(client, run_jobs, held_worker)
    assert client.get("/api/dashboard").get_json()["status"] == "ok"
    with statements() as seen:
        assert client.get("/api/dashboard").get_json()["status"] == "ok"
    writes = [sql for sql in seen if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
              and ('"milestone"' in sql or '"referral"' in sql)]
    assert writes == [], writes


def test_a_referral_set_pending_again_by_another_writer_is_qualified_by_the_next_poll(client, run_jobs, held_worker):
    friend = researched_and_signed_in(client, run_jobs, held_worker, "friend@x.com")
    referrer = Account.create(email="referrer@x.com", verified=True)
    code = ReferralCode.create(code="referrer", account=referrer.id)
    Referral.create(code=code.code, friend=friend)
    assert client.get("/api/dashboard").get_json()["status"] == "ok"
    assert Referral.get(Referral.friend == friend).qualified_at is not None
    from_another_connection(lambda: Referral.update(qualified_at=None).where(Referral.friend == friend).execute())
    assert client.get("/api/dashboard").get_json()["status"] == "ok"
    assert Referral.get(Referral.friend == friend).qualified_at is not None


@pytest.mark.parametrize("path", ["/api/find", "/api/feed"])
def test_find_and_feed_milestones_erased_by_another_writer_are_recorded_again(founder, path):
    catalog(5)
    client = founder()
    for _ in range(3):  # repeats, as the founder's app sends them: the session is remembered
        assert client.get(path).status_code == 200
    session_id = session_of(client).id
    assert milestones.reached(milestones.FIND_SERVED, session_id=session_id)
    from_another_connection(lambda: Milestone.delete().where(Milestone.session == session_id).execute())
    assert client.get(path).status_code == 200
    assert milestones.reached(milestones.FIND_SERVED, session_id=session_id)


def test_a_cards_fields_rewritten_by_another_writer_are_on_the_next_feed(founder):
    catalog(5)
    client = founder()
    first = client.get("/api/feed").get_json()
    assert client.get("/api/feed").get_json() == first  # kept cards served
    shown = first[1]["product_id"]
    from_another_connection(lambda: Product.update(name="Renamed by another writer")
                            .where(Product.product_id == shown).execute())
    names = {card["product_id"]: card["name"] for card in client.get("/api/feed").get_json()}
    assert names[shown] == "Renamed by another writer"


def test_a_remembered_session_erased_by_another_writer_is_not_served(founder):
    catalog(5)
    client = founder()
    held = client.get("/api/feed").get_json()[0]["product_id"]
    assert client.get("/api/feed").get_json()[0]["product_id"] == held  # remembered now
    token = hash_token(client.get_cookie("ff_session").value)
    from_another_connection(lambda: Session.delete().where(Session.token_hash == token).execute())
    answer = client.get("/api/feed")
    assert answer.status_code == 200 and "ff_session=" in answer.headers.get("Set-Cookie", "")  # a new session
    assert Session.get_or_none(Session.token_hash == token) is None
