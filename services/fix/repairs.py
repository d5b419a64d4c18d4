"""The repair: for one audited page, the corrected HTML and a snippet per finding it could
repair, never stating a fact the page does not.

repair() parses the page with html.parser, changes only what a finding names (a tag added
to <head>, an attribute set, a title or description replaced) and returns the whole page
with everything else as it was. Each finding comes back with `fixed` and `fix` filled in:

    fix = {kind: "snippet", snippet: "<...>" (HTML a founder can paste),
           where: "head" (add it to the page's <head>) | "replace" (put it in place of the
                  element it names), draft: bool (AI-drafted words to read before using)}

`fixed` is True when the finding is wholly repaired (the corrected page, audited again,
no longer has it); a finding repaired in part (two of three images sized) keeps fixed
False and its fix holds the part that was done; a finding that cannot be repaired keeps
fix None. What is repaired, and from what:

- title: missing or empty, from the page's main heading or og:title (with the shop's name
  when it fits); too long, cut at a separator or a word to 60 characters.
- meta_description: missing or empty, drafted from the page's own words (draft); too long,
  cut at a word.
- image_alt: alt text drafted from the file name and the words around the image (draft).
- product_data: JSON-LD Product from what the page states: its name (main heading,
  og:title or title), description (meta or og:description), image (og:image or the first
  picture), address, and an offer only when the page states a price and names its currency;
  a field the page does not state is left out. JSON-LD Organization from the shop's name as
  its pages state it and the site's address. The JSON has <, > and & written as \\u003c,
  \\u003e and \\u0026 so no text in it can close its <script>.
- canonical: the page's own address without query or fragment (a relative one resolved).
- open_graph: og:title, og:description, og:image and og:url from the title, description,
  first picture and canonical address.
- viewport: width=device-width, initial-scale=1.
- mixed_content: each http address rewritten to https only when status_of(the https
  address) answers below 400.
- image_size: width and height from image_size(address) -> (width, height) | None; a
  dimension already set is kept and the other follows the picture's proportions.
- A page that declares a character set other than UTF-8 is declared UTF-8: the corrected
  page is text, saved and served as UTF-8.
- Not repaired (reported only): https (the server's setting), one_h1 (the page's design),
  broken_links (where a link should lead is not guessed), page_weight, and noindex (it may
  be meant).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, Doctype, NavigableString, Tag
from bs4.dammit import EntitySubstitution
from bs4.formatter import HTMLFormatter

from integrations.ai.offline import cut
from services.fix.checks import (
    CHECKS,
    TITLE_MOST,
    TITLE_SEPARATORS,
    Page,
    absolute,
    base_of,
    canonical_tag,
    content_of,
    elements,
    find_price,
    head_title,
    headings,
    is_http,
    main_text,
    meta_named,
    og_tag,
    own_address,
    parse,
    words,
)

VIEWPORT = "width=device-width, initial-scale=1"


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
DESCRIPTION_CUT = 155  # a too-long description is cut a little inside the limit


@dataclass
class _Fix:
    snippet: str
    where: str
    draft: bool
    complete: bool


class _Work:
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


# --- One repair per check --------------------------------------------------------------------

def _title(work: _Work, target: dict) -> _Fix | None:
    if target.get("problem") == "too_long":
        tag = head_title(work.soup)
        if tag is None:
            return None
        tag.string = trimmed_title(target.get("text") or work.title_text())
        return _Fix(html_of(tag), "replace", False, True)
    name = work.heading() or content_of(og_tag(work.original, "og:title"))
    shop = words(target.get("shop")) or content_of(og_tag(work.original, "og:site_name"))
    if not name and not (shop and target.get("home")):
        return None  # only the first page (the shop's front) is titled with the shop's name alone
    text = name if not shop or shop.lower() in name.lower() else f"{name} – {shop}" if name else shop
    text = text if len(text) <= TITLE_MOST else trimmed_title(name)
    tag = head_title(work.soup)
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("title"))
        tag.string = text
        return _Fix(html_of(tag), "head", False, True)
    tag.string = text
    return _Fix(html_of(tag), "replace", False, True)


def trimmed_title(text: str) -> str:
    """A title cut to 60 characters: at the last separator that keeps it within, else at a word."""
    text = words(text)
    if len(text) <= TITLE_MOST:
        return text
    ends = [m.start() for m in TITLE_SEPARATORS.finditer(text) if 0 < m.start() <= TITLE_MOST]
    if ends and ends[-1] >= 15:
        return text[:ends[-1]].rstrip()
    return cut(text, TITLE_MOST)


def _meta_description(work: _Work, target: dict) -> _Fix | None:
    tag = meta_named(work.soup, "description")
    if target.get("problem") == "too_long":
        if tag is None:
            return None
        tag["content"] = cut(words(target.get("text") or tag.get("content")), DESCRIPTION_CUT)
        return _Fix(html_of(tag), "replace", False, True)
    written = work.drafts.meta_description(title=work.title_text() or work.heading(), text=main_text(work.original))
    written = cut(words(written), DESCRIPTION_CUT)
    if not written:
        return None
    work.drafted_description = True
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("meta", attrs={"name": "description", "content": written}))
        return _Fix(html_of(tag), "head", True, True)
    tag["content"] = written
    return _Fix(html_of(tag), "replace", True, True)


def _image_alt(work: _Work, target: dict) -> _Fix | None:
    done, images = [], target.get("images") or []
    for image in images:
        tag = work.tag_at(image.get("position"))
        if tag is None or tag.name != "img":
            continue
        src = tag.get("src") or tag.get("data-src") or ""
        alt = words(work.drafts.alt_text(src=src, context=image_context(tag, work)))
        if alt:
            tag["alt"] = alt
            done.append(html_of(tag))
    return _Fix("\n".join(done), "replace", True, len(done) == len(images)) if done else None


def image_context(tag: Tag, work: _Work) -> str:
    """The words a visitor sees with the image: its caption, its link's words or title, the
    heading above it, else the page's main heading or title."""
    figure = tag.find_parent("figure")
    caption = figure.find("figcaption") if figure is not None else None
    link = tag.find_parent("a")
    above = tag.find_previous(["h1", "h2", "h3"])
    for candidate in (caption.get_text(" ") if caption is not None else "",
                      link.get_text(" ") if link is not None else "",
                      link.get("title") if link is not None else "",
                      tag.get("title"),
                      above.get_text(" ") if above is not None else "",
                      work.heading(), work.title_text()):
        if words(candidate):
            return words(candidate)
    return ""


