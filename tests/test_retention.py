"""Tables that stay bounded (issue 28, part 6): the clock's hourly `prune_retained` deletes the
rows past their retention, in batches, and keeps what a route still answers: the newest job of
each kind and subject, the store metrics' 90-day window, a Fix run owed its follow-up or whose
report link went out lately, live holds, links and carriers, and every payment and order."""
from __future__ import annotations

from datetime import timedelta

import peewee as pw
import pytest

from integrations.locks import InProcessLocks
from jobs.maintenance import prune_retained
from models.account import SignInToken
from models.clock import clock, utcnow
from models.discovery import Hold
from models.fix import FixEvent, FixPage, FixRun
from models.funnel import FunnelEvent, Presence
from models.job import Job
from models.payment import CustomerOrder, Payment, SandboxCheckout, SandboxNotification
from models.walkthrough import JourneyCarrier
from services import retention
from services.discovery.holds import HOLD_MINUTES
from services.fix import mail
from services.jobs import create_job
from services.store.builds import subject
from services.store.publish import PUBLISH
from services.tokens import hash_token
from tests.conftest import SETTINGS
from tests.factories import (
    SUCCESS,
    catalog,
    find,
    new_account,
    pass_on,
    path_of,
    payment_of,
    published_store,
    select,
    session_of,
    started,
)
from tests.fix_site import Site
from tests.mailbox import last_link
from tests.mailbox import path_of as link_path
from workers.clock import Scheduler, schedule

DAY = timedelta(days=1)


def prune_from_the_clock(broker, run_jobs) -> None:
    """The clock's hourly entry fires, and a worker runs the job it sent."""
    [entry] = [e for e in schedule(SETTINGS) if e.name == "prune_retained"]
    assert Scheduler(broker, [entry], InProcessLocks()).tick(clock.time()) == ["prune_retained"]
    run_jobs()


def test_the_clock_fires_the_prune_hourly_and_its_worker_deletes_what_is_past_retention(broker, run_jobs, founder,
                                                                                        frozen_clock):
    catalog(2)
    lapsed, holding = founder(), founder()
    assert find(lapsed).get_json()["product_id"] == "p00"
    assert find(holding).get_json()["product_id"] == "p01"
    clock.advance(days=SETTINGS.expired_retention_days, minutes=HOLD_MINUTES + 1)
    again = select(holding, "p01").get_json()  # holding takes its product again; lapsed's stays lapsed
    assert again["held"] == "p01"

    prune_from_the_clock(broker, run_jobs)

    assert [(h.product_id, h.session_id) for h in Hold.select()] == [("p01", session_of(holding).id)]
    assert select(holding, "p01").get_json()["held_until"] == again["held_until"]


# --- Jobs ---------------------------------------------------------------------------------------

def test_old_finished_jobs_go_but_the_newest_of_each_subject_and_active_ones_stay(founder, run_jobs, frozen_clock):
    owner = published_store(founder, run_jobs)  # a build job and a publish job, day 0
    first_publish = Job.get(Job.kind == PUBLISH)
    clock.advance(days=1)
    assert owner.post("/api/store/publish").status_code == 200
    run_jobs()
    second_publish = Job.select().where(Job.kind == PUBLISH).order_by(Job.created_at.desc()).first()
    assert second_publish.id != first_publish.id
    with_no_worker, _ = create_job(kind="never_sent", subject="s", payload={})  # queued, never run
    clock.advance(days=SETTINGS.job_retention_days + 1)
    state = owner.get("/api/store").get_json()
    before = Job.select().count()

    assert retention.prune(retention.job_rules(days=SETTINGS.job_retention_days)) == 1

    assert Job.select().count() == before - 1
    assert Job.get_or_none(Job.id == first_publish.id) is None  # old, and not its subject's newest
    # The newest publish and the only build are what GET /api/store answers from: kept, however old.
    assert Job.get_or_none(Job.id == second_publish.id) is not None
    assert Job.select().where(Job.kind == "store_build", Job.subject == second_publish.subject).count() == 1
    assert Job.get_by_id(with_no_worker.id).status == Job.QUEUED
    assert owner.get("/api/store").get_json() == state
    assert retention.prune(retention.job_rules(days=SETTINGS.job_retention_days)) == 0  # a second run finds nothing


