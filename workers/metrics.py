"""Worker processes' own figures, through dramatiq's Prometheus middleware.

dramatiq.middleware.prometheus counts messages, errors, retries, rejects, messages in
progress and message durations per queue and actor (dramatiq_* figures), in
prometheus-client multiprocess files, and serves them from an exposition server that the
`dramatiq` command forks once per invocation.

How it is kept from breaking anything:
- It is switched on only from the process_boot hook, which only the `dramatiq` command
  emits. The web process, the clock, `make run`'s in-process worker and the tests never
  emit it, so they never load the middleware nor open its port (their jobs are measured
  from the job table on GET /metrics).
- WORKER_METRICS_PORT (default 9191, 0 = off) is the port; it binds 127.0.0.1, or every
  address when METRICS_PUBLIC is true.
- Every `dramatiq` command on a host with the same port and checkout writes to one folder,
  and whichever exposition server holds the port serves them all. The others find the port
  taken, log one line and stop; their workers carry on (dramatiq only watches its worker
  processes). So several worker commands side by side never clash.
- The exposition server that takes the port forgets the live gauges of processes that are
  gone (a worker killed without shutting down); counters of past processes stay summed in,
  as prometheus-client's multiprocess mode intends.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from http.server import ThreadingHTTPServer
from pathlib import Path

from dramatiq.middleware import Middleware

log = logging.getLogger("workers.metrics")


def worker_metrics_dir(settings) -> str:
    """The folder of this host's worker figures: one per checkout and port."""
    from config import ROOT

    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:10]
    return str(Path(tempfile.gettempdir()) / f"ff-worker-metrics-{settings.worker_metrics_port}-{checkout}")


def exposition_host(settings) -> str:
    return "0.0.0.0" if settings.metrics_public else "127.0.0.1"


class WorkerMetricsOnBoot(Middleware):
    """Adds dramatiq's Prometheus middleware to the broker when a `dramatiq` worker process
    boots (and only then)."""

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


def _prometheus_middleware():
    """dramatiq's middleware, forking our exposition server instead of its own (which would
    bind 0.0.0.0:9191 and fail loudly when the port is taken). Defined here, not at import:
    importing dramatiq's module makes its default folder."""
    from dramatiq.middleware.prometheus import Prometheus

    class WorkerPrometheus(Prometheus):
        @property
        def forks(self):
            return [serve_worker_metrics]

    return WorkerPrometheus()


def serve_worker_metrics() -> int:
    """The exposition server the `dramatiq` command forks: serves the figures of every
    worker process of this checkout on this host, on WORKER_METRICS_PORT."""
    from config import settings_or_exit
    from integrations.metrics import use_multiprocess_dir

    settings = settings_or_exit()
    path = worker_metrics_dir(settings)
    os.makedirs(path, exist_ok=True)
    use_multiprocess_dir(path)
    from prometheus_client import CollectorRegistry
    from prometheus_client.exposition import MetricsHandler
    from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=path)
    address = (exposition_host(settings), settings.worker_metrics_port)
    try:
        server = ThreadingHTTPServer(address, _quiet(MetricsHandler.factory(registry)))
    except OSError as exc:
        log.warning("worker figures not served from this process: port %s is taken (another dramatiq command of "
                    "this host serves them, or set WORKER_METRICS_PORT): %s", settings.worker_metrics_port, exc)
        return 0
    for pid in _dead_processes(path):
        mark_process_dead(pid, path)
    log.info("worker figures served on http://%s:%s/metrics", *address)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


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
