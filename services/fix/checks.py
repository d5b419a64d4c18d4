"""The store audit: the checks a shop's public pages are held to, and the score they add up to.

Each check is modelled on an audit that search engines and shop platforms already publish,
so a founder is told what Google's Lighthouse or Shopify's theme check would tell them, in
their own words:

- `https` — Lighthouse best practices `is-on-https`: the page is served over plain http.
- `title` — Lighthouse SEO `document-title`: no title, an empty one, or one over 60
  characters (search results cut it).
- `meta_description` — Lighthouse SEO `meta-description`: none, an empty one, or one over
  160 characters.
- `one_h1` — the page's main heading: none, or more than one (Lighthouse's `heading-order`
  and Shopify's templates both expect one).
- `image_alt` — Lighthouse SEO/accessibility `image-alt`: an <img> without alt text;
  alt="" passes only with role="presentation".
- `product_data` — Lighthouse SEO `structured-data` (manual audit) and Google's product
  rich results: a page that shows a price with no JSON-LD Product, and a first page with no
  JSON-LD Organization.
- `canonical` — Lighthouse SEO `canonical` and `is-crawlable`: no canonical link, or one
  that is not an absolute http(s) address; a page that asks search engines not to list it
  (meta robots noindex) is reported here too.
- `open_graph` — what link previews read (the Open Graph protocol, checked by Shopify's
  themes): og:title, og:description, og:image and og:url.
- `viewport` — Lighthouse SEO/best practices `viewport`: no viewport meta, or one without
  width=device-width.
- `broken_links` — Lighthouse SEO `link-text` and `crawlable-anchors`, and the broken-link
  audits every SEO tool runs: <a href> links (same-site and external) answering 400 or
  more, or not answering; links only a script can follow (href="javascript:..."); links
  whose words say nothing ("click here").
- `mixed_content` — Lighthouse best practices `is-on-https` (mixed content): an http:
  image, script, stylesheet, frame, source, video or audio on an https page. Scripts,
  stylesheets and frames are blocked by browsers (high); pictures and media are shown
  with a warning (medium).
- `page_weight` — Lighthouse performance `total-byte-weight` and Shopify theme check
  `ParserBlockingScript` (formerly `ParserBlockingJavaScript`; its `AssetSize*` checks weigh
  files the same way): HTML over 500 KB, and scripts loaded without async or defer, which
  hold the page until they run.
- `image_size` — Lighthouse best practices `unsized-images` and Shopify theme check
  `ImgWidthAndHeight`: an <img> without width and height attributes, so the page jumps as
  it loads. It is a check of its own rather than part of page_weight: it is repaired per
  image from the image's real size, while page_weight is only reported.

A finding is a dict:

    {id: f"{check}:{page_index}:{n}",  # stable: n counts the check's findings on that page
     check, severity ("high" | "medium" | "low"), page (the page's URL),
     detail: one sentence a founder reads,
     fixed: False, fix: None,          # filled by repairs.repair()
     target: {...}}                    # what the repair needs; public page facts only

Elements a finding names are located by `position`: their index in document order among
all tags of the page parsed with html.parser (`elements(soup)`), which the repair, parsing
the same HTML, finds again.

The score (score()): every finding weighs by its severity (high 10, medium 5, low 2); a
check's weights are added over all pages and capped at the check's CAPS entry; the caps
add up to 100 and the score is 100 minus the capped sum: an integer from 0 to 100, the
same for the same findings, never sunk by one check alone (the heaviest, https, takes at
most 15). A repair only removes findings, so the score after is never lower, and it is
strictly higher whenever a check loses all its findings or a check below its cap loses one.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup, Comment, Doctype, NavigableString, Tag

CHECKS = ("https", "title", "meta_description", "one_h1", "image_alt", "product_data", "canonical",
          "open_graph", "viewport", "broken_links", "mixed_content", "page_weight", "image_size")
SEVERITIES = ("high", "medium", "low")
CHECK_LABELS = {
    "https": "Secure address",
    "title": "Page title",
    "meta_description": "Search result description",
    "one_h1": "Main heading",
    "image_alt": "Image descriptions",
    "product_data": "Product details for search engines",
    "canonical": "Address search engines list",
    "open_graph": "Link previews",
    "viewport": "Phone layout",
    "broken_links": "Links",
    "mixed_content": "Insecure files on a secure page",
    "page_weight": "Page speed",
    "image_size": "Image sizes",
}
WEIGHTS = {"high": 10, "medium": 5, "low": 2}
CAPS = {"https": 15, "title": 10, "meta_description": 8, "one_h1": 5, "image_alt": 8, "product_data": 8,
        "canonical": 6, "open_graph": 5, "viewport": 8, "broken_links": 10, "mixed_content": 7, "page_weight": 5,
        "image_size": 5}

TITLE_MOST = 60
DESCRIPTION_MOST = 160
HEAVY_BYTES = 500 * 1024
# Links probed in one audit, in document order: a shop's pages share most links, and twenty
# pages of a big menu must not turn into thousands of requests.
MAX_LINK_PROBES = 150
NAMED = 3  # items a detail names before "and N more"

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
ORGANIZATION_TYPES = frozenset({"Organization", "Corporation", "OnlineStore", "OnlineBusiness", "Store",
                                "LocalBusiness", "ClothingStore", "ShoppingCenter"})
ACTIVE_MIXED = frozenset({"script", "link", "iframe"})  # blocked by browsers
MIXED_TAGS = ("img", "script", "link", "iframe", "source", "video", "audio")
VAGUE_LINK_WORDS = frozenset({"click here", "click this", "here", "go", "more", "read more", "learn more",
                              "this", "link", "start", "right here", "continue", "more info", "details"})
HIDDEN_TEXT = frozenset({"script", "style", "noscript", "template", "head", "title", "svg"})
STRUCK = frozenset({"s", "del", "strike"})  # a crossed-out price is the old one


@dataclass(frozen=True)
class Page:
    """One fetched page: its final URL, HTTP status, HTML and its size in bytes as served."""

    url: str
    status: int
    html: str
    size: int


@dataclass(frozen=True)
class Price:
    """A price the page states: the amount as a plain decimal string and its currency code when
    the page names one unambiguously (a bare "$" names none: several countries use it)."""

    amount: str
    currency: str | None


# --- Reading a page (shared with repairs.py) -------------------------------------------------

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


def visible_text(soup: BeautifulSoup) -> str:
    return words(" ".join(visible_strings(soup)))


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


# --- Prices ------------------------------------------------------------------------------------

SYMBOLS = {"US$": "USD", "CA$": "CAD", "C$": "CAD", "AU$": "AUD", "A$": "AUD", "NZ$": "NZD", "HK$": "HKD",
           "S$": "SGD", "€": "EUR", "£": "GBP", "₹": "INR", "$": None, "¥": None}
CODES = ("USD", "EUR", "GBP", "CAD", "AUD", "NZD", "JPY", "INR", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "MXN",
         "BRL", "SGD", "HKD", "ZAR")
_AMOUNT = r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_SYMBOL = "|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True))
_CODE = "|".join(CODES)
PRICE_PATTERNS = (
    re.compile(rf"(?<![\w$])({_SYMBOL})\s?({_AMOUNT})(?![\d])"),
    re.compile(rf"(?<![\w.,])({_AMOUNT})\s?({_SYMBOL}|{_CODE})(?![\w$])"),
    re.compile(rf"\b({_CODE})\s?({_AMOUNT})(?![\d])"),
)


def plain_amount(raw: str) -> str | None:
    """"1,299.00" -> "1299.00", "12,99" -> "12.99", "1.299" -> "1299"; None when it is no amount."""
    text = re.sub(r"[\s\u00a0]", "", str(raw))
    separators = [c for c in text if c in ",."]
    if separators:
        last = max(text.rfind(","), text.rfind("."))
        decimals = text[last + 1:]
        whole = re.sub(r"[,.]", "", text[:last])
        text = f"{whole}.{decimals}" if len(decimals) in (1, 2) else whole + decimals
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return str(value) if value.is_finite() and value > 0 else None


def _currency(text: str) -> str | None:
    text = words(text).upper()
    return text if re.fullmatch(r"[A-Z]{3}", text) else None


def find_price(soup: BeautifulSoup) -> Price | None:
    """The price the page states, from its product meta tags, its microdata, or the first price
    written in its visible text (crossed-out prices skipped); None when it shows none."""
    amount = content_of(og_tag(soup, "product:price:amount") or og_tag(soup, "og:price:amount"))
    if amount and plain_amount(amount):
        currency = content_of(og_tag(soup, "product:price:currency") or og_tag(soup, "og:price:currency"))
        return Price(plain_amount(amount), _currency(currency))
    marked = soup.find(attrs={"itemprop": "price"})
    if marked is not None:
        raw = marked.get("content") or marked.get_text(" ")
        if plain_amount(re.sub(r"[^\d.,]", "", raw) or "x"):
            code = soup.find(attrs={"itemprop": "priceCurrency"})
            currency = _currency((code.get("content") or code.get_text(" ")) if code is not None else "")
            return Price(plain_amount(re.sub(r"[^\d.,]", "", raw)), currency)
    for string in visible_strings(soup, skip_struck=True):
        for pattern in PRICE_PATTERNS:
            match = pattern.search(str(string))
            if not match:
                continue
            first, second = match.groups()
            mark, raw = (first, second) if pattern is not PRICE_PATTERNS[1] else (second, first)
            amount = plain_amount(raw)
            if amount:
                return Price(amount, SYMBOLS.get(mark) if mark in SYMBOLS else mark)
    return None


# --- Naming things to a founder ----------------------------------------------------------------

def file_name(src: str) -> str:
    """What a founder recognises an image or file by: the last part of its address."""
    path = urlsplit(src.strip()).path if not src.strip().startswith("data:") else ""
    name = unquote(path.rstrip("/").rsplit("/", 1)[-1]) if path else ""
    return name or ("an embedded image" if src.strip().startswith("data:") else src.strip()[:60] or "(no address)")


def named(items: list[str]) -> str:
    shown = ", ".join(items[:NAMED])
    return shown + (f" and {len(items) - NAMED} more" if len(items) > NAMED else "")


def quoted(text: str) -> str:
    return f"\u201c{text}\u201d"


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def link_problem(status: int | None) -> str:
    if status is None:
        return "no answer"
    if status in (404, 410):
        return "page not found"
    if status in (401, 403):
        return "closed to visitors"
    if status >= 500:
        return "the site's server failed"
    return f"error {status}"


# --- The checks --------------------------------------------------------------------------------

@dataclass
class _View:
    """One page as the checks read it."""

    page: Page
    index: int
    soup: BeautifulSoup
    base: str
    tags: list[Tag]
    first: bool
    site: dict = field(default_factory=dict)
    where: dict = field(default_factory=dict)

    def __post_init__(self):
        self.where = positions(self.tags)

    def position(self, tag: Tag) -> int:
        return self.where[id(tag)]


def _https(view: _View, _probe) -> list[tuple]:
    """Lighthouse `is-on-https`: the page itself is served over plain http."""
    if urlsplit(view.page.url).scheme != "http":
        return []
    return [("high", "This page is served without encryption (http, not https), so browsers mark it "
             "\"not secure\" and search engines rank it lower.", {"url": view.page.url})]


def _title(view: _View, _probe) -> list[tuple]:
    """Lighthouse `document-title`: a title exists, says something, and fits a search result."""
    tag = head_title(view.soup)
    text = words(tag.get_text()) if tag is not None else ""
    # The shop's name, which a repaired title may end with (and the first page's may be).
    shop = {"shop": view.site.get("brand") or "", "home": view.first}
    if tag is None:
        return [("high", "This page has no title, so search results and browser tabs show its address instead.",
                 {"problem": "missing", "text": "", **shop})]
    if not text:
        return [("high", "This page's title is empty, so search results and browser tabs show its address instead.",
                 {"problem": "empty", "text": "", **shop})]
    if len(text) > TITLE_MOST:
        return [("low", f"This page's title is {len(text)} characters long, so search results cut it after about "
                 f"{TITLE_MOST}.", {"problem": "too_long", "text": text, **shop})]
    return []


def _meta_description(view: _View, _probe) -> list[tuple]:
    """Lighthouse `meta-description`: a description exists, says something, and fits a result."""
    tag = meta_named(view.soup, "description")
    text = content_of(tag)
    if tag is None or not text:
        return [("medium", "This page has no description for search results, so search engines pick a random "
                 "piece of the page to show under its title.", {"problem": "missing" if tag is None else "empty",
                                                                 "text": ""})]
    if len(text) > DESCRIPTION_MOST:
        return [("low", f"This page's search result description is {len(text)} characters long, so search "
                 f"engines cut it after about {DESCRIPTION_MOST}.", {"problem": "too_long", "text": text})]
    return []


def _one_h1(view: _View, _probe) -> list[tuple]:
    """One main heading (<h1>) per page, as Lighthouse's heading audits and Shopify's templates expect."""
    found = headings(view.soup)
    if not found:
        return [("medium", "This page has no main heading, so search engines and screen readers cannot tell "
                 "what it is about at a glance.", {"problem": "none", "count": 0})]
    if len(found) > 1:
        return [("low", f"This page has {len(found)} main headings where one is expected, which blurs what it "
                 "is about for search engines.", {"problem": "several", "count": len(found)})]
    return []


def _image_alt(view: _View, _probe) -> list[tuple]:
    """Lighthouse `image-alt`: every <img> has alt text; alt="" is left alone only when the
    image says it is decoration (role="presentation")."""
    missing = []
    for tag in view.soup.find_all("img"):
        alt = tag.get("alt")
        decorative = (tag.get("role") or "").strip().lower() in ("presentation", "none")
        if alt is None or (not alt.strip() and not decorative):
            src = tag.get("src") or tag.get("data-src") or ""
            missing.append({"position": view.position(tag), "src": src})
    if not missing:
        return []
    return [("medium", f"{plural(len(missing), 'image has', 'images have')} no description for screen readers "
             f"and search engines: {named([file_name(m['src']) for m in missing])}.", {"images": missing})]


def _product_data(view: _View, _probe) -> list[tuple]:
    """Google's product rich results (Lighthouse's `structured-data` audit): a page that shows a
    price states its product as JSON-LD, and the first page states the shop (Organization)."""
    types = jsonld_types(view.soup)
    found = []
    if find_price(view.soup) is not None and not types & PRODUCT_TYPES:
        found.append(("medium", "This page shows a price but does not describe its product to search engines, "
                      "so it cannot appear with its price and picture in search results.", {"missing": "Product"}))
    if view.first and not types & ORGANIZATION_TYPES:
        found.append(("low", "Your shop is not described to search engines (its name and address), which helps "
                      "them show it correctly next to your pages.",
                      {"missing": "Organization", "name": view.site.get("brand") or "",
                       "url": origin(view.page.url) + "/"}))
    return found


def _canonical(view: _View, _probe) -> list[tuple]:
    """Lighthouse `canonical` (a valid, absolute canonical link) and `is-crawlable` (no noindex)."""
    found = []
    tag = canonical_tag(view.soup)
    href = words(tag.get("href")) if tag is not None else ""
    if tag is None or not href:
        found.append(("low", "This page does not say which address is its main one, so search engines may split "
                      "its ranking between copies of it (with and without tracking codes, say).",
                      {"problem": "missing", "href": ""}))
    elif not is_http(href):
        found.append(("medium", f"This page names its main address as \"{href[:80]}\", which is not a full web "
                      "address, so search engines may ignore it.", {"problem": "not_absolute", "href": href}))
    robots = " ".join(content_of(t) for t in view.soup.find_all("meta", attrs={
        "name": re.compile(r"^\s*(robots|googlebot)\s*$", re.I)})).lower()
    if "noindex" in robots or "none" in robots.replace(",", " ").split():
        found.append(("high" if view.first else "low", "This page tells search engines not to list it, so it will "
                      "not appear in search results.", {"problem": "noindex"}))
    return found


OG_NEEDED = ("og:title", "og:description", "og:image", "og:url")


def _open_graph(view: _View, _probe) -> list[tuple]:
    """Open Graph tags that link previews (chat apps, social posts) read."""
    missing = [prop for prop in OG_NEEDED if not content_of(og_tag(view.soup, prop))]
    if not missing:
        return []
    what = {"og:title": "title", "og:description": "description", "og:image": "picture", "og:url": "address"}
    shown = [what[m] for m in missing]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" or {shown[-1]}"
    return [("low", f"When this page is shared in a chat or a post, its preview has no {listed} of its own.",
             {"missing": missing})]


def _viewport(view: _View, _probe) -> list[tuple]:
    """Lighthouse `viewport`: a viewport meta with width=device-width, so phones lay the page out
    at their own width."""
    tag = meta_named(view.soup, "viewport")
    content = content_of(tag)
    if tag is None:
        return [("high", "This page is not set up for phones, so they show it shrunk to a desktop's width.",
                 {"problem": "missing", "content": ""})]
    if "width=device-width" not in content.replace(" ", "").lower():
        return [("high", "This page's phone setup does not follow the phone's width, so phones may show it "
                 "shrunk or cut off.", {"problem": "no_device_width", "content": content})]
    return []


def _broken_links(view: _View, probe) -> list[tuple]:
    """Broken links (every SEO tool's audit), Lighthouse `crawlable-anchors` and `link-text`."""
    broken, scripted, vague = [], [], []
    for tag in view.soup.find_all("a"):
        href = (tag.get("href") or "").strip()
        text = words(tag.get_text(" ")).lower().strip(".!:»›→ ")
        if href.lower().startswith("javascript:"):
            scripted.append(text or href[:40])
            continue
        if text in VAGUE_LINK_WORDS and href and not href.startswith("#"):
            vague.append(text)
        if not href or href.startswith("#"):
            continue
        url = absolute(view.base, href)
        if not is_http(url):
            continue
        status = probe(url)
        if status is _NOT_PROBED:
            continue
        if status is None or status >= 400:
            if url not in [b["href"] for b in broken]:
                broken.append({"href": url, "status": status})
    found = []
    if broken:
        shown = [f"{_short(b['href'], view.page.url)} ({link_problem(b['status'])})" for b in broken]
        found.append(("medium", f"{plural(len(broken), 'link leads', 'links lead')} to a page that does not open: "
                      f"{named(shown)}.", {"links": broken}))
    if scripted:
        found.append(("low", f"{plural(len(scripted), 'link works', 'links work')} only with scripts, so search "
                      f"engines cannot follow {'it' if len(scripted) == 1 else 'them'}: "
                      f"{named([quoted(s) for s in scripted])}.", {"links": scripted}))
    if vague:
        found.append(("low", f"{plural(len(vague), 'link says', 'links say')} only "
                      f"{named(sorted({quoted(v) for v in vague}))}, which tells search engines and screen "
                      "readers nothing about where it leads.", {"words": vague}))
    return found


def _short(url: str, page_url: str) -> str:
    """A link as a founder reads it: the path on their own site, the whole address elsewhere."""
    if origin(url) == origin(page_url):
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "") or "/"
    return url


