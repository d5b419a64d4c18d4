"""The meter's refusal says when a window resets in words (issue 47.6): how long from now and the
moment as every text of the service writes one ("22 November 2026, 17:00 UTC"), never a raw ISO timestamp."""
import re

import pytest

from models.clock import clock
from services.meter import resets_in_words
from tests.factories import catalog
from tests.metered_accounts import bind, make_account

FIVE_HOURS = 18_000
B = FIVE_HOURS * 100_000  # a five-hour boundary, as tests/test_meter.py uses
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def test_the_find_meters_refusal_says_when_it_resets_in_words(client):
    clock.freeze(B + 3_600 + 30)  # an hour and a half minute into the window
    catalog(2)
    bind(client, make_account())
    for _ in range(10):  # a free account's 50 find credits, 5 a find
        assert client.get("/api/find").status_code == 200
    refused = client.get("/api/find")
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["resets_at"] == B + FIVE_HOURS
    # 3 hours 59 minutes 30 seconds, rounded up to the minute.
    assert "It resets in 4 hours (15 January 2027, 13:00 UTC); " in body["explanation"], body["explanation"]
    assert not ISO.search(body["explanation"]), body["explanation"]


@pytest.mark.parametrize(("seconds", "words"), [
    (30, "in 1 minute"),
    (60 * 60, "in 1 hour"),
    (2 * 3600 + 5 * 60, "in 2 hours and 5 minutes"),
    (3 * 86400 + 4 * 3600 + 7 * 60, "in 3 days and 4 hours"),
])
def test_resets_in_words_rounds_up_and_names_the_moment_in_utc(seconds, words):
    until = 1_796_472_000  # 2026-12-05 12:00:00 UTC
    assert resets_in_words(until, until - seconds) == f"{words} (5 December 2026, 12:00 UTC)"
