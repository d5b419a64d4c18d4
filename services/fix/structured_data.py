"""The repair of structured data (the product_data check): a JSON-LD Product built only from
what the page states (product_facts(): name, the shop's name as its brand, description, image,
address and an offer when the page states a price and its currency) and a JSON-LD
Organization from the shop's name and address, added to the page's <head> as JSON safe inside a <script>
(services/store/render.py's script_json(), as the store's own pages write theirs); with the
page's first picture and canonical address (first_image(), canonical_address()), which the
Open Graph repair reads too."""
from __future__ import annotations

from urllib.parse import urljoin

from services.fix.page_html import (
    canonical_tag,
    content_of,
    head_title,
    is_http,
    meta_named,
    og_tag,
    own_address,
    words,
)
from services.fix.prices import find_price
from services.fix.repair_work import Fix, Work, html_of
from services.page_titles import TITLE_SEPARATORS
from services.store.render import script_json


def product_facts(work: Work, brand: str = "") -> dict | None:
    """The JSON-LD Product the page states: only the fields it states; None without a name.
    `brand`: the shop's name as its pages state it (the audit's), which a title's name is read
    without ("Blue mug – Acme": Blue mug) and the product is sold under."""
    page = work.original
    brand = words(brand)
    name = work.heading() or _without_brand(content_of(og_tag(page, "og:title")), brand)
    if not name:
        title = head_title(page)
        name = _without_brand(words(title.get_text()), brand) if title is not None else ""
    if not name:
        return None
    product: dict = {"@context": "https://schema.org", "@type": "Product", "name": name}
    if brand:
        product["brand"] = {"@type": "Brand", "name": brand}
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


def _without_brand(title: str, brand: str) -> str:
    """A title's first part that is not the shop's name ("Acme | Blue mug": Blue mug)."""
    parts = [p.strip() for p in TITLE_SEPARATORS.split(title) if p.strip()]
    named = [p for p in parts if p.lower() != brand.lower()] if brand else parts
    return (named or parts or [""])[0]


def first_image(work: Work) -> str:
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


def canonical_address(work: Work) -> str:
    tag = canonical_tag(work.soup)
    href = words(tag.get("href")) if tag is not None else ""
    return href if href and is_http(href) else own_address(work.page.url)


def _jsonld(work: Work, value: dict) -> Fix:
    script = work.soup.new_tag("script", attrs={"type": "application/ld+json"})
    script.string = script_json(value, indent=2)  # indented: the founder copies and reads it
    work.add_to_head(script)
    return Fix(html_of(script), "head", False, True)


def repair_product_data(work: Work, target: dict) -> Fix | None:
    if target.get("missing") == "Product":
        product = product_facts(work, target.get("brand") or "")
        return _jsonld(work, product) if product else None
    if target.get("missing") == "Organization":
        name, url = words(target.get("name")), target.get("url") or ""
        if not name or not is_http(url):
            return None
        return _jsonld(work, {"@context": "https://schema.org", "@type": "Organization", "name": name, "url": url})
    return None
