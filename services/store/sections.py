"""The store's sections, in one place: their names, the order pages show them in, what
each holds, and the words a founder may call them by.

The store document (document.py) builds its pages from PAGES, the renderer (render.py)
knows NAMES and falls back on PAGES, and intents (intents.py) and plain-language edits
(edits.py, offline_edit.py) read a founder's words with `named` and `field_named`.

A founder's word names a section directly ("lead with the questions": faq) or through a
copy field the section holds: "lead with the headline" leads with the hero, which holds
the headline, while "change the headline to ..." changes that field's words. So a word
means one thing everywhere it is read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    name: str
    said: str  # how a founder's screen names it ("the questions", never "faq")
    holds: tuple[str, ...]  # what it shows: copy fields (copy.*) and other parts of the document
    words: tuple[str, ...] = ()  # other names a founder may use for it


SECTIONS = (
    Section("hero", "the headline and photo",
            ("copy.headline", "copy.subheadline", "copy.call_to_action", "product.images"), ("photo",)),
    Section("benefits", "the benefits", ("copy.benefits",), ("features",)),
    Section("evidence", "the proof of demand", ("evidence",), ("demand", "proof")),
    Section("price", "the price", ("price", "currency", "checkout"), ("pricing", "cost")),
    Section("reviews", "the reviews", (), ("review",)),  # format 1 holds no reviews: it renders nothing yet
    Section("faq", "the questions", ("copy.faq",), ("questions",)),
    Section("guarantee", "the guarantee", ("copy.guarantee",)),
    Section("shipping", "shipping", ("copy.shipping",), ("delivery",)),
    Section("returns", "returns", ("copy.returns",), ("refund",)),
    Section("gallery", "the photos", ("product.images",)),
    Section("about", "about the shop", ("copy.about", "product.description")),
    Section("contact", "contact", ("business.support_email",)),
    Section("privacy", "privacy", ()),
    Section("terms", "terms", ()),
)
NAMES = tuple(s.name for s in SECTIONS)
BY_NAME = {s.name: s for s in SECTIONS}

# Each page's sections in the order a new store shows them (page id -> section names).
PAGES = {
    "home": ("hero", "benefits", "evidence", "price", "reviews", "faq", "guarantee", "shipping"),
    "product": ("gallery", "price", "about", "benefits", "shipping"),
    "faq": ("faq",),
    "shipping": ("shipping", "returns"),
    "contact": ("contact",),
    "privacy": ("privacy",),
    "terms": ("terms",),
}
# What the home page can lead with (decisions.md, Store editing): its own sections.
LEADS = PAGES["home"]

# The copy fields a founder may name, and the other words for them.
FIELD_WORDS = {
    "headline": "headline", "title": "headline", "heading": "headline",
    "subheadline": "subheadline", "subtitle": "subheadline", "tagline": "subheadline",
    "call to action": "call_to_action", "cta": "call_to_action", "button": "call_to_action",
    "buy button": "call_to_action", "guarantee": "guarantee", "shipping": "shipping", "shipping text": "shipping",
    "returns": "returns", "returns text": "returns", "about": "about", "about text": "about",
    "seo title": "seo_title", "seo description": "seo_description", "meta description": "seo_description",
}


def field_named(word: str) -> str | None:
    """The copy field a founder's word names ("tagline": subheadline), or None."""
    return FIELD_WORDS.get(" ".join(word.lower().split()))


def named(word: str) -> str | None:
    """The section a founder's word names: its name, another word for it, or a copy field
    it holds ("headline": hero), in any form of the word ("prices": price). None when no
    section answers to it."""
    word = " ".join(word.lower().split())
    for section in SECTIONS:
        if stem(word) in {stem(w) for w in (section.name, *section.words)}:
            return section.name
    field = field_named(word)
    return next((s.name for s in SECTIONS if f"copy.{field}" in s.holds), None) if field else None


def said(name: str) -> str:
    """A section as a founder's screen names it ("faq": "the questions")."""
    return BY_NAME[name].said if name in BY_NAME else name


# --- Word stems -----------------------------------------------------------------------------------
# A founder says "returns" of a question asking "Can I return it?": words match on their
# stems, and a section's other names stand for it ("delivery" finds the shipping question).

