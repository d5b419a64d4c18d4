"""Reading a request body as JSON, safely: whatever a client sends, the answer is a value
or one `UnreadableJson` naming what is wrong, never an exception the app did not expect.

Python's `json` module accepts more than the service can keep, and fails in ways that are
not a refusal: it decodes nesting recursively (a body nested 100,000 deep raises
RecursionError), keeps a lone UTF-16 surrogate escape (`"\\ud800"`) as a string no
database or encoder can store, reads integers far past what a database column holds and
`1e999` as infinity. So a body must be I-JSON (RFC 7493) and a little stricter:

- UTF-8 text (RFC 8259 8.1; a leading byte order mark is ignored);
- at most MAX_DEPTH arrays and objects deep, counted without recursion before decoding;
- no lone surrogate and no NUL in any string, key or value (PostgreSQL cannot store NUL in
  text, and no field needs one);
- integers within the signed 64-bit range, finite numbers only (no NaN, Infinity, 1e999).

Every check walks iteratively, so no body can exhaust the stack.
"""
from __future__ import annotations

import json
import math
import re
from itertools import accumulate

# Deeper than any body a route declares (the deepest is a few levels) or a provider sends.
MAX_DEPTH = 64
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# A JSON string, taken whole so the brackets inside it are not counted. The closing quote
# is optional so that a match never fails and backtracks: an unclosed string takes the rest
# of the text (which the decoder then refuses), and the scan stays linear whatever is sent.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE = re.compile("[\ud800-\udfff]")
_OUT_OF_RANGE = "The body has an integer outside the signed 64-bit range, larger than any field takes."


class UnreadableJson(ValueError):
    """The body is not JSON the service reads; `explanation` says why, for the client."""

    def __init__(self, explanation: str):
        super().__init__(explanation)
        self.explanation = explanation


def parse(raw: bytes):
    """The JSON value of `raw`, or UnreadableJson."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableJson("The body is not UTF-8 text.") from None
    _check_depth(text)
    try:
        value = json.loads(text, parse_constant=_constant)
    except UnreadableJson:
        raise
    except (ValueError, RecursionError) as exc:
        if "integer string conversion" in str(exc):
            # Python reads no integer of more than 4300 digits (sys.int_info): far past 64 bits.
            raise UnreadableJson(_OUT_OF_RANGE) from None
        raise UnreadableJson("The body is not valid JSON.") from None
    _check_values(value)
    return value


def _check_depth(text: str) -> None:
    # Fewer brackets than the limit cannot nest past it: most bodies stop here.
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    # The brackets outside strings, in order; the deepest running sum is the nesting depth
    # (malformed text may count differently past its first error, where the decoder stops).
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if brackets and max(accumulate(map(_STEP.__getitem__, brackets))) > MAX_DEPTH:
        raise UnreadableJson(f"The body nests arrays and objects more than {MAX_DEPTH} levels deep, "
                             "deeper than any field takes.")


def _constant(name: str):
    raise UnreadableJson(f"The body has {name}, which is not a JSON number.")


def _check_values(value) -> None:
    # Numbers are checked here rather than by json's parse_int/parse_float hooks: a Python
    # call per number would cost ten times the decoding of a body of a million digits.
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            _check_text(item)
        elif kind is dict:
            for key, inner in item.items():
                _check_text(key)
                pending.append(inner)
        elif kind is list:
            pending.extend(item)
        elif kind is int:
            if not INT64_MIN <= item <= INT64_MAX:
                raise UnreadableJson(_OUT_OF_RANGE)
        elif kind is float and not math.isfinite(item):
            raise UnreadableJson("The body has a number too large to represent (it reads as infinity).")


def _check_text(text: str) -> None:
    if "\x00" in text:
        raise UnreadableJson("The body contains a NUL character, which no field accepts.")
    if _SURROGATE.search(text):
        # The decoder joins a proper pair (\ud83d\ude00) into one character, so any surrogate
        # left is alone: half a character, which no store or encoder can keep.
        raise UnreadableJson("The body contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape), "
                             "which is not text.")