def mixed_resources(soup: BeautifulSoup, base: str, where: dict[int, int]) -> list[dict]:
    """The http: subresources of a page: {position, tag, attr, url} per address (srcset lists
    each of theirs)."""
    found = []
    for tag in soup.find_all(MIXED_TAGS):
        if tag.name == "link" and not rel_has(tag, "stylesheet"):
            continue
        for attr in ("src", "href", "srcset") if tag.name != "link" else ("href",):
            raw = tag.get(attr)
            if not raw:
                continue
            candidates = [c.strip().split()[0] for c in raw.split(",") if c.strip()] if attr == "srcset" else [raw]
            for candidate in candidates:
                url = urljoin(base, candidate.strip())
                if urlsplit(url).scheme == "http":
                    position = where[id(tag)]
                    found.append({"position": position, "tag": tag.name, "attr": attr, "url": url})
    return found


def _mixed_content(view: _View, _probe) -> list[tuple]:
    """Lighthouse mixed content (`is-on-https`): an https page loading files over http."""
    if urlsplit(view.page.url).scheme != "https":
        return []
    resources = mixed_resources(view.soup, view.base, view.where)
    active = [r for r in resources if r["tag"] in ACTIVE_MIXED]
    passive = [r for r in resources if r["tag"] not in ACTIVE_MIXED]
    found = []
    if active:
        found.append(("high", f"{plural(len(active), 'script, style or frame is', 'scripts, styles or frames are')} "
                      "loaded without encryption, so browsers block them on this secure page: "
                      f"{named([file_name(r['url']) for r in active])}.", {"kind": "active", "resources": active}))
    if passive:
        found.append(("medium", f"{plural(len(passive), 'picture or media file is', 'pictures or media files are')} "
                      "loaded without encryption, so browsers warn visitors that this page is not fully secure: "
                      f"{named([file_name(r['url']) for r in passive])}.", {"kind": "passive", "resources": passive}))
    return found


