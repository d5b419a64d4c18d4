"""The JSON of every answer: the app's JSON provider, the one writer of answers (jsonify,
a view's returned dict and the refusals all come through it). orjson writes a tree where it
writes exactly what Flask's own provider would mean; Flask's provider writes the rest.

A feed is twelve cards, each with its trends (some fifty small objects): Python's json
module took 0.29 ms to write one, a fifth of a feed's own time; orjson (a maintained Rust
encoder) takes 0.02 ms. orjson is asked only for plain trees: str keys, str, int within
64 bits, float, bool, None, list, dict, in their exact types (no subclass, dataclass, date or
Decimal: those make it refuse, and the whole answer is then written by Flask's provider as
before, with its http-date dates and Decimal handling). The output differs only in bytes,
never in meaning: non-ASCII text is sent as UTF-8 rather than \\u escapes, and a float that
is not a number (which the service never sends) would be null rather than the invalid NaN.
Keys keep their order (sort_keys is off, as before) and the output is compact, with the
trailing newline Flask adds. Only `dumps`, the provider's public extension point, is
replaced: Flask's `response` calls it.

JSON that is not an answer keeps the standard library's json module, each for a reason of
its own: stored JSON (models/db.JSONField, keys sorted so that equal values store equal
text), hashes and signatures (keys sorted: canonical), JSON-LD inside a store page
(services/store/render.script_json, which escapes what could end a script element), log
lines (logformat.py, any value of a log field written by str), and what is handed to a model
or a program (integrations/ai/).
"""
from __future__ import annotations

import orjson
from flask.json.provider import DefaultJSONProvider

_PLAIN = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _refuse(value):
    raise TypeError(type(value).__name__)


def plain(obj) -> bytes | None:
    """`obj` as compact JSON by orjson, or None when it holds anything but the plain types
    (each is passed to `default`, which refuses it; orjson.JSONEncodeError is a TypeError,
    as is an int past 64 bits)."""
    try:
        return orjson.dumps(obj, default=_refuse, option=_PLAIN)
    except TypeError:
        return None


class JSONProvider(DefaultJSONProvider):
    sort_keys = False

    def dumps(self, obj, **kwargs) -> str:
        if not kwargs or kwargs == {"separators": (",", ":")}:  # compact: an answer, not debug's indented one
            written = plain(obj)
            if written is not None:
                return written.decode()
        return super().dumps(obj, **kwargs)
