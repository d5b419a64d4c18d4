"""The in-process worker and clock that `make run` starts inside the web process.

Started once per web process (gunicorn's post_worker_init hook), after the app and so the
actors are loaded. With the embedded broker, messages never leave the process, which is
why embedded mode runs a single web process.
"""
from __future__ import annotations

import atexit
import threading

_started = None


def start_in_process(settings):
    """Starts worker threads and the clock; returns a function that stops both."""
    global _started
    if _started is not None:
        return _started
    from integrations.locks import get_locks
    from workers.broker import broker
    from workers.clock import Scheduler, schedule
    from workers.worker import WorkerPool

    pool = WorkerPool(broker, settings).start()
    stop = threading.Event()
    scheduler = Scheduler(broker, schedule(settings), get_locks(settings.redis_url))
    clock_thread = threading.Thread(target=scheduler.run, args=(stop,), name="clock", daemon=True)
    clock_thread.start()

    def stop_all():
        stop.set()
        # Its messages live in this process: whatever it hands back runs at the next start.
        pool.stop(timeout_seconds=min(settings.worker_shutdown_seconds, 10))

    atexit.register(stop_all)
    _started = stop_all
    return stop_all
