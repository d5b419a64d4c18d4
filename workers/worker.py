"""A worker process: `python -m workers.worker` (Procfile and supervisord `worker`).

One process, WORKER_THREADS threads, no child processes. Run M of them for M workers: each
is its own program under the supervisor, so a crash (even `kill -9`) is one crash that the
supervisor restarts, and a stop reaches exactly one process. (The `dramatiq` command forks
its workers under a master that stops every worker of the host when one dies, and forwards
a second SIGTERM that kills a worker mid-job.)

- It takes as many messages as it has threads (no backlog waits in a busy worker's
  memory), beats its row (`/api/health`, `ff_workers_alive`; with the inbound mail it
  reads) every HEARTBEAT_SECONDS and its broker heartbeat every second from a thread, so a
  worker busy with long jobs is never taken for lost, and one that died is known lost
  WORKER_LOST_SECONDS after it stopped (and no longer counted alive two heartbeats after
  its last beat; a clean stop removes its row at once).
- SIGTERM (or SIGINT) drains: it takes nothing more, returns what it had taken but not
  started, lets the jobs it runs finish for up to WORKER_SHUTDOWN_SECONDS, then hands back
  any still running (their rows are queued and sent again at once, to run elsewhere from
  the start; the programs they started, a model's command, are killed) and exits 0. A
  second signal cuts the wait short, handing back at once.
- `make run`'s in-process worker (workers/embedded.py) is the same WorkerPool in the web
  process.
"""
from __future__ import annotations

import importlib
import logging
import signal
import threading
import time

import dramatiq
from dramatiq.common import iter_queue

from integrations.mail.inbound import source_name
from integrations.processes import stop_programs_of

log = logging.getLogger("workers.worker")

BROKER_BEAT_SECONDS = 1.0  # well inside WORKER_LOST_SECONDS (at least 3)
# How long an idle consumer waits on the broker before it looks again, and how long a
# worker thread waits for a message: also how quickly a stop is noticed.
POLL_MS = 1000


# While Redis or the database is away, a beat is missed every second: the log says so when it
# starts, then at most once a minute with how many were missed, and once when beats are back.
MISSED_BEAT_LOG_SECONDS = 60.0
# How often a worker looks whether workers on several hosts read local mail folders.
MAIL_CHECK_SECONDS = 60.0


class MissedBeats:
    """The log of one beat (the broker's or the database's) while it cannot be recorded."""

    def __init__(self, beat: str, clock=time.monotonic):
        self.beat, self.clock = beat, clock
        self.missed = 0  # since beats stopped being recorded (0: they are)
        self.unsaid = 0  # missed since the last line said so
        self.said_at = 0.0

    def miss(self, exc: Exception) -> None:
        now = self.clock()
        self.missed += 1
        self.unsaid += 1
        if self.missed == 1 or now - self.said_at >= MISSED_BEAT_LOG_SECONDS:
            log.warning("worker beat not recorded", extra={"fields": {
                "beat": self.beat, "error": f"{type(exc).__name__}: {exc}", "missed": self.missed,
                "missed_since_last_line": self.unsaid}})
            self.said_at, self.unsaid = now, 0

    def recorded(self) -> None:
        if self.missed:
            log.info("worker beat recorded again", extra={"fields": {"beat": self.beat, "missed": self.missed}})
            self.missed = self.unsaid = 0


