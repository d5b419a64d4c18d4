"""Helpers shared by the tests."""
from __future__ import annotations

import threading

from models.db import db


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
