"""GET /admin and GET /marketing (issue 27, point 5): HTTP Basic with ADMIN_PASSWORD in
constant time, everyone refused when it is unset, never cached, no cookie; the pages list
what the database holds, search narrows, paging pages, hostile text is escaped, and each
chart's <title> states the figures."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from html import unescape

import pytest

from config import ROOT
from models.account import Account, MeterUsage, Referral, ReferralCode
from models.clock import clock, utcnow
from models.discovery import Claim
from models.fix import FixRun
from models.funnel import FunnelEvent
from models.job import Job, WorkerBeat
from models.session import Session
from services import admin, operator_password
from services.meter import FIVE_HOURS, WEEK, window_index
from tests.conftest import SETTINGS
from tests.factories import item, load, statements
from tests.helpers import in_threads

PASSWORD = "correct horse battery"
AUTH = ("operator", PASSWORD)
HOSTILE = "<script>alert(1)</script>"
PAGES = ("/admin", "/marketing")


@pytest.fixture
def password(settings_with):
    settings_with(admin_password=PASSWORD)


def refused(response, status, reason):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    assert response.get_json()["reason"] == reason
    never_kept(response)
    return response


def never_kept(response):
    directives = {d.strip() for d in response.headers["Cache-Control"].split(",")}
    assert {"no-store", "private"} <= directives
    assert response.headers.getlist("Set-Cookie") == []
    assert response.headers["X-Frame-Options"] == "DENY"
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "script-src" not in policy


def page(client, path="/admin", **query) -> str:
    response = client.get(path, query_string=query, auth=AUTH)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/html"
    never_kept(response)
    return response.get_data(as_text=True)


def rows(html: str, table: str) -> list[str]:
    """The text of each body row of the table with that id."""
    body = re.search(rf'<table class="list" id="{table}">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    return [unescape(re.sub(r"<[^>]+>", " ", r)).split() for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def chart_title(html: str, chart: str) -> str:
    return unescape(re.search(rf'<title id="{chart}-title">(.*?)</title>', html, re.S).group(1))


# --- Who may look --------------------------------------------------------------------------

def test_everyone_is_refused_when_no_admin_password_is_set(client):
    for path in PAGES:
        for auth in (None, AUTH, ("operator", "")):
            response = refused(client.get(path, auth=auth), 403, "admin_not_configured")
            assert "WWW-Authenticate" not in response.headers


def test_no_password_or_a_wrong_one_is_refused_with_a_basic_challenge(client, password):
    for n, path in enumerate(PAGES):
        # One client address per page: together they are more tries than one client has.
        for auth in (None, ("operator", "wrong"), ("operator", PASSWORD + "x"), ("operator", PASSWORD[:-1])):
            response = refused(client.get(path, auth=auth, environ_base={"REMOTE_ADDR": f"192.0.2.{n + 1}"}), 401,
                               "admin_credentials_required")
            assert response.headers["WWW-Authenticate"].startswith("Basic ")
        bearer = client.get(path, headers={"Authorization": f"Bearer {PASSWORD}"})
        refused(bearer, 401, "admin_credentials_required")
    # The password is checked before the query is read: a bad page says nothing to a stranger.
    refused(client.get("/admin?page=abc"), 401, "admin_credentials_required")


def test_the_right_password_with_any_user_name_opens_both_pages(client, password):
    for path in PAGES:
        for user in ("operator", "", "someone else"):
            response = client.get(path, auth=(user, PASSWORD))
            assert response.status_code == 200
            never_kept(response)
            html = response.get_data(as_text=True)
            assert "<script" not in html.lower() and " style=" not in html
            assert '<link rel="stylesheet" href="/static/admin/admin.css">' in html


def test_the_pages_open_no_session(client, password):
    before = Session.select().count()
    page(client)
    page(client, "/marketing")
    assert Session.select().count() == before and client.get_cookie("ff_session") is None


# --- Wrong passwords are throttled per client (issue 44) ----------------------------------------

GUESSER = {"REMOTE_ADDR": "203.0.113.9"}
WRONG = ("operator", "wrong password guess")


def guess(client, path="/admin", auth=WRONG, environ=GUESSER, **headers):
    return client.get(path, auth=auth, environ_base=environ, headers=headers)


def used_up(client, environ=GUESSER):
    for _ in range(operator_password.FAILURES_ALLOWED):
        refused(guess(client, environ=environ), 401, "admin_credentials_required")


def throttled(response):
    refused(response, 429, "operator_password_throttled")
    assert 0 < int(response.headers["Retry-After"]) <= operator_password.WINDOW_SECONDS
    assert "WWW-Authenticate" not in response.headers
    return response


def test_past_a_few_wrong_passwords_a_client_is_refused_429_whatever_it_sends(client, password):
    used_up(client)
    for path in PAGES:
        throttled(guess(client, path))
        throttled(guess(client, path, auth=AUTH))  # the right one too: no more guessing from there
    # Its tries count on GET /metrics too, which takes the same password.
    scrape = guess(client, "/metrics", auth=AUTH)
    assert scrape.status_code == 429 and scrape.get_json()["reason"] == "operator_password_throttled"
    assert int(scrape.headers["Retry-After"]) > 0
    # Another address is not held back by it.
    assert guess(client, auth=AUTH, environ={"REMOTE_ADDR": "198.51.100.20"}).status_code == 200


def test_the_window_ends_and_the_right_password_clears_the_count(client, password, monkeypatch):
    monkeypatch.setattr(operator_password, "WINDOW_SECONDS", 1)
    used_up(client)
    throttled(guess(client, auth=AUTH))
    time.sleep(1.3)
    assert guess(client, auth=AUTH).status_code == 200
    # The operator who mistyped a few times and then got in starts again from nothing.
    monkeypatch.setattr(operator_password, "WINDOW_SECONDS", 900)
    for _ in range(2):
        for _ in range(operator_password.FAILURES_ALLOWED - 1):
            refused(guess(client), 401, "admin_credentials_required")
        assert guess(client, auth=AUTH).status_code == 200


def test_visits_without_a_password_are_not_tries(client, password):
    for _ in range(3 * operator_password.FAILURES_ALLOWED):
        refused(guess(client, auth=None), 401, "admin_credentials_required")
    assert guess(client, auth=AUTH).status_code == 200


def test_guesses_sent_all_at_once_stop_at_the_same_bound(app, password):
    answers = in_threads(12, lambda i: guess(app.test_client()).status_code)
    assert sorted(answers) == [401] * operator_password.FAILURES_ALLOWED + [429] * (
        12 - operator_password.FAILURES_ALLOWED)


def test_visitors_behind_a_proxy_on_this_host_are_counted_apart(client, password):
    front = {"REMOTE_ADDR": "127.0.0.1"}
    for _ in range(operator_password.FAILURES_ALLOWED):
        refused(guess(client, environ=front, **{"X-Forwarded-For": "203.0.113.50"}), 401, "admin_credentials_required")
    throttled(guess(client, environ=front, **{"X-Forwarded-For": "203.0.113.50"}))
    assert guess(client, auth=AUTH, environ=front, **{"X-Forwarded-For": "198.51.100.7"}).status_code == 200
    # A peer elsewhere cannot pass for someone else by writing X-Forwarded-For itself.
    used_up(client)
    throttled(guess(client, **{"X-Forwarded-For": "198.51.100.8"}))
    # An IPv6 client is counted by its /64: a guesser does not get a fresh count per address.
    for n in range(operator_password.FAILURES_ALLOWED):
        refused(guess(client, environ={"REMOTE_ADDR": f"2001:db8:1:2::{n + 1}"}), 401, "admin_credentials_required")
    throttled(guess(client, environ={"REMOTE_ADDR": "2001:db8:1:2::ff"}))


def test_wrong_passwords_are_logged_without_the_password(client, password, caplog):
    caplog.set_level(logging.INFO)
    used_up(client)
    throttled(guess(client))
    throttled(guess(client))
    refusals = [r for r in caplog.records if r.name == "operator_password"]
    assert [r.getMessage() for r in refusals] == ["operator password refused"] * operator_password.FAILURES_ALLOWED + [
        "operator password tries refused until the window ends"]
    assert all(r.fields["client"] == "203.0.113.9" and r.fields["realm"] == "admin" for r in refusals)
    assert [r.fields["tries"] for r in refusals[:-1]] == list(range(1, operator_password.FAILURES_ALLOWED + 1))
    for record in caplog.records:
        assert WRONG[1] not in str(record.getMessage()) + str(getattr(record, "fields", ""))


def test_with_redis_not_answering_tries_are_counted_in_this_process(client, settings_with, caplog):
    settings_with(admin_password=PASSWORD, redis_url="redis://127.0.0.1:1/0")  # nothing listens there
    caplog.set_level(logging.WARNING)
    used_up(client)
    throttled(guess(client, auth=AUTH))
    assert any(r.getMessage().startswith("operator password tries counted in this process") for r in caplog.records)


@pytest.mark.servers
def test_tries_made_through_another_web_process_count_here(client, password):
    """Each web process of each host counts in the same Redis key: five wrong passwords sent
    to another process leave this one refusing that client."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "DATABASE_URL": SETTINGS.database_url,
           "REDIS_URL": SETTINGS.redis_url, "SECRET_KEY": SETTINGS.secret_key, "ADMIN_PASSWORD": PASSWORD}
    script = ("from api import create_app\n"
              "client = create_app().test_client()\n"
              f"print([client.get('/admin', auth={WRONG!r}, environ_base={GUESSER!r}).status_code "
              f"for _ in range({operator_password.FAILURES_ALLOWED})])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == str([401] * operator_password.FAILURES_ALLOWED)
    throttled(guess(client, auth=AUTH))


def test_the_stylesheet_is_served(client):
    response = client.get("/static/admin/admin.css")
    assert response.status_code == 200 and ".chart" in response.get_data(as_text=True)


# --- What /admin lists ---------------------------------------------------------------------

def world():
    """An account with a hostile address, a product with a hostile name claimed by it, and jobs."""
    account = Account.create(email=f"{HOSTILE}@evil.example", tier=Account.PRO, verified=True)
    load(item("p-hostile", name=f"Knife {HOSTILE}"))
    Claim.create(product="p-hostile", account=account)
    now = utcnow()
    Job.create(id="j1", kind="build_store", subject=f"store:{HOSTILE}", status=Job.QUEUED,
               created_at=now - timedelta(minutes=10), updated_at=now)
    Job.create(id="j2", kind="build_store", subject="store:2", status=Job.QUEUED, created_at=now - timedelta(seconds=5))
    Job.create(id="j3", kind="discover", subject="d:1", status=Job.DONE, created_at=now - timedelta(hours=2))
    Job.create(id="j4", kind="discover", subject="d:2", status=Job.FAILED, error="generation_failed",
               created_at=now - timedelta(hours=3))
    Job.create(id="j5", kind="discover", subject="d:old", status=Job.DONE, created_at=now - timedelta(days=3))
    WorkerBeat.create(worker="host-a:1", seen_at=now)
    return account


def test_admin_lists_accounts_claims_jobs_and_workers_with_hostile_text_escaped(client, password):
    world()
    html = page(client)
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;@evil.example" in html
    assert "Knife &lt;script&gt;" in html
    assert rows(html, "accounts") == [[f"{HOSTILE}@evil.example", "pro", "yes", *rows(html, "accounts")[0][3:]]]
    [claim] = rows(html, "claims")
    assert claim[:3] == ["p-hostile", "Knife", HOSTILE] and f"{HOSTILE}@evil.example" in claim
    jobs = rows(html, "jobs")
    assert [j[0] for j in jobs] == ["build_store", "build_store", "discover", "discover", "discover"]
    assert jobs[3][:5] == ["discover", "d:2", "failed", "0/3", "generation_failed"]
    assert rows(html, "workers")[0][0] == "host-a:1" and rows(html, "workers")[0][-1] == "yes"
    assert re.search(r'data-state="queued">queued: 2<', html) and re.search(r'data-state="failed">failed: 1<', html)
    assert 'data-heard-from="true"' in html


def test_search_narrows_every_list(client, password):
    world()
    Account.create(email="plain@shop.example")
    by_email = page(client, q="SHOP.example")  # case-insensitive
    assert [r[0] for r in rows(by_email, "accounts")] == ["plain@shop.example"]
    assert rows(by_email, "claims") == [["None", "on", "this", "page."]]
    by_kind = page(client, q="discover")
    assert {r[0] for r in rows(by_kind, "jobs")} == {"discover"} and len(rows(by_kind, "jobs")) == 3
    assert rows(by_kind, "accounts") == [["None", "on", "this", "page."]]
    by_product = page(client, q="p-hostile")
    assert [r[0] for r in rows(by_product, "claims")] == ["p-hostile"]
    # Wildcards are taken literally; the search is echoed escaped.
    literal = page(client, q="%")
    assert rows(literal, "accounts") == [["None", "on", "this", "page."]]
    echoed = page(client, q=HOSTILE)
    assert HOSTILE not in echoed and 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in echoed
    assert len(rows(echoed, "jobs")) == 1


def test_paging_pages_each_list(client, password):
    start = utcnow() - timedelta(days=1)
    for n in range(admin.PAGE_SIZE + 3):
        Account.create(email=f"founder{n:02d}@example.com", created_at=start + timedelta(minutes=n))
    first, second, third = (page(client, page=n) for n in (1, 2, 3))
    assert len(rows(first, "accounts")) == admin.PAGE_SIZE
    assert rows(first, "accounts")[0][0] == f"founder{admin.PAGE_SIZE + 2:02d}@example.com"  # newest first
    assert [r[0] for r in rows(second, "accounts")] == ["founder02@example.com", "founder01@example.com",
                                                          "founder00@example.com"]
    assert rows(third, "accounts") == [["None", "on", "this", "page."]]
    assert "page 1 of 2" in first and 'rel="next" href="/admin?q=&amp;page=2"' in first
    assert 'rel="prev"' in second and 'rel="next"' not in second.split('data-list="accounts"')[1].split("</p>")[0]
    searched = page(client, q="founder0", page=1)
    assert "10 in all matching" in searched and len(rows(searched, "accounts")) == 10


@pytest.mark.parametrize("query, reason", [
    ({"page": "0"}, "invalid_page"), ({"page": "-1"}, "invalid_page"), ({"page": "abc"}, "invalid_page"),
    ({"page": "1.5"}, "invalid_page"), ({"page": str(admin.MAX_PAGE + 1)}, "invalid_page"),
    ({"page": "9" * 30}, "invalid_page"), ({"q": "x" * (admin.MAX_SEARCH + 1)}, "invalid_search"),
])
def test_bad_paging_and_search_values_are_400(client, password, query, reason):
    refused(client.get("/admin", query_string=query, auth=AUTH), 400, reason)


def test_the_last_allowed_page_shows_empty_lists(client, password):
    world()
    html = page(client, page=admin.MAX_PAGE)
    assert rows(html, "accounts") == [["None", "on", "this", "page."]]


def test_queries_do_not_grow_with_the_tables(client, password):
    world()
    page(client)
    with statements() as few:
        page(client)
    for n in range(3 * admin.PAGE_SIZE):
        Account.create(email=f"many{n}@example.com")
        Job.create(id=f"many{n}", kind="discover", subject=f"m:{n}", status=Job.DONE)
    with statements() as many:
        html = page(client)
    assert len(many) == len(few)
    assert len(rows(html, "accounts")) == admin.PAGE_SIZE and len(rows(html, "jobs")) == admin.PAGE_SIZE
    with statements() as marketing_few:
        page(client, "/marketing")
    FixRun.insert_many([{"token": f"t{n}", "url": "https://x.example"} for n in range(50)]).execute()
    with statements() as marketing_many:
        page(client, "/marketing")
    assert len(marketing_many) == len(marketing_few)


# --- The charts state what the database holds ------------------------------------------------

def test_admin_charts_state_the_figures(client, password):
    account = world()
    t = clock.time()
    MeterUsage.create(account=account, bucket="find", window_5h=window_index(t, FIVE_HOURS), used_5h=10,
                      window_week=window_index(t, WEEK), used_week=25)
    MeterUsage.create(account=Account.create(email="b@example.com"), bucket="ad", window_5h=0, used_5h=99,
                      window_week=0, used_week=99)  # elapsed windows read as 0
    html = page(client)
    jobs = chart_title(html, "chart-jobs")
    assert "Jobs created in the last 24 hours, by state now: queued 2, running 0, done 1, failed 1" in jobs
    ages = chart_title(html, "chart-queue-age")
    assert "under 1 min 1, 1-5 min 0, 5-15 min 1, 15-60 min 0, 1-6 h 0, 6-24 h 0, over a day 0" in ages
    assert re.search(r"oldest 60\d s$", ages)
    meter = chart_title(html, "chart-meter")
    assert "this week per meter bucket, every account: website_edit 0, growth_edit 0, find 25, ad 0" in meter
    assert "this five-hour window: website_edit 0, growth_edit 0, find 10, ad 0" in meter
    assert rows(html, "meter")[2][-3:] == ["10", "25", "1"]
    assert html.count('<svg class="chart"') == 3 and html.count('role="img"') == 3


def test_marketing_shows_referrals_the_store_funnel_and_fix_runs(client, password):
    sharer = Account.create(email="sharer@example.com")
    code = ReferralCode.create(code="abc123", account=sharer)
    for n, qualified in enumerate((True, False)):
        friend = Account.create(email=f"friend{n}@example.com")
        Referral.create(code=code, friend=friend, qualified_at=utcnow() if qualified else None)
    Session.create(token_hash="h" * 64, arrived_with_code="abc123")
    Session.create(token_hash="g" * 64, arrived_with_code="abc123")
    Session.create(token_hash="f" * 64)
    load(item("p-fun", name="Mug"))
    today = utcnow().date()
    for visitor, events in (("v1", FunnelEvent.EVENTS), ("v2", ("page_view", "add_to_cart")), ("v3", ("page_view",))):
        for event in events:
            FunnelEvent.create(product="p-fun", visitor_session=visitor, event=event, day=today)
    FunnelEvent.create(product="p-fun", visitor_session="v1", event="page_view", day=today - timedelta(days=1))
    FunnelEvent.create(product="p-fun", visitor_session="old", event="page_view", day=today - timedelta(days=40))
    FixRun.create(token="r1", url="https://a.example", stage=FixRun.DONE, score_before=40, score_after=90)
    FixRun.create(token="r2", url="https://b.example", stage=FixRun.DONE, score_before=60, score_after=80)
    FixRun.create(token="r3", url="https://c.example", stage=FixRun.FAILED, reason="store_unreachable")
    FixRun.create(token="r4", url="https://d.example", stage=FixRun.DONE, score_before=10, score_after=20,
                  created_at=utcnow() - timedelta(days=2))
    FixRun.create(token="r5", url="https://e.example", stage=FixRun.DONE, created_at=utcnow() - timedelta(days=30))
    html = page(client, "/marketing")
    assert chart_title(html, "chart-referrals") == ("Referral funnel: codes made 1, arrived by a coded link 2, "
                                                    "signed up 2, qualified 1")
    funnel = chart_title(html, "chart-store-funnel")
    assert funnel.endswith("every store: page_view 3, add_to_cart 2, checkout 1, paid 1")
    fix = chart_title(html, "chart-fix")
    assert "4 runs, 3 done, 1 failed; average score before 36.7, after 63.3" in fix
    [latest, *_rest] = rows(html, "fix")
    assert latest == [today.isoformat(), "3", "2", "1", "50.0", "85.0"]
    assert f"<title>{today.isoformat()[5:]}: done 2</title>" in html and f"{today.isoformat()[5:]}: failed 1" in html
    assert "(67% of the step before)" in html  # add_to_cart of page_view