def safe_json(value) -> str:
    """JSON for inside a <script>: no character of it can end the element or start markup."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def product_facts(work: _Work) -> dict | None:
    """The JSON-LD Product the page states: only the fields it states; None without a name."""
    page = work.original
    name = work.heading() or content_of(og_tag(page, "og:title"))
    if not name:
        title = head_title(page)
        name = TITLE_SEPARATORS.split(words(title.get_text()))[0] if title is not None else ""
    if not name:
        return None
    product: dict = {"@context": "https://schema.org", "@type": "Product", "name": name}
    description = content_of(meta_named(page, "description")) or content_of(og_tag(page, "og:description"))
    if description:
        product["description"] = description
    image = first_image(work)
    if image:
        product["image"] = image
    product["url"] = canonical_address(work)
    price = find_price(page)
    if price is not None and price.currency:
        product["offers"] = {"@type": "Offer", "price": price.amount, "priceCurrency": price.currency}
    return product


def first_image(work: _Work) -> str:
    """og:image, else the first picture of the page's main part (else of the page), absolute."""
    page = work.original
    stated = content_of(og_tag(page, "og:image"))
    if stated:
        return urljoin(work.base, stated)
    area = page.find("main") or page.find("article") or page
    for scope in (area, page):
        for img in scope.find_all("img"):
            src = (img.get("src") or "").strip()
            if src and not src.startswith("data:") and is_http(urljoin(work.base, src)):
                return urljoin(work.base, src)
    return ""


