"""Gunicorn settings for the web process: `make run`, Procfile `web`, and the benchmarks."""
from config import settings_or_exit

_settings = settings_or_exit()

bind = f"{_settings.host}:{_settings.port}"
# Embedded mode keeps its broker in memory, so one process serves everything.
workers = 1 if _settings.embedded else _settings.web_concurrency
worker_class = "gthread"
threads = _settings.web_threads
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
