"""Liveness: the database, and whether a worker has been heard from recently."""
from __future__ import annotations

import os
import socket
from datetime import timedelta

import peewee as pw

from models.clock import iso, utcnow
from models.db import UNAVAILABLE, close_connection, ping, read_moment
from models.job import WorkerBeat


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def record_worker_beat(worker: str) -> None:
    """Records that `worker` is alive now, and forgets workers silent for a day."""
    now = utcnow()
    (WorkerBeat.insert(worker=worker, seen_at=now)
     .on_conflict(conflict_target=[WorkerBeat.worker], update={WorkerBeat.seen_at: now})
     .execute())
    WorkerBeat.delete().where(WorkerBeat.seen_at < now - timedelta(days=1)).execute()


def overall_status(*, database: dict, broker: dict, worker: dict) -> str:
    """`ok` when the database and the broker answer and a worker was heard from recently;
    `degraded` otherwise (jobs would wait: nothing would take or run them)."""
    return "ok" if database["ok"] and broker["ok"] and worker["heard_from"] else "degraded"


def database_status(backend: str) -> dict:
    return {"backend": backend, "ok": ping()}


def worker_status(*, stale_seconds: int) -> dict:
    """Whether any worker beat within `stale_seconds`, and when the last one was."""
    try:
        last = read_moment(WorkerBeat.select(pw.fn.MAX(WorkerBeat.seen_at)).scalar())
    except UNAVAILABLE:
        close_connection()
        return {"heard_from": False, "last_seen": None, "age_seconds": None}
    if last is None:
        return {"heard_from": False, "last_seen": None, "age_seconds": None}
    age = max(0.0, (utcnow() - last).total_seconds())
    return {"heard_from": age <= stale_seconds, "last_seen": iso(last), "age_seconds": round(age, 1)}
