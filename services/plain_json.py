"""JSON of plain trees, written by orjson: the one definition of how the service writes JSON
where it is plain (api/json_out.py, the app's JSON provider, writes every answer by it).

Plain means str keys, str, int within 64 bits, float, bool, None, list and dict, in their exact
types. Anything else (a subclass, a dataclass, a date, a Decimal) is passed to `default`, which
refuses it, so the caller learns the tree was not plain rather than get it written some other
way."""
from __future__ import annotations

import orjson

_PLAIN = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _refuse(value):
    raise TypeError(type(value).__name__)


def plain_json(obj) -> bytes:
    """`obj` as compact JSON; TypeError when it holds anything but the plain types
    (orjson.JSONEncodeError is a TypeError: a type it was told to refuse, an int past 64 bits)."""
    return orjson.dumps(obj, default=_refuse, option=_PLAIN)
