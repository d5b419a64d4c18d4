"""A page's title and search description within what search results show, one rule for the
store's renderer (services/store/render.py, which writes every page to pass Fix's audit) and
for Fix (its audit's bounds, services/fix/page_checks.py, and the titles its repairs suggest,
services/fix/repairs.py): a title of at most TITLE_MOST characters that keeps the business's
name where it fits, a description of at most DESCRIPTION_MOST. Plain text on the standard
library alone (the renderer's imports are few and pure: tests/test_store_render.py)."""
from __future__ import annotations

import re

TITLE_MOST = 60  # characters of a title a search result shows
DESCRIPTION_MOST = 160  # and of a description
# Between a title's parts: "Blue mug – Acme", "Knife strip · Acme".
TITLE_SEPARATORS = re.compile(r"\s+[|–—·•:-]\s+")
BRAND_ROOM = 20  # characters of a shortened title's own words that must fit beside the business's name
DANGLING = frozenset({"a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with",
                      "&", "+"})


def fitted_title(text: str, brand: str, *, with_brand: bool = False) -> str:
    """A page title within the audit's TITLE_MOST characters, `brand` (the business's name) kept
    where it fits. `text` is kept as written when it fits, followed by `brand` when `with_brand`
    and that fits too. A longer one is shortened at a separator or a word and ends with `brand`
    (the one it named, else added) when at least BRAND_ROOM characters of its own fit beside."""
    text, brand = " ".join(text.split()), " ".join(brand.split())
    if not with_brand and len(text) <= TITLE_MOST:
        return text
    if not brand or text.lower() == brand.lower():
        return cut_title(text, TITLE_MOST)
    # A title that names the business as one of its parts ("Knife strip | Acme") is shortened
    # without it, and it goes back at the end with the title's own separator.
    pieces, separators = TITLE_SEPARATORS.split(text), TITLE_SEPARATORS.findall(text)
    named = [i for i, piece in enumerate(pieces) if piece.lower() == brand.lower()]
    separator = " · "
    if named:
        separator = separators[max(named[-1] - 1, 0)]
        text = separator.join(piece for i, piece in enumerate(pieces) if i != named[-1])
    elif brand.lower() in text.lower():
        return cut_title(text, TITLE_MOST)  # named inside a phrase: cut as it is
    if len(text) + len(separator) + len(brand) <= TITLE_MOST:
        return text + separator + brand
    room = TITLE_MOST - len(separator) - len(brand)
    shortened = cut_title(text, room) if room >= BRAND_ROOM else ""
    # The page's own words are cut to make room for the business's name only at one of their
    # separators, or when they would be cut anyway: "Frequently asked questions" is never
    # turned into "Frequently asked" to fit a long name beside it.
    if shortened and (len(text) > TITLE_MOST or _at_separator(text, len(shortened))):
        return shortened + separator + brand
    return cut_title(text, TITLE_MOST)


def _at_separator(text: str, end: int) -> bool:
    return any(m.start() == end for m in TITLE_SEPARATORS.finditer(text))


def cut_title(text: str, most: int) -> str:
    """`text` within `most` characters: at its last separator that keeps a real part of it,
    else at the end of its last phrase that fits (a comma: "..., 350 ml, Dishwasher Safe" is
    never cut to "..., 350"), else after its last whole word that fits (no dangling "and",
    "for", ..., nor a number without what it counts)."""
    if len(text) <= most:
        return text
    ends = [m.start() for m in TITLE_SEPARATORS.finditer(text) if 0 < m.start() <= most]
    if ends and ends[-1] >= BRAND_ROOM:
        return text[:ends[-1]].rstrip()
    phrases = [m.start() for m in _PHRASE_END.finditer(text) if BRAND_ROOM <= m.start() <= most]
    if phrases:
        return text[:phrases[-1]].rstrip()
    head = text[:most + 1].rsplit(" ", 1)[0] if " " in text[:most + 1] else text[:most]
    kept = head[:most].rstrip(" ,;:-–—|·").split(" ")
    while len(kept) > 1 and (kept[-1].lower() in DANGLING or _NUMBER.fullmatch(kept[-1])):
        kept.pop()
    return " ".join(kept).rstrip(" ,;:-–—|·")


_PHRASE_END = re.compile(r"[,;]\s")
_NUMBER = re.compile(r"[\d.,]+")
