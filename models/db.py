"""The database behind a proxy: SQLite (embedded default) or PostgreSQL (pooled), by URL.

Connections are opened lazily by the first query and closed at the end of each request
(api) and each job message (worker middleware); on PostgreSQL, closing returns the
connection to the pool.
"""
from __future__ import annotations

import json
import select
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

import peewee as pw
from playhouse.pool import MaxConnectionsExceeded, PooledPostgresqlDatabase

db = pw.DatabaseProxy()

# Errors that mean "the database cannot serve this now", as opposed to a bad query: it is
# unreachable, or every pooled connection stayed busy for the whole pool timeout.
UNAVAILABLE = (pw.OperationalError, pw.InterfaceError, MaxConnectionsExceeded)


def connect_database(url: str, *, pool_size: int = 10, pool_timeout: float = 10) -> pw.Database:
    """Builds (without connecting) the database object for a URL."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        if not path.is_absolute():
            path = Path("/") / path
        path.parent.mkdir(parents=True, exist_ok=True)
        return pw.SqliteDatabase(
            str(path),
            # WAL lets readers run beside the one writer; busy_timeout makes writers wait
            # for each other instead of failing at once.
            pragmas={"journal_mode": "wal", "busy_timeout": 15000, "foreign_keys": 1, "synchronous": "normal"},
            timeout=15,
            check_same_thread=False,
        )
    parts = urlsplit(url)
    return _PooledPostgres(
        parts.path.lstrip("/") or "postgres",
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        max_connections=pool_size,
        stale_timeout=300,
        timeout=pool_timeout,  # how long a request waits for a free pooled connection
        connect_timeout=5,
    )


class _PooledPostgres(PooledPostgresqlDatabase):
    """peewee's pool, with a cheaper check of a pooled connection at checkout.

    peewee asks the server `SELECT 1` before handing out an idle connection (a round trip
    on every request). A connection the server closed (a restart, a terminated backend, a
    proxy cut) has something on its socket: the server's last message, or its end. So an
    idle connection whose socket has nothing to read is handed out as it is, and one that
    has anything goes through peewee's check as before (which sees the end and drops the
    connection, or reads what arrived). A connection lost without a word (a cable pulled)
    would hang that `SELECT 1` too; the first query meets it either way."""

    def _is_closed(self, conn):
        if not conn.closed and self._adapter.txn_status(conn) == self._adapter.txn_idle:
            try:
                poller = select.poll()
                poller.register(conn.fileno(), select.POLLIN | select.POLLPRI)
                if not poller.poll(0):
                    return False
            except Exception:  # noqa: BLE001  (no socket to look at: peewee's check decides)
                pass
        return super()._is_closed(conn)


_current_url: str | None = None


def init_db(url: str, *, pool_size: int = 10, pool_timeout: float = 10) -> pw.Database:
    """Points the proxy at the database for `url` and returns it (a no-op if it already does)."""
    global _current_url
    if db.obj is not None and url == _current_url:
        return db.obj
    if db.obj is not None and not db.obj.is_closed():
        db.obj.close()
    if isinstance(db.obj, PooledPostgresqlDatabase):
        db.obj.close_all()
    database = connect_database(url, pool_size=pool_size, pool_timeout=pool_timeout)
    db.initialize(database)
    _current_url = url
    return database


def is_sqlite() -> bool:
    return isinstance(db.obj, pw.SqliteDatabase)


def transaction():
    """A write transaction. On SQLite it takes the write lock up front (BEGIN IMMEDIATE),
    so two writers queue on busy_timeout instead of deadlocking on a lock upgrade."""
    if is_sqlite() and not db.in_transaction():
        return db.atomic("IMMEDIATE")
    return db.atomic()


def close_connection() -> None:
    if db.obj is not None and not db.is_closed():
        db.close()


def ping() -> bool:
    """True when a trivial query succeeds."""
    try:
        db.execute_sql("SELECT 1").fetchone()
        return True
    except UNAVAILABLE:
        close_connection()
        return False


def read_moment(value) -> datetime | None:
    """A datetime read back from the database: SQLite hands an aggregate's (MIN, MAX) back as
    text, which has no column type for peewee to convert by."""
    if isinstance(value, str):
        return pw.format_date_time(value, ["%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"])
    return value


class JSONField(pw.TextField):
    """JSON stored as text, so the same schema works on SQLite and PostgreSQL."""

    def db_value(self, value):
        return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)

    def python_value(self, value):
        return None if value is None else json.loads(value)


class BaseModel(pw.Model):
    class Meta:
        database = db
        legacy_table_names = False