def canonical_address(work: _Work) -> str:
    tag = canonical_tag(work.soup)
    href = words(tag.get("href")) if tag is not None else ""
    return href if href and is_http(href) else own_address(work.page.url)


def _jsonld(work: _Work, value: dict) -> _Fix:
    script = work.soup.new_tag("script", attrs={"type": "application/ld+json"})
    script.string = safe_json(value)
    work.add_to_head(script)
    return _Fix(html_of(script), "head", False, True)


def _product_data(work: _Work, target: dict) -> _Fix | None:
    if target.get("missing") == "Product":
        product = product_facts(work)
        return _jsonld(work, product) if product else None
    if target.get("missing") == "Organization":
        name, url = words(target.get("name")), target.get("url") or ""
        if not name or not is_http(url):
            return None
        return _jsonld(work, {"@context": "https://schema.org", "@type": "Organization", "name": name, "url": url})
    return None


def _canonical(work: _Work, target: dict) -> _Fix | None:
    if target.get("problem") == "missing":
        tag = canonical_tag(work.soup)
        if tag is not None:  # present with an empty href
            tag["href"] = own_address(work.page.url)
            return _Fix(html_of(tag), "replace", False, True)
        tag = work.soup.new_tag("link", attrs={"rel": "canonical", "href": own_address(work.page.url)})
        work.add_to_head(tag)
        return _Fix(html_of(tag), "head", False, True)
    if target.get("problem") == "not_absolute":
        tag = canonical_tag(work.soup)
        if tag is None:
            return None
        resolved = absolute(work.base, target.get("href") or "")
        tag["href"] = resolved if is_http(resolved) else own_address(work.page.url)
        return _Fix(html_of(tag), "replace", False, True)
    return None


def _open_graph(work: _Work, target: dict) -> _Fix | None:
    missing = target.get("missing") or []
    description = content_of(meta_named(work.soup, "description"))
    values = {"og:title": work.title_text() or work.heading(),
              "og:description": description,
              "og:image": first_image(work),
              "og:url": canonical_address(work)}
    added, draft = [], False
    for prop in missing:
        value = values.get(prop)
        if not value:
            continue
        existing = og_tag(work.soup, prop)
        if existing is not None:  # present but empty
            existing["content"] = value
            added.append(html_of(existing))
        else:
            added.append(html_of(work.add_to_head(work.soup.new_tag("meta", attrs={"property": prop, "content": value}))))
        draft = draft or (prop == "og:description" and work.drafted_description)
    return _Fix("\n".join(added), "head", draft, len(added) == len(missing)) if added else None


def _viewport(work: _Work, target: dict) -> _Fix | None:
    tag = meta_named(work.soup, "viewport")
    if tag is None:
        tag = work.add_to_head(work.soup.new_tag("meta", attrs={"name": "viewport", "content": VIEWPORT}))
        return _Fix(html_of(tag), "head", False, True)
    tag["content"] = VIEWPORT
    return _Fix(html_of(tag), "replace", False, True)


def _mixed_content(work: _Work, target: dict) -> _Fix | None:
    resources = target.get("resources") or []
    secure: dict[str, str] = {}
    for resource in resources:
        url = resource.get("url") or ""
        if urlsplit(url).scheme != "http":
            continue
        https = "https:" + url[len("http:"):]
        status = work.probe(https)
        # Rewritten only when the same file answers over https: a guess would break the page.
        if status is not None and status < 400:
            secure[url] = https
    changed: list[Tag] = []
    rewritten = 0
    for resource in resources:
        tag = work.tag_at(resource.get("position"))
        attr = resource.get("attr")
        if tag is None or tag.name != resource.get("tag") or not tag.get(attr) or resource.get("url") not in secure:
            continue
        if attr == "srcset":
            tag[attr] = _rewrite_srcset(tag[attr], work.base, secure)
        elif urljoin(work.base, tag[attr].strip()) == resource["url"]:
            tag[attr] = secure[resource["url"]]
        else:
            continue
        rewritten += 1
        if tag not in changed:
            changed.append(tag)
    if not changed:
        return None
    return _Fix("\n".join(html_of(t) for t in changed), "replace", False, rewritten == len(resources))


