"""The PostgreSQL pool's checkout (models/db.py): an idle pooled connection is handed out
without a round trip, and one the server closed is still dropped and replaced, as peewee's
own `SELECT 1` check did."""
import time

import pytest

from models.db import connect_database, db, is_sqlite
from tests.conftest import TEST_DATABASE_URL

pytestmark = pytest.mark.servers  # the pool is PostgreSQL's: runs in CI's PostgreSQL pass


@pytest.fixture
def pool(monkeypatch):
    assert not is_sqlite(), "a `servers` test: run it against PostgreSQL (TEST_DATABASE_URL)"
    database = connect_database(TEST_DATABASE_URL, pool_size=2, pool_timeout=5)
    checks = []
    adapter = database._adapter
    original = adapter.is_connection_closed
    monkeypatch.setattr(adapter, "is_connection_closed", lambda conn: checks.append(1) or original(conn))
    yield database, checks
    database.close_all()


def _backend(database) -> int:
    database.connect(reuse_if_open=True)
    try:
        return database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
    finally:
        database.close()  # back to the pool


def test_an_idle_pooled_connection_is_reused_without_a_round_trip(pool):
    database, checks = pool
    first = _backend(database)
    assert [_backend(database) for _ in range(3)] == [first] * 3
    assert checks == []  # no SELECT 1 for a connection with nothing on its socket


def test_a_connection_the_server_closed_is_dropped_at_checkout(pool):
    database, checks = pool
    first = _backend(database)
    db.execute_sql("SELECT pg_terminate_backend(%s)", (first,))
    deadline = time.monotonic() + 5
    while db.execute_sql("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (first,)).fetchone()[0]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    second = _backend(database)  # no error: the dead connection was seen and replaced
    assert second != first
    assert checks  # what was on the socket sent it through peewee's check
