"""A store built by this service, as Fix sees it: found by its address (its /store/<slug>
path on BASE_URL, or its connected domain), read from its published version rather than over
the network (the fetcher would rightly refuse this service's own host), its own links known
without probing, and, for its owner, repaired in place: what the store document can hold (the
home page's search title, the search description every page shares) written as a new store
version, published like any edit."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from config import get_settings
from models.db import transaction
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


def repair_in_place(own: dict, findings: list[dict], writer) -> tuple[int | None, list, list[dict]]:
    """Writes what the document can hold as a new version of the store: the home page's
    search title (the other pages' titles are the page's name and the business's) and the
    search description every page shares. Other findings keep their snippets. Returns the
    version (None when nothing in the document changed), the pages rendered from it and the
    findings, those the new version repairs marked so."""
    from services.store import versions

    for finding in findings:
        # The store is rendered from its document: a snippet cannot be pasted into it, so a
        # finding counts as repaired only when the new version repairs it.
        finding["fixed"] = False
    document = versions.document_of(own["product_id"], own["version"])
    copy = dict(document.get("copy") or {})
    home = own["origin"] + own["base"] + "/"
    written: dict[str, str] = {}
    for finding in findings:
        value = _snippet_value((finding.get("fix") or {}).get("snippet") or "", finding["check"])
        if finding["check"] == "title" and finding["page"] == home and value:
            written.setdefault("seo_title", value)
        elif finding["check"] == "meta_description" and value:
            written.setdefault("seo_description", value)
    if not written:
        return None, store_pages(own), findings
    updated = {**document, "copy": {**copy, **written}}
    names = {"seo_title": "search title", "seo_description": "search description"}
    with transaction():
        number = versions.write_version(own["product_id"], updated,
                                        summary="Fix: " + " and ".join(names[k] for k in sorted(written)) + " repaired")
    pages = store_pages(own, updated)
    remaining = {(f["check"], f["page"]) for f in checks.audit(pages, status_of=lambda url: 200)}
    for finding in findings:
        if finding["check"] in ("title", "meta_description") and (finding["check"], finding["page"]) not in remaining:
            field = "seo_title" if finding["check"] == "title" else "seo_description"
            finding["fixed"] = True
            finding["fix"] = {"kind": "store_version", "version": number, "value": updated["copy"][field],
                              "draft": bool((finding.get("fix") or {}).get("draft"))}
    return number, pages, findings


def _snippet_value(snippet: str, check: str) -> str | None:
    """The text a title or meta description snippet sets."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(snippet, "html.parser")
    if check == "title":
        tag = soup.find("title")
        return tag.get_text().strip() if tag else None
    tag = soup.find("meta", attrs={"name": "description"})
    return (tag.get("content") or "").strip() if tag else None
