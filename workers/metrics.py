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
  address when METRICS_PUBLIC is true. Each deployment on a host needs its own.
- Every worker process on a host with the same port and checkout writes to one folder, and
  a thread in each tries to take the port: the one that holds it serves them all, the
  others look again every PORT_RETRY_SECONDS, so when the serving process stops (or is
  killed) another takes over. No extra process, nothing to reap.
- A process that cannot take the port asks who holds it: the server answers with a header
  naming its folder. When that is not this checkout's own (another deployment's workers on
  the same port, or any other program), this checkout's figures are served by nobody, and
  the process says so with an error naming the port; it never claims a sibling serves them.
- Each scrape first forgets the live gauges of processes that are gone (a worker killed
  without shutting down); counters of past processes stay summed in, as prometheus-client's
  multiprocess mode intends.
"""
from __future__ import annotations

import hashlib
import http.client
import logging
import os
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from dramatiq.middleware import Middleware

log = logging.getLogger("workers.metrics")

PORT_RETRY_SECONDS = 10
# The header by which the serving process names its folder (checkout and port), so another
# process that finds the port taken can tell whether its own figures are served there.
FIGURES_HEADER = "X-Worker-Figures"
HOLDER_ASK_SECONDS = 2.0


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
    handler = _naming(_forgetting_the_dead(_quiet(MetricsHandler.factory(registry)), path), path)
    told = None  # what the log last said about the holder of the port
    while not stop.is_set():
        try:
            server = ThreadingHTTPServer(address, handler)
        except OSError as exc:
            ours = _held_by_this_checkout(settings.worker_metrics_port, path)
            if ours and told != "ours":
                log.info("worker figures served by another worker process of this checkout on port %s; this one "
                         "takes over if it stops", settings.worker_metrics_port)
            elif not ours and told != "other":
                log.error("worker figures not served: WORKER_METRICS_PORT %s could not be bound (%s), and what holds "
                          "it does not serve this checkout's figures (another deployment on this host?). Give each "
                          "deployment its own WORKER_METRICS_PORT; this process tries the port again every %s s",
                          settings.worker_metrics_port, exc, PORT_RETRY_SECONDS)
            told = "ours" if ours else "other"
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


def _naming(handler_class, path: str):
    class Naming(handler_class):
        def end_headers(self):
            self.send_header(FIGURES_HEADER, os.path.basename(path))
            super().end_headers()

    return Naming


def _held_by_this_checkout(port: int, path: str) -> bool:
    """True when what holds the port on this host is a worker of this checkout serving the
    figures of this folder (it answers naming it); False for anything else, or no answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HOLDER_ASK_SECONDS)
    try:
        connection.request("GET", "/metrics")
        return connection.getresponse().getheader(FIGURES_HEADER) == os.path.basename(path)
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


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
