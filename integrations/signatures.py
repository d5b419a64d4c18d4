"""Timestamped HMAC signatures of message bodies, as the billing webhook and the sandbox
payment provider's notifications carry them: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`,
where v1 is the hex HMAC-SHA256 of `"<t>."` followed by the raw body. Several v1 values
let a sender sign with an old and a new key while the key is rotated."""
from __future__ import annotations

import hashlib
import hmac
import re

_TIMESTAMP = re.compile(r"\d{1,12}")
_HEX_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def sign(*, key: bytes, timestamp: int, payload: bytes) -> str:
    """The v1 signature of a payload sent at `timestamp` (hex HMAC-SHA256)."""
    return hmac.new(key, f"{timestamp}.".encode("ascii") + payload, hashlib.sha256).hexdigest()


def parse_header(header: str) -> tuple[int | None, list[str]]:
    """Reads `t=...,v1=...,v1=...`: (timestamp, lower-case candidates), or (None, []) when
    malformed. Unknown keys are skipped (a sender may add schemes)."""
    timestamps, candidates = [], []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t":
            timestamps.append(value)
        elif name == "v1":
            if not _HEX_SHA256.fullmatch(value):
                return None, []
            candidates.append(value.lower())
    if len(timestamps) != 1 or not _TIMESTAMP.fullmatch(timestamps[0]):
        return None, []
    return int(timestamps[0]), candidates


def matches(*, key: bytes, timestamp: int, payload: bytes, candidates: list[str]) -> bool:
    """Whether any candidate is the payload's signature. Every candidate is compared in
    constant time, so the answer's timing says nothing about how much of a forgery was right."""
    expected = sign(key=key, timestamp=timestamp, payload=payload)
    return any([hmac.compare_digest(expected, candidate) for candidate in candidates])
