"""The founder's statements of their own business's policy (issue 50 point 2): how long
customers have to return an order and whether returns are free, how long shipping takes,
the guarantee in the founder's words, and where they ship.

These are the founder's to state, not the catalog's to back: a return window is a promise
the business makes, so no catalog record or research row could ever hold it. They are kept
on the founder's business settings row (models/business.py; GET and POST
/api/settings/business take and answer them flat, beside the other settings) and said the
same way everywhere a shopper or the founder reads them: the store's copy (the offline
writer's shipping, returns and guarantee texts), the store's shipping page (labelled as the
business's policy, never as evidence), the desk agent and the assistant, all through
`sentences(of(owner_key))`.

What stays out: a statement backs its own policy and nothing else. The claim filter
(integrations/ai/claims.py) takes its numbers as backed (the 30 of "within 30 days"), never
its words as proof of a certification, an origin or of how well the product sells.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

from models.business import BusinessSettings
from models.clock import utcnow
from models.db import transaction
from services.errors import Refused
from services.ownership import owner_from_key

FIELDS = ("return_days", "free_returns", "shipping_days_min", "shipping_days_max", "guarantee", "ships_to")
TOPICS = ("returns", "shipping", "guarantee", "ships_to")
RETURN_DAYS = (1, 365)
SHIPPING_DAYS = (1, 90)
MAX_TEXT = 200  # the guarantee's and the places' words (the columns' length)


@dataclass(frozen=True)
class Statements:
    return_days: int | None = None        # 1..365
    free_returns: bool = False
    shipping_days_min: int | None = None  # 1..90, min <= max (a single figure sets both; two are ordered)
    shipping_days_max: int | None = None
    guarantee: str | None = None          # the founder's words, <= 200 chars, e.g. "30-day money-back guarantee"
    ships_to: str | None = None           # <= 200 chars, e.g. "the United States and Canada"

    def values(self) -> dict:
        """The fields as the settings answer them."""
        return asdict(self)


def of(owner_key: str) -> Statements:
    """The owner's saved statements (all None/False when none)."""
    row = BusinessSettings.get_or_none(BusinessSettings.owner == owner_key)
    return from_row(row)


def from_row(row: BusinessSettings | None) -> Statements:
    if row is None:
        return Statements()
    return Statements(**{name: getattr(row, name) for name in FIELDS})


# --- In a shopper's words ------------------------------------------------------------------

def sentences(statements: Statements) -> dict[str, str]:
    """Topic -> one sentence in a shopper's words, only for what is set (topics returns,
    shipping, guarantee, ships_to)."""
    said: dict[str, str] = {}
    days = statements.return_days
    if days and statements.free_returns:
        said["returns"] = f"Free returns within {_days(days)} of delivery."
    elif days:
        said["returns"] = f"Returns are accepted within {_days(days)} of delivery."
    elif statements.free_returns:
        said["returns"] = "Returns are free."
    low, high = statements.shipping_days_min, statements.shipping_days_max
    if low and high:
        span = _days(low, "business day") if low == high else f"{low} to {high} business days"
        said["shipping"] = f"Orders arrive in {span}."
    if statements.guarantee:
        said["guarantee"] = _as_sentence(statements.guarantee)
    if statements.ships_to:
        said["ships_to"] = f"We ship to {statements.ships_to.rstrip('.!;, ')}."
    return said


def _days(count: int, word: str = "day") -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _as_sentence(words: str) -> str:
    words = words.strip().rstrip(".;, ")
    return f"{words[:1].upper()}{words[1:]}{'' if words.endswith(('!', '?')) else '.'}"


# --- Read from a founder's words -------------------------------------------------------------

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45,
                 "sixty": 60, "ninety": 90}
_N = r"(\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_DAYS = r"(?:business[\s-]+|working[\s-]+)?days?"
_TO = r"\s*(?:-|–|—|to)\s*"
# "free returns", "returns are free", "free return shipping"
_FREE_RETURNS = re.compile(r"\bfree\s+(?:of\s+charge\s+)?returns?\b|\breturns?\s+(?:are|is)\s+(?:always\s+)?free\b",
                           re.I)
# "30-day returns", "a 30 day return policy", "30-day free returns", "30 days to return"
_WINDOW_BEFORE = re.compile(rf"\b{_N}[\s-]*days?[\s-]+(?:free[\s-]+)?(?:returns?|return\s+policy|return\s+window)\b"
                            rf"|\b{_N}\s+days?\s+to\s+return\b", re.I)
# "free returns within 30 days", "returns accepted up to 30 days after delivery"
_WINDOW_AFTER = re.compile(rf"\breturns?\b[^.;!?]{{0,40}}?\b(?:within|in|for|up\s+to|after)\s+(?:the\s+first\s+)?"
                           rf"{_N}\s*days?\b", re.I)
_SHIP_WORDS = r"(?:ships?|shipped|shipping|deliver(?:y|ed|s)?|arrives?|dispatch(?:ed|es)?|sent|orders?\s+arrive)"
# "ships in 3-5 days", "delivery in 3 to 5 business days", "arrives within 2 days"
_SHIPPING_AFTER = re.compile(rf"\b{_SHIP_WORDS}\b[^.;!?]{{0,30}}?\b(?:in|within|takes)\s+(?:about\s+)?{_N}"
                             rf"(?:{_TO}{_N})?\s*{_DAYS}\b", re.I)
# "3-5 day shipping", "3 to 5 business day delivery"
_SHIPPING_BEFORE = re.compile(rf"\b{_N}(?:{_TO}{_N})?[\s-]*{_DAYS}[\s-]+(?:free\s+)?(?:shipping|delivery)\b", re.I)
# "ships to the US and Canada" (the places end at the sentence's end or a time: "... in 3-5 days")
_SHIPS_TO = re.compile(r"\b(?:we\s+)?(?:ships?|shipping|deliver(?:s|y)?)\s+to\s+(.+?)"
                       r"(?=\s+(?:in|within)\s+(?:\d|about)|[.;!?(]|,\s*(?:and\s+)?(?:free|returns?|orders?)\b|$)", re.I)
_WORLDWIDE = re.compile(r"\b(?:ships?|shipping|deliver(?:s|y)?)\s+worldwide\b|\bworldwide\s+(?:shipping|delivery)\b",
                        re.I)
_GUARANTEE = re.compile(r"\b(?:guarantee[ds]?|warranty)\b", re.I)
# Words before "guarantee" that are not the guarantee's own ("we offer a", "backed by our").
_LEAD_IN = {"a", "an", "our", "the", "with", "we", "offer", "offers", "and", "plus", "comes", "come", "backed", "by",
            "includes", "include", "has", "have", "it", "every", "order", "orders", "all", "your", "is", "are",
            "also", "give", "gives", "get", "enjoy"}
_CLAUSE_END = re.compile(r"[.;:!?,()]")


def stated_in(text: str) -> dict:
    """The statement fields a founder's words state ({} when none). Pure: it reads the words
    only, so a copy sentence and a founder's message are read alike."""
    text = " ".join(str(text or "").split())
    found: dict = {}
    if _FREE_RETURNS.search(text):
        found["free_returns"] = True
    window = _WINDOW_BEFORE.search(text) or _WINDOW_AFTER.search(text)
    if window:
        found["return_days"] = _number(next(g for g in window.groups() if g))
    shipping = _SHIPPING_AFTER.search(text) or _SHIPPING_BEFORE.search(text)
    if shipping:
        low, high = shipping.group(1), shipping.group(2)
        found["shipping_days_min"] = _number(low)
        found["shipping_days_max"] = _number(high) if high else _number(low)
    places = _SHIPS_TO.search(text)
    if places and places.group(1).strip(" ,"):
        found["ships_to"] = places.group(1).strip(" ,")[:MAX_TEXT]
    elif _WORLDWIDE.search(text):
        found["ships_to"] = "customers worldwide"
    guarantee = _guarantee_in(text)
    if guarantee:
        found["guarantee"] = guarantee
    return found


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def _guarantee_in(text: str) -> str | None:
    """The guarantee as the founder named it ("1-year guarantee", "30-day money-back
    guarantee"): at most five words before the word, within its clause, without the words
    that lead into it."""
    match = _GUARANTEE.search(text)
    if match is None:
        return None
    before = _CLAUSE_END.split(text[:match.start()])[-1].split()[-5:]
    while before and before[0].lower() in _LEAD_IN:
        before = before[1:]
    words = " ".join([*before, match.group(0)])
    return words[:MAX_TEXT]


# --- Saving ----------------------------------------------------------------------------------

def checked(changes: dict, current: Statements) -> dict:
    """The columns to save for the statement fields in `changes` (others ignored), merged with
    `current` where the shipping span needs both ends; Refused `invalid_setting` naming the
    field in a founder's words when one is not a statement the store can make."""
    given = {name: changes[name] for name in FIELDS if name in changes}
    kept: dict = {}
    if "return_days" in given:
        kept["return_days"] = _whole(given["return_days"], "return_days", RETURN_DAYS,
                                     "How many days customers have to return an order")
    if "free_returns" in given:
        value = given["free_returns"]
        if value is None:
            value = False
        if type(value) is not bool:
            raise Refused("invalid_setting", "Whether returns are free is yes or no; nothing was saved.",
                          field="free_returns")
        kept["free_returns"] = value
    if "shipping_days_min" in given or "shipping_days_max" in given:
        kept.update(_shipping(given, current))
    for name, said in (("guarantee", "Your guarantee"), ("ships_to", "Where you ship")):
        if name in given:
            kept[name] = _words(given[name], name, said)
    return kept


def _whole(value, field: str, bounds: tuple[int, int], said: str) -> int | None:
    if value is None or value == "":
        return None
    low, high = bounds
    if type(value) is not int or not low <= value <= high:
        raise Refused("invalid_setting", f"{said} is a whole number of days from {low} to {high}; nothing was "
                                         "saved.", field=field)
    return value


def _shipping(given: dict, current: Statements) -> dict:
    """Both ends of the shipping time: a single figure (the other end left out or cleared)
    sets both, and two figures are a span, the shorter first ("7 to 3" is 3 to 7 business
    days). Ordering rather than refusing keeps every body the document allows acceptable: the
    figure saved before, which a save may leave in place, is no part of the request."""
    said = "How many business days shipping takes"
    low = (_whole(given["shipping_days_min"], "shipping_days_min", SHIPPING_DAYS, said)
           if "shipping_days_min" in given else current.shipping_days_min)
    high = (_whole(given["shipping_days_max"], "shipping_days_max", SHIPPING_DAYS, said)
            if "shipping_days_max" in given else current.shipping_days_max)
    if low is None or high is None:
        low = high = low if low is not None else high
    elif low > high:
        low, high = high, low
    return {"shipping_days_min": low, "shipping_days_max": high}


def _words(value, field: str, said: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refused("invalid_setting", f"{said} is words; nothing was saved.", field=field)
    text = value.strip()
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in text):
        raise Refused("invalid_setting", f"{said} has characters that cannot be shown; nothing was saved.",
                      field=field)
    if len(text) > MAX_TEXT:
        raise Refused("invalid_setting", f"{said} can be at most {MAX_TEXT} characters; nothing was saved.",
                      field=field)
    return " ".join(text.split()) or None


def save(owner_key: str, changes: dict) -> Statements:
    """Checks and saves the statement fields given into the owner's business settings row
    (created as services/business.py creates it); answers the new statements."""
    owner = owner_from_key(owner_key)
    kept = checked(changes, of(owner_key))
    if not kept:
        return of(owner_key)
    # Imported here: services.business imports this module to save the statements it is given.
    from services.business import DEFAULTS
    now = utcnow()
    with transaction():
        (BusinessSettings.insert(owner=owner_key, session=owner.session_id if owner.account_id is None else None,
                                 account=owner.account_id, updated_at=now, **{**DEFAULTS, **kept})
         .on_conflict(conflict_target=[BusinessSettings.owner],
                      update={**{getattr(BusinessSettings, k): v for k, v in kept.items()},
                              BusinessSettings.updated_at: now})
         .execute())
    return of(owner_key)
