"""Bounds a field's documentation declares where the service checks them itself, with a
reason of its own (issue 29): the document says what is accepted, the refusal stays the
service's. Spread into a field's `metadata`; apispec copies these keys into the schema.

Patterns spell every class out as literal characters (no `\\s`, `\\S`, `\\d`, `\\w`): those
escapes mean different sets to Python, ECMA 262 and the validators that read the document
(the fuzzer reads them as ASCII), while the service's checks are Python's `str.isspace`,
`str.strip`, `str.split` and Unicode categories."""
import sys
import unicodedata
from string import ascii_lowercase, ascii_uppercase


def _scan() -> tuple[list[int], list[int], dict[str, list[str]], dict[str, list[str]]]:
    """One pass over Unicode: the characters no text field keeps (categories Cc, Cf and Co:
    controls, format marks such as right-to-left overrides, private use; surrogates, Cs, never
    reach a field: the body reader refuses them), the whitespace Python strips and splits on,
    and the characters whose lower or upper case is one ASCII letter (the Kelvin sign reads
    as k, dotless ı and long ſ as I and S)."""
    unshown, spaces = [], []
    lowers: dict[str, list[str]] = {letter: [] for letter in ascii_lowercase}
    uppers: dict[str, list[str]] = {letter: [] for letter in ascii_uppercase}
    for point in range(sys.maxunicode + 1):
        ch = chr(point)
        if unicodedata.category(ch) in ("Cc", "Cf", "Co"):
            unshown.append(point)
        if ch.isspace():
            spaces.append(point)
        if ch.lower() in lowers:
            lowers[ch.lower()].append(ch)
        if ch.upper() in uppers:
            uppers[ch.upper()].append(ch)
    return unshown, spaces, lowers, uppers


UNSHOWN_POINTS, _SPACE_POINTS, _LOWERS, _UPPERS = _scan()

# The characters a pattern escapes: in a class the backslash, ] [ ^ and -, outside one ECMA 262's syntax
# characters. Those are the only escapes a Unicode-mode ECMA 262 pattern takes (what a JSON
# Schema validator such as ajv compiles, with the u flag), and Python reads them alike;
# re.escape also escapes spaces, line breaks and other punctuation, which such a pattern
# refuses ("invalid escape"). Every other character is written as itself.
_CLASS_SYNTAX = frozenset("\\][^-")
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")


def _in_class(ch: str) -> str:
    return f"\\{ch}" if ch in _CLASS_SYNTAX else ch


def _literal(ch: str) -> str:
    return f"\\{ch}" if ch in _SYNTAX else ch


def _class(points) -> str:
    """A regex class body of the given code points, as ranges of literal characters."""
    ranges, start, previous = [], None, None
    for point in sorted(points):
        if start is not None and point == previous + 1:
            previous = point
            continue
        if start is not None:
            ranges.append((start, previous))
        start = previous = point
    if start is not None:
        ranges.append((start, previous))
    return "".join(_in_class(chr(a)) if a == b else f"{_in_class(chr(a))}-{_in_class(chr(b))}" for a, b in ranges)


def _unshown_class(*, keep_spaces: bool = False) -> str:
    """The characters no text field keeps, as a class body (with keep_spaces, whitespace is not among them)."""
    return _class(set(UNSHOWN_POINTS) - set(_SPACE_POINTS) if keep_spaces else UNSHOWN_POINTS)


UNSHOWN = _unshown_class()

# Control characters (category Cc), as a class body.
CONTROLS = _class(point for point in range(0x100) if unicodedata.category(chr(point)) == "Cc")

# Whitespace as Python reads it (str.isspace: what strip() takes off and split() splits on).
SPACE = _class(_SPACE_POINTS)

# A letter in either case, as str.lower() reads it: a-z, A-Z and the Kelvin sign (a class body).
LETTER = "".join(_in_class(ch) for letter in ascii_lowercase for ch in _LOWERS[letter])

# An address (services/accounts.normalize_email reads it with email-validator).
EMAIL = {"format": "email", "minLength": 3}

# Text with at least one character that is not a space (what " ".join(text.split()) leaves non-empty).
NOT_BLANK = f"[^{SPACE}]"

# Text with a character that is not a space, where whitespace runs are collapsed to one space
# first (" ".join(text.split())): line breaks and tabs are taken there, as spaces, and no other
# control or format mark is.
SHOWN_WORDS = f"^[^{_unshown_class(keep_spaces=True)}]*[^{SPACE}{UNSHOWN}][^{_unshown_class(keep_spaces=True)}]*$"


