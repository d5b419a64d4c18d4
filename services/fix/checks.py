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
  rich results: a page about a product (it shows a price and is none of the shop's FAQ,
  shipping, returns, about, contact or policy pages: page_checks.about_a_product()) with no
  JSON-LD Product, and a first page with no JSON-LD Organization. Product data belongs only
  on a page about the product: a price an FAQ answer or a shipping page mentions asks for none.
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

This module is the audit's public face (CHECKS, CHECK_LABELS, audit(), score(),
same_site_links(), Page): the checks themselves are in page_checks.py (one page on its own)
and link_checks.py (its links and files), the page reading they share with the repairs in
page_html.py, and the price a page states in prices.py.
"""
from __future__ import annotations

from urllib.parse import urldefrag, urlsplit

from bs4 import BeautifulSoup

from services.fix import link_checks, page_checks
from services.fix.link_checks import NOT_PROBED
from services.fix.page_checks import View
from services.fix.page_html import (
    Page,
    absolute,
    base_of,
    content_of,
    elements,
    head_title,
    is_http,
    og_tag,
    origin,
    parse,
    words,
)
from services.fix.prices import Price, find_price
from services.page_titles import TITLE_SEPARATORS

__all__ = ["CAPS", "CHECKS", "CHECK_LABELS", "MAX_LINK_PROBES", "SEVERITIES", "WEIGHTS", "Page", "Price", "audit",
           "find_price", "same_site_links", "score"]

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

# Links probed in one audit, in document order: a shop's pages share most links, and twenty
# pages of a big menu must not turn into thousands of requests.
MAX_LINK_PROBES = 150

# The checks themselves: page_checks.py (one page on its own) and link_checks.py (its links and files).
RUNS = {**page_checks.RUNS, **link_checks.RUNS}


def audit(pages: list[Page], *, status_of) -> list[dict]:
    """The findings of every check on every page, in page order then CHECKS order.
    `status_of(url) -> int | None` probes a link; each address is probed once per audit (the
    pages themselves answer with the status they were fetched with), at most MAX_LINK_PROBES."""
    known: dict[str, int | None] = {urldefrag(p.url)[0]: p.status for p in pages}
    probed = [0]

    def probe(url: str):
        if url not in known:
            if probed[0] >= MAX_LINK_PROBES:
                return NOT_PROBED
            probed[0] += 1
            known[url] = status_of(url)
        return known[url]

    soups = [parse(p.html) for p in pages]
    site = {"brand": brand_of(pages, soups)}
    findings = []
    for index, (page, soup) in enumerate(zip(pages, soups, strict=True)):
        view = View(page, index, soup, base_of(page.url, soup), elements(soup), index == 0, site)
        for check in CHECKS:
            for n, (severity, detail, target) in enumerate(RUNS[check](view, probe)):
                findings.append({"id": f"{check}:{index}:{n}", "check": check, "severity": severity,
                                 "page": page.url, "detail": detail, "fixed": False, "fix": None,
                                 "target": target})
    return findings


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
