"""Statements built once: a peewee query written with named parameters (`Param`) is turned
into SQL text the first time it runs on a database; after that only values travel.

Why: building the SQL of a query in peewee costs more than PostgreSQL takes to run a short
indexed one, and a few reads run on every request (the session lookup, discovery's read
of what an owner has, the feed's candidates). The peewee expression stays the one
definition of each statement; its text is cached per database flavour and per shape (the
arguments of the builder, for what changes the text: an anonymous or a bound owner, a
LIMIT, the length of a list).

On PostgreSQL the text is also prepared on the server, once per pooled connection
(PREPARE, then EXECUTE with the values), so the planner does not plan the same statement
on every request (the feed's candidates took ~2 ms to plan). A prepared statement lives as
long as its connection, survives a rollback, and a new connection prepares it again on
first use. PREPARE goes to the server directly, as peewee sends BEGIN and COMMIT, so
`Database.execute_sql` sees exactly one statement per run (the query counts of the tests
and of bench/feed_bench.py are counted there).
"""
from __future__ import annotations

import hashlib
import threading
import weakref
from collections import namedtuple

import peewee as pw

from models.db import db, transaction


class Param(pw.Node):
    """A named parameter of a statement. Its value, given when the statement runs, is
    converted as peewee would convert a value in its place (by the field it meets)."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def __sql__(self, ctx):
        ctx._values.append(_Slot(self.name, ctx.state.converter))
        return ctx.literal(ctx.state.param or "?")


class _Slot:
    __slots__ = ("name", "converter")

    def __init__(self, name, converter):
        self.name = name
        self.converter = converter


# What a statement marked `generic` sends before its EXECUTE, in the same message: the
# message is one implicit transaction, so the setting holds for that EXECUTE (and the rest
# of a transaction it runs in) and is gone after.
GENERIC_PREFIX = "SET LOCAL plan_cache_mode = force_generic_plan; "


class _Text:
    """One statement compiled for one database flavour and shape."""

    def __init__(self, label: str, query, database, generic: bool = False):
        sql, values = database.get_sql_context().sql(query).query()
        self.sql = sql
        self.slots = [v if isinstance(v, _Slot) else _Slot(None, lambda _v, fixed=v: fixed) for v in values]
        names, self.decoders = _columns(query)
        self._ranges: dict = {}
        self.row = namedtuple(f"{label.title().replace('_', '')}Row", names)
        self.prepared = None
        if isinstance(database, pw.PostgresqlDatabase) and "%" not in sql.replace("%s", ""):
            # Whole numbers fixed in the query (LIMIT 11) are written into the prepared text,
            # so the plan kept for it knows them; everything else is a $n parameter. A named
            # value used in several places, converted the same way in each, is one parameter:
            # each travels as a literal of the EXECUTE, which the driver quotes and the server
            # parses (the feed's statement named 11 values in 43 places).
            pieces, kept, numbered, numbers = sql.split("%s"), [], [], {}
            # The last piece (after the last %s) has no value: zip leaves it out.
            for piece, value, slot in zip(pieces, values, self.slots, strict=False):
                if slot.name is None and type(value) is int:
                    numbered.append(piece + str(value))
                    continue
                # An unnamed value (fixed in the query) is a parameter of its own.
                same = (slot.name, _conversion(slot.converter)) if slot.name is not None else object()
                if same not in numbers:
                    kept.append(slot)
                    numbers[same] = len(kept)
                numbered.append(piece + f"${numbers[same]}")
            numbered.append(pieces[-1])
            prepared_text = "".join(numbered)
            self.prepared = f"ff_{label}_{hashlib.sha1(prepared_text.encode()).hexdigest()[:12]}"
            self.prepare_sql = f"PREPARE {self.prepared} AS {prepared_text}"
            marks = ", ".join(["%s"] * len(kept))
            self.execute_sql = f"EXECUTE {self.prepared} ({marks})" if kept else f"EXECUTE {self.prepared}"
            if generic:
                self.execute_sql = GENERIC_PREFIX + self.execute_sql
            self.execute_slots = kept

    def decode(self, raw, start: int = 0, stop: int | None = None) -> list:
        """Columns `start` to `stop` of a row, each read back as peewee reads its field.

        A driver hands back one type per column, so a column whose field leaves the value
        as it is (the very same object: a string, a number, a date on PostgreSQL) is not
        passed through its field again for this statement."""
        key = (start, stop)
        decoding = self._ranges.get(key)
        if decoding is None:
            end = len(self.decoders) if stop is None else stop
            decoding = self._ranges[key] = tuple((i - start, d) for i, d in enumerate(self.decoders)
                                                 if d is not None and start <= i < end)
        values = list(raw[start:stop])
        unchanged = None
        for index, decode in decoding:
            value = values[index]
            if value is not None:
                values[index] = decode(value)
                if values[index] is value:
                    unchanged = (unchanged or set()) | {index}
        if unchanged:  # a new tuple, so a thread reading the old one is undisturbed
            self._ranges[key] = tuple(item for item in decoding if item[0] not in unchanged)
        return values

    def params(self, values: dict, slots=None) -> list:
        out = []
        for slot in self.slots if slots is None else slots:
            value = values[slot.name] if slot.name is not None else None
            out.append(slot.converter(value) if slot.converter else value)
        return out


def _conversion(converter):
    """What a parameter's value goes through (peewee sets the db_value of the field it meets):
    two places may share a parameter only when this is equal. A field's db_value depends on
    its class, and for some on a setting of the field (a decimal's places and rounding); a
    foreign key converts as the field it points to."""
    field = getattr(converter, "__self__", None)
    if not isinstance(field, pw.Field):
        return converter
    if isinstance(field, pw.ForeignKeyField):
        return ("foreign key", _conversion(field.rel_field.db_value))
    return (type(field), converter.__func__, getattr(field, "decimal_places", None), getattr(field, "auto_round", None),
            getattr(field, "rounding", None))


def _columns(query) -> tuple[list[str], list]:
    """The names (aliases) of a query's columns, and how to read each back (a field's
    python_value, or None for a value taken as it comes)."""
    names, decoders = [], []
    for node in query._returning or ():
        if isinstance(node, pw.Alias):
            name, inner = node._alias, node.node
        elif isinstance(node, pw.SelectQuery):
            name, inner = node._alias, node
        else:
            name, inner = getattr(node, "name", None), node
        if not name:
            raise ValueError(f"column {node!r} of a compiled statement needs an alias")
        names.append(name)
        field = _field_of(inner)
        decoders.append(field.python_value if field is not None else None)
    return names, decoders


def _field_of(node):
    """The model field a column reads, if any: the field itself (aliased or not), the one
    column of a scalar subquery, or what a derived table's column reads."""
    if isinstance(node, pw.Alias):
        return _field_of(node.node)
    if isinstance(node, pw.SelectQuery):
        return _field_of(node._returning[0]) if len(node._returning) == 1 else None
    if isinstance(node, pw.Column) and isinstance(node.source, pw.SelectQuery):
        named = {(c._alias if isinstance(c, (pw.Alias, pw.SelectQuery)) else getattr(c, "column_name", None)): c
                 for c in node.source._returning}
        return _field_of(named[node.name]) if node.name in named else None
    return node if isinstance(node, pw.Field) else None


