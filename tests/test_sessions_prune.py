"""The session table stays bounded: the clock prunes anonymous sessions that held, claimed,
metered and bound nothing once they are ANON_SESSION_DAYS old; history rows go with them
or lose their reference, and nothing anyone holds is ever deleted."""
from datetime import timedelta

import peewee as pw
import pytest

from models import ALL_MODELS
from models.account import Account, Milestone, ReferralCode, SignInToken
from models.business import BusinessSettings, PayoutDestination, Todo
from models.clock import clock, utcnow
from models.db import transaction
from models.discovery import Claim, ClaimAllowance, Hold, Passed, Seen, ShareAction, Watch
from models.session import Session
from services import referrals
from services.accounts import sign_in_mail_job
from services.sessions import SESSION_REFERENCES, open_session, prune_anonymous_sessions
from tests.factories import catalog, claim, find, session_of
from tests.helpers import in_threads
from tests.mailbox import sign_in_here

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

DAYS = 30


def prune():
    return prune_anonymous_sessions(older_than_days=DAYS)


def age(days=DAYS + 1):
    clock.advance(days=days)


def exists(session):
    return Session.select().where(Session.id == session.id).exists()


def visitor(founder):
    """A cookieless visitor: one request, and the server has stored a session for it."""
    client = founder()
    client.get("/api/health")
    return client, session_of(client)


def test_an_old_idle_anonymous_session_is_pruned(founder):
    _, idle = visitor(founder)
    age()
    assert prune() == 1
    assert not exists(idle)


def test_a_young_anonymous_session_is_kept(founder):
    _, young = visitor(founder)
    age(DAYS - 1)
    assert prune() == 0
    assert exists(young)


def test_history_goes_with_the_session_and_references_elsewhere_are_cleared(founder):
    (pid,) = catalog(1)
    _, idle = visitor(founder)
    account = Account.create(email="someone@x.com")
    Seen.create(session=idle, product=pid)
    Passed.create(session=idle, product=pid)
    Milestone.create(session=idle, name="find_served")
    Watch.create(session=idle, product=pid, email="w@x.com", closed_at=utcnow(), closed_because="free")
    token = SignInToken.create(token_hash="a" * 64, account=account, requested_by=idle,
                               expires_at=utcnow() + timedelta(minutes=15))
    code = referrals.code_for(idle)
    age()
    assert prune() == 1
    assert not exists(idle)
    for model in (Seen, Passed, Milestone, Watch):
        assert model.select().count() == 0, model.__name__
    assert SignInToken.get_by_id(token.id).requested_by_id is None
    assert ReferralCode.get_by_id(code).session_id is None


def test_a_session_with_a_hold_is_kept_even_when_the_hold_expired(client):
    catalog(3)
    assert find(client).status_code == 200
    held = session_of(client)
    age()  # the hold expired long ago
    assert prune() == 0 and exists(held)
    Hold.delete().execute()
    assert prune() == 1 and not exists(held)


def test_a_session_with_a_claim_is_kept(client):
    catalog(3)
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    claimer = session_of(client)
    # Only the claim is left to keep it: no hold, no allowance row.
    Hold.delete().execute()
    ClaimAllowance.delete().execute()
    age()
    assert Claim.select().count() == 1
    assert prune() == 0 and exists(claimer)


def test_a_session_with_a_meter_row_is_kept(client):
    catalog(3)
    assert client.post("/api/share").status_code == 200
    sharer = session_of(client)
    assert ClaimAllowance.get(ClaimAllowance.owner == f"session:{sharer.id}").lifts == 1
    age()
    assert prune() == 0 and exists(sharer)
    # Share actions are history: without the meter row they keep nothing.
    ClaimAllowance.delete().execute()
    assert prune() == 1 and ShareAction.select().count() == 0


def test_a_session_bound_to_an_account_is_kept(client, run_jobs):
    assert client.post("/api/account", json={"email": "bound@x.com"}).status_code == 200
    run_jobs()
    bound = session_of(client)
    age()
    assert prune() == 0 and exists(bound)


def test_a_signed_out_session_whose_rows_an_account_adopted_is_kept(client, run_jobs):
    (pid,) = catalog(1)
    client.get("/api/health")
    Seen.create(session=session_of(client), product=pid)
    sign_in_here(client, run_jobs, "adopted@x.com")
    assert client.post("/api/logout").status_code in (200, 204)
    signed_out = session_of(client)
    assert signed_out.account_id is None and Seen.get().account_id is not None
    age()
    # Deleting it would cascade the account's adopted rows away.
    assert prune() == 0 and Seen.select().count() == 1


