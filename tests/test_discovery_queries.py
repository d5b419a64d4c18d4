"""What a find or a feed costs the database, pinned: the statements one request runs,
counted by a query hook of the real database (peewee's query_hooks: every statement that
goes through Database.execute_sql), on SQLite and on PostgreSQL. A repeat feed or find of
an anonymous founder (the session holds already) takes 1: what the owner has with the
candidates, which reads the session's row again to check the one this process remembers
(api/discovery._as_remembered), while the cards and their trends read by the first are kept
(services/discovery/card_cache.py). A first feed (it mints a hold, and reads the candidates it
mints from again) takes at most 8, and none
grows with the catalog or with other founders' holds."""

import pytest

from models.compiled import GENERIC_PREFIX
from tests.factories import catalog, find, item, load, statements

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

FIRST_FEED, REPEAT_FEED = 8, 1
FIRST_FIND, REPEAT_FIND = 8, 1


def costs(client, path):
    client.get("/api/health")  # the cookie (a new session row) is issued outside the counted requests
    counted = []
    for _ in range(2):
        with statements() as seen:
            response = client.get(path)
        assert response.status_code == 200 and response.get_json(), response.get_data(as_text=True)
        counted.append(len(seen))
    return tuple(counted)  # (first, repeat)


@pytest.mark.parametrize("path, first, repeat", [("/api/feed", FIRST_FEED, REPEAT_FEED),
                                                 ("/api/find", FIRST_FIND, REPEAT_FIND)])
def test_a_feed_or_find_takes_few_statements_whatever_the_catalog(founder, path, first, repeat):
    catalog(30)
    small = costs(founder(), path)
    # A catalog ten times larger, whose best products are held by other founders: the walk
    # down the ranking steps over them, still in one statement.
    load(*[item(f"q{n:03d}", rank=2000 - n) for n in range(300)])
    for _ in range(6):
        assert find(founder()).status_code == 200
    large = costs(founder(), path)
    assert small == large
    assert small[0] <= first and small[1] == repeat, small


def test_a_repeat_feed_writes_nothing(founder):
    catalog(30)
    client = founder()
    assert client.get("/api/feed").status_code == 200
    with statements() as seen:
        assert client.get("/api/feed").status_code == 200
    # On PostgreSQL the statements built once run as EXECUTE of their prepared name.
    # (the state's EXECUTE comes after the setting of its generic plan, models/compiled.py).
    reads = ("SELECT", "EXECUTE FF_SESSION_BY_TOKEN", "EXECUTE FF_OWNER_STATE", "EXECUTE FF_CARD_EVIDENCE")
    assert all(sql.removeprefix(GENERIC_PREFIX).lstrip().upper().startswith(reads) for sql in seen), seen
