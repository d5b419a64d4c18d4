"""Liveness: the database, whether a worker has been heard from recently, and which inbound
mail the workers read (with a warning when workers on several hosts read folders of their own)."""
from __future__ import annotations

import logging
import os
import socket
import time
from datetime import timedelta

import peewee as pw

from config import get_settings
from integrations.mail.inbound import IMAP, LOCAL_FOLDER, SHARED_FOLDER, source_name
from models.clock import iso, utcnow
from models.db import UNAVAILABLE, close_connection, ping, read_moment, waiting_at_most
from models.job import WorkerBeat

log = logging.getLogger("services.health")


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def host_of(worker: str) -> str:
    """The host of a worker named by worker_name() (host:pid)."""
    return worker.rpartition(":")[0] or worker


def record_worker_beat(worker: str, settings=None) -> None:
    """Records that `worker` is alive now and which inbound mail it reads (by `settings`, the
    process's own unless given), and forgets workers silent for a day."""
    now = utcnow()
    source = source_name(settings or get_settings())
    (WorkerBeat.insert(worker=worker, seen_at=now, mail_source=source)
     .on_conflict(conflict_target=[WorkerBeat.worker], update={WorkerBeat.seen_at: now, WorkerBeat.mail_source: source})
     .execute())
    WorkerBeat.delete().where(WorkerBeat.seen_at < now - timedelta(days=1)).execute()


def alive_seconds(*, stale_seconds: int, heartbeat_seconds: int) -> int:
    """How old a worker's last beat may be for it to count as running now (ff_workers_alive):
    two heartbeats, so one late beat is forgiven and a worker that died stops counting within
    two heartbeats of its last (never longer than `stale_seconds`, WORKER_STALE_SECONDS)."""
    return min(stale_seconds, 2 * heartbeat_seconds)


def overall_status(*, database: dict, broker: dict, worker: dict) -> str:
    """`ok` when the database and the broker answer and a worker was heard from recently;
    `degraded` otherwise (jobs would wait: nothing would take or run them)."""
    return "ok" if database["ok"] and broker["ok"] and worker["heard_from"] else "degraded"


# Health answers a prober within about this long even when the database stops answering: its
# own reads wait at most this, and none is tried once the database did not answer.
HEALTH_DB_SECONDS = 1.0


def database_status(backend: str) -> dict:
    with waiting_at_most(HEALTH_DB_SECONDS):
        return {"backend": backend, "ok": ping()}


def worker_status(*, stale_seconds: int, database_ok: bool = True) -> dict:
    """Whether any worker beat within `stale_seconds`, and when the last one was (unknown,
    and not asked, when the database did not answer)."""
    unknown = {"heard_from": False, "last_seen": None, "age_seconds": None}
    if not database_ok:
        return unknown
    try:
        with waiting_at_most(HEALTH_DB_SECONDS):
            last = read_moment(WorkerBeat.select(pw.fn.MAX(WorkerBeat.seen_at)).scalar())
    except UNAVAILABLE:
        close_connection()
        return unknown
    if last is None:
        return {"heard_from": False, "last_seen": None, "age_seconds": None}
    age = max(0.0, (utcnow() - last).total_seconds())
    return {"heard_from": age <= stale_seconds, "last_seen": iso(last), "age_seconds": round(age, 1)}


# The several-hosts warning goes to the log at most this often while it holds (health is
# probed every few seconds), and at once when the hosts it names change.
MAIL_WARNING_REPEAT_SECONDS = 600
_mail_warned: dict = {"hosts": (), "at": 0.0}


def mail_status(settings, *, stale_seconds: int, database_ok: bool = True) -> dict:
    """The inbound mail the desk reads by `settings` (IMAP, or a folder, declared shared or
    not), and a warning when worker processes heard from within `stale_seconds` on several
    hosts each read a folder local to their host: mail delivered into one host's folder is
    then filed only by that host's workers, and never when none runs there. The hosts are
    named in the log only (this answer is public): their count is answered."""
    kind, _, folder = source_name(settings).partition(":")
    hosts = _local_folder_hosts(stale_seconds) if database_ok else []
    warning = None
    if len(hosts) > 1:
        warning = (f"worker processes on {len(hosts)} hosts read an inbound mail folder local to their host, so mail "
                   "delivered on one host is filed only by that host's workers: set IMAP_URL, or put INBOUND_MAILDIR "
                   "on a folder every host mounts and set INBOUND_DIR_SHARED=1")
        _log_mail_warning(hosts, warning)
    return {"source": "imap" if kind == IMAP else "folder", "folder": folder or None,
            "folder_shared": kind == SHARED_FOLDER, "local_folder_hosts": len(hosts), "warning": warning}


def _local_folder_hosts(stale_seconds: int) -> list[str]:
    """The hosts of the workers heard from within `stale_seconds` that read a local folder."""
    since = utcnow() - timedelta(seconds=stale_seconds)
    try:
        with waiting_at_most(HEALTH_DB_SECONDS):
            workers = [worker for (worker,) in WorkerBeat.select(WorkerBeat.worker)
                       .where(WorkerBeat.seen_at >= since,
                              WorkerBeat.mail_source.startswith(f"{LOCAL_FOLDER}:")).tuples()]
    except UNAVAILABLE:
        close_connection()
        return []
    return sorted({host_of(worker) for worker in workers})


def _log_mail_warning(hosts: list[str], warning: str) -> None:
    now = time.monotonic()
    if tuple(hosts) == _mail_warned["hosts"] and now - _mail_warned["at"] < MAIL_WARNING_REPEAT_SECONDS:
        return
    _mail_warned.update(hosts=tuple(hosts), at=now)
    log.warning("inbound mail read from local folders on several hosts",
                extra={"fields": {"hosts": hosts, "warning": warning}})
