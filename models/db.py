"""The database behind a proxy: SQLite (embedded default) or PostgreSQL (pooled), by URL.

Connections are opened lazily by the first query and closed at the end of each request
(api) and each job message (worker middleware); on PostgreSQL, closing returns the
connection to the pool.

Every wait on PostgreSQL is bounded, so a database that stops answering (a frozen network,
a hung server: no reset, nothing to read) costs an error, not the thread:
- each operation (connecting, every statement and its answer) waits at most the bound the
  thread works under (`waiting_at_most`: a web request DB_WAIT_SECONDS, a job message
  WORKER_DB_WAIT_SECONDS, an operator's command none). psycopg2's wait callback, its public
  hook for how the client waits, makes that deadline; past it the connection is closed (so
  the pool never hands it out again) and the statement raises OperationalError, which the
  edges answer as 503 `database_unavailable`;
- the server stops a statement past the process's bound (`statement_timeout`), and notices
  a client that went away mid-statement (`client_connection_check_interval`);
- a connection whose network is gone is found dead by TCP keepalives and `tcp_user_timeout`
  rather than by the kernel's retransmission limit (minutes);
- a request waits at most DB_POOL_TIMEOUT for a pooled connection.
"""
from __future__ import annotations

import heapq
import json
import os
import select
import socket
import threading
import time
from contextlib import contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

import peewee as pw
import psycopg2
from peewee import PostgresqlDatabase
from playhouse.pool import MaxConnectionsExceeded, PoolConnection, PooledPostgresqlDatabase
from psycopg2 import extensions

db = pw.DatabaseProxy()

# Errors that mean "the database cannot serve this now", as opposed to a bad query: it is
# unreachable, or every pooled connection stayed busy for the whole pool timeout.
UNAVAILABLE = (pw.OperationalError, pw.InterfaceError, MaxConnectionsExceeded)


# A connection gone without a word (no reset) is found dead this fast by TCP itself: probes
# after 10 s idle, every 3 s, 3 unanswered; data unacknowledged for 15 s.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3, "keepalives_count": 3,
              "tcp_user_timeout": 15_000}


def connect_database(url: str, *, pool_size: int = 10, pool_timeout: float = 10,
                     statement_timeout: float | None = None) -> pw.Database:
    """Builds (without connecting) the database object for a URL. On PostgreSQL the server
    stops any statement of its connections after `statement_timeout` seconds (None: never)."""
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
        options=_server_options(statement_timeout),
        **KEEPALIVES,
    )


def _server_options(statement_timeout: float | None) -> str:
    # The server checks every 2 s during a statement whether its client is still there, so a
    # statement whose client gave up (a deadline below) stops then, not when it would end.
    options = "-c client_connection_check_interval=2000"
    if statement_timeout:
        options += f" -c statement_timeout={int(statement_timeout * 1000)}"
    return options


# --- Bounded waits ------------------------------------------------------------------------

_bound = threading.local()


@contextmanager
def waiting_at_most(seconds: float | None, *, in_all: bool = False):
    """Within the block, this thread waits at most `seconds` for each database operation
    (None: as long as it takes). With `in_all`, the block's operations together spend at most
    that long waiting on the database (a web request: however many statements it tries, it
    waits that long at most; time between statements, such as a route polling a job, is not
    counted), and once one of them found the database not answering, the rest fail at once.
    Blocks nest, never loosening an outer whole-block limit; the outer bound comes back after."""
    before = (getattr(_bound, "seconds", None), getattr(_bound, "budget", None))
    _bound.seconds = seconds
    if in_all and seconds is not None:
        _bound.budget = seconds if before[1] is None else min(before[1], seconds)
    try:
        yield
    finally:
        _bound.seconds = before[0]
        if in_all and seconds is not None:
            # What the inner block spent waiting is spent by the outer one too.
            spent = min(before[1], seconds) - _bound.budget if before[1] is not None else 0.0
            _bound.budget = None if before[1] is None else max(0.0, before[1] - spent)


def bound_this_thread(seconds: float | None) -> None:
    """Sets this thread's bound for each operation until set again (a worker thread, message
    by message)."""
    _bound.seconds, _bound.budget = seconds, None


