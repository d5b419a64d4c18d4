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

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    name: str
    holds: tuple[str, ...]  # what it shows: copy fields (copy.*) and other parts of the document
    words: tuple[str, ...] = ()  # other names a founder may use for it


SECTIONS = (
    Section("hero", ("copy.headline", "copy.subheadline", "copy.call_to_action", "product.images"), ("photo",)),
    Section("benefits", ("copy.benefits",), ("features",)),
    Section("evidence", ("evidence",), ("demand", "proof")),
    Section("price", ("price", "currency", "checkout"), ("pricing",)),
    Section("reviews", (), ("review",)),  # format 1 holds no reviews: it renders nothing yet
    Section("faq", ("copy.faq",), ("questions",)),
    Section("guarantee", ("copy.guarantee",)),
    Section("shipping", ("copy.shipping",), ("delivery",)),
    Section("returns", ("copy.returns",)),
    Section("gallery", ("product.images",)),
    Section("about", ("copy.about", "product.description")),
    Section("contact", ("business.support_email",)),
    Section("privacy", ()),
    Section("terms", ()),
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
    it holds ("headline": hero). None when no section answers to it."""
    word = " ".join(word.lower().split())
    for section in SECTIONS:
        if word == section.name or word in section.words:
            return section.name
    field = field_named(word)
    return next((s.name for s in SECTIONS if f"copy.{field}" in s.holds), None) if field else None