class WorkerPool:
    """Dramatiq's worker threads in this process, with their beats and their drain."""

    def __init__(self, broker, settings, *, threads: int | None = None):
        self.broker = broker
        self.settings = settings
        self.threads = threads or settings.worker_threads
        self.worker: dramatiq.Worker | None = None
        self._stop_beating = threading.Event()
        self._beats: list[threading.Thread] = []

    def start(self) -> WorkerPool:
        self.worker = dramatiq.Worker(self.broker, worker_threads=self.threads, worker_timeout=POLL_MS)
        # Dramatiq takes twice its threads by default; the surplus would wait in this
        # process's memory behind long builds, and be lost with it. A message taken is one
        # a thread is about to run.
        self.worker.queue_prefetch = self.threads
        self.worker.start()
        self._beats = [threading.Thread(target=self._beat_broker, name="worker-broker-beats", daemon=True),
                       threading.Thread(target=self._beat_database, name="worker-database-beats", daemon=True)]
        for thread in self._beats:
            thread.start()
        # Which mail this worker reads: with workers on several hosts, a folder local to each
        # host is read by some and not others (services/health.py warns; README, "Several hosts").
        log.info("worker started", extra={"fields": {"threads": self.threads, "worker": _name(),
                                                     "mail_source": source_name(self.settings)}})
        return self

    def _beat_broker(self) -> None:
        """Records this worker as alive in the broker every second, whatever its threads are
        doing. A thread of its own: a hung Redis holds a call for WORKER_REDIS_WAIT_SECONDS,
        which must not delay the database's beat (health and ff_workers_alive would call a
        live worker lost), and the other way round."""
        from workers.broker import keep_broker_heartbeat

        beats = MissedBeats("broker")
        while not self._stop_beating.is_set():
            try:
                keep_broker_heartbeat(self.broker)
                beats.recorded()
            except Exception as exc:  # Redis is away: the next beat tries again
                beats.miss(exc)
            self._stop_beating.wait(BROKER_BEAT_SECONDS)

    def _beat_database(self) -> None:
        """Records this worker as alive in the database every HEARTBEAT_SECONDS."""
        from models.db import close_connection
        from services.health import mail_status, record_worker_beat

        next_mail_check = 0.0
        beats = MissedBeats("database")
        while not self._stop_beating.is_set():
            now = time.monotonic()
            try:
                record_worker_beat(_name(), self.settings)
                beats.recorded()
                if now >= next_mail_check:  # logs a warning when several hosts read local folders
                    mail_status(self.settings, stale_seconds=self.settings.worker_stale_seconds)
                    next_mail_check = now + MAIL_CHECK_SECONDS
            except Exception as exc:  # the database is away: the next beat tries again
                beats.miss(exc)
            finally:
                close_connection()
            self._stop_beating.wait(self.settings.heartbeat_seconds)

    def stop(self, *, timeout_seconds: float | None = None, cut_short: threading.Event | None = None) -> dict:
        """Drains: takes nothing more, returns what it had taken but not started, waits up to
        `timeout_seconds` (WORKER_SHUTDOWN_SECONDS) for its running jobs, hands back the
        ones still running, stops. Returns what happened, for the log and the tests."""
        runner = _job_runner()
        if self.worker is None:
            return {}
        timeout = self.settings.worker_shutdown_seconds if timeout_seconds is None else timeout_seconds
        deadline = time.monotonic() + timeout
        began = time.monotonic()
        worker = self.worker
        for consumer in worker.consumers.values():
            consumer.stop()  # no more fetches; the messages it took can still be acknowledged
        for thread in worker.workers:
            thread.stop()  # each finishes the message it runs and takes no other
        returned = self._return_taken()
        cut_short = cut_short or threading.Event()
        while any(thread.is_alive() for thread in worker.workers) and time.monotonic() < deadline:
            if cut_short.wait(0.05):
                break
        handed_back = runner.release_running() if runner.running() else []
        # The runs handed back will start again elsewhere: a program one of them started (a
        # model's command) would only run on for nobody.
        stop_programs_of(worker.workers)
        worker.stop(timeout=1000)  # joins what is left, returns any late arrival, closes the consumers
        self._stop_beating.set()
        for thread in self._beats:
            thread.join(timeout=5)
        self._forget_beat()
        outcome = {"returned": returned, "handed_back": handed_back,
                   "drained_in_seconds": round(time.monotonic() - began, 2)}
        log.info("worker stopped", extra={"fields": outcome})
        self.worker = None
        return outcome

    def _return_taken(self) -> int:
        """Sends back to the broker the messages taken but not started (a stopping worker
        would otherwise hold them until its running jobs finish)."""
        by_queue: dict[str, list] = {}
        for item in iter_queue(self.worker.work_queue):
            by_queue.setdefault(item.message.queue_name, []).append(item.message)
            self.worker.work_queue.task_done()
        returned = 0
        for queue_name, messages in by_queue.items():
            try:
                self.worker.consumers[queue_name].requeue_messages(messages)
                returned += len(messages)
            except Exception:  # the broker is away: they go back when this worker is known lost
                log.warning("taken messages not returned", exc_info=True, extra={"fields": {"queue": queue_name}})
        return returned

    def _forget_beat(self) -> None:
        """A worker that stopped cleanly is no longer counted alive."""
        from models.db import close_connection
        from models.job import WorkerBeat

        try:
            WorkerBeat.delete().where(WorkerBeat.worker == _name()).execute()
        except Exception:  # it ages out of the count instead
            log.warning("worker beat not removed", exc_info=True)
        finally:
            close_connection()


# The actors and their runner are loaded by name, as dramatiq's own command loads the modules
# it is given: workers/ sits below jobs/ in the import direction (tests/test_imports.py).
ACTOR_MODULE = "jobs"


def _job_runner():
    return importlib.import_module(ACTOR_MODULE + ".runner")


def _name() -> str:
    from services.health import worker_name

    return worker_name()


def main() -> int:
    # The broker module first: it sets up the settings, the logs, the database and the
    # broker, and process_boot starts this process's figures (workers/metrics.py) before
    # anything imports prometheus-client; then the actors.
    from workers.broker import broker, settings

    broker.emit_after("process_boot")
    importlib.import_module(ACTOR_MODULE)  # declares the actors

    stopping, cut_short = threading.Event(), threading.Event()

    def on_signal(signum, _frame):
        if stopping.is_set():
            log.warning("second stop signal: handing back running jobs now", extra={"fields": {"signal": signum}})
            cut_short.set()
        else:
            log.info("stop signal: draining", extra={"fields": {"signal": signum}})
            stopping.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)
    pool = WorkerPool(broker, settings).start()
    while not stopping.wait(1.0):  # a timed wait, so the signal handler runs promptly
        pass
    pool.stop(cut_short=cut_short)
    broker.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
