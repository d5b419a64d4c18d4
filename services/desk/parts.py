"""A customer's message cut into the questions it asks (issue 50 point 4), so the support agent
answers it part by part: a mail asking about shipping and about something the store never
says gets the shipping answered and the other part left for the founder, instead of the
whole message being abstained on over one word.

A part is a sentence ending in a question mark, or one half of such a sentence where "and"
(or a semicolon) joins two questions that each open like a question ("Do you ship to
Canada, and how long does it take?"). An "and" inside one question ("Is it black and
white?", "Can I return it and get a refund?") does not cut it: the half after it does not
open like a question. A message with no question mark is one part, its whole text, as the
agent always read it. Nothing here knows the store: which part is backed is answers.py's.
"""
from __future__ import annotations

import re

from integrations.ai.claims import sentences

MAX_PARTS = 6  # parts of one message answered; a longer list is the founder's to read anyway
MAX_PART = 300  # characters of one part as it is shown back (a note, `unanswered`)

# The words a question opens with: a half of a sentence that starts with one asks something.
OPENERS = frozenset("""
how what when where which who whom whose why do does did is are was were am can could will would should shall
may might have has had any
""".split())

# Where one question ends and the next begins inside a sentence: ", and", " and", " & ", ";",
# each optionally followed by "also" or "then" ("and also, do you...").
_JOINS = re.compile(r"\s*(?:,?\s+(?:and|&)|;)\s+(?:(?:also|then),?\s+)?", re.IGNORECASE)
_LEAD_IN_END = re.compile(r"[:,]\s+")  # ends "Quick question: how ...", "Hi Ana, do you ..."
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def message_text(mail: str) -> str:
    """What a customer wrote in a mail, on one line: quoted lines (">") and the signature
    ("-- " and after) left out, runs of whitespace made one space."""
    lines = []
    for line in mail.splitlines():
        if line.strip() in ("--", "-- "):
            break
        if not line.lstrip().startswith(">"):
            lines.append(line)
    return " ".join(" ".join(lines).split())


def parts_of(text: str) -> list[str]:
    """The questions a message asks, in its own words and order, each once; the whole text
    as one part when no sentence ends in a question mark; [] for a blank text."""
    text = " ".join((text or "").split())
    if not text:
        return []
    asked = [s.strip() for s, _ in sentences(text) if s.strip().endswith("?")]
    if not asked:
        return [text[:MAX_PART]]
    found: list[str] = []
    for sentence in asked:
        for part in _halves(sentence):
            if part.casefold() not in (p.casefold() for p in found):
                found.append(part)
    if len(found) > MAX_PARTS:
        # The questions past the last part are kept in it, never dropped: a long list is
        # answered as far as it can be, and what is left of it goes to the founder.
        found[MAX_PARTS - 1:] = [" ".join(found[MAX_PARTS - 1:])[:MAX_PART]]
    return found


def _halves(sentence: str) -> list[str]:
    """A question sentence cut where a join stands between two halves that each ask."""
    body = sentence.rstrip("?").strip()
    halves: list[str] = []
    start = 0
    for join in _JOINS.finditer(body):
        before, after = body[start:join.start()], body[join.end():]
        if _asks(before) and _opens_question(after):
            halves.append(before)
            start = join.end()
    halves.append(body[start:])
    return [_as_question(_without_lead_in(h)) for h in halves if h.strip()]


_CONNECTIVES = frozenset("and but so also then".split())  # "but is it waterproof?" still opens a question


def _opens_question(text: str) -> bool:
    words = _WORD.findall(text.lower())
    while words and words[0] in _CONNECTIVES:
        words = words[1:]
    return bool(words) and words[0] in OPENERS


def _asks(text: str) -> bool:
    """Whether a half opens like a question, once a lead-in before a colon or comma is set
    aside ("Hi Ana, do you ship to Canada")."""
    return _opens_question(_without_lead_in(text))


def _without_lead_in(text: str) -> str:
    """The question without what comes before it ("Hi Ana, ", "Quick question: "): a
    greeting's name is no word of the question to back."""
    if _opens_question(text):
        return text
    for end in _LEAD_IN_END.finditer(text):
        if _opens_question(text[end.end():]):
            return text[end.end():]
    return text


def _as_question(half: str) -> str:
    half = half.strip(" ,;")
    return (half + "?")[:MAX_PART]
