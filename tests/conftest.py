"""Fixtures: the app, one client (cookie jar) per founder, a worker that runs queued jobs,
and the real PostgreSQL and Redis when TEST_DATABASE_URL / TEST_REDIS_URL are set.

The settings are installed here, at import, before anything imports the broker: Dramatiq
binds actors to the broker that exists when they are declared.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config import Settings, use_settings  # noqa: E402


def _backend_urls() -> tuple[str | None, str | None]:
    database = os.environ.get("TEST_DATABASE_URL")
    redis = os.environ.get("TEST_REDIS_URL")
    if database is None and os.environ.get("DATABASE_URL", "").startswith("postgres"):
        database = os.environ["DATABASE_URL"]
        # The suite empties the database it runs on; never one that is not a test database.
        if "test" not in urlsplit(database).path:
            sys.exit("refusing to run the tests on DATABASE_URL: its database name has no 'test' in it; "
                     "set TEST_DATABASE_URL to a throwaway database")
    if redis is None and os.environ.get("REDIS_URL"):
        redis = os.environ["REDIS_URL"]
    return database, redis


def _per_process(database: str | None, redis: str | None) -> tuple[str | None, str | None]:
    """Under pytest-xdist (`make test` runs the suite in TEST_WORKERS processes) each process
    has a database and a Redis database of its own, named after the configured ones: the
    suite empties them between tests, and one process must never empty another's. Process
    gwN takes `<database>_gwN` (created when missing) and Redis database <db> - N - 2 (the one
    just below the configured one is left to tests/test_processes.py's own processes)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return database, redis
    number = int(worker.removeprefix("gw"))
    if database:
        parts = urlsplit(database)
        database = parts._replace(path=f"{parts.path}_{worker}").geturl()
        _create_database(database)
    if redis:
        base, _, db = redis.rpartition("/")
        db = int(db or 0) - number - 2
        if db < 0:
            sys.exit(f"TEST_REDIS_URL: too few Redis databases below it for {worker}; name a higher one (15)")
        redis = f"{base}/{db}"
    return database, redis


def _create_database(url: str) -> None:
    import psycopg2

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    connection = psycopg2.connect(parts._replace(path="/postgres").geturl())
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE DATABASE "{name}"')
    finally:
        connection.close()


TEST_DATABASE_URL, TEST_REDIS_URL = _per_process(*_backend_urls())
TMP = Path(tempfile.mkdtemp(prefix="ff-tests-"))

SETTINGS = Settings(
    database_url=TEST_DATABASE_URL or f"sqlite:///{TMP / 'test.db'}",
    redis_url=TEST_REDIS_URL,
    base_url="http://localhost",
    secret_key="test-secret-key-not-for-production",
    outbox_dir=str(TMP / "outbox"),
    inbound_maildir=str(TMP / "inbound"),
    build="test",
    worker_stale_seconds=60,
    job_stale_seconds=30,
    db_pool_size=40,
    # 1000 threads of one test process share 40 connections; a real web process has a
    # few threads per process, so its requests never queue this long.
    db_pool_timeout=120,
    log_level="INFO",
    billing_webhook_secret="whsec_suite_default",
)
use_settings(SETTINGS)


def _no_outside_dns(host: str, port: int) -> list[str]:
    """The suite never reaches the internet: Fix's fetcher resolves no name unless a test
    gives it a resolver (or patches this one), so a fuzzed address fails fast as unresolvable."""
    from integrations.web import FetchRefused

    raise FetchRefused("unresolvable", host)


def _offline_fetcher() -> None:
    from integrations.web import fetch

    fetch.system_resolver = _no_outside_dns


_offline_fetcher()


def reconnect():
    """Points the database proxy at the suite's database, with the suite's pool settings."""
    from models.db import init_db

    init_db(SETTINGS.database_url, pool_size=SETTINGS.db_pool_size, pool_timeout=SETTINGS.db_pool_timeout)


def _reset_backends():
    """Starts the run from empty backends: the schema rebuilt by the real migrations."""
    from models.db import db, is_sqlite

    reconnect()
    if not is_sqlite():
        db.execute_sql("DROP SCHEMA public CASCADE")
        db.execute_sql("CREATE SCHEMA public")
        # A test database need not wait for its WAL to reach the disk at each commit (a crash
        # of the server would lose the last commits, not corrupt anything): the many small
        # commits of the suite, and of the processes it starts (new connections read this),
        # take a thirtieth of the time.
        db.execute_sql(f'ALTER DATABASE "{db.connection().info.dbname}" SET synchronous_commit = off')
    if TEST_REDIS_URL:
        import redis

        redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    from models.migrate import upgrade

    upgrade()
    db.close()


_reset_backends()

from api import create_app  # noqa: E402
from models import ALL_MODELS  # noqa: E402
from models.clock import clock  # noqa: E402
from models.db import db, is_sqlite  # noqa: E402

# Markers whose tests run in one pass of .ci/run only; the other pass deselects them.
ONE_PASS_MARKERS = {"race": "postgresql", "faults": "postgresql", "servers": "postgresql", "browser": "embedded"}


def pytest_collection_modifyitems(config, items):
    """Some tests run in one pass only, and the other pass deselects them:

    - The slowest race tests (marked `race`: a thousand founders racing) run in the
      PostgreSQL pass only: that is where the database really settles concurrent writers
      (SQLite queues every writer on one lock, so the race cannot be lost there anyway).
    - The fault tests (marked `faults`: the production processes under their supervisor,
      with workers killed and stopped and Redis taken away) run in the PostgreSQL pass
      only: the topology they test is PostgreSQL and Redis.
    - The tests of what only the servers have (marked `servers`: PostgreSQL's own SQL and
      plans, a second process sharing one Redis) run in the PostgreSQL and Redis pass,
      deselected rather than skipped in the embedded one.
    - The browser tests (marked `browser`: every test under tests/browser/) run in the
      embedded pass only: they check what Chromium makes of the app (its modules, styles,
      content security policy, accessibility); the API behind it is tested in both passes
      by the rest of the suite, so a second browser run would only cost time.
    """
    this_pass = "postgresql" if TEST_DATABASE_URL else "embedded"
    elsewhere = [marker for marker, run_in in ONE_PASS_MARKERS.items() if run_in != this_pass]
    kept = [item for item in items if not any(item.get_closest_marker(marker) for marker in elsewhere)]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


@pytest.fixture(scope="session")
def app():
    return create_app(SETTINGS)


@pytest.fixture(scope="session")
def broker(app):
    from workers.broker import broker as the_broker

    return the_broker


_WORKERS = []


@pytest.fixture(scope="session")
def worker(broker):
    """A real Dramatiq worker (threads in this process) on the configured broker."""
    import dramatiq
    import dramatiq.worker

    # Pausing the worker (held_worker) stops its consumer, which Dramatiq then restarts after
    # its connection-error delay, 3 s: every held test paid it. This process's worker only.
    dramatiq.worker.CONSUMER_RESTART_DELAY_SECS = 0.05
    running = dramatiq.Worker(broker, worker_threads=8, worker_timeout=50)
    running.start()
    _WORKERS.append(running)
    yield running
    _WORKERS.remove(running)
    running.stop(timeout=10_000)


@pytest.fixture
def run_jobs(broker, worker):
    """Call it to wait until every job message has been processed: both brokers' join
    counts delayed and in-flight messages, and messages that jobs send meanwhile."""

    def drain(timeout_ms: int = 30_000):
        from workers.broker import QUEUES

        for queue in QUEUES:
            broker.join(queue, timeout=timeout_ms)
        worker.join()

    return drain


@pytest.fixture
def founder(app):
    """Makes a new founder: a test client with its own cookie jar."""

    def make():
        return app.test_client()

    return make


@pytest.fixture
def signed_in(founder, run_jobs):
    """Makes a founder signed in to an address: saved, and the mailed link opened in the
    same browser (which asked for it, so it signs in at once)."""

    def make(email):
        from tests.mailbox import sign_in_here

        browser = founder()
        sign_in_here(browser, run_jobs, email)
        return browser

    return make


@pytest.fixture
def client(founder):
    return founder()


@pytest.fixture(autouse=True)
def clean_state(request):
    """Each test starts with empty tables, a real clock and no leftover messages."""
    yield
    clock.reset()
    if _WORKERS:
        # Once the worker runs, any test may have sent jobs (a route that mails, say): let
        # queued and running ones finish before their rows are emptied under them.
        from workers.broker import QUEUES
        from workers.broker import broker as the_broker

        for queue in QUEUES:
            the_broker.join(queue, timeout=60_000)
        _WORKERS[0].join()
    _truncate()
    # Publishing keeps each store's current version in Redis or this process
    # (services/store/published.py); the tables were just emptied behind its back.
    from services.store import published

    published.forget_all()
    # So are the maps kept between requests (services/kept.py): kept cards and sessions are
    # keyed by ids and values that the next test's rows may repeat.
    from services import kept

    kept.forget_all()
    # Wrong admin passwords are counted per client address (in Redis, which outlives a test,
    # or this process), and every test client is 127.0.0.1.
    from services import operator_password

    operator_password.forget_all()
    shutil.rmtree(SETTINGS.outbox_dir, ignore_errors=True)
    shutil.rmtree(SETTINGS.inbound_maildir, ignore_errors=True)


def _truncate():
    """Empties every table, dependents first, and starts ids from 1 again.

    DELETE rather than PostgreSQL's TRUNCATE: a test leaves a handful of rows, and a
    TRUNCATE of the 68 tables costs about 0.1 s whatever they hold (new files for each),
    which was five minutes of the PostgreSQL pass; DELETE of near-empty tables takes 4 ms.
    Only the sequences a test drew from are restarted (pg_sequences shows NULL otherwise)."""
    reconnect()
    tables = [m._meta.table_name for m in ALL_MODELS]
    with db.atomic():
        for table in reversed(tables):
            db.execute_sql(f'DELETE FROM "{table}"')
        if not is_sqlite():
            db.execute_sql(
                "SELECT setval(quote_ident(schemaname) || '.' || quote_ident(sequencename), 1, false) "
                "FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL")
    db.close()
    if not is_sqlite():
        # A test whose threads raced took up to db_pool_size connections, which the pool keeps
        # open when idle; with the suite in several processes beside the production processes
        # that fault tests start, they would use up PostgreSQL's max_connections (100). The
        # next test opens what it needs again (a few ms).
        db.obj.close_idle()



_SANDBOX_DELIVERIES: list = []


@pytest.fixture(scope="session", autouse=True)
def sandbox_wired(app):
    """The sandbox payment provider delivers its notifications over HTTP to BASE_URL; the
    suite's BASE_URL (http://localhost) has no server, so notifications to it go through the
    app's WSGI interface instead: the same request, without a socket. It runs in a thread
    of its own, as a request from outside would (the job that sends it keeps its own
    database connection). Wired for the whole session, so a delivery that runs after its
    test ended still arrives; a live server's own BASE_URL (browser tests) gets real HTTP."""
    import threading
    from urllib.parse import urlsplit

    from integrations.payments import sandbox_bank

    saved = sandbox_bank.transport

    def through_the_app(url, body, headers, timeout):
        if not url.startswith(SETTINGS.base_url + "/"):
            return saved(url, body, headers, timeout)
        answer = {}

        def post():
            response = app.test_client().post(urlsplit(url).path, data=body, headers=headers)
            answer["status"] = response.status_code

        thread = threading.Thread(target=post)
        thread.start()
        thread.join(timeout)
        _SANDBOX_DELIVERIES.append((url, body, answer.get("status")))
        if "status" not in answer:
            raise sandbox_bank.ProviderUnavailable("the notification route did not answer in time")
        return answer["status"]

    sandbox_bank.transport = through_the_app
    yield
    sandbox_bank.transport = saved


@pytest.fixture
def sandbox_wire():
    """The sandbox notifications delivered during this test: (url, body, status)."""
    _SANDBOX_DELIVERIES.clear()
    return _SANDBOX_DELIVERIES


# --- Fixtures more than one test module asks for --------------------------------------------

@pytest.fixture
def frozen_clock():
    """The clock stopped at tests.factories.NOW, the day catalog lines date their evidence
    from. A module whose every test lives on that day says so once:
    `pytestmark = pytest.mark.usefixtures("frozen_clock")`."""
    from tests.factories import NOW

    clock.freeze(NOW)
    yield


@pytest.fixture
def jobs_drained(run_jobs):
    """For tests whose requests send jobs (the sign-in mail of POST /api/account): they
    finish before the tables are emptied for the next test."""
    yield
    run_jobs()


@pytest.fixture
def settings_with():
    """Installs settings with some changes for the test (the worker threads read them too)."""

    def change(**changes):
        use_settings(SETTINGS.but(**changes))

    yield change
    use_settings(SETTINGS)


@pytest.fixture
def held_worker(worker):
    """The worker, paused: jobs stay queued until `resume()` is called."""
    worker.pause()
    yield worker
    worker.resume()


@pytest.fixture
def shop(founder, run_jobs):
    """A founder whose store (product p00) is built and published."""
    from tests.factories import published_store

    return published_store(founder, run_jobs)


@pytest.fixture
def smtp_server():
    """Starts aiosmtpd on 127.0.0.1 with the given handler; returns the port."""
    from aiosmtpd.controller import Controller

    from tests.redis_server import free_port

    started = []

    def start(handler, **options):
        controller = Controller(handler, hostname="127.0.0.1", port=free_port(), ready_timeout=10, **options)
        controller.start()
        started.append(controller)
        return controller

    yield start
    for controller in started:
        if not controller.loop.is_closed():  # a test may have stopped it already
            controller.stop(no_assert=True)


@pytest.fixture
def chat():
    """A chat-completions server on loopback (tests/ai_factories.ChatServer), stopped afterwards."""
    from tests.ai_factories import ChatServer

    server = ChatServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