def test_a_recent_finished_job_stays_though_a_newer_one_exists(founder, run_jobs, frozen_clock):
    owner = published_store(founder, run_jobs)
    clock.advance(days=SETTINGS.job_retention_days - 1)
    assert owner.post("/api/store/publish").status_code == 200
    run_jobs()
    assert retention.prune(retention.job_rules(days=SETTINGS.job_retention_days)) == 0
    assert Job.select().where(Job.kind == PUBLISH, Job.subject == subject("p00")).count() == 2


def test_jobs_go_in_batches_until_none_is_left(frozen_clock):
    for n in range(7):
        job, _ = create_job(kind="k", subject="same", payload={})
        Job.update(status=Job.DONE, created_at=utcnow() + timedelta(seconds=n)).where(Job.id == job.id).execute()
    clock.advance(days=SETTINGS.job_retention_days + 1)
    # Batches of 2: one run goes on until nothing aged is left.
    assert retention.prune(retention.job_rules(days=SETTINGS.job_retention_days, batch_size=2)) == 6
    assert Job.select().count() == 1  # the newest stays


# --- Funnel events and presence -----------------------------------------------------------------

def track(client, session_id, product_id="p00"):
    answer = client.post("/api/track", json={"product_id": product_id, "event": "page_view", "session_id": session_id})
    assert answer.status_code == 200 and answer.get_json() == {"status": "recorded"}


def test_funnel_events_past_the_metrics_window_go_and_the_founders_figures_stay(founder, run_jobs, frozen_clock):
    owner = published_store(founder, run_jobs)
    visitor = founder()
    track(visitor, "visitor-gone")  # day 0: 95 days old at the prune
    clock.advance(days=6)
    track(visitor, "visitor-at-the-edge")  # 89 days old: inside the 90-day window
    clock.advance(days=89)
    track(visitor, "visitor-today")
    figures = owner.get("/api/editor/metrics?days=90").get_json()
    assert figures["sessions"] == 2

    # A shorter setting still keeps the longest window the route can report.
    assert retention.prune(retention.funnel_event_rules(days=30)) == 1

    assert {e.visitor_session for e in FunnelEvent.select()} == {"visitor-at-the-edge", "visitor-today"}
    assert owner.get("/api/editor/metrics?days=90").get_json() == figures
    assert retention.prune(retention.funnel_event_rules(days=SETTINGS.funnel_retention_days)) == 0


def test_presence_not_updated_within_its_days_goes_and_a_recent_one_stays(founder, frozen_clock):
    away, here = founder(), founder()
    assert away.post("/api/presence", json={"area": "store", "screen": "editor"}).status_code == 200
    clock.advance(days=SETTINGS.funnel_retention_days + 1)
    assert here.post("/api/presence", json={"area": "find", "screen": "feed"}).status_code == 200
    assert retention.prune(retention.presence_rules(days=SETTINGS.funnel_retention_days)) == 1
    assert [(p.session_id, p.screen) for p in Presence.select()] == [(session_of(here).id, "feed")]


# --- Fix ------------------------------------------------------------------------------------------

@pytest.fixture
def site(settings_with):
    with Site() as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def fix_run(client, run_jobs, url, **extra) -> str:
    answer = client.post("/api/fix", json={"url": url, **extra})
    assert answer.status_code == 200, answer.get_json()
    run_jobs()
    token = answer.get_json()["token"]
    assert client.get(f"/api/fix/mine?token={token}").get_json()["run"]["stage"] == "done"
    return token


def report(client, token):
    return client.get(f"/api/fix/mine?token={token}")


