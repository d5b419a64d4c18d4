"""Prometheus plumbing: the HTTP figures, the registry a scrape reads, and multiprocess mode.

Under gunicorn the web process is several worker processes. prometheus-client's
multiprocess mode has each of them write its figures to files in one folder
(PROMETHEUS_MULTIPROC_DIR), and whichever process answers a scrape reads them all back.
gunicorn.conf.py makes a fresh folder for each web process when it starts (so instances
side by side never share or clear each other's files), forgets a dead worker's live
figures (child_exit) and removes the folder at exit. Outside gunicorn (tests, the flask
CLI) no folder is set and the figures live in this process.

prometheus-client picks its mode when it is first imported, from the environment, so this
module imports it only inside functions: gunicorn's master imports this module before it
sets the folder, and the workers it forks must not inherit a module that chose already.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's own switch, not a service setting

# Request latency buckets, in seconds: from a cached read to a slow AI-backed call.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


def prepare_multiprocess_dir() -> str:
    """Makes an empty folder for this web process's figures and switches prometheus-client
    to multiprocess mode for every process forked from here on; returns the folder."""
    path = tempfile.mkdtemp(prefix="ff-web-metrics-")
    use_multiprocess_dir(path)
    return path


def use_multiprocess_dir(path: str) -> None:
    """Points prometheus-client at a multiprocess folder (before any figure is made)."""
    os.environ[MULTIPROC_ENV] = path
    if "prometheus_client.values" in sys.modules:
        # Imported already (it chose its mode then): choose again, now that the folder is set.
        from prometheus_client import values

        values.ValueClass = values.get_value_class()


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def process_exited(pid: int) -> None:
    """Forgets the live gauges of a process that has exited (its counters stay summed in)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


def remove_multiprocess_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


class _HttpFigures:
    def __init__(self):
        from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics

        # *_created series exist only outside multiprocess mode; leave them out everywhere,
        # so tests see what a scrape of gunicorn sees.
        disable_created_metrics()
        # In multiprocess mode the figures go to files (MultiProcessCollector reads them);
        # otherwise they live in this registry of the process's own.
        self.registry = None if multiprocess_dir() else CollectorRegistry(auto_describe=True)
        self.requests = Counter("ff_http_requests_total", "HTTP requests answered, by route (the URL rule, "
                                "'unmatched' when none matched), method and status.",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("ff_http_request_duration_seconds", "Time to answer an HTTP request, by route and "
                                 "method, in seconds.", ["route", "method"], buckets=LATENCY_BUCKETS,
                                 registry=self.registry)
        # (route, method, status) -> the counter's and the histogram's series: labels() checks
        # and looks the series up under a lock on every call; the keys are bounded (URL rules,
        # the standard methods, status codes).
        self.series: dict[tuple, tuple] = {}


_http: _HttpFigures | None = None
_http_lock = threading.Lock()


def _http_figures() -> _HttpFigures:
    global _http
    if _http is None:
        with _http_lock:
            if _http is None:
                _http = _HttpFigures()
    return _http


def observe_request(*, route: str | None, method: str, status: int, seconds: float) -> None:
    """Counts one answered request and its latency. Labels stay bounded: the URL rule, never
    the raw path, and only the standard methods."""
    figures = _http_figures()
    route = route or "unmatched"
    method = method if method in _METHODS else "other"
    key = (route, method, status)
    series = figures.series.get(key)
    if series is None:
        series = figures.series[key] = (figures.requests.labels(route, method, str(status)),
                                        figures.latency.labels(route, method))
    series[0].inc()
    series[1].observe(seconds)


class _Forward:
    """Hands a registry's figures to another registry (the scrape's)."""

    def __init__(self, registry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()


def exposition(collectors=()) -> tuple[bytes, str]:
    """The Prometheus text of every process's HTTP figures and of `collectors` (read now),
    with its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    figures = _http_figures()
    # auto_describe off: registering never calls collect(), so each collector reads once.
    registry = CollectorRegistry(auto_describe=False)
    if figures.registry is None:
        MultiProcessCollector(registry)
    else:
        registry.register(_Forward(figures.registry))
    for collector in collectors:
        registry.register(collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST
