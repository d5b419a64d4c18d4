"""Bounds a field's documentation declares where the service checks them itself, with a
reason of its own (issue 29): the document says what is accepted, the refusal stays the
service's. Spread into a field's `metadata`; apispec copies these keys into the schema."""
import re
import sys
import unicodedata

# An address (services/accounts.normalize_email reads it with email-validator).
EMAIL = {"format": "email", "minLength": 3}

# Text on one line with at least one character that is not a space.
ONE_LINE = r"^[^\r\n\u2028\u2029]*\S[^\r\n\u2028\u2029]*$"

# Text with at least one character that is not a space.
NOT_BLANK = r"\S"


def _unshown_class(*, keep_spaces: bool = False) -> str:
    """A regex class of the characters no text field keeps (Unicode categories Cc, Cf and Co:
    controls, format marks such as right-to-left overrides, private use), as ranges of
    literal characters (surrogates, Cs, never reach a field: the body reader refuses them)."""
    ranges, start, previous = [], None, None
    for point in range(sys.maxunicode + 1):
        if unicodedata.category(chr(point)) in ("Cc", "Cf", "Co") and not (keep_spaces and chr(point).isspace()):
            if start is None:
                start = point
            previous = point
        elif start is not None:
            ranges.append((start, previous))
            start = None
    if start is not None:
        ranges.append((start, previous))
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


UNSHOWN = _unshown_class()

# One line of text that can be shown, with a character that is not a space: what a task,
# and the other one-line texts that refuse controls and format marks, take.
SHOWN_LINE = f"^[^{UNSHOWN}]*[^\\s{UNSHOWN}][^{UNSHOWN}]*$"

# The same where whitespace runs are collapsed to one space first (" ".join(text.split())):
# line breaks and tabs are taken there, as spaces.
SHOWN_WORDS = f"^[^{_unshown_class(keep_spaces=True)}]*[^\\s{UNSHOWN}][^{_unshown_class(keep_spaces=True)}]*$"
