"""A database that stops answering costs an error within a stated bound, never the thread
(issue 45 point 2, models/db.py). PostgreSQL is reached through a proxy the test freezes
(tests/tcp_proxy.py: connections stay open, nothing is passed on, as with a network that
drops packets or a hung server), so the machine's PostgreSQL keeps serving the rest of the
suite. The whole topology under a freeze is in tests/test_topology_faults.py."""
from __future__ import annotations

import threading
import time
from urllib.parse import urlsplit, urlunsplit

import peewee as pw
import pytest

from models.db import connect_database, waiting_at_most, without_statement_timeout
from tests.conftest import TEST_DATABASE_URL
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.servers  # PostgreSQL's own client and server settings

SLACK = 1.0  # scheduling on a busy 2-core machine


@pytest.fixture
def frozen_able():
    """A pooled database object of the service's kind, reaching PostgreSQL through a proxy."""
    parts = urlsplit(TEST_DATABASE_URL)
    with TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432) as proxy:
        url = urlunsplit(parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{proxy.port}"))
        database = connect_database(url, pool_size=4, pool_timeout=2, statement_timeout=30)
        yield database, proxy
        proxy.thaw()
        database.close_all()


def timed(call):
    started = time.monotonic()
    try:
        return call(), time.monotonic() - started
    except Exception as error:  # noqa: BLE001  (the test reads which)
        return error, time.monotonic() - started


def test_a_statement_on_a_frozen_database_fails_within_the_threads_bound_and_the_next_one_works(frozen_able):
    database, proxy = frozen_able
    with waiting_at_most(1.5):
        assert database.execute_sql("SELECT 1").fetchone() == (1,)
        assert proxy.freeze() >= 1
        error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        assert isinstance(error, pw.OperationalError) and "within 1.5 s" in str(error), error
        assert 1.5 <= took <= 1.5 + SLACK, took
        # The connection that met the freeze is closed, so the pool never hands it out again.
        database.close()
        # A new connection while frozen: its connect is bounded the same way.
        error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        assert isinstance(error, pw.OperationalError) and took <= 1.5 + SLACK, (error, took)
        database.close()
        proxy.thaw()
        assert database.execute_sql("SELECT 2").fetchone() == (2,)
        database.close()


def test_bounds_are_per_thread_and_an_unbounded_thread_waits_for_the_thaw(frozen_able):
    database, proxy = frozen_able
    database.execute_sql("SELECT 1")
    database.close()
    results = {}

    def unbounded():
        results["unbounded"] = timed(lambda: database.execute_sql("SELECT 3").fetchone())
        database.close()

    proxy.freeze()
    waiter = threading.Thread(target=unbounded)
    waiter.start()
    with waiting_at_most(1.0):
        error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
    database.close()
    assert isinstance(error, pw.OperationalError) and took <= 1.0 + SLACK, (error, took)
    time.sleep(1.0)
    assert waiter.is_alive()  # no bound: it waits, as an operator's migration would
    proxy.thaw()
    waiter.join(timeout=10)
    answer, _took = results["unbounded"]
    assert answer == (3,), answer


def test_the_server_stops_a_statement_past_the_process_bound_and_an_operators_command_has_none(frozen_able):
    database, _proxy = frozen_able
    # connect_database(statement_timeout=30) above; here one with a short server-side limit.
    parts = urlsplit(TEST_DATABASE_URL)
    short = connect_database(urlunsplit(parts), pool_size=2, pool_timeout=2, statement_timeout=0.5)
    try:
        error, took = timed(lambda: short.execute_sql("SELECT pg_sleep(3)").fetchone())
        assert isinstance(error, pw.DatabaseError) and "statement timeout" in str(error), error
        assert took < 2.5, took
        short.close()
        assert short.execute_sql("SHOW statement_timeout").fetchone() == ("500ms",)
        short.close()
    finally:
        short.close_all()
    assert database.execute_sql("SHOW statement_timeout").fetchone() == ("30s",)
    database.close()


def test_without_statement_timeout_lifts_the_servers_limit_for_the_process(monkeypatch):
    from models import db as db_module

    parts = urlsplit(TEST_DATABASE_URL)
    limited = connect_database(urlunsplit(parts), pool_size=2, pool_timeout=2, statement_timeout=0.5)
    monkeypatch.setattr(db_module.db, "obj", limited)
    try:
        assert limited.execute_sql("SHOW statement_timeout").fetchone() == ("500ms",)
        limited.close()
        without_statement_timeout()
        assert limited.execute_sql("SHOW statement_timeout").fetchone() == ("0",)
        limited.execute_sql("SELECT pg_sleep(0.8)")  # past the old limit: no error now
        limited.close()
    finally:
        limited.close_all()


def test_a_requests_waits_are_bounded_in_all_and_time_between_statements_is_not_counted(frozen_able):
    database, proxy = frozen_able
    with waiting_at_most(1.5, in_all=True):
        database.execute_sql("SELECT 1")
        time.sleep(2.0)  # a route polling a job between statements: not time spent waiting
        assert database.execute_sql("SELECT 2").fetchone() == (2,)
        proxy.freeze()
        error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        assert isinstance(error, pw.OperationalError) and took <= 1.5 + SLACK, (error, took)
        database.close()
        # The budget is spent: the next statement fails at once, not after another 1.5 s.
        error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        assert isinstance(error, pw.OperationalError) and took <= 0.5, (error, took)
        database.close()
    proxy.thaw()


def test_threads_connecting_to_a_frozen_database_each_wait_their_own_bound_not_each_others(frozen_able):
    """peewee opens a new connection holding locks every thread takes to connect and to give
    a connection back: behind a frozen database, five requests opening connections waited
    one after another (the fifth five bounds), and one that had finished could not give its
    connection back until every connect ahead of it gave up."""
    database, proxy = frozen_able
    finished_before = database.execute_sql("SELECT 1")  # a connection taken before the freeze
    assert finished_before.fetchone() == (1,)
    proxy.freeze()
    took: dict = {}

    def connect(name):
        with waiting_at_most(1.5):
            took[name] = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        database.close()

    threads = [threading.Thread(target=connect, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)  # the connects are under way
    _nothing, giving_back = timed(database.close)  # this thread's, taken before the freeze
    for thread in threads:
        thread.join(timeout=30)
    proxy.thaw()
    assert giving_back <= 0.3, giving_back
    assert len(took) == 3 and all(isinstance(error, pw.OperationalError) for error, _s in took.values()), took
    assert max(seconds for _e, seconds in took.values()) <= 1.5 + SLACK, took


def test_once_a_request_met_a_frozen_database_its_later_reads_fail_at_once(frozen_able):
    """Health pings within its own second; the request's cookie, read after, would have
    waited the rest of the request's bound on the same frozen database."""
    database, proxy = frozen_able
    proxy.freeze()
    with waiting_at_most(3.0, in_all=True):
        with waiting_at_most(1.0):
            error, took = timed(lambda: database.execute_sql("SELECT 1").fetchone())
        assert isinstance(error, pw.OperationalError) and took <= 1.0 + SLACK, (error, took)
        database.close()
        error, took = timed(lambda: database.execute_sql("SELECT 2").fetchone())
        assert isinstance(error, pw.OperationalError) and took <= 0.3, (error, took)
        database.close()
    proxy.thaw()
