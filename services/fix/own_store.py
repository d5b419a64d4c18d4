"""A store built by this service, as Fix sees it: found by its address (its /store/<slug>
path on BASE_URL, or its connected domain), read from its published version rather than over
the network (the fetcher would rightly refuse this service's own host), and its own links
known without probing. What its document can hold of the repairs, and its owner's apply, are
in store_repairs.py."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from config import get_settings
from models.store import Store
from services.fix import checks


def own_store(url: str) -> dict | None:
    """The store of this service at `url` (its /store/<slug> address or its connected domain)."""
    from services import domains

    settings = get_settings()
    parts, home = urlsplit(url), urlsplit(settings.base_url)
    slug = None
    if (parts.hostname or "").lower() == (home.hostname or "").lower() and parts.port == home.port:
        found = re.match(r"^/store/([A-Za-z0-9-]+)(/|$)", parts.path)
        slug = found.group(1) if found else None
    else:
        slug = domains.connected_store_slug((parts.hostname or "").lower())
    store = Store.get_or_none(Store.slug == slug) if slug else None
    if store is None or store.published_version is None:
        return None
    on_domain = not (parts.hostname or "").lower() == (home.hostname or "").lower()
    origin = f"https://{parts.hostname.lower()}" if on_domain else settings.base_url.rstrip("/")
    return {"product_id": store.product_id, "slug": store.slug, "owner": store.owner,
            "version": store.published_version, "origin": origin, "base": "" if on_domain else f"/store/{slug}"}


def own_status_of(own: dict, status_of):
    """Link probes for a store built here: its own pages are known without asking the network
    (which, for this service's own host, the fetcher would rightly refuse)."""
    from services.store import render

    prefix = own["origin"] + own["base"]
    known = {f"{prefix}/{render.page_path(page_id)}" for page_id in render.PAGE_IDS}
    known |= {f"{prefix}/checkout", f"{prefix}/sitemap.xml", f"{prefix}/robots.txt", prefix}

    def probe(url: str) -> int | None:
        if url.split("#")[0] in known:
            return 200
        if url.startswith(own["origin"] + "/"):
            return 200 if not url.startswith(prefix + "/") else 404  # the service's own files
        return status_of(url)

    return probe


def store_pages(own: dict, document: dict | None = None) -> list:
    from services.store import render, versions

    document = document or versions.document_of(own["product_id"], own["version"])
    pages = []
    for page_id in render.PAGE_IDS:
        html = render.render_page(document, page_id, base_path=own["base"], origin=own["origin"])
        url = f'{own["origin"]}{own["base"]}/{render.page_path(page_id)}'
        pages.append(checks.Page(url=url, status=200, html=html, size=len(html.encode())))
    return pages
