"""The one source of time for the whole service, so tests can move it.

Times are naive UTC datetimes everywhere (stored as such in both databases). The
lowest layer holds the clock so that models, services and jobs all read the same one.
"""
from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta


class Clock:
    def __init__(self):
        self._offset = 0.0
        self._frozen: float | None = None
        self._lock = threading.Lock()

    def time(self) -> float:
        """Seconds since the epoch, as the service sees them."""
        with self._lock:
            if self._frozen is not None:
                return self._frozen
            return time.time() + self._offset

    def now(self) -> datetime:
        """The current naive UTC datetime."""
        return datetime.fromtimestamp(self.time(), tz=UTC).replace(tzinfo=None)

    # Test controls -----------------------------------------------------------------

    def freeze(self, at: datetime | float) -> None:
        """Stops the clock at a moment (a naive UTC datetime or epoch seconds)."""
        with self._lock:
            self._frozen = at if isinstance(at, (int, float)) else at.replace(tzinfo=UTC).timestamp()

    def advance(self, seconds: float = 0, **delta) -> None:
        """Moves the clock forward, frozen or not."""
        step = seconds + timedelta(**delta).total_seconds()
        with self._lock:
            if self._frozen is not None:
                self._frozen += step
            else:
                self._offset += step

    def reset(self) -> None:
        with self._lock:
            self._offset = 0.0
            self._frozen = None


clock = Clock()


def utcnow() -> datetime:
    return clock.now()


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 UTC with a Z, as every timestamp in the API is written."""
    if moment is None:
        return None
    return moment.replace(microsecond=0).isoformat() + "Z"
