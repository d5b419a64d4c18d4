"""The clock: fires periodic jobs. Run it as `python -m workers.clock` (Procfile: clock).

Each entry fires once per time slot: `Every(seconds)` once per period, `DailyAt(hour)` once
per UTC day, at the first tick at or after that hour (a clock started later in the day
fires the day's slot at once; its job is idempotent per day). With several clocks running
(say one per host), a lock named after the slot lets only one of them fire it; the lock is
never released and simply expires, so it doubles as a "fired" mark.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass

import dramatiq

log = logging.getLogger("clock")


DAY = 86400


@dataclass(frozen=True)
class Every:
    actor_name: str
    seconds: int
    queue: str = "default"

    def slot(self, now: float) -> int:
        return int(now // self.seconds)

    def lock_name(self, slot: int) -> str:
        return f"clock:{self.actor_name}:{slot}"

    @property
    def lock_seconds(self) -> int:
        return self.seconds * 2


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

    def slot(self, now: float) -> int:
        return int((now - self.hour * 3600) // DAY)

    def lock_name(self, slot: int) -> str:
        return f"clock:{self.actor_name}:day:{slot}"

    @property
    def lock_seconds(self) -> int:
        # Held past the whole day, so a clock started later that day sees the slot fired.
        return DAY * 2


def schedule(settings) -> list[Every | DailyAt]:
    return [
        Every("heartbeat", settings.heartbeat_seconds),
        Every("requeue_stale_jobs", max(5, settings.job_stale_seconds // 4)),
        Every("prune_sessions", 3600),
        Every("prune_images", 3600),
        Every("recheck_payments", 600),
        DailyAt("nightly_brief", settings.brief_hour_utc),
    ]


class Scheduler:
    def __init__(self, broker, entries, locks):
        self.broker = broker
        self.entries = entries
        self.locks = locks
        self._last_slot: dict[str, int] = {}

    def tick(self, now: float) -> list[str]:
        """Fires every entry whose slot has come; returns the names fired here."""
        fired = []
        for entry in self.entries:
            slot = entry.slot(now)
            if self._last_slot.get(entry.actor_name) == slot:
                continue
            self._last_slot[entry.actor_name] = slot
            if self.locks.acquire(entry.lock_name(slot), entry.lock_seconds) is None:
                continue  # another clock fired this slot
            try:
                self.broker.enqueue(dramatiq.Message(queue_name=entry.queue, actor_name=entry.actor_name,
                                                     args=(), kwargs={}, options={}))
                fired.append(entry.actor_name)
            except Exception:
                log.exception("clock could not send", extra={"fields": {"actor": entry.actor_name}})
        return fired

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
    log.info("clock started", extra={"fields": {"entries": [e.actor_name for e in entries]}})
    Scheduler(broker, entries, get_locks(settings.redis_url)).run(stop)
    log.info("clock stopped")


if __name__ == "__main__":
    main()