def _page_weight(view: _View, _probe) -> list[tuple]:
    """Lighthouse `total-byte-weight` and Shopify theme check `ParserBlockingScript`."""
    found = []
    if view.page.size > HEAVY_BYTES:
        found.append(("medium", f"This page's HTML alone weighs {view.page.size // 1024} KB (more than "
                      f"{HEAVY_BYTES // 1024} KB), so it loads slowly on phones.",
                      {"problem": "heavy", "size": view.page.size}))
    blocking = [s.get("src") for s in view.soup.find_all("script", src=True)
                if not s.has_attr("async") and not s.has_attr("defer")
                and (s.get("type") or "").strip().lower() != "module"]
    if blocking:
        found.append(("low", f"{plural(len(blocking), 'script holds', 'scripts hold')} the page until "
                      f"{'it has' if len(blocking) == 1 else 'they have'} loaded: "
                      f"{named([file_name(s) for s in blocking])}.", {"problem": "blocking_scripts",
                                                                      "scripts": blocking}))
    return found


def _image_size(view: _View, _probe) -> list[tuple]:
    """Lighthouse `unsized-images` and Shopify theme check `ImgWidthAndHeight`."""
    unsized = []
    for tag in view.soup.find_all("img"):
        if not _dimension(tag.get("width")) or not _dimension(tag.get("height")):
            src = tag.get("src") or tag.get("data-src") or ""
            unsized.append({"position": view.position(tag), "src": src, "url": urljoin(view.base, src) if src else ""})
    if not unsized:
        return []
    return [("low", f"{plural(len(unsized), 'image has', 'images have')} no width and height set, so the page "
             f"jumps about while {'it loads' if len(unsized) == 1 else 'they load'}: "
             f"{named([file_name(u['src']) for u in unsized])}.", {"images": unsized})]


