"""Gunicorn settings for the web process: `make run`, Procfile `web`, supervisord and systemd
`web` (deploy/), and the benchmarks."""
import logging
import sys
import threading

from gunicorn import glogging

from config import JsonLogFormatter, settings_or_exit
from integrations.metrics import prepare_multiprocess_dir, process_exited, remove_multiprocess_dir

_settings = settings_or_exit()
# GET /metrics sums the figures of every worker process of this web process: each writes
# them to files in this folder, made empty now and removed at exit, and never shared with
# another instance (several `make run` side by side each have their own).
_metrics_dir = prepare_multiprocess_dir()

# Under `make procs` the front (deploy/front.conf) takes HOST:PORT and gunicorn listens on
# 127.0.0.1:WEB_PORT behind it: deploy/supervisord.conf says so in GUNICORN_CMD_ARGS, which
# gunicorn reads after this file.
bind = f"{_settings.host}:{_settings.port}"
# Embedded mode keeps its broker in memory, so one process serves everything.
workers = 1 if _settings.embedded else _settings.web_concurrency
# The master loads the app before it binds HOST:PORT, and forks workers that have it: while
# it loads, a connection is refused (the front answers `service_restarting` at once), never
# taken and left unanswered while each worker loads the app for itself (15 s after a
# whole-stack restart). Loading opens no connection to the database or Redis (both connect
# on first use, and redis-py makes a forked child its own), and starts no thread. HUP then
# restarts the workers with the code already loaded: a new release is a restart.
preload_app = True
worker_class = "gthread"
threads = _settings.web_threads
# Gunicorn's default (2 s) equals a poll's pause plus its answer: a poll sent as the server
# closes the idle connection is dropped. WEB_KEEPALIVE_SECONDS outlasts the app's longest poll.
keepalive = _settings.web_keepalive_seconds
timeout = 60
graceful_timeout = 20
# Gunicorn's access log would print query strings (sign-in tokens); the app logs each
# request itself without them (api/http.py). accesslog = None is not enough: gunicorn turns
# its access log on whenever a logconfig_dict is given (below), so the logger class says no
# (and gunicorn then builds no access line either).
accesslog = None
errorlog = "-"


class _NoAccessLog(glogging.Logger):
    access_log_enabled = False

    def access(self, resp, req, environ, request_time):
        return None


logger_class = _NoAccessLog
# gunicorn's own lines (booting, workers started and stopped, a worker's traceback) as the
# app's are: one JSON line per event on stderr, the traceback inside it. The root handler is
# the app's (config.configure_logging finds it and adds no second one); gunicorn's loggers
# keep no handler of their own and pass their records up to it.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "config.JsonLogFormatter"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
    "root": {"level": _settings.log_level, "handlers": ["stderr"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
        # Nothing is logged there (_NoAccessLog); were it ever, it would not reach the output.
        "gunicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},
    },
}
# gunicorn 25.1+ opens a control socket at $XDG_RUNTIME_DIR/gunicorn.ctl or
# ~/.gunicorn/gunicorn.ctl: one path for every instance of a host, so a second instance
# takes it over from the first. Nothing here uses it (supervisord and systemd signal the
# master): none.
control_socket_disable = True


class _StrayLines:
    """A gunicorn worker's sys.stdout or sys.stderr: whatever is printed there outside the logs
    (gunicorn prints the error of a worker that failed to boot again after logging it with its
    traceback; Python prints warnings) comes out as one JSON line per write. The log handler
    keeps the stream it was given, so log lines never pass through here."""

    def __init__(self, stream, name: str, level: int):
        self._stream, self._name, self._level = stream, name, level
        self._formatter = JsonLogFormatter()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        line = text.rstrip("\n")
        if line.strip():
            record = logging.LogRecord(self._name, self._level, __file__, 0, line, None, None)
            with self._lock:
                self._stream.write(self._formatter.format(record) + "\n")
                self._stream.flush()
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _log_uncaught(kind, error, trace):
    # With preload_app the master loads the app, and an app that fails to load ends it with
    # an uncaught error: one JSON line with the traceback inside, as a worker's would be.
    logging.getLogger("gunicorn.error").critical("the web app could not be loaded", exc_info=(kind, error, trace))


sys.excepthook = _log_uncaught


def post_fork(server, worker):
    sys.stdout = _StrayLines(sys.stdout, "gunicorn.stdout", logging.INFO)
    sys.stderr = _StrayLines(sys.stderr, "gunicorn.stderr", logging.ERROR)


def post_worker_init(worker):
    if _settings.worker_in_process:
        from workers.embedded import start_in_process

        start_in_process(_settings)


def child_exit(server, worker):
    # A worker that exits (or is killed and replaced) stops counting in live gauges.
    process_exited(worker.pid)


def on_exit(server):
    remove_multiprocess_dir(_metrics_dir)
