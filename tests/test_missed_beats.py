"""A worker's beats while Redis or the database is away: one is missed every second, and the
log says so when it starts, then at most once a minute with the count, and once when the
beats are recorded again (workers/worker.MissedBeats), not a line a second."""
from __future__ import annotations

import logging

from workers.worker import MISSED_BEAT_LOG_SECONDS, MissedBeats


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _lines(caplog):
    return [(r.getMessage(), r.fields) for r in caplog.records if r.name == "workers.worker"]


def test_an_outage_of_ten_minutes_logs_a_line_a_minute_with_the_count_then_one_when_back(caplog):
    caplog.set_level(logging.INFO, logger="workers.worker")
    clock = Clock()
    beats = MissedBeats("broker", clock=clock)
    for _ in range(600):  # a beat a second for ten minutes, each missed
        beats.miss(ConnectionError("Connection refused"))
        clock.now += 1
    beats.recorded()
    beats.recorded()  # beats as usual again: nothing more to say
    lines = _lines(caplog)
    warnings = [fields for message, fields in lines if message == "worker beat not recorded"]
    assert len(warnings) == 600 // int(MISSED_BEAT_LOG_SECONDS), lines
    assert warnings[0] == {"beat": "broker", "error": "ConnectionError: Connection refused", "missed": 1,
                           "missed_since_last_line": 1}
    assert warnings[1]["missed"] == 61 and warnings[1]["missed_since_last_line"] == 60
    assert sum(w["missed_since_last_line"] for w in warnings) <= 600
    assert lines[-1] == ("worker beat recorded again", {"beat": "broker", "missed": 600})
    assert [message for message, _ in lines].count("worker beat recorded again") == 1


def test_a_second_outage_is_said_at_once_again(caplog):
    caplog.set_level(logging.INFO, logger="workers.worker")
    clock = Clock()
    beats = MissedBeats("database", clock=clock)
    beats.miss(OSError("gone"))
    clock.now += 5
    beats.recorded()
    clock.now += 5  # well inside a minute of the last line
    beats.miss(OSError("gone again"))
    warnings = [fields for message, fields in _lines(caplog) if message == "worker beat not recorded"]
    assert [w["error"] for w in warnings] == ["OSError: gone", "OSError: gone again"]
    assert warnings[1]["missed"] == 1