_SUFFIXES = ("ing", "ed", "es", "s")
# Words too common to say what a question is about.
_COMMON = frozenset("a an the of to in on at for and or my our your its it is are be do does i we you "
                    "can how what why when where who which that this with about any there".split())


def stem(word: str) -> str:
    """The word without its inflection: return, returns, returned and returning are "return";
    price, prices and pricing are "pric" (a stem is for matching, never shown)."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
            continue  # "prices" is "price" + s, "boxes" is "box" + es
        if suffix == "s" and word.endswith("ss"):
            break  # "glass" is no plural
        word = word[:-len(suffix)]
        # shipped, shipping: ship (a doubled last consonant is the inflection's, bar -ll, -ss)
        if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "aeiouls":
            word = word[:-1]
        break
    # "price" and "pricing" meet at "pric": the silent e goes.
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _kin(word_stem: str) -> set[str]:
    """The stem and the stems of the words a section's names say the same thing with."""
    for section in SECTIONS:
        group = {stem(w) for w in (section.name, *section.words)}
        if word_stem in group:
            return group
    return {word_stem}


def mentions(text: str, words: str) -> bool:
    """Whether `text` is about `words`: each telling word of `words`, or a word its section
    knows for it, appears in `text` in some form ("returns" in "Can I return it?")."""
    if words.lower() in text.lower():
        return True
    wanted = [stem(w) for w in re.findall(r"[a-z0-9]+", words.lower()) if w not in _COMMON]
    have = {stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())}
    return bool(wanted) and all(_kin(w) & have for w in wanted)


# --- Bounds in words ------------------------------------------------------------------------------
# A store's copy out of bounds is told as the founder's part of the store, never as the
# schema's path ("$.faq: must have at most 6 items (has 7)").

# copy field -> (what it is called, what one of its items is called, if it is a list). The
# founder's changed parts (services/store/versions.PART_WORDS) are named from the same table.
COPY_PARTS = {
    "headline": ("The headline", None), "subheadline": ("The line under the headline", None),
    "call_to_action": ("The buy button's words", None), "benefits": ("The benefits", "benefit"),
    "faq": ("The questions", "question"), "about": ("The About text", None),
    "shipping": ("The shipping text", None), "returns": ("The returns text", None),
    "guarantee": ("The guarantee", None), "seo_title": ("The title search engines show", None),
    "seo_description": ("The description search engines show", None),
}
_ITEM_PARTS = {"title": "title", "text": "text", "question": "question", "answer": "answer"}
_PATH = re.compile(r"^\$(?:\.copy)?\.(?P<field>\w+)(?:\[(?P<index>\d+)\](?:\.(?P<part>\w+))?)?$")
_BOUND = re.compile(r"^must (?:be|have) at (?P<side>most|least) (?P<limit>\d+) (?P<unit>characters|items) "
                    r"\(has (?P<has>\d+)\)$")


def in_words(problem) -> str:
    """A store copy problem (integrations/ai/schemas.py Problem: `.path` and `.words`) as a
    founder reads it: "The questions can hold at most 6 (this would make 7)"."""
    path, words = getattr(problem, "path", ""), getattr(problem, "words", str(problem))
    where, bound = _PATH.match(path), _BOUND.match(words)
    if not where or where["field"] not in COPY_PARTS:
        return f"Part of your store {words}" if words.startswith("must") else words
    whole, item = COPY_PARTS[where["field"]]
    if where["index"] is not None and item:
        number = int(where["index"]) + 1
        whole = f"The {_ITEM_PARTS.get(where['part'], 'text')} of {item} {number}" if where["part"] \
            else f"{item.capitalize()} {number}"
    if missing := re.match(r"^missing key '(\w+)'$", words):
        return f"{whole} has no {_ITEM_PARTS.get(missing[1], missing[1])}"
    if not bound:
        return f"{whole} {words}"
    limit, has = bound["limit"], bound["has"]
    if bound["unit"] == "items":
        many = f"{item}s" if item else "items"
        return (f"{whole} can hold at most {limit} (this would make {has})" if bound["side"] == "most"
                else f"{whole} need at least {limit} {many} (this would leave {has})")
    return (f"{whole} can be at most {limit} characters (this would be {has})" if bound["side"] == "most"
            else f"{whole} needs at least {limit} characters (this would be {has})")


def said_in_words(problems) -> str:
    """Every problem in words, one sentence each."""
    return " ".join(f"{in_words(p)}." for p in problems)
