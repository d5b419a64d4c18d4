"""How the service logs: one JSON object per line on stderr (time, level, logger, message and
any `fields` passed in extra). Split from config.py, which names both (config.JsonLogFormatter,
config.configure_logging): the settings module had grown past the size of one sitting."""
from __future__ import annotations

import json
import logging
import re
import sys

# json.dumps(line, default=str) made an encoder like this one for every line it wrote.
_ENCODER = json.JSONEncoder(default=str)


# Path segments that are bearer values, each the whole key to what it opens: a journey
# carrier's id (/api/journey/<carrier_id>/consume), a reply's rating token (/rate/<token>)
# and a sandbox checkout's id (its hosted page and its state API). A logged path keeps the
# route and loses the value, as it loses the query string (sign-in tokens). Cut by the path's
# beginning, not by the route matched, so a wrong method or an unknown tail is cut too.
# deploy/front.py writes the same beginnings into the front's log line (deploy/front.conf).
BEARER_PATH_STARTS = ("/api/journey/", "/rate/", "/pay/sandbox/checkout/", "/pay/sandbox/v1/checkouts/")
_BEARER_IN_PATH = re.compile("^(" + "|".join(map(re.escape, BEARER_PATH_STARTS)) + ")[^/]+")
CUT = "<cut>"


def logged_path(path: str | None) -> str | None:
    """The path as a log line may hold it: any bearer value in it replaced by CUT."""
    return _BEARER_IN_PATH.sub(lambda found: found.group(1) + CUT, path) if path else path


class JsonLogFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and any `fields` passed in extra."""

    _stamp: tuple[int, str] = (-1, "")  # the last second formatted, and its text

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": self._second(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}) or {})
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return _ENCODER.encode(line)

    def _second(self, record: logging.LogRecord) -> str:
        """formatTime(record, "%Y-%m-%dT%H:%M:%S"), formatted once per second (every request
        logs a line; its time has no finer part)."""
        second = int(record.created)
        stamp = self._stamp
        if stamp[0] != second:
            stamp = self._stamp = (second, self.formatTime(record, "%Y-%m-%dT%H:%M:%S"))
        return stamp[1]


def configure_logging(settings) -> None:
    """Sends every log record to stderr as one JSON line."""
    _skip_unused_record_fields()
    root = logging.getLogger()
    if any(isinstance(h.formatter, JsonLogFormatter) for h in root.handlers):
        root.setLevel(settings.log_level)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLogFormatter())
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    # Werkzeug's own request lines carry query strings (sign-in tokens); ours do not.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


def _skip_unused_record_fields() -> None:
    """The logging module's documented switches (the HOWTO's "Optimization") for what a record
    gathers that JsonLogFormatter never writes: the thread's and the process's names and ids.
    Every request logs a line. (The caller's file and line stay: pytest shows them with a
    failing test's log.)"""
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
