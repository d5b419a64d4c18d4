"""Dramatiq middleware: a database connection per message, and a beat when a worker boots."""
from dramatiq.middleware import Middleware

from models.db import close_connection


class DatabaseConnection(Middleware):
    """Each message gets its own connection: opened lazily by its first query, closed
    (returned to the pool on PostgreSQL) when the message is done, whatever happened."""

    def after_process_message(self, broker, message, *, result=None, exception=None):
        close_connection()

    def after_skip_message(self, broker, message):
        close_connection()


class BeatOnBoot(Middleware):
    """Records the worker as alive as soon as it starts, before the first heartbeat job."""

    def after_worker_boot(self, broker, worker):
        from services.health import record_worker_beat, worker_name

        try:
            record_worker_beat(worker_name())
        finally:
            close_connection()
