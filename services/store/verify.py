"""The check a store must pass before it is called built or published: every page renders
and parses with its title and one h1, every internal link names a page, every image
resolves, the price is the one the store should charge, and no sentence of its copy
claims what the product record cannot back."""
from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

from config import ROOT, get_settings
from integrations import ai
from services import ai_facts
from services.store import own as own_details
from services.store import render

STATIC_DIR = ROOT / "api" / "static"
PRICE_CHANGED = "price_changed"
UNBACKED = "unbacked_claim"


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.images, self.h1, self.title = [], [], 0, ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.links.append(values["href"])
        elif tag == "img":
            self.images.append(values.get("src") or "")
        elif tag == "h1":
            self.h1 += 1
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def base_path(document: dict) -> str:
    return f"/store/{document['slug']}"


def _image_resolves(src: str, product_id: str) -> bool:
    parts = urlsplit(src)
    if parts.scheme == "https" and parts.netloc:
        return True  # another site's photo: never fetched by the service (offline by default)
    if not parts.scheme and not parts.netloc and parts.path.startswith(own_details.MEDIA_PREFIX):
        # A founder's upload: it must exist and be this product's own.
        return not parts.query and own_details.image_of(parts.path, product_id) is not None
    if parts.scheme or parts.netloc or not parts.path.startswith("/static/"):
        return False
    path = (STATIC_DIR / parts.path[len("/static/"):]).resolve()
    return path.is_relative_to(STATIC_DIR.resolve()) and path.is_file()


def page_problems(document: dict) -> list[str]:
    """What is wrong with the rendered pages (rendering errors propagate: the check could not run)."""
    base, origin = base_path(document), get_settings().base_url
    known = {base + "/" + render.page_path(page_id) for page_id in render.PAGE_IDS} | {base, base + "/"}
    found = []
    for page_id in render.PAGE_IDS:
        page = _Page()
        page.feed(render.render_page(document, page_id, base_path=base, origin=origin))
        page.close()
        if not page.title.strip() or page.h1 != 1:
            found.append(f"{page_id}: needs a title and exactly one h1")
        for href in page.links:
            target = href.split("#", 1)[0]
            if target.startswith(base) and target.rstrip("/") not in {k.rstrip("/") for k in known}:
                found.append(f"{page_id}: link to {href} names no page")
        found += [f"{page_id}: image {src!r} does not resolve" for src in page.images if not _image_resolves(src, document["product_id"])]
    return found


def problems_of(document: dict, facts) -> list[str]:
    """Every problem the store has against the product's current facts (empty: it passes)."""
    found = page_problems(document)
    if round(float(document["price"]), 2) != round(facts.price, 2):
        found.append(PRICE_CHANGED)
    if ai.unbacked(document["copy"], ai_facts.facts_for(product=facts.product, evidence=facts.evidence,
                                                      offer=facts.offer, statements=facts.statements)):
        found.append(UNBACKED)
    return found