def _rewrite_srcset(srcset: str, base: str, secure: dict[str, str]) -> str:
    candidates = []
    for candidate in srcset.split(","):
        parts = candidate.strip().split(None, 1)
        if not parts:
            continue
        url = urljoin(base, parts[0])
        parts[0] = secure.get(url, parts[0])
        candidates.append(" ".join(parts))
    return ", ".join(candidates)


def _image_size(work: _Work, target: dict) -> _Fix | None:
    done, images = [], target.get("images") or []
    for image in images:
        tag = work.tag_at(image.get("position"))
        if tag is None or tag.name != "img" or not image.get("url"):
            continue
        size = work.image_size(image["url"])
        if not size or len(size) != 2 or not all(isinstance(v, int) and v > 0 for v in size):
            continue
        width, height = size
        set_width, set_height = _number(tag.get("width")), _number(tag.get("height"))
        if set_width and not set_height:
            height = max(1, round(set_width * height / width))
            width = None
        elif set_height and not set_width:
            width = max(1, round(set_height * width / height))
            height = None
        if width is not None:
            tag["width"] = str(width)
        if height is not None:
            tag["height"] = str(height)
        done.append(html_of(tag))
    return _Fix("\n".join(done), "replace", False, len(done) == len(images)) if done else None


def _number(value) -> float | None:
    try:
        number = float(str(value).strip().removesuffix("px"))
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def declare_utf8(soup: BeautifulSoup) -> None:
    """The corrected page is text, saved and served as UTF-8: a page that declares another
    character set (windows-1252, say) declares UTF-8 instead, or its accents would be garbled."""
    for tag in soup.find_all("meta"):
        if tag.get("charset") is not None and tag["charset"].strip().lower() not in ("utf-8", "utf8"):
            tag["charset"] = "utf-8"
        elif (tag.get("http-equiv") or "").strip().lower() == "content-type" and re.search(
                r"charset\s*=\s*(?!utf-?8\b)", tag.get("content") or "", re.I):
            tag["content"] = "text/html; charset=utf-8"


REPAIRS = {"title": _title, "meta_description": _meta_description, "image_alt": _image_alt,
           "product_data": _product_data, "canonical": _canonical, "open_graph": _open_graph,
           "viewport": _viewport, "mixed_content": _mixed_content, "image_size": _image_size}
REPAIRABLE = tuple(REPAIRS)


def repair(page: Page, findings: list[dict], *, drafts, status_of, image_size) -> tuple[str, list[dict]]:
    """The page's corrected HTML and its findings with fixed and fix filled in. Findings of
    other pages come back unchanged. Repairs run in CHECKS order, so the link preview's
    tags read the title and description as repaired."""
    work = _Work(page, drafts=drafts, status_of=status_of, image_size=image_size)
    for node in work.soup.contents:
        if isinstance(node, Doctype):
            node.SUFFIX = ">"  # Beautiful Soup adds a line break after it; the page has its own
    declare_utf8(work.soup)
    results: dict[str, dict] = {}
    mine = [f for f in findings if f.get("page") == page.url]
    for finding in sorted(mine, key=lambda f: CHECKS.index(f["check"]) if f["check"] in CHECKS else len(CHECKS)):
        run = REPAIRS.get(finding["check"])
        done = run(work, finding.get("target") or {}) if run else None
        fix = None if done is None else {"kind": "snippet", "snippet": done.snippet, "where": done.where,
                                         "draft": done.draft}
        results[finding["id"]] = {**finding, "fixed": bool(done and done.complete), "fix": fix}
    return html_of(work.soup), [results.get(f["id"], dict(f)) if f.get("page") == page.url else dict(f)
                            for f in findings]