_prepared: weakref.WeakKeyDictionary[object, set[str]] = weakref.WeakKeyDictionary()
_prepared_lock = threading.Lock()


class Statement:
    """A statement built by `build(*shape)` (a peewee query using `Param`s), compiled on
    first use per database flavour and shape. `rows(*shape, **values)` runs a read and
    returns named tuples with each column read back as peewee would read that field;
    `execute(*shape, **values)` runs a write and returns its row count."""

    def __init__(self, label: str, build, *, generic: bool = False):
        self.label = label
        self.build = build
        # PostgreSQL plans a prepared statement afresh for each of its first five runs on a
        # connection, then keeps the generic plan only when it costs no more than those custom
        # plans did; otherwise it plans every run anew, for good. Statements with many
        # parameters and a ranking walk (find's and feed's) fell into that on some pooled
        # connections: the feed's candidates took twice the server's time.
        # `generic`: always the generic plan (GENERIC_PREFIX).
        self.generic = generic
        self._texts: dict = {}

    def text(self, *shape) -> _Text:
        database = db.obj
        key = (type(database), shape)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = _Text(self.label, self.build(*shape), database, self.generic)
        return text

    def sql(self, *shape) -> str:
        """The SQL text for a shape (for tests and for reading)."""
        return self.text(*shape).sql

    def rows(self, *shape, **values) -> list:
        text = self.text(*shape)
        make, decode = text.row._make, text.decode
        return [make(decode(raw)) for raw in self._run(text, values).fetchall()]

    def raw(self, *shape, **values) -> tuple[_Text, list]:
        """The rows as the driver returns them, with the compiled text: `text.decode(row,
        start, stop)` reads back the columns from `start` to `stop` (a statement whose rows
        repeat some columns decodes those once)."""
        text = self.text(*shape)
        return text, self._run(text, values).fetchall()

    def first(self, *shape, **values):
        found = self.rows(*shape, **values)
        return found[0] if found else None

    def execute(self, *shape, **values) -> int:
        """Runs a statement that answers no rows (an INSERT, say); returns its row count."""
        return self._run(self.text(*shape), values).rowcount

    def _run(self, text: _Text, values: dict):
        database = db.obj
        if text.prepared is not None:
            params = text.params(values, text.execute_slots)
            connection = _prepare(database, text)
            try:
                cursor = db.execute_sql(text.execute_sql, params)
            except pw.DatabaseError as exc:
                if getattr(getattr(exc, "orig", None), "pgcode", None) != "26000":
                    raise
                # The server no longer has it (the session was reset under the pool): prepare
                # again. Inside a transaction the failure has aborted it, so it is raised.
                _forget(connection)
                if db.in_transaction():
                    raise
                _prepare(database, text)
                cursor = db.execute_sql(text.execute_sql, params)
            return cursor
        return db.execute_sql(text.sql, text.params(values))