def test_fix_runs_go_after_their_days_unless_a_follow_up_is_owed_or_lately_sent(signed_in, run_jobs, site,
                                                                               jobs_drained):
    client = signed_in("owner@example.com")  # the founder's own verified address is mailed
    quiet = fix_run(client, run_jobs, site.origin + "/")  # no address: no follow-up owed
    mailed = fix_run(client, run_jobs, site.origin + "/", email="owner@example.com")
    assert client.post("/api/fix/event", json={"token": quiet, "event": "report_viewed"}).status_code == 200
    assert FixPage.select().count() > 0 and FixEvent.select().count() == 1
    days = SETTINGS.fix_retention_days
    clock.advance(days=days + 1)
    recent = fix_run(client, run_jobs, site.origin + "/")
    recent_report = report(client, recent).get_json()

    # The mailed run's follow-up was never sent (the mailer was down, say): it stays.
    assert retention.prune(retention.fix_run_rules(days=days)) == 1
    assert report(client, quiet).status_code == 404
    assert FixPage.select().join(FixRun).where(FixRun.token == quiet).count() == 0
    assert FixEvent.select().count() == 0
    assert report(client, mailed).status_code == 200
    assert report(client, recent).get_json() == recent_report

    # Its follow-up goes now: the report link in it works for another FIX_RETENTION_DAYS.
    assert mail.send_follow_ups() == 1
    clock.advance(days=days - 1)
    assert retention.prune(retention.fix_run_rules(days=days)) == 0
    assert report(client, mailed).status_code == 200
    clock.advance(days=2)
    assert retention.prune(retention.fix_run_rules(days=days)) == 2  # the mailed run, and the one that was recent
    assert FixRun.select().count() == 0 and FixPage.select().count() == 0


# --- Short-lived rows -----------------------------------------------------------------------------

def test_a_hold_lapsed_within_its_day_still_names_the_founders_product(founder, frozen_clock):
    catalog(2)
    client = founder()
    held = find(client).get_json()
    clock.advance(minutes=HOLD_MINUTES + 1)
    assert retention.prune(retention.hold_rules(days=SETTINGS.expired_retention_days)) == 0
    answer = pass_on(client)  # acts on the lapsed hold, which nobody took over
    assert answer.status_code == 200, answer.get_json()
    assert held


def test_spent_and_expired_sign_in_links_go_and_a_live_one_still_signs_in(founder, run_jobs, frozen_clock):
    first, second = new_account(founder, run_jobs, "a@example.com"), new_account(founder, run_jobs, "b@example.com")
    assert second.post("/api/login/request", json={"email": "b@example.com"}).status_code == 200
    run_jobs()  # mailed, never opened: it expires
    clock.advance(days=SETTINGS.expired_retention_days, minutes=1)
    assert founder().post("/api/login/request", json={"email": "a@example.com"}).status_code == 200
    run_jobs()
    live = last_link("a@example.com")
    new_account(founder, run_jobs, "d@example.com")  # spent a minute ago: the hourly mail bound counts it
    assert SignInToken.select().count() == 5

    assert retention.prune(retention.sign_in_rules(days=SETTINGS.expired_retention_days)) == 3

    kept = {(t.account.email, t.spent_at is None) for t in SignInToken.select()}
    assert kept == {("a@example.com", True), ("d@example.com", False)}
    elsewhere = founder()
    assert elsewhere.get(link_path(live)).headers["Location"] == SUCCESS
    assert elsewhere.get("/api/account").get_json()["account"] == "a@example.com"
    assert first.get("/api/account").get_json()["account"] == "a@example.com"  # signed in as before


def test_journey_carriers_go_a_day_after_they_expired_and_a_live_one_is_consumed(founder, frozen_clock):
    client = founder()
    client.post("/api/journey", json={"route": "#/app/find"})
    clock.advance(days=2)
    live = client.post("/api/journey", json={"route": "#/app/home"}).get_json()["id"]
    JourneyCarrier.create(id_hash=hash_token("0" * 32), route="#/app/find", created_at=utcnow() - 3 * DAY,
                          expires_at=utcnow() - 2 * DAY)  # issued when nobody issued another after it
    assert retention.prune(retention.journey_carrier_rules()) == 1
    assert [c.id_hash for c in JourneyCarrier.select()] == [hash_token(live)]
    assert founder().post(f"/api/journey/{live}/consume").get_json()["route"] == "#/app/home"


