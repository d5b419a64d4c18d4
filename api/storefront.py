"""The storefront's public pages (GET /store/<slug>/...) and the owner's preview
(GET /store/<slug>/preview/...), rendered from the store document (services/store/render.py)."""
from __future__ import annotations

from flask import make_response

from api.errors import ApiError
from api.routing import Blueprint
from api.session import current_session
from config import get_settings
from services.store import render, state

bp = Blueprint("storefront", __name__, description="Storefront pages.")

_PAGES = {render.page_path(page_id): page_id for page_id in render.PAGE_IDS}
_HTML = {"type": "string", "description": "A storefront page"}


def _answer(body: str, content_type: str, *, preview: bool):
    response = make_response(body)
    response.headers["Content-Type"] = content_type
    response.headers["Content-Security-Policy"] = render.PREVIEW_CSP if preview else render.CSP
    response.headers["X-Frame-Options"] = "DENY"
    # The public pages may be cached briefly; a preview is the owner's alone.
    response.headers["Cache-Control"] = "private, no-store" if preview else "public, max-age=60"
    return response


def _serve(slug: str, name: str, *, preview: bool):
    if name not in _PAGES and (preview or name not in ("sitemap.xml", "robots.txt")):
        raise ApiError(404, "not_found")
    document = state.page_source(slug, session=current_session() if preview else None, preview=preview)
    if document is None:
        raise ApiError(404, "not_found")
    origin = get_settings().base_url
    base = f"/store/{slug}/preview" if preview else f"/store/{slug}"
    if name == "sitemap.xml":
        return _answer(render.render_sitemap(document, base_path=base, origin=origin), "application/xml", preview=False)
    if name == "robots.txt":
        return _answer(render.render_robots(document, base_path=base, origin=origin), "text/plain; charset=utf-8",
                       preview=False)
    html = render.render_page(document, _PAGES[name], base_path=base, origin=origin, preview=preview)
    return _answer(html, "text/html; charset=utf-8", preview=preview)


# The public pages neither read nor issue the session cookie: a store's visitors are not
# founders, and a page a shared cache may keep for a minute must not carry a Set-Cookie.
@bp.get("/store/<slug>/")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_home(slug):
    """The published store's home page."""
    return _serve(slug, "", preview=False)


@bp.get("/store/<slug>/<name>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_page(slug, name):
    """A page of the published store (product, faq, shipping, contact, privacy, terms), its sitemap.xml or robots.txt."""
    return _serve(slug, name, preview=False)


# The preview is its owner's alone: these routes read the session (a static segment, so
# /store/<slug>/preview is this route and never a public page named "preview").
@bp.get("/store/<slug>/preview")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_preview_home(slug):
    """The home page of the owner's preview of the newest store version."""
    return _serve(slug, "", preview=True)


@bp.get("/store/<slug>/preview/<name>")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_preview_page(slug, name):
    """A page of the owner's preview of the newest store version."""
    return _serve(slug, name, preview=True)
