"""Reading a shop's page, shared by the checks (checks.py, page_checks.py, link_checks.py)
and the repairs (repairs.py, structured_data.py): the fetched Page, the soup it is parsed
into (html.parser) and the positions findings name its tags by, addresses (base, absolute,
origin, the page's own), the head's tags (title, named and Open Graph meta, canonical link),
the main headings, the text a visitor sees and the JSON-LD the page states."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup, Comment, Doctype, NavigableString, Tag

HIDDEN_TEXT = frozenset({"script", "style", "noscript", "template", "head", "title", "svg"})
STRUCK = frozenset({"s", "del", "strike"})  # a crossed-out price is the old one


@dataclass(frozen=True)
class Page:
    """One fetched page: its final URL, HTTP status, HTML and its size in bytes as served."""

    url: str
    status: int
    html: str
    size: int


def parse(html: str) -> BeautifulSoup:
    """The page parsed with the standard library's parser (no system library)."""
    return BeautifulSoup(html, "html.parser")


def elements(soup: BeautifulSoup) -> list[Tag]:
    """Every tag in document order: a finding's `position` indexes this list."""
    return list(soup.find_all(True))


def positions(tags: list[Tag]) -> dict[int, int]:
    """Each tag's position in `tags`, keyed by the tag's identity."""
    return {id(t): i for i, t in enumerate(tags)}


def base_of(page_url: str, soup: BeautifulSoup) -> str:
    """The address relative links resolve against: the page's, or its <base href>."""
    base = soup.find("base", href=True)
    return urljoin(page_url, base["href"].strip()) if base else page_url


def absolute(base: str, href: str) -> str:
    """An address as written in the page, resolved and without its fragment."""
    return urldefrag(urljoin(base, href.strip()))[0]


def is_http(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https") and bool(urlsplit(url).hostname)


def origin(url: str) -> str:
    """scheme://host[:port] with default ports left out."""
    parts = urlsplit(url)
    port = parts.port
    default = {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def own_address(url: str) -> str:
    """The page's own URL without query or fragment: what its canonical link names."""
    parts = urlsplit(url)
    return f"{origin(url)}{parts.path or '/'}"


def words(text: str | None) -> str:
    return " ".join((text or "").split())


def in_svg(tag: Tag) -> bool:
    return any(parent.name == "svg" for parent in tag.parents)


def head_title(soup: BeautifulSoup) -> Tag | None:
    """The document's <title> (not an SVG's)."""
    return next((t for t in soup.find_all("title") if not in_svg(t)), None)


def meta_named(soup: BeautifulSoup, name: str) -> Tag | None:
    """<meta name=...> (any case)."""
    return soup.find("meta", attrs={"name": re.compile(rf"^\s*{re.escape(name)}\s*$", re.I)})


def og_tag(soup: BeautifulSoup, prop: str) -> Tag | None:
    """<meta property="og:..."> (or name=, which many themes write)."""
    pattern = re.compile(rf"^\s*{re.escape(prop)}\s*$", re.I)
    return soup.find("meta", attrs={"property": pattern}) or soup.find("meta", attrs={"name": pattern})


def content_of(tag: Tag | None) -> str:
    return words(tag.get("content")) if tag is not None else ""


def rel_has(tag: Tag, value: str) -> bool:
    rel = tag.get("rel") or []
    rel = rel.split() if isinstance(rel, str) else rel
    return value in [r.lower() for r in rel]


def canonical_tag(soup: BeautifulSoup) -> Tag | None:
    return next((t for t in soup.find_all("link") if rel_has(t, "canonical")), None)


def headings(soup: BeautifulSoup) -> list[Tag]:
    return [h for h in soup.find_all("h1") if not in_svg(h)]


def visible_strings(soup: BeautifulSoup, *, skip_struck: bool = False):
    """The page's text as a visitor sees it, string by string."""
    for string in soup.find_all(string=True):
        if isinstance(string, (Comment, Doctype)) or not isinstance(string, NavigableString):
            continue
        if type(string) is not NavigableString:  # CData, processing instructions, declarations
            continue
        names = {p.name for p in string.parents}
        if names & HIDDEN_TEXT or (skip_struck and names & STRUCK):
            continue
        yield string


def main_text(soup: BeautifulSoup, *, most: int = 2000) -> str:
    """The page's own words for a drafted description: its <main> (or <article>, else the body
    without menus, header and footer), block by block so sentences do not run together."""
    area = soup.find("main") or soup.find("article") or soup.find("body") or soup
    blocks = []
    for block in area.find_all(["p", "li", "h1", "h2", "h3", "td", "blockquote"]):
        if {p.name for p in block.parents} & {"nav", "header", "footer", "figure", "script", "style", "template"}:
            continue
        if block.find(["p", "li"]):  # the inner blocks are read on their own
            continue
        text = words(block.get_text(" "))
        linked = sum(len(words(a.get_text(" "))) for a in block.find_all("a"))
        if linked * 2 >= len(text):  # a row of links (a menu, "see also") is not the page's prose
            continue
        if text:
            blocks.append(text if text[-1] in ".!?" or block.name in ("li", "td") else f"{text}.")
    return words(" ".join(blocks))[:most]


def jsonld_blocks(soup: BeautifulSoup) -> list:
    """The JSON-LD the page states (blocks that are not JSON are skipped)."""
    found = []
    for script in soup.find_all("script"):
        kind = (script.get("type") or "").split(";")[0].strip().lower()
        if kind != "application/ld+json":
            continue
        try:
            found.append(json.loads(script.string or ""))
        except ValueError:
            continue
    return found


def jsonld_types(soup: BeautifulSoup) -> set[str]:
    """Every @type named in the page's JSON-LD (through @graph and nested objects)."""
    types: set[str] = set()

    def walk(value):
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            kind = value.get("@type")
            for name in kind if isinstance(kind, list) else [kind]:
                if isinstance(name, str):
                    types.add(name.rsplit("/", 1)[-1].rsplit(":", 1)[-1])
            for item in value.values():
                walk(item)

    walk(jsonld_blocks(soup))
    return types