def trimmed(*, required: bool, trim=None, refused=None) -> str:
    """Text that, once the `trim` characters are taken off both ends (str.strip), holds none of
    the `refused` ones, and (`required`) holds something. By default whitespace is trimmed and
    controls, format marks and private use are refused (a line break inside is refused too,
    one at either end is trimmed). Each run of kept spaces inside is followed by a kept
    character, so the pattern never backtracks over a run twice.

    Text that may be blank is written as one alternation (blank, or trimmed text), which lets it
    stand beside a maxLength: schemathesis 4.32 folds a maxLength into a pattern that is a row of
    quantified parts (patterns.update_quantifier, from converter.update_pattern_in_schema) and
    writes a class's characters past U+FFFF as Python `\\U` escapes, which its own check of the
    schema (jsonschema_rs.canonicalize, format "regex") then refuses, so no case of the
    operation could be made; it leaves an alternation as written. Required text is a row, so
    it is declared apart from its length (in an anyOf member, as api/todos.py does)."""
    trim = set(_SPACE_POINTS if trim is None else trim)
    refused = set(UNSHOWN_POINTS if refused is None else refused)
    ends = f"[{_class(trim)}]*"
    mark = f"[^{_class(trim | refused)}]"  # a character the kept text may start and end with
    kept = f"{ends}{mark}(?:[{_class(trim - refused)}]*{mark})*{ends}"
    return f"^{kept}$" if required else f"^(?:{ends}|{kept})$"


def collapsed_at_most(limit: int) -> str:
    """Text whose words, joined by one space (" ".join(text.split())), make at most `limit`
    characters: each character that is not a space counts one, and so does each run of spaces
    between two of them (the run before the first is all taken first, and a run counts only
    when a character follows it, so no run is split in two or counted at either end)."""
    return f"^(?![{SPACE}]*[^{SPACE}](?:[^{SPACE}]|[{SPACE}]+(?=[^{SPACE}])){{{limit}}})"


def caseless(words, *, strip: bool = False, upper: bool = False) -> str:
    """One of `words` in any case (each letter as every character str.lower(), or with upper,
    str.upper(), turns into it), and with strip, with whitespace around it (str.strip)."""
    table = _UPPERS if upper else _LOWERS
    spelled = "|".join("".join(f"[{''.join(_in_class(c) for c in table[ch])}]" if ch in table else _literal(ch)
                               for ch in word) for word in words)
    around = f"[{SPACE}]*" if strip else ""
    return f"^{around}(?:{spelled}){around}$"


# --- Domain names (integrations/registrar.normalize) -------------------------------------------

_LDH = "A-Za-z0-9"  # a label's letters (either case: the name is folded to lower case) and digits
_DOTS = "\\." + "\u3002\uff0e\uff61"  # the full stop and its ideographic and full-width forms
# A label: 1 to 63 letters, digits and hyphens, no hyphen at either end, and no hyphens in both
# its third and fourth places (which only an xn-- punycode label may have).
_LABEL = (f"(?:[{_LDH}](?:[{_LDH}\\-]?[{_LDH}])?"
          f"|[{_LDH}][{_LDH}\\-](?:[{_LDH}][{_LDH}\\-]{{0,59}}[{_LDH}]|-[{_LDH}](?:[{_LDH}\\-]{{0,58}}[{_LDH}])?))")
# The top-level domain is not all digits.
_TLD = f"(?![0-9]+(?:[{_DOTS}{SPACE}]|$)){_LABEL}"
# At most 253 characters from the first label to the last (the root's dot apart).
_AT_MOST_253 = f"(?![{_LDH}\\-{_DOTS}]{{253}}(?:[{_LDH}\\-]|[{_DOTS}][{_LDH}]))"

# A domain name as the service reads one: whitespace around it and one trailing dot ignored,
# at least two ASCII labels. Unicode labels (read by UTS 46 and IDNA 2008) and xn-- punycode
# labels are also taken but not declared: no pattern says which are valid IDNA.
DOMAIN = f"^[{SPACE}]*{_AT_MOST_253}(?:{_LABEL}[{_DOTS}])+{_TLD}[{_DOTS}]?[{SPACE}]*$"


# One line of text that can be shown once trimmed (str.strip), with a character that is not a
# space: what a task takes (a line break at either end is trimmed, one inside is refused).
SHOWN_LINE = trimmed(required=True)