def _prepare(database, text: _Text):
    connection = database.connection()
    names = _prepared.get(connection)
    if names is not None and text.prepared in names:
        return connection
    with pw.__exception_wrapper__:
        database.cursor().execute(text.prepare_sql)
    with _prepared_lock:
        _prepared.setdefault(connection, set()).add(text.prepared)
    return connection


def _forget(connection) -> None:
    with _prepared_lock:
        _prepared.pop(connection, None)


def loaded(model, values: dict):
    """A model instance from a statement's row (`values`, its fields by name), as peewee leaves
    a row it loaded itself: no defaults filled in, nothing marked dirty."""
    instance = model(__no_default__=1, **values)
    instance._dirty.clear()
    return instance


def execute_together(*runs) -> int:
    """Runs write statements `(statement, shape, values)` in turn as one atomic step and
    returns the last one's row count.

    On PostgreSQL the EXECUTEs of the prepared statements travel in one message: the server
    runs a message of several statements as one implicit transaction (or as part of the
    transaction already open), so one round trip replaces BEGIN, each statement and COMMIT.
    Elsewhere (SQLite) they run one by one inside `transaction()` (BEGIN IMMEDIATE)."""
    database = db.obj
    texts = [(statement.text(*shape), values) for statement, shape, values in runs]
    if any(text.prepared is None for text, _ in texts):
        with transaction():
            cursor = None
            for text, values in texts:
                cursor = db.execute_sql(text.sql, text.params(values))
        return cursor.rowcount
    sql = "; ".join(text.execute_sql for text, _ in texts)
    params = [value for text, values in texts for value in text.params(values, text.execute_slots)]
    for text, _ in texts:
        connection = _prepare(database, text)
    try:
        return db.execute_sql(sql, params).rowcount
    except pw.DatabaseError as exc:
        if getattr(getattr(exc, "orig", None), "pgcode", None) != "26000" or db.in_transaction():
            raise
        # Prepared statements gone (the session was reset under the pool): nothing ran, as
        # the message was one transaction; prepare them again and run it once more.
        _forget(connection)
        for text, _ in texts:
            _prepare(database, text)
        return db.execute_sql(sql, params).rowcount