def current_bound() -> float | None:
    """The bound this thread works under now (None when unbounded)."""
    return getattr(_bound, "seconds", None)


def _wait_within_bound(conn) -> None:
    """psycopg2's wait callback: what libpq would block on, waited for with poll() until the
    thread's bound (and what its block may still spend waiting). Past it the connection is broken off, since it
    is in the middle of an exchange nobody can finish, and OperationalError says so."""
    seconds = current_bound()
    budget = getattr(_bound, "budget", None)  # what the block may still spend waiting, in all
    limit = seconds if budget is None else (budget if seconds is None else min(seconds, budget))
    started = time.monotonic()
    deadline = None if limit is None else started + limit
    try:
        _wait_until(conn, deadline, seconds)
    except psycopg2.OperationalError:
        if budget is not None:
            # The database did not answer: the block does not wait on it again (health's
            # tighter bound ran out; the request's cookie would otherwise wait the rest).
            _bound.budget = 0.0
        raise
    if budget is not None:
        _bound.budget = max(0.0, budget - (time.monotonic() - started))


def _wait_until(conn, deadline: float | None, seconds: float | None) -> None:
    while True:
        state = conn.poll()
        if state == extensions.POLL_OK:
            return
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            _break(conn)
            raise psycopg2.OperationalError("the database did not answer within "
                                            + (f"{seconds:g} s" if seconds is not None else "the request's time"))
        if state not in (extensions.POLL_READ, extensions.POLL_WRITE):
            raise psycopg2.OperationalError(f"unexpected state from the database connection: {state!r}")
        poller = select.poll()  # not select(): a busy process may hold descriptors past 1024
        poller.register(conn.fileno(), select.POLLIN if state == extensions.POLL_READ else select.POLLOUT)
        poller.poll(None if left is None else max(1, int(left * 1000)))


class _PooledPostgres(PooledPostgresqlDatabase):
    """peewee's pool, where no thread waits on another's new connection, with a cheaper check
    of a pooled connection at checkout.

    peewee opens a new connection while holding two locks every thread takes to connect and
    to close: the database's (`Database.connect`) and the pool's (`_connect`). Against a
    database that stops answering, each new connection holds them until its thread's bound
    runs out, so a request waited for every request ahead of it in turn (8-10 s measured with
    a 2 s bound), and a finished request could not even give its connection back. Here the
    pool's lock is held only to take an idle connection or reserve a slot for a new one, the
    connection is opened outside it, and the database's lock, which guards nothing shared
    (each thread's connection is its own, `thread_safe`; the pool guards itself), is none.

    peewee asks the server `SELECT 1` before handing out an idle connection (a round trip
    on every request). A connection the server closed (a restart, a terminated backend, a
    proxy cut) has something on its socket: the server's last message, or its end. So an
    idle connection whose socket has nothing to read is handed out as it is, and one that
    has anything goes through peewee's check as before (which sees the end and drops the
    connection, or reads what arrived). A connection lost without a word (a cable pulled)
    would hang that `SELECT 1` too; the first query meets it either way."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lock = nullcontext()
        self._opening = 0  # new connections being opened, outside the pool's lock

    def _connect(self):
        with self._pool_lock:
            while self._connections:  # the oldest idle connection that is still good
                timestamp, _counter, conn = heapq.heappop(self._connections)
                if self._is_closed(conn):
                    continue
                if self._stale_timeout and self._is_stale(timestamp):
                    self._close_raw(conn)
                    continue
                self._in_use[self.conn_key(conn)] = PoolConnection(timestamp, conn, time.time())
                return conn
            if self._max_connections and len(self._in_use) + self._opening >= self._max_connections:
                raise MaxConnectionsExceeded("Exceeded maximum connections.")
            self._opening += 1
        conn = None
        try:
            conn = PostgresqlDatabase._connect(self)  # waits within the thread's bound, lock-free
        finally:
            with self._pool_lock:
                self._opening -= 1
                if conn is not None:
                    now = time.time()
                    self._in_use[self.conn_key(conn)] = PoolConnection(now, conn, now)
                else:
                    self._pool_available.notify()  # the reserved slot is free again
        return conn

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


def _break(conn) -> None:
    """Ends a connection stuck mid-exchange. conn.close() would wait on the exchange itself,
    so the socket is shut down under it instead; the poll that follows makes psycopg2 see
    the end and mark the connection broken (`closed`), and the pool then drops it."""
    try:
        with socket.socket(fileno=os.dup(conn.fileno())) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        conn.poll()
    except psycopg2.Error:
        pass


def init_db(url: str, *, pool_size: int = 10, pool_timeout: float = 10,
            statement_timeout: float | None = None) -> pw.Database:
    """Points the proxy at the database for `url` and returns it (a no-op if it already does:
    the first caller in a process sets its pool and its statement timeout)."""
    global _current_url
    if db.obj is not None and url == _current_url:
        return db.obj
    if db.obj is not None and not db.obj.is_closed():
        db.obj.close()
    if isinstance(db.obj, PooledPostgresqlDatabase):
        db.obj.close_all()
    database = connect_database(url, pool_size=pool_size, pool_timeout=pool_timeout,
                                statement_timeout=statement_timeout)
    if isinstance(database, PooledPostgresqlDatabase):
        extensions.set_wait_callback(_wait_within_bound)
    db.initialize(database)
    _current_url = url
    return database


def without_statement_timeout() -> None:
    """For an operator's command (a migration, a catalog load): this process's connections,
    from now on, have no statement timeout and wait as long as the work takes."""
    bound_this_thread(None)
    if isinstance(db.obj, PooledPostgresqlDatabase):
        db.obj.close_all()
        db.obj.connect_params["options"] = _server_options(None)


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


class Param:
    """A named value of a statement whose SQL text is kept (`KeptSQL`), in place of its value."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def param(name: str) -> pw.Value:
    """A statement's named value (`KeptSQL`): peewee writes a placeholder for it and hands
    it back among the statement's parameters unconverted (`converter=False`, peewee's own
    way to say "no conversion"); the value given at run time goes to the driver as it is,
    as peewee would pass a datetime, a date, a number or a string."""
    return pw.Value(Param(name), converter=False)


