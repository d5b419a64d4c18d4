"""Dramatiq middleware: a database connection per message, and a beat when a worker boots."""
from dramatiq.middleware import Middleware

from models.db import bound_this_thread, close_connection


class DatabaseConnection(Middleware):
    """Each message gets its own connection: opened lazily by its first query, closed
    (returned to the pool on PostgreSQL) when the message is done, whatever happened. While
    it runs, each database operation waits at most `wait_seconds` (WORKER_DB_WAIT_SECONDS):
    a database that stops answering fails the message (retried as its actor says) instead of
    holding the worker thread for good."""

    def __init__(self, wait_seconds: float | None = None):
        self.wait_seconds = wait_seconds

    def before_process_message(self, broker, message):
        bound_this_thread(self.wait_seconds)

    def after_process_message(self, broker, message, *, result=None, exception=None):
        close_connection()
        bound_this_thread(None)

    def after_skip_message(self, broker, message):
        close_connection()
        bound_this_thread(None)


class BeatOnBoot(Middleware):
    """Records the worker as alive as soon as it starts, before the first heartbeat job."""

    def after_worker_boot(self, broker, worker):
        from services.health import record_worker_beat, worker_name

        try:
            record_worker_beat(worker_name())
        finally:
            close_connection()