def test_sandbox_checkouts_that_ended_unpaid_go_with_their_notices_and_orders_stay(shop, founder, run_jobs,
                                                                                  sandbox_wire):
    from jobs.payments import expire_sandbox_checkouts

    customer = founder()
    unpaid, paid, fresh = started(customer), started(customer), started(customer)
    customer.post(path_of(paid["checkout_url"]), data={"action": "pay", "name": "Ada Lovelace",
                                                        "line1": "12 Analytical Row", "line2": "", "city": "London",
                                                        "region": "", "postal_code": "N1 1AA", "country": "GB"})
    run_jobs()
    checkout_of = {name: payment_of(o["order_id"]).provider_ref for name, o in
                   (("unpaid", unpaid), ("paid", paid), ("fresh", fresh))}
    SandboxCheckout.update(expires_at=utcnow() - timedelta(seconds=1)).where(
        SandboxCheckout.id == checkout_of["unpaid"]).execute()
    expire_sandbox_checkouts.fn()
    run_jobs()
    assert SandboxCheckout.get_by_id(checkout_of["unpaid"]).state == "expired"
    orders = {o["order_id"]: CustomerOrder.get_by_id(o["order_id"]).state for o in (unpaid, paid, fresh)}
    payments = Payment.select().count()
    # Past every checkout's day and the retention after it; `fresh` is still open (no expire
    # pass ran since) and `paid` was paid: neither ended unpaid.
    last_day_ends = max(c.expires_at for c in SandboxCheckout.select())
    clock.advance((last_day_ends - utcnow()).total_seconds(), days=SETTINGS.expired_retention_days, minutes=1)

    assert retention.prune(retention.sandbox_checkout_rules(days=SETTINGS.expired_retention_days)) == 1

    assert SandboxCheckout.get_or_none(SandboxCheckout.id == checkout_of["unpaid"]) is None
    assert SandboxNotification.select().where(SandboxNotification.checkout == checkout_of["unpaid"]).count() == 0
    assert SandboxCheckout.get_by_id(checkout_of["paid"]).state == "paid"
    assert SandboxCheckout.get_by_id(checkout_of["fresh"]).state == "open"
    assert {o: CustomerOrder.get_by_id(o).state for o in orders} == orders and orders[unpaid["order_id"]] == "expired"
    assert Payment.select().count() == payments  # money is never pruned


def test_the_job_logs_its_counts(caplog, frozen_clock):
    catalog(1)
    Hold.create(product="p00", session=_a_session(), expires_at=utcnow() - 3 * DAY)
    with caplog.at_level("INFO", logger="jobs.maintenance"):
        prune_retained.fn()
    [record] = [r for r in caplog.records if r.getMessage() == "rows past their retention pruned"]
    assert record.fields["holds"] == 1 and record.fields["jobs"] == 0


def _a_session():
    from services.sessions import open_session

    return open_session()[0]


# --- Keeping pace: a whole backlog in one run, within a time budget --------------------------------

AGED = 25_000


def _insert(model, rows, size=2000) -> None:
    from models.db import transaction

    for start in range(0, len(rows), size):
        with transaction():
            model.insert_many(rows[start:start + size]).execute()


