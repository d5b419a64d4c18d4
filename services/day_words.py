"""Days and moments as a founder or a customer reads them, in one style wherever the
service writes one: a mail, a store page, a refusal's explanation, a reason on a screen.

A day is "5 December 2026": the month in words, so nobody has to guess which number is the
month, and no leading zero. A moment is "5 December 2026, 12:00 UTC": only where the time
matters (when a limit resets), and always in UTC with its zone named, because the server
does not know the reader's time zone. The app writes the same style in the founder's own
zone (api/static/app/words.js, `dayWords` and `momentWords`).

The months are spelled here rather than by strftime("%B"), which follows the process's
locale: a worker started under another LANG would write another language.
"""
from __future__ import annotations

from datetime import UTC, date, datetime

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def day_words(value: date | datetime | str | None) -> str:
    """A calendar day in words ("5 December 2026") from a date, a datetime or an ISO date
    (its first ten characters); "" for None, and a string that is no date as it is."""
    day = _as_date(value)
    if day is None:
        return "" if value is None else str(value)
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def moment_words(value: datetime | int | float) -> str:
    """A moment in words, in UTC ("5 December 2026, 12:00 UTC"), from a datetime (naive ones
    are UTC, as the service stores them) or an epoch second."""
    if isinstance(value, datetime):
        moment = value.astimezone(UTC) if value.tzinfo is not None else value
    else:
        moment = datetime.fromtimestamp(value, tz=UTC)
    return f"{day_words(moment)}, {moment:%H:%M} UTC"


def _as_date(value) -> date | None:
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo is not None else value).date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None