def _dimension(value) -> bool:
    return bool(value) and bool(re.fullmatch(r"\s*\d+(?:\.\d+)?\s*(?:px)?\s*", str(value)))


RUNS = {"https": _https, "title": _title, "meta_description": _meta_description, "one_h1": _one_h1,
        "image_alt": _image_alt, "product_data": _product_data, "canonical": _canonical,
        "open_graph": _open_graph, "viewport": _viewport, "broken_links": _broken_links,
        "mixed_content": _mixed_content, "page_weight": _page_weight, "image_size": _image_size}

_NOT_PROBED = object()


def audit(pages: list[Page], *, status_of) -> list[dict]:
    """The findings of every check on every page, in page order then CHECKS order.
    `status_of(url) -> int | None` probes a link; each address is probed once per audit (the
    pages themselves answer with the status they were fetched with), at most MAX_LINK_PROBES."""
    known: dict[str, int | None] = {urldefrag(p.url)[0]: p.status for p in pages}
    probed = [0]

    def probe(url: str):
        if url not in known:
            if probed[0] >= MAX_LINK_PROBES:
                return _NOT_PROBED
            probed[0] += 1
            known[url] = status_of(url)
        return known[url]

    soups = [parse(p.html) for p in pages]
    site = {"brand": brand_of(pages, soups)}
    findings = []
    for index, (page, soup) in enumerate(zip(pages, soups, strict=True)):
        view = _View(page, index, soup, base_of(page.url, soup), elements(soup), index == 0, site)
        for check in CHECKS:
            for n, (severity, detail, target) in enumerate(RUNS[check](view, probe)):
                findings.append({"id": f"{check}:{index}:{n}", "check": check, "severity": severity,
                                 "page": page.url, "detail": detail, "fixed": False, "fix": None,
                                 "target": target})
    return findings