class KeptSQL:
    """A statement whose SQL text peewee writes once per database flavour and shape, then
    only its values change: `build(*shape)` is the peewee query, written with `param(name)`
    where a value goes, and `shape` is what changes the text (an anonymous or a bound owner,
    a LIMIT, how many values a list holds).

    Why: peewee writes the SQL of a query anew every time it runs, and for the hot reads that
    costs more than PostgreSQL takes to run them (the feed's statement: 4.6 ms to write, a
    fraction of that to run; a founder's find or feed was 5-8 times the CPU of the same
    request with its text kept). SQLAlchemy keeps compiled statements for this reason;
    peewee keeps none. Only peewee's public API is used (`Query.sql`, `Value`), nothing is
    kept on a connection (no PREPARE: poolers in transaction mode are fine), and the text is
    sent with its values through `Database.execute_sql` like any statement."""

    def __init__(self, build):
        self.build = build
        self._texts: dict = {}

    def sql(self, *shape, **values) -> tuple[str, list]:
        """The SQL text and its parameters for these values (`execute_sql`'s arguments)."""
        key = (type(db.obj), shape)
        text = self._texts.get(key)
        if text is None:
            sql, params = self.build(*shape).bind(db).sql()
            text = self._texts[key] = (sql, tuple(params))
        sql, params = text
        return sql, [values[p.name] if isinstance(p, Param) else p for p in params]

    def run(self, *shape, **values):
        """Runs the statement; answers the cursor (its rows as the driver returns them)."""
        return db.execute_sql(*self.sql(*shape, **values))


def read_value(field: pw.Field, value):
    """A value read back as `field` reads its column (None stays None), for a column peewee
    does not convert by itself: a scalar subquery's, or one of a plain SELECT's."""
    return None if value is None else field.python_value(value)


def read_row(fields, row) -> list:
    """`read_value` for each column of a row; `fields` in the row's order, None for a column
    taken as it comes."""
    return [value if field is None or value is None else field.python_value(value)
            for field, value in zip(fields, row, strict=True)]


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
