"""What every repair works with (repairs.py, structured_data.py): Work, the page being repaired
(its soup changed in place, the tags as first parsed that findings name by position, an
untouched parse to read the page's own facts, its <head> made when it has none, and the
probes and drafts the repairs ask for); Fix, what one repair did; and html_of(), which writes a
snippet or the whole page back as it was written (AS_WRITTEN)."""
from __future__ import annotations

from dataclasses import dataclass

from bs4 import BeautifulSoup, Doctype, NavigableString, Tag
from bs4.dammit import EntitySubstitution
from bs4.formatter import HTMLFormatter

from services.fix.page_html import Page, base_of, elements, head_title, headings, parse, words


class _AsWritten(HTMLFormatter):
    """Writes the page back as it was written: attributes in their own order (Beautiful Soup
    sorts them by default), void elements without a closing slash, and only &, < and > (and
    quotes in attributes) escaped, so the corrected page differs from the page only where a
    repair changed it."""

    def attributes(self, tag):
        return list(tag.attrs.items()) if tag.attrs else []


AS_WRITTEN = _AsWritten(entity_substitution=EntitySubstitution.substitute_xml, void_element_close_prefix=None)


def html_of(node) -> str:
    """A tag (a snippet) or the whole page as HTML."""
    return node.decode(formatter=AS_WRITTEN)


@dataclass
class Fix:
    snippet: str
    where: str
    draft: bool
    complete: bool


class Work:
    """The page being repaired: its soup (changed in place), the tags as they were first parsed
    (findings name them by position), and an untouched parse to read the page's own facts."""

    def __init__(self, page: Page, *, drafts, status_of, image_size):
        self.page = page
        self.soup = parse(page.html)
        self.tags = elements(self.soup)
        self.base = base_of(page.url, self.soup)
        self.original = parse(page.html)
        self.drafts, self.status_of, self.image_size = drafts, status_of, image_size
        self.drafted_description = False
        self._head: Tag | None = None
        self._probes: dict[str, int | None] = {}

    def head(self) -> Tag:
        if self._head is None:
            self._head = self.soup.head or self._new_head()
        return self._head

    def _new_head(self) -> Tag:
        head = self.soup.new_tag("head")
        if self.soup.html is not None:
            self.soup.html.insert(0, head)
        else:
            doctype = next((c for c in self.soup.contents if isinstance(c, Doctype)), None)
            if doctype is not None:
                doctype.insert_after(head)
            else:
                self.soup.insert(0, head)
        return head

    def add_to_head(self, tag: Tag) -> Tag:
        head = self.head()
        head.append(NavigableString("\n"))
        head.append(tag)
        head.append(NavigableString("\n"))
        return tag

    def tag_at(self, position) -> Tag | None:
        return self.tags[position] if isinstance(position, int) and 0 <= position < len(self.tags) else None

    def probe(self, url: str) -> int | None:
        if url not in self._probes:
            self._probes[url] = self.status_of(url)
        return self._probes[url]

    def title_text(self) -> str:
        tag = head_title(self.soup)
        return words(tag.get_text()) if tag is not None else ""

    def heading(self, soup: BeautifulSoup | None = None) -> str:
        found = headings(soup or self.original)
        return words(found[0].get_text(" ")) if found else ""
