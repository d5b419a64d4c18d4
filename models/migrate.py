"""Schema migrations: numbered modules in models/migrations, applied once each, in order.

Each module `mNNNN_name.py` has `upgrade(db)`; it works on frozen copies of the tables
it touches (never on the live model classes, which keep changing), so a migration does
the same thing on every database whenever it runs. Applied names are recorded in
`migration_history`. Several processes may run `db upgrade` at once (several web hosts
starting together): PostgreSQL serialises them on an advisory lock, SQLite on its write
lock, and each migration commits together with its history row.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil

import peewee as pw

import models.migrations as migrations_package
from models.clock import utcnow
from models.db import BaseModel, db, is_sqlite, transaction

log = logging.getLogger("migrate")

# Any fixed number: the key of the PostgreSQL advisory lock that serialises upgrades.
ADVISORY_LOCK_KEY = 7_270_001


class MigrationHistory(BaseModel):
    name = pw.CharField(max_length=120, primary_key=True)
    applied_at = pw.DateTimeField(default=utcnow)


def migration_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(migrations_package.__path__) if m.name.startswith("m"))


def applied_names() -> set[str]:
    if not db.table_exists("migration_history"):
        return set()
    return {row.name for row in MigrationHistory.select()}


def pending() -> list[str]:
    done = applied_names()
    return [name for name in migration_names() if name not in done]


def upgrade() -> list[str]:
    """Applies every pending migration; returns the names applied by this call."""
    applied = []
    with _upgrade_lock():
        db.create_tables([MigrationHistory], safe=True)
        for name in pending():
            module = importlib.import_module(f"models.migrations.{name}")
            with transaction():
                module.upgrade(db)
                MigrationHistory.create(name=name)
            log.info("migration applied", extra={"fields": {"migration": name}})
            applied.append(name)
    return applied


class _upgrade_lock:
    def __enter__(self):
        if not is_sqlite():
            db.execute_sql("SELECT pg_advisory_lock(%s)", (ADVISORY_LOCK_KEY,))
        return self

    def __exit__(self, *exc):
        if not is_sqlite():
            db.execute_sql("SELECT pg_advisory_unlock(%s)", (ADVISORY_LOCK_KEY,))
        return False
