"""The clock: fires periodic jobs, and runs the reaper. Run it as `python -m workers.clock`
(Procfile: clock).

Each entry fires once per time slot: `Every(seconds)` once per period, `DailyAt(hour)` once
per UTC day, at the first tick at or after that hour (a clock started later in the day
fires the day's slot at once; its job is idempotent per day). Both send a message that a
worker runs; `InClock(seconds)` runs a function in the clock process itself (the reaper,
which must not wait in the queue behind the work it rescues). With several clocks running
(say one per host), a lock named after the slot lets only one of them fire it; the lock is
never released once the slot fired and simply expires, so it doubles as a "fired" mark.

Redis (or the database) out of reach does not stop the clock: it logs one warning per
outage, and a slot it could not lock or fire is tried again at the next tick, so every
slot still fires once when they answer again. An `Every` slot that ended during the outage
is not fired late: the slot current when Redis answers again stands for it.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import dramatiq
import redis

from models.db import UNAVAILABLE

log = logging.getLogger("clock")


DAY = 86400

# What "a backend did not answer" looks like; anything else is a fault of the entry.
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, dramatiq.errors.BrokerConnectionError,
               *UNAVAILABLE)


def _message(actor_name: str, queue: str) -> dramatiq.Message:
    return dramatiq.Message(queue_name=queue, actor_name=actor_name, args=(), kwargs={}, options={})


@dataclass(frozen=True)
class Every:
    actor_name: str
    seconds: int
    queue: str = "default"

    @property
    def name(self) -> str:
        return self.actor_name

    def slot(self, now: float) -> int:
        return int(now // self.seconds)

    def lock_name(self, slot: int) -> str:
        return f"clock:{self.actor_name}:{slot}"

    @property
    def lock_seconds(self) -> int:
        return self.seconds * 2

    def fire(self, broker) -> None:
        broker.enqueue(_message(self.actor_name, self.queue))


@dataclass(frozen=True)
class DailyAt:
    """Once per UTC day, from `hour` (0-23) on: the slot is the day whose firing time was
    the latest to pass, so the slot changes at hour:00 UTC, not at midnight."""

    actor_name: str
    hour: int
    queue: str = "default"

    def __post_init__(self):
        if not 0 <= self.hour <= 23:
            raise ValueError(f"DailyAt hour must be 0-23, got {self.hour}")

    @property
    def name(self) -> str:
        return self.actor_name

    def slot(self, now: float) -> int:
        return int((now - self.hour * 3600) // DAY)

    def lock_name(self, slot: int) -> str:
        return f"clock:{self.actor_name}:day:{slot}"

    @property
    def lock_seconds(self) -> int:
        # Held past the whole day, so a clock started later that day sees the slot fired.
        return DAY * 2

    def fire(self, broker) -> None:
        broker.enqueue(_message(self.actor_name, self.queue))


@dataclass(frozen=True)
class InClock:
    """Once per period, `run(broker)` in the clock process itself (one clock of several)."""

    name: str
    seconds: int
    run: Callable = field(compare=False, repr=False)

    def slot(self, now: float) -> int:
        return int(now // self.seconds)

    def lock_name(self, slot: int) -> str:
        return f"clock:{self.name}:{slot}"

    @property
    def lock_seconds(self) -> int:
        return self.seconds * 2

    def fire(self, broker) -> None:
        self.run(broker)


def schedule(settings) -> list[Every | DailyAt | InClock]:
    from workers.reaper import reap  # late: it imports the broker, which reads the settings

    return [
        Every("prune_sessions", 3600),
        Every("prune_images", 3600),
        # Rows past their retention (services/retention.py), in bounded batches.
        Every("prune_retained", 3600),
        Every("recheck_payments", 600),
        # The sandbox provider's own clock: its checkouts expire and notify as Stripe's do.
        Every("expire_sandbox_checkouts", 60),
        DailyAt("nightly_brief", settings.brief_hour_utc),
        # The support desk's inbound mail (jobs/desk.py): starts the `mail_poll` job.
        Every("poll_mail", settings.mail_poll_seconds),
        # Fix's follow-up mail, each due run's once (jobs/fix.py).
        Every("fix_follow_ups", 3600),
        # Ads: launch, pull each ended day's delivery and pay it, pause (jobs/growth.py).
        Every("deliver_ads", 3600),
        # Last: with the database down but Redis up, the entries above still fire (a tick
        # stops at the first entry that meets an outage).
        InClock("reaper", settings.reaper_seconds, partial(reap, settings=settings)),
    ]


class Scheduler:
    def __init__(self, broker, entries, locks):
        self.broker = broker
        self.entries = entries
        self.locks = locks
        self._last_slot: dict[str, int] = {}
        # Slots whose lock this clock took but could not fire nor let go of (Redis went away
        # in between): fired with the same hold when it answers, if the hold is still ours.
        self._unfired: dict[str, tuple[int, object]] = {}
        self._outage_since: float | None = None

    def tick(self, now: float) -> list[str]:
        """Fires every entry whose slot has come; returns the names fired here. A slot whose
        lock or firing met an unreachable backend is left for the next tick."""
        fired = []
        for entry in self.entries:
            slot = entry.slot(now)
            if self._last_slot.get(entry.name) == slot:
                continue
            try:
                lock = self._take(entry, slot)
                if lock is not None:
                    self._fire(entry, slot, lock)
                    fired.append(entry.name)
            except UNREACHABLE as exc:
                self._unreachable(exc)
                break  # the entries after it would meet the same outage; all wait for the next tick
            except Exception:
                # A fault of the entry, not an outage: trying again every second would only
                # fill the log, so the slot counts as spent.
                log.exception("clock could not fire", extra={"fields": {"entry": entry.name, "slot": slot}})
            self._unfired.pop(entry.name, None)
            self._last_slot[entry.name] = slot
            self._answered()
        return fired

    def _take(self, entry, slot: int):
        """The slot's lock, held by this clock; None when another clock fired the slot."""
        unfired = self._unfired.get(entry.name)
        # owned() raises while Redis is away (the hold is kept for the next tick); False
        # once the hold expired or Redis came back empty: the slot's lock is taken afresh.
        if unfired is not None and unfired[0] == slot and unfired[1].owned():
            return unfired[1]
        return self.locks.acquire(entry.lock_name(slot), entry.lock_seconds)

    def _fire(self, entry, slot: int, lock) -> None:
        try:
            entry.fire(self.broker)
        except UNREACHABLE:
            # Let the slot go, so whichever clock reaches Redis first fires it; if Redis is
            # gone for that too, keep the hold and fire with it at a later tick.
            try:
                released = lock.release()
            except Exception:  # an in-process lock never raises; a Redis one says False
                released = False
            if not released:
                self._unfired[entry.name] = (slot, lock)
            raise

    def _unreachable(self, exc: BaseException) -> None:
        if self._outage_since is None:
            self._outage_since = time.monotonic()
            log.warning("clock cannot reach Redis or the database; its slots fire once they answer",
                        extra={"fields": {"error": f"{type(exc).__name__}: {exc}"}})

    def _answered(self) -> None:
        if self._outage_since is not None:
            log.info("clock reaches Redis and the database again", extra={"fields": {
                "outage_seconds": round(time.monotonic() - self._outage_since, 1)}})
            self._outage_since = None

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.tick(time.time())
            stop.wait(1.0)


def main() -> None:
    from integrations.locks import get_locks
    from workers.broker import broker, settings

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    entries = schedule(settings)
    log.info("clock started", extra={"fields": {"entries": [e.name for e in entries]}})
    Scheduler(broker, entries, get_locks(settings.redis_url)).run(stop)
    log.info("clock stopped")


if __name__ == "__main__":
    main()