def test_what_is_still_owed_or_in_progress_keeps_a_session(founder):
    (pid,) = catalog(1)
    account = Account.create(email="guest@x.com")
    _, watching = visitor(founder)
    Watch.create(session=watching, product=pid, email="w@x.com")  # open: a notice is owed
    _, asked = visitor(founder)
    _, signed_in = visitor(founder)
    SignInToken.create(token_hash="b" * 64, account=account, spent_by=signed_in, spent_at=utcnow(),
                       expires_at=utcnow() + timedelta(minutes=15))
    _, mailing = visitor(founder)
    with transaction():
        assert sign_in_mail_job(email="guest@x.com", session_id=mailing.id, surface="product") is not None
    _, returning = visitor(founder)
    age()
    # Minted now, after the session aged: a live link the guest may still open elsewhere.
    SignInToken.create(token_hash="c" * 64, account=account, requested_by=asked,
                       expires_at=utcnow() + timedelta(minutes=15))
    Passed.create(session=returning, product=pid)  # back this week: not idle
    prune()
    assert [exists(s) for s in (watching, asked, signed_in, mailing, returning)] == [True] * 5


def test_a_founders_business_records_keep_their_session_and_an_idle_task_list_goes_with_it(founder):
    owned = []
    for model, values in ((BusinessSettings, {}), (PayoutDestination, {
            "method": "bank", "holder": "Ada", "account_masked": "•••• 1234", "last4": "1234", "fingerprint": "f" * 64})):
        _, session = visitor(founder)
        model.create(owner=f"session:{session.id}", session=session, **values)
        owned.append(session)
    _, listing = visitor(founder)
    Todo.create(owner=f"session:{listing.id}", session=listing, text="an old task")
    _, back = visitor(founder)
    age()
    Todo.create(owner=f"session:{back.id}", session=back, text="written this week")  # back: not idle
    assert prune() == 1
    assert [exists(s) for s in (*owned, listing, back)] == [True, True, False, True]
    assert [t.text for t in Todo.select()] == ["written this week"]  # the idle list went with its session


def test_pruning_goes_in_batches_until_done(founder):
    sessions = [open_session()[0] for _ in range(7)]
    age()
    assert prune_anonymous_sessions(older_than_days=DAYS, batch_size=3) == 7
    assert not any(exists(s) for s in sessions)


def test_a_hold_taken_while_the_prune_runs_is_never_deleted(founder):
    """Old idle sessions take holds while the prune deletes in small batches: every hold
    that was taken survives with its session (on PostgreSQL this is a real race)."""
    products = catalog(24)
    sessions = [open_session()[0] for _ in products]
    age()

    def run(i):
        if i == 0:
            return sum(prune_anonymous_sessions(older_than_days=DAYS, batch_size=2) for _ in range(5))
        try:
            with transaction():
                Hold.insert(product=products[i - 1], session=sessions[i - 1].id,
                            expires_at=utcnow() + timedelta(minutes=30)).execute()
            return "held"
        except pw.IntegrityError:
            return "gone"  # the prune deleted the session first: no hold was taken

    results = in_threads(len(products) + 1, run)
    for session, product, outcome in zip(sessions, products, results[1:], strict=True):
        if outcome == "held":
            assert Hold.get_or_none(Hold.product == product) is not None
            assert exists(session)
        else:
            assert not exists(session)
    assert results[0] == results[1:].count("gone")


def test_every_reference_to_a_session_has_a_decision():
    references = {f"{model._meta.table_name}.{field.column_name}"
                  for model in ALL_MODELS for field in model._meta.fields.values()
                  if isinstance(field, pw.ForeignKeyField) and field.rel_model is Session}
    assert references <= set(SESSION_REFERENCES), references - set(SESSION_REFERENCES)


def test_the_clock_prunes_hourly():
    from tests.conftest import SETTINGS
    from workers.clock import schedule

    assert {e.name: e for e in schedule(SETTINGS)}["prune_sessions"].seconds == 3600


def test_the_prune_job_prunes_with_the_setting(founder, run_jobs):
    from jobs.maintenance import prune_sessions
    from tests.conftest import SETTINGS

    _, idle = visitor(founder)
    age(SETTINGS.anon_session_days + 1)
    prune_sessions.send()
    run_jobs()
    assert not exists(idle)
