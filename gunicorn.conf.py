"""Gunicorn settings for the web process: `make run`, Procfile `web`, and the benchmarks."""
from config import settings_or_exit
from integrations.metrics import prepare_multiprocess_dir, process_exited, remove_multiprocess_dir

_settings = settings_or_exit()
# GET /metrics sums the figures of every worker process of this web process: each writes
# them to files in this folder, made empty now and removed at exit, and never shared with
# another instance (several `make run` side by side each have their own).
_metrics_dir = prepare_multiprocess_dir()

bind = f"{_settings.host}:{_settings.port}"
# Embedded mode keeps its broker in memory, so one process serves everything.
workers = 1 if _settings.embedded else _settings.web_concurrency
worker_class = "gthread"
threads = _settings.web_threads
# Gunicorn's default (2 s) equals a poll's pause plus its answer: a poll sent as the server
# closes the idle connection is dropped. WEB_KEEPALIVE_SECONDS outlasts the app's longest poll.
keepalive = _settings.web_keepalive_seconds
timeout = 60
graceful_timeout = 20
# Gunicorn's access log would print query strings (sign-in tokens); the app logs each
# request itself without them.
accesslog = None
errorlog = "-"


def post_worker_init(worker):
    if _settings.worker_in_process:
        from workers.embedded import start_in_process

        start_in_process(_settings)


def child_exit(server, worker):
    # A worker that exits (or is killed and replaced) stops counting in live gauges.
    process_exited(worker.pid)


def on_exit(server):
    remove_multiprocess_dir(_metrics_dir)
