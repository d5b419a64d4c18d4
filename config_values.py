"""Parsers of environment values for config.py: each reads one setting, answers its default
when unset, and raises SettingsError with one line naming the setting when malformed (a
password in a URL is never printed)."""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlsplit


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line naming it."""


def int_value(env, name, default, low, high):
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}, got {raw!r}") from None
    if not low <= value <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
    return value


def decimal_value(env, name, default, low, high):
    """A decimal number with at most two decimals (money and percentages)."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or not low <= value <= high or value != value.quantize(Decimal("0.01")):
        raise SettingsError(f"{name} must be a number from {low} to {high} with at most two decimals, got {raw!r}")
    return value


def bool_value(env, name, default):
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name} must be true or false (1/0, yes/no), got {raw!r}")


def url_value(env, name, default, schemes):
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    parts = urlsplit(raw)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        raise SettingsError(f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)}, got {redact(raw)!r}")
    return raw


def redact(url: str) -> str:
    """Hides a password in a URL so the one-line error never prints a secret."""
    try:
        parts = urlsplit(url)
    except ValueError:  # unparseable, so no password can be told apart: show none of it
        return "<a malformed URL>"
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def countries(env, name, default) -> tuple[str, ...]:
    """A comma-separated list of two-letter country codes (ISO 3166-1 alpha-2), upper-cased,
    each once, in the order given."""
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    codes = [code.strip().upper() for code in raw.split(",") if code.strip()]
    bad = [code for code in codes if not re.fullmatch(r"[A-Z]{2}", code)]
    if bad or not codes:
        raise SettingsError(f"{name} must be two-letter country codes separated by commas (like US,CA,GB), "
                            f"got {raw!r}")
    return tuple(dict.fromkeys(codes))


def hosts(env, name) -> tuple[str, ...]:
    """Comma-separated `host` or `host:port` entries (an IPv6 host in brackets), trimmed, empty ones dropped."""
    entries = tuple(entry.strip() for entry in (env.get(name) or "").split(",") if entry.strip())
    if bad := [e for e in entries if not re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^\s:/@\[\]]+)(:[0-9]{1,5})?", e)]:
        raise SettingsError(f"{name} must be host or host:port entries separated by commas, got {bad[0]!r}")
    return entries
