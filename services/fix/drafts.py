"""The two pieces of writing a repair asks the AI for, as task kinds of the seam
(integrations/ai): `fix_meta_description` (a page's search result description) and
`fix_alt_text` (an image's description for screen readers and search engines).

Both are registered here like the growth kinds (services/growth/ads.py) and asked through
services/ai_tasks.write, so one retry policy holds: an AI backend that cannot be reached
is a TransientError and the Fix run tries again. The facts are the page's own words
(product = {name: the page's title or the image's context, description: the page's text
or the image's file name}, no evidence, no offer), so the seam's claim filter drops any
sentence with a number, certification or origin the page does not state.

The offline writers (the default backend) are deterministic and write only the page's
words: the description joins the page's own sentences up to 155 characters; the alt text
reads the image's file name ("blue-ceramic-mug_800x.jpg" -> "Blue ceramic mug"), or the
words around the image when the name says nothing ("IMG_0042.jpg").
"""
from __future__ import annotations

import logging
import re
from urllib.parse import unquote, urlsplit

from integrations import ai
from integrations.ai import claims
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, join
from services import ai_tasks

log = logging.getLogger("fix")

FIX_META = "fix_meta_description"
FIX_ALT = "fix_alt_text"
META_MOST = 155
ALT_MOST = 120

META_SCHEMA = record({"description": {"type": "string", "minLength": 1, "maxLength": META_MOST,
                                      "description": "the page's search result description, one or two sentences "
                                                     "in the page's own words"}})
ALT_SCHEMA = record({"alt": {"type": "string", "minLength": 1, "maxLength": ALT_MOST,
                             "description": "what the image shows, for someone who cannot see it, without "
                                            "\"image of\""}})
ASKS_META = ("Write this shop page's meta description for search results: at most 155 characters, from the "
             "page's own words (the facts), claiming nothing they do not state.")
ASKS_ALT = ("Write the alt text of this image on a shop page: at most 120 characters saying what it shows, from "
            "its file name (the description) and the words around it (the name), claiming nothing else.")

# Words a camera or a shop platform puts in a file name that say nothing about the picture.
NOISE = frozenset({"img", "image", "images", "photo", "photos", "pic", "picture", "dsc", "dscn", "dcim", "screenshot",
                   "screen", "shot", "file", "untitled", "copy", "final", "edit", "edited", "large", "small", "medium",
                   "thumb", "thumbnail", "web", "min", "scaled", "crop", "cropped", "resized", "progressive", "x"})
_SIZE_SUFFIX = re.compile(r"(?:_|-)(?:\d+x\d*|\d*x\d+|small|medium|large|grande|compact|master|pico|icon|thumb)$",
                          re.I)
_RETINA = re.compile(r"@\d(?:\.\d)?x$", re.I)
_HASHY = re.compile(r"^(?=.*\d)[0-9a-f]{8,}$|^\d+$|^v\d+$", re.I)


def _meta_facts(task: Task) -> tuple[str, str]:
    return str(task.facts.product.get("name") or ""), str(task.facts.product.get("description") or "")


def write_meta_description(task: Task) -> dict:
    """The fix_meta_description kind's offline writer."""
    title, text = _meta_facts(task)
    return {"description": meta_description_from(title, text)}


def meta_description_from(title: str, text: str) -> str:
    """The page's own full sentences (five words or more: not a button's or a menu's words)
    that fit together in 155 characters; else its title and first words, cut at a word."""
    text, title = " ".join(text.split()), " ".join(title.split())
    whole: list[str] = []
    for sentence, _gap in claims.sentences(text):
        sentence = sentence.strip()
        # A heading read as a sentence repeats the title; a page often says a line twice.
        if (len(sentence.split()) >= 5 and sentence[-1:] in ".!?" and sentence.rstrip(".!?") != title
                and sentence not in whole):
            whole.append(sentence)
    written = join(whole, META_MOST)
    if not written:
        opening = f"{title}. {text}" if title and text and not text.startswith(title) else (text or title)
        written = cut(opening, META_MOST)
    return written or "This page"  # the seam's schema needs a word; the repair never asks without any


def write_alt_text(task: Task) -> dict:
    """The fix_alt_text kind's offline writer."""
    return {"alt": alt_text_from(str(task.facts.product.get("description") or ""),
                                 str(task.facts.product.get("name") or ""))}


def alt_text_from(name_words: str, context: str) -> str:
    """The file name's words when they say something, else the words around the image."""
    if name_words:
        return cut(name_words[0].upper() + name_words[1:], ALT_MOST, "")
    context = " ".join(context.split())
    return cut(context, ALT_MOST, "") or "Picture"  # never reached from a repair: it asks with some words


def file_words(src: str) -> str:
    """"/files/blue-ceramic-mug_800x.jpg?v=3" -> "blue ceramic mug"; "" when the name says nothing."""
    path = urlsplit(src.strip()).path if not src.strip().startswith("data:") else ""
    stem = unquote(path.rstrip("/").rsplit("/", 1)[-1]).rsplit(".", 1)[0]
    stem = _RETINA.sub("", stem)
    while _SIZE_SUFFIX.search(stem):
        stem = _SIZE_SUFFIX.sub("", stem)
    parts = [p for p in re.split(r"[\s_\-+.,()\[\]]+", stem) if p]
    kept = [p for p in parts if p.lower() not in NOISE and not _HASHY.match(p)]
    if not any(re.search(r"[a-zA-Z]{3,}", p) for p in kept):
        return ""
    return " ".join(p.lower() if not p.isupper() or len(p) > 4 else p for p in kept)


ai.register(ai.Kind(FIX_META, META_SCHEMA, ASKS_META, offline=write_meta_description))
ai.register(ai.Kind(FIX_ALT, ALT_SCHEMA, ASKS_ALT, offline=write_alt_text))


class Drafts:
    """What repairs.py asks for: each answer a draft for the founder to read before using it.
    `write` is the seam's entry (services/ai_tasks.write), replaceable in a test.

    A backend that cannot be reached raises TransientError through ai_tasks.write, so the run
    is tried again. A backend that failed for good (an error answer, twice an answer out of
    shape) leaves that one finding unrepaired (""): the rest of the report still stands."""

    def __init__(self, write=ai_tasks.write):
        self._write = write

    def _ask(self, kind: str, facts: Facts, field: str) -> str:
        try:
            answer = self._write(Task(kind=kind, facts=facts))
        except ai.AIError as exc:
            log.warning("fix draft not written", extra={"fields": {"kind": kind, "reason": exc.reason}})
            return ""
        return " ".join(str(answer.copy.get(field) or "").split())

    def meta_description(self, *, title: str, text: str) -> str:
        """A search result description of at most 155 characters, from the page's own words."""
        title, text = " ".join(title.split()), " ".join(text.split())
        if not title and not text:
            return ""
        facts = Facts(product={"name": title, "description": text}, evidence=[], offer=None)
        return cut(self._ask(FIX_META, facts, "description"), META_MOST)

    def alt_text(self, *, src: str, context: str) -> str:
        """An image's alt text of at most 120 characters, from its file name and the words near it."""
        name, context = file_words(src), " ".join(context.split())
        if not name and not context:
            return ""
        facts = Facts(product={"name": context, "description": name}, evidence=[], offer=None)
        return cut(self._ask(FIX_ALT, facts, "alt"), ALT_MOST, "")
