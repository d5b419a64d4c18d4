"""Helpers shared by the tests."""
from __future__ import annotations

import threading
import time

from models.db import close_connection, db


def in_threads(count: int, target, *args):
    """Runs `target(i, *args)` in `count` threads started together; returns the results in order."""
    barrier = threading.Barrier(count)
    results = [None] * count
    errors = []

    def run(i):
        try:
            barrier.wait(timeout=30)
            results[i] = target(i, *args)
        except BaseException as exc:  # reported below, so a failed thread fails the test
            errors.append(exc)
        finally:
            db.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results


def wait_for(predicate, timeout: float, what: str, *, every: float = 0.05, tolerate=()):
    """Polls `predicate` until it answers something true (returned), or fails after `timeout`
    seconds. An exception of a type in `tolerate` counts as "not yet" (a process still
    starting may refuse a connection or answer garbage)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except tolerate as exc:
            last = exc
        finally:
            close_connection()
        if last and not isinstance(last, BaseException):
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; last: {last!r}")
