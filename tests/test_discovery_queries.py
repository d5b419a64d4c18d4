"""A repeat feed only reads: what the owner has with the candidates (the statement that checks
the session this process remembers, api/discovery._as_remembered), the session itself when it
is not remembered, and the trends of cards not kept (services/discovery/card_cache.py); it
writes nothing (no hold, seen row or milestone it recorded already). Counted by a query hook
of the real database (peewee's query_hooks: every statement that goes through
Database.execute_sql), on SQLite and on PostgreSQL. How many statements a feed or a find takes
is not pinned: tests/test_query_growth.py checks that it does not grow with the catalog, other
founders' holds or the founder's history."""

import pytest

from tests.factories import catalog, statements

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW


def test_a_repeat_feed_writes_nothing(founder):
    catalog(30)
    client = founder()
    assert client.get("/api/feed").status_code == 200
    with statements() as seen:
        assert client.get("/api/feed").status_code == 200
    assert seen and all(sql.lstrip(" (").upper().startswith("SELECT") for sql in seen), seen