TITLE_SEPARATORS = re.compile(r"\s+[|–—·•:-]\s+")


def brand_of(pages: list[Page], soups: list[BeautifulSoup]) -> str:
    """The shop's name as its pages state it: og:site_name; else the part of the titles that
    several pages share ("Blue mug – Acme" and "Cups – Acme": Acme); else the first page's
    title's last part after a separator, or its whole title when it has none (a home page's
    title is usually the shop's name). Empty when the pages state none."""
    for soup in soups:
        name = content_of(og_tag(soup, "og:site_name"))
        if name:
            return name
    titles = [words(t.get_text()) for t in (head_title(s) for s in soups) if t is not None]
    titles = [t for t in titles if t]
    counts: dict[str, int] = {}
    for title in titles:
        for part in {p.strip() for p in TITLE_SEPARATORS.split(title) if p.strip()}:
            counts[part] = counts.get(part, 0) + 1
    shared = [part for part, count in counts.items() if count >= 2 and len(titles) >= 2]
    if shared:
        return max(shared, key=lambda p: (counts[p], -len(p)))
    if not titles:
        return ""
    parts = [p.strip() for p in TITLE_SEPARATORS.split(titles[0]) if p.strip()]
    return parts[-1] if parts else ""


def score(findings: list[dict]) -> int:
    """100 minus each check's severity weights, capped per check (the module says how)."""
    spent: dict[str, int] = {}
    for finding in findings:
        spent[finding["check"]] = spent.get(finding["check"], 0) + WEIGHTS[finding["severity"]]
    return 100 - sum(min(CAPS[check], weight) for check, weight in spent.items())


FILE_ENDINGS = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg", ".ico", ".pdf", ".zip", ".mp4", ".webm",
                ".mp3", ".css", ".js", ".json", ".xml", ".txt", ".csv")


def same_site_links(page: Page, *, limit: int = 20) -> list[str]:
    """The page's <a href> links on its own site (same scheme, host and port), absolute,
    without fragments, each once, in document order; the page's own address and links to
    files (pictures, PDFs, ...: FILE_ENDINGS) left out."""
    soup = parse(page.html)
    base = base_of(page.url, soup)
    home = origin(page.url)
    own = urldefrag(page.url)[0]
    links: list[str] = []
    for tag in soup.find_all("a", href=True):
        url = absolute(base, tag["href"])
        if not is_http(url) or origin(url) != home or url == own or url in links:
            continue
        if urlsplit(url).path.lower().endswith(FILE_ENDINGS):  # a picture or a download, not a page
            continue
        links.append(url)
        if len(links) >= limit:
            break
    return links