def a_backlog_of_each_kind(count: int) -> None:
    """`count` rows of every kind the prune deletes, all long past their retention (as a busy
    deployment whose prune fell behind would have them), written as the areas write them."""
    from models.account import Account, SignInConfirmation
    from models.catalog import Product
    from models.session import Session

    long_ago = utcnow() - timedelta(days=400)
    _insert(Session, [{"token_hash": f"aged-session-{n:08d}".ljust(64, "0"), "created_at": long_ago}
                      for n in range(count)])
    sessions = [sid for (sid,) in Session.select(Session.id).where(Session.token_hash.startswith("aged-session-"))
                .order_by(Session.id).tuples()]
    _insert(Product, [{"product_id": f"aged-{n:06d}", "name": f"Aged {n}", "description": "", "category": "Home",
                       "price": 10, "cost": 5, "currency": "USD"} for n in range(count)])
    account = Account.create(email="aged@example.com", verified=True)
    _insert(Job, [{"id": f"aged{n:028d}", "kind": "store_build", "subject": f"aged:{n // 2}", "status": "done",
                   "payload": {}, "created_at": long_ago + timedelta(seconds=n), "updated_at": long_ago}
                  for n in range(2 * count)])  # two a subject: the older of each goes, the newest stays
    _insert(FunnelEvent, [{"product": "aged-000000", "visitor_session": f"v{n}", "event": "page_view",
                           "day": long_ago.date(), "created_at": long_ago} for n in range(count)])
    _insert(Presence, [{"session": sid, "area": "find", "screen": "feed", "updated_at": long_ago} for sid in sessions])
    _insert(FixRun, [{"token": f"aged-fix-{n}", "url": "https://shop.example/", "stage": "done", "pages": [],
                      "findings": [], "created_at": long_ago, "finished_at": long_ago} for n in range(count)])
    _insert(Hold, [{"product": f"aged-{n:06d}", "session": sessions[n], "expires_at": long_ago,
                    "created_at": long_ago} for n in range(count)])
    _insert(SignInToken, [{"token_hash": f"aged-token-{n:08d}".ljust(64, "0"), "account": account.id,
                           "created_at": long_ago, "expires_at": long_ago, "spent_at": long_ago}
                          for n in range(count)])
    first_token = SignInToken.select(pw.fn.MIN(SignInToken.id)).scalar()
    _insert(SignInConfirmation, [{"code_hash": f"aged-code-{n:08d}".ljust(64, "0"), "token": first_token + n,
                                  "session": sessions[n], "created_at": long_ago, "expires_at": long_ago}
                                 for n in range(count)])
    _insert(JourneyCarrier, [{"id_hash": f"aged-carrier-{n:08d}".ljust(64, "0"), "route": "#/app/home",
                              "created_at": long_ago, "expires_at": long_ago} for n in range(count)])
    _insert(SandboxCheckout, [{"id": f"cs_sbx_aged_{n}", "reference": f"aged-{n}", "amount_minor": 2500,
                               "currency": "USD", "description": "Aged", "success_url": "http://localhost/ok",
                               "cancel_url": "http://localhost/no", "state": "expired", "created_at": long_ago,
                               "expires_at": long_ago, "settled_at": long_ago} for n in range(count)])


KINDS = ("jobs", "funnel_events", "presence", "fix_runs", "holds", "sign_in", "journey_carriers", "sandbox_checkouts")


def test_a_backlog_of_25000_aged_rows_of_each_kind_is_gone_after_one_run_and_nothing_is_left():
    a_backlog_of_each_kind(AGED)
    removed = retention.apply_retention(SETTINGS)
    # Sign-in counts links and browser confirmations together.
    assert removed == {kind: 2 * AGED if kind == "sign_in" else AGED for kind in KINDS}
    assert retention.backlog() == dict.fromkeys(KINDS, 0)
    assert Job.select().count() == AGED  # the newest job of each subject stays
    for model in (FunnelEvent, Presence, FixRun, Hold, SignInToken, JourneyCarrier, SandboxCheckout):
        assert model.select().count() == 0, model


def test_a_run_stops_when_its_budget_is_spent_and_reports_what_is_left(client, frozen_clock):
    a_backlog_of_each_kind(1200)
    # No time at all: every rule still takes its one batch (500 ids; 10 for Fix runs), then the run stops.
    removed = retention.apply_retention(SETTINGS, seconds=0)
    assert removed["jobs"] == 500 and removed["holds"] == 500 and removed["fix_runs"] == 10
    left = retention.backlog()
    assert left["jobs"] == 700 and left["holds"] == 700 and left["fix_runs"] == 1190
    assert left["sign_in"] == 2 * 1200 - 2 * 500
    # The figure an operator watches says the same.
    from prometheus_client.parser import text_string_to_metric_families

    scraped = client.get("/metrics").get_data(as_text=True)
    [family] = [f for f in text_string_to_metric_families(scraped) if f.name == "ff_retention_left"]
    assert {sample.labels["kind"]: sample.value for sample in family.samples} == left
    # The next run, with its budget, catches up, and says so.
    retention.apply_retention(SETTINGS)
    assert retention.backlog() == dict.fromkeys(KINDS, 0)


def test_kinds_take_turns_so_one_large_backlog_never_starves_another(frozen_clock):
    calls = []

    class Recorded(retention.Prune):
        def batch(self):
            calls.append(self.model)
            return 1, len([c for c in calls if c is self.model]) < 3

    rules = {"a": [Recorded(Job, Job.id, Job.id.is_null(False))],
             "b": [Recorded(Hold, Hold.product, Hold.product.is_null(False))]}
    assert retention.drain(rules, seconds=60) == {"a": 3, "b": 3}
    assert calls == [Job, Hold, Job, Hold, Job, Hold]
