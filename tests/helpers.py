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


def wait_for(predicate, timeout: float, what: str):
    """Polls `predicate` until it answers something true (returned), or fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        close_connection()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
