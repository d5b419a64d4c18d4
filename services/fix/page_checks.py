"""The checks that read one page on its own (checks.py lists them all and runs them):
https, title, meta_description, one_h1, image_alt, product_data, canonical, open_graph,
viewport, page_weight and image_size, each returning (severity, detail, target) tuples;
View, the page as every check reads it; and the helpers that name things to a founder in a
finding's detail (file_name, named, quoted, plural), which link_checks.py uses too."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from services.fix.page_html import (
    Page,
    canonical_tag,
    content_of,
    head_title,
    headings,
    is_http,
    jsonld_types,
    meta_named,
    og_tag,
    origin,
    positions,
    words,
)
from services.fix.prices import find_price
from services.page_titles import DESCRIPTION_MOST, TITLE_MOST

HEAVY_BYTES = 500 * 1024
NAMED = 3  # items a detail names before "and N more"

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
ORGANIZATION_TYPES = frozenset({"Organization", "Corporation", "OnlineStore", "OnlineBusiness", "Store",
                                "LocalBusiness", "ClothingStore", "ShoppingCenter"})
# A page that says, in its structured data, that it is about something other than a product.
PAGE_TYPES = frozenset({"FAQPage", "QAPage", "AboutPage", "ContactPage", "Article", "BlogPosting", "NewsArticle"})
# A shop's information pages, by the last part of their address ("/pages/faq",
# "/policies/refund-policy", "/shipping-and-returns.html") or by their main heading: a price
# they mention (what shipping costs, what the product costs in an answer) is not a product of
# theirs, and a Product stated on them (named "Questions and answers") would be wrong.
INFO_ADDRESS = re.compile(
    r"(faqs?|frequently-asked-questions|questions(-and-answers)?|help|shipping|delivery|returns?|refunds?|"
    r"exchanges?|shipping-(and-|&-)?returns|returns-(and-|&-)?(refunds|exchanges)|"
    r"(shipping|delivery|refund|return|returns|privacy|cookie|cookies)-polic(y|ies)|polic(y|ies)|about(-us)?|"
    r"our-story|contact(-us)?|privacy|terms(-(of|and)-[a-z-]+)?|legal|legal-notice|imprint)", re.I)
INFO_HEADING = re.compile(
    r"(faqs?|frequently asked questions|(common )?questions( (and|&) answers)?|q ?& ?a|help|"
    r"(shipping|delivery)( (and|&) returns| information| policy)?|returns?( (and|&) (refunds|exchanges)| policy)?|"
    r"refunds?( policy)?|about( us)?|our story|contact( us)?|get in touch|privacy( policy)?|"
    r"terms( of (sale|service|use))?|terms (and|&) conditions|legal notice|imprint)", re.I)


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


# --- The checks --------------------------------------------------------------------------------

@dataclass
class View:
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


def _https(view: View, _probe) -> list[tuple]:
    """Lighthouse `is-on-https`: the page itself is served over plain http."""
    if urlsplit(view.page.url).scheme != "http":
        return []
    return [("high", "This page is served without encryption (http, not https), so browsers mark it "
             "\"not secure\" and search engines rank it lower.", {"url": view.page.url})]


def _title(view: View, _probe) -> list[tuple]:
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


def _meta_description(view: View, _probe) -> list[tuple]:
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


def _one_h1(view: View, _probe) -> list[tuple]:
    """One main heading (<h1>) per page, as Lighthouse's heading audits and Shopify's templates expect."""
    found = headings(view.soup)
    if not found:
        return [("medium", "This page has no main heading, so search engines and screen readers cannot tell "
                 "what it is about at a glance.", {"problem": "none", "count": 0})]
    if len(found) > 1:
        return [("low", f"This page has {len(found)} main headings where one is expected, which blurs what it "
                 "is about for search engines.", {"problem": "several", "count": len(found)})]
    return []


def _image_alt(view: View, _probe) -> list[tuple]:
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


def about_a_product(view: View, types: set[str]) -> bool:
    """Whether the page is about a product (Product structured data belongs on it): it shows a
    price and is none of a shop's information pages (FAQ, shipping, returns, about, contact,
    policies), which it says by its structured data (FAQPage, ...), the last part of its
    address or its main heading. A page marked as a product (og:type product) is one."""
    if find_price(view.soup) is None or types & PAGE_TYPES:
        return False
    if content_of(og_tag(view.soup, "og:type")).lower().startswith("product"):
        return True
    last = urlsplit(view.page.url).path.rstrip("/").rsplit("/", 1)[-1]
    if INFO_ADDRESS.fullmatch(re.sub(r"\.(html?|php|aspx?)$", "", unquote(last), flags=re.I)):
        return False
    found = headings(view.soup)
    heading = words(found[0].get_text(" ")) if found else ""
    return not INFO_HEADING.fullmatch(heading.rstrip(".!?:"))


def _product_data(view: View, _probe) -> list[tuple]:
    """Google's product rich results (Lighthouse's `structured-data` audit): a page about a
    product (about_a_product(): it shows a price and is no FAQ, policy or contact page) states
    its product as JSON-LD, and the first page states the shop (Organization)."""
    types = jsonld_types(view.soup)
    found = []
    if not types & PRODUCT_TYPES and about_a_product(view, types):
        found.append(("medium", "This page shows a price but does not describe its product to search engines, "
                      "so it cannot appear with its price and picture in search results.",
                      {"missing": "Product", "brand": view.site.get("brand") or ""}))
    if view.first and not types & ORGANIZATION_TYPES:
        found.append(("low", "Your shop is not described to search engines (its name and address), which helps "
                      "them show it correctly next to your pages.",
                      {"missing": "Organization", "name": view.site.get("brand") or "",
                       "url": origin(view.page.url) + "/"}))
    return found


def _canonical(view: View, _probe) -> list[tuple]:
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


def _open_graph(view: View, _probe) -> list[tuple]:
    """Open Graph tags that link previews (chat apps, social posts) read."""
    missing = [prop for prop in OG_NEEDED if not content_of(og_tag(view.soup, prop))]
    if not missing:
        return []
    what = {"og:title": "title", "og:description": "description", "og:image": "picture", "og:url": "address"}
    shown = [what[m] for m in missing]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" or {shown[-1]}"
    return [("low", f"When this page is shared in a chat or a post, its preview has no {listed} of its own.",
             {"missing": missing})]


def _viewport(view: View, _probe) -> list[tuple]:
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


def _page_weight(view: View, _probe) -> list[tuple]:
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


def _image_size(view: View, _probe) -> list[tuple]:
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
        "open_graph": _open_graph, "viewport": _viewport, "page_weight": _page_weight, "image_size": _image_size}
