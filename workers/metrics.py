"""Worker processes' own figures, through dramatiq's Prometheus middleware.

dramatiq.middleware.prometheus counts messages, errors, retries, rejects, messages in
progress and message durations per queue and actor (dramatiq_* figures), in
prometheus-client multiprocess files. Here, one worker process per host serves the
figures of all of them.

How it is kept from breaking anything:
- It is switched on only from the process_boot hook, which only a worker process
  (workers/worker.py) emits. The web process, the clock, `make run`'s in-process worker and
  the tests never emit it, so they never load the middleware nor open its port (their jobs
  are measured from the job table on GET /metrics).
- WORKER_METRICS_PORT (default 9191, 0 = off) is the port; it binds 127.0.0.1, or every
  address when METRICS_PUBLIC is true.
- Every worker process on a host with the same port and checkout writes to one folder, and
  a thread in each tries to take the port: the one that holds it serves them all, the
  others look again every PORT_RETRY_SECONDS, so when the serving process stops (or is
  killed) another takes over. No extra process, nothing to reap.
- Each scrape first forgets the live gauges of processes that are gone (a worker killed
  without shutting down); counters of past processes stay summed in, as prometheus-client's
  multiprocess mode intends.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from dramatiq.middleware import Middleware

log = logging.getLogger("workers.metrics")

PORT_RETRY_SECONDS = 10


def worker_metrics_dir(settings) -> str:
    """The folder of this host's worker figures: one per checkout and port."""
    from config import ROOT

    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:10]
    return str(Path(tempfile.gettempdir()) / f"ff-worker-metrics-{settings.worker_metrics_port}-{checkout}")


def exposition_host(settings) -> str:
    return "0.0.0.0" if settings.metrics_public else "127.0.0.1"


class WorkerMetricsOnBoot(Middleware):
    """Adds dramatiq's Prometheus middleware to the broker when a worker process boots (and
    only then), and starts this process's try at serving the host's figures."""

    def __init__(self, settings):
        self.settings = settings

    def after_process_boot(self, broker):
        if not self.settings.worker_metrics_port:
            return
        from integrations.metrics import use_multiprocess_dir

        path = worker_metrics_dir(self.settings)
        os.makedirs(path, exist_ok=True)
        # Before dramatiq's middleware first imports prometheus-client in this process.
        use_multiprocess_dir(path)
        from dramatiq.middleware import prometheus as dramatiq_prometheus

        # dramatiq takes its folder from this module global (its dramatiq_prom_db variable,
        # read at import); its own boot hook then points prometheus-client at it.
        dramatiq_prometheus.DB_PATH = path
        middleware = _prometheus_middleware()
        middleware.after_process_boot(broker)  # this boot is under way: run its hook by hand
        broker.add_middleware(middleware)
        threading.Thread(target=serve_worker_metrics, args=(self.settings,), name="worker-metrics",
                         daemon=True).start()


def _prometheus_middleware():
    """dramatiq's middleware without its exposition process (it would bind 0.0.0.0:9191 and
    fail loudly when the port is taken): serve_worker_metrics serves instead. Defined here,
    not at import: importing dramatiq's module makes its default folder."""
    from dramatiq.middleware.prometheus import Prometheus

    class WorkerPrometheus(Prometheus):
        @property
        def forks(self):
            return []

    return WorkerPrometheus()


def serve_worker_metrics(settings, *, stop: threading.Event | None = None) -> None:
    """Serves the figures of every worker process of this checkout on this host on
    WORKER_METRICS_PORT, once this process gets the port (another may hold it: it looks
    again every PORT_RETRY_SECONDS). Runs until the process ends (or `stop` is set)."""
    from integrations.metrics import use_multiprocess_dir

    stop = stop or threading.Event()
    path = worker_metrics_dir(settings)
    os.makedirs(path, exist_ok=True)
    use_multiprocess_dir(path)
    from prometheus_client import CollectorRegistry
    from prometheus_client.exposition import MetricsHandler
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=path)
    address = (exposition_host(settings), settings.worker_metrics_port)
    told = False
    while not stop.is_set():
        try:
            server = ThreadingHTTPServer(address, _forgetting_the_dead(_quiet(MetricsHandler.factory(registry)), path))
        except OSError as exc:
            if not told:
                log.info("worker figures served by another process of this host (port %s taken: %s); this one "
                         "takes over if it stops", settings.worker_metrics_port, exc)
                told = True
            stop.wait(PORT_RETRY_SECONDS)
            continue
        log.info("worker figures served on http://%s:%s/metrics", *address)
        watcher = threading.Thread(target=lambda server=server: (stop.wait(), server.shutdown()), daemon=True)
        watcher.start()
        try:
            server.serve_forever()
        finally:
            server.server_close()
        return


def _forgetting_the_dead(handler_class, path: str):
    from prometheus_client.multiprocess import mark_process_dead

    class Forgetting(handler_class):
        def do_GET(self):
            for pid in _dead_processes(path):
                mark_process_dead(pid, path)
            super().do_GET()

    return Forgetting


def _quiet(handler_class):
    class Quiet(handler_class):
        def log_message(self, format, *args):  # noqa: A002  (the stdlib's name)
            pass  # one line per scrape on stderr helps nobody

    return Quiet


def _dead_processes(path: str) -> set[int]:
    """Processes that left figure files (named <kind>_<pid>.db) and no longer run."""
    dead = set()
    for name in os.listdir(path):
        stem, _, pid = name.removesuffix(".db").rpartition("_")
        if not stem or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            dead.add(int(pid))
        except PermissionError:
            pass  # alive, someone else's
    return dead
