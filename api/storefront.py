"""The storefront's public pages (GET /store/<slug>/...) and the owner's preview
(GET /store/<slug>/preview/...), rendered from the store document (services/store/render.py)."""
from __future__ import annotations

from urllib.parse import quote

from flask import g, make_response, redirect, render_template, request
from marshmallow import Schema, fields, validate

from api import hosts
from api.errors import ApiError
from api.routing import Blueprint
from api.session import current_session
from config import get_settings
from jobs.send import send_all
from services.commerce import orders, payments
from services.errors import Refused
from services.kept import Kept
from services.money import display
from services.reasons import REASONS, sentence
from services.store import published, render, state

bp = Blueprint("storefront", __name__, description="Storefront pages.")

DECISIONS: list[str] = [
    "Money shown to people (store prices, the provider's hosted page, the thank-you page, receipts and the "
    "founder's notice) is formatted by Babel (en_US) from the currency data it is charged by: a currency's minor "
    "unit has CLDR's digits (ISO 4217's: CLP, JPY, KRW 0; USD, EUR 2; KWD, BHD 3). A store price is rounded half up "
    "to that unit, charged so and shown so: 12990 CLP is charged 12990 and shown CLP12,990, 24.99 EUR charged 2499 "
    "and shown €24.99, 12.345 KWD charged 12345 and shown KWD12.345; the Product JSON-LD offer price has the same "
    "digits. Stripe takes a three-decimal currency only in tens of its minor unit: another amount does not start "
    "(200 `payment_unavailable`, nothing charged).",
    "The public store pages' Content-Security-Policy lets the buy form lead (form-action) to the configured "
    "payment provider's checkout origin, which the provider names (Stripe: https://checkout.stripe.com; the "
    "sandbox: BASE_URL's origin, 'self' on the service's own host), and, on a connected domain, to BASE_URL's "
    "origin, where the payment's landing lives.",
    "A published store's public pages (home, product, faq, shipping, contact, privacy, terms, sitemap.xml, "
    "robots.txt; GET and HEAD) are rendered once per published version and page, on the first request for them, kept "
    "in the web process's memory and shared with the others through Redis when REDIS_URL is set, and served from "
    "there after that, with no database read (services/store/published.py). Which version is published "
    "is read from a pointer per store that publishing moves after its commit: in Redis when REDIS_URL is set, in the "
    "process in embedded mode (with Redis each process also keeps a copy of the pointers it read, trusted only while it "
    "is subscribed to the channel every publish announces on); when Redis does not answer the store row is read "
    "instead. Each page carries a strong "
    "ETag (a hash of the store, the published version, when it was published, the page, its host's base and origin, "
    "whether payments are on, the build); If-None-Match with it answers 304 with no body and no database query, and "
    "after a publish the old ETag no longer matches (publishing even the same version again gives new ETags). A page "
    "sent compressed has the ETag `<tag>:br` (or `:gzip`), as flask-compress writes it, and revalidates with it too; "
    "each web process compresses a page once per encoding and ETag and keeps it (flask-compress's cache settings). "
    "Cache-Control is `public, max-age=0, s-maxage=30, must-revalidate`: a shared cache (a CDN) may keep a page 30 s "
    "and then asks again with its ETag, a browser asks on every view, and neither serves a page stale, so a publish "
    "is seen at once by browsers and within 30 s behind a CDN. A preview stays `private, no-store`, without ETag.",
    "Store visits are counted by the page's own script (TRACKER, POST /api/track), never by serving the page: a 304, "
    "a page from a CDN and a page from the browser's cache all run it, so each view counts once, and serving writes "
    "nothing.",
    "The store speaks for the business (issue 47): each build writes the business name and the support address "
    "(support_email_local @ the store's connected domain) that Settings hold then into the store document, so a "
    "change shows after the next build and publish. The header, footer and Contact page name the business (the "
    "product's name until it has one); the Contact page links the support address, or, without one, says a reply "
    "to the order's receipt reaches the business. Public pages show no seller research: the evidence section "
    "renders only in the founder's preview, the copy tells no search counts or ranks (whichever AI backend wrote "
    "it: a sentence of the store's copy is kept only when the facts without the evidence rows back it, so a "
    "figure quoted from the research is dropped; the model is told so too), and a founder's own product "
    "shows no category. A receipt is From the business's name, Reply-To the store's support address, else "
    "order+<order id>@ the host of BASE_URL, which the desk files for the founder who claimed the product.",
    "A store that leads with its evidence (a decided section to lead with) leads its public page with what the "
    "evidence backs in a shopper's words, never its figures: 'Popular right now' with 'Shoppers are looking for "
    "<product>.' ('More and more shoppers...' when a demand series rises) and the month of the newest reading, "
    "said only while a demand series that is not falling, and not low on its metric's published scale, backs it "
    "(the test the demand suggestion makes before it proposes leading with the evidence); with none, shoppers see "
    "no evidence section. The founder's preview shows the rows and the line shoppers read in their place. Every "
    "page lists only the sections with something to show, and GET /api/editor/draft answers the home page as the "
    "preview shows it (`home_sections`, each with `shoppers_see`), which the Store screen draws.",
    "Store pages are written within Fix's audit (issue 48): a title of at most 60 characters (home: the search title "
    "as written when it fits; other pages: 'page · business' when it fits, else shortened at a separator, a "
    "phrase's end or a word, keeping the business's name when at least 20 characters of the page's own words fit "
    "beside it), a search description of at most 160 characters, width, height and alt text on every picture, "
    "Organization JSON-LD (the business's name from Settings, the home address, the support address) on the home "
    "page, and Product JSON-LD (availability OutOfStock while the product is paused or retired) only on the home "
    "and product pages.",
]


class ThanksQuery(Schema):
    order = fields.String(required=True, validate=validate.Length(min=1, max=64))
    cancelled = fields.Boolean(load_default=False)


_PAGES = {render.page_path(page_id): page_id for page_id in render.PAGE_IDS}
_HTML = {"type": "string", "description": "A storefront page"}


def public_csp() -> str:
    """The public pages' policy, letting the buy form lead to the configured provider's page
    (form-action governs where a form's redirects may lead; the provider names its page's
    origin) and, on a store's connected domain, to BASE_URL, where the payment's landing
    lives: there 'self' is the store's domain. The sandbox's page is on BASE_URL itself."""
    return csp_for(on_domain=hosts.store_domain() is not None)


_csp_of: dict[bool, tuple] = {}  # on_domain -> (the settings it was made from, the policy)


def csp_for(*, on_domain: bool) -> str:
    """public_csp() for a request on a connected domain or on the service's own host, made
    once per settings (it depends on nothing else)."""
    settings = get_settings()
    made = _csp_of.get(on_domain)
    if made is not None and made[0] is settings:
        return made[1]
    origin = settings.origin
    leads_to = [] if payments.checkout_origin() in (None, origin) else [payments.checkout_origin()]
    if on_domain:
        leads_to.append(origin)
    policy = render.CSP if not leads_to else render.CSP.replace(
        "form-action 'self'", "form-action 'self' " + " ".join(leads_to))
    _csp_of[on_domain] = (settings, policy)
    return policy


# A published page: a CDN may keep it 30 s (s-maxage), a browser revalidates each view
# (max-age=0), and neither serves it stale (must-revalidate); the ETag makes each check a 304.
PUBLISHED_CACHE = "public, max-age=0, s-maxage=30, must-revalidate"
_FILES = {"sitemap.xml": "application/xml", "robots.txt": "text/plain; charset=utf-8"}


def _answer(body, content_type: str | None, *, preview: bool, csp: str | None = None):
    response = make_response(body)
    if content_type is not None:
        response.headers["Content-Type"] = content_type
    response.headers["Content-Security-Policy"] = render.PREVIEW_CSP if preview else (csp or public_csp())
    response.headers["X-Frame-Options"] = "DENY"
    # A preview is the owner's alone; a published page is the same for everyone.
    response.headers["Cache-Control"] = "private, no-store" if preview else PUBLISHED_CACHE
    return response


def _render(document: dict, name: str, *, base: str, origin: str, preview: bool, payments_on: bool,
            on_sale: bool = True) -> str:
    if name == "sitemap.xml":
        return render.render_sitemap(document, base_path=base, origin=origin)
    if name == "robots.txt":
        return render.render_robots(document, base_path=base, origin=origin)
    return render.render_page(document, _PAGES[name], base_path=base, origin=origin, preview=preview,
                              payments_on=payments_on, on_sale=on_sale)


# flask-compress sends a compressed page with its strong ETag suffixed by the algorithm
# ("<tag>:br"), which is what a browser then revalidates with.
ENCODINGS = ("br", "gzip")


class CompressedPages:
    """flask-compress's cache (its COMPRESS_CACHE_BACKEND, asked under COMPRESS_CACHE_KEY):
    the published pages as compressed, each under its algorithm and its ETag. The ETag names
    everything the page is rendered from (its rendered copy is kept under it already, in
    services/store/published.py), so the same key is always the same bytes: a page is
    compressed once per process, not on every request. flask-compress asks about every
    answer it compresses (the app's scripts, styles and shell too); only a key the page view
    marked (compressed_page_key) is kept, any other is compressed afresh."""

    UNMARKED = "-"

    def __init__(self, size: int = 1024):
        self._kept = Kept(size)

    def get(self, key: str) -> bytes | None:
        return None if key.endswith(self.UNMARKED) else self._kept.get(key)

    def set(self, key: str, compressed: bytes) -> None:
        if not key.endswith(self.UNMARKED):
            self._kept.put(key, compressed)


def compressed_page_key(_request) -> str:
    """The key flask-compress keeps a compressed answer under (after `<algorithm>;`): the
    published page's ETag when the page view set one, else CompressedPages.UNMARKED."""
    return g.get("published_tag") or CompressedPages.UNMARKED


def published_tag(slug: str, name: str, pointer: published.Pointer, *, base: str, origin: str, csp: str) -> str:
    return published.etag(pointer, name, base, origin, str(payments.configured()), csp)


def matching_tag(if_none_match, tag: str) -> str | None:
    """The ETag a 304 is answered with when If-None-Match names the page (as sent, or as
    compressed), else None."""
    bare = tag.strip('"')
    for candidate in (bare, *(f"{bare}:{algorithm}" for algorithm in ENCODINGS)):
        if if_none_match.contains_weak(candidate):
            return f'"{candidate}"'
    return None


def page_type(name: str) -> str:
    return _FILES.get(name, "text/html; charset=utf-8")


def is_public_page(name: str) -> bool:
    return name in _PAGES or name in _FILES


def _published(slug: str, name: str):
    """A public page, from the publication's pointer and the page rendered once per
    process (services/store/published.py): a matching If-None-Match is a 304, and neither
    it nor a page already rendered (here, or by another process: shared through Redis) reads
    the database."""
    if not is_public_page(name):
        raise ApiError(404, "not_found")
    pointer = published.current(slug)
    if pointer is None:
        raise Refused("not_found")  # as the preview refuses: no such store, or not published
    base, origin = hosts.store_base(slug)
    csp = public_csp()
    tag = published_tag(slug, name, pointer, base=base, origin=origin, csp=csp)
    matched = matching_tag(request.if_none_match, tag)
    if matched is not None:
        response = _answer(b"", None, preview=False, csp=csp)
        response.status_code = 304
        response.headers["ETag"] = matched
        return response
    payments_on = payments.configured()
    # Whether the product is on sale is part of the pointer, and so of the ETag: retiring it
    # moves the pointer, and every process renders its pages again.
    body = published.rendered(pointer, tag, lambda document: _render(
        document, name, base=base, origin=origin, preview=False, payments_on=payments_on, on_sale=pointer.on_sale))
    response = _answer(body, page_type(name), preview=False, csp=csp)
    response.headers["ETag"] = tag
    g.published_tag = tag  # the compressed page is kept under it (CompressedPages)
    return response


def _preview(slug: str, name: str):
    if name not in _PAGES:
        raise ApiError(404, "not_found")
    document = state.page_source(slug, session=current_session(), preview=True)
    html = _render(document, name, base=f"/store/{slug}/preview", origin=hosts.store_base(slug)[1], preview=True,
                   payments_on=payments.configured())
    return _answer(html, "text/html; charset=utf-8", preview=True)


# The public pages neither read nor issue the session cookie: a store's visitors are not
# founders, and a page a shared cache may keep must not carry a Set-Cookie.
@bp.get("/store/<slug>/")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_home(slug):
    """The published store's home page."""
    return _published(slug, "")


@bp.get("/store/<slug>/<name>")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_page(slug, name):
    """A page of the published store (product, faq, shipping, contact, privacy, terms), its sitemap.xml or robots.txt."""
    return _published(slug, name)


# The preview is its owner's alone: these routes read the session (a static segment, so
# /store/<slug>/preview is this route and never a public page named "preview").
@bp.get("/store/<slug>/preview")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_preview_home(slug):
    """The home page of the owner's preview of the newest store version."""
    return _preview(slug, "")


@bp.get("/store/<slug>/preview/<name>")
@bp.declare(changes_state=False, refuses={404: ["not_found"]})
@bp.response(200, _HTML, content_type="text/html")
def store_preview_page(slug, name):
    """A page of the owner's preview of the newest store version."""
    return _preview(slug, name)


class CheckoutForm(Schema):
    product_id = fields.String(required=True, validate=validate.Length(min=1, max=120))
    quantity = fields.Integer(load_default=1, metadata={"reason": "invalid_quantity"})
    email = fields.String(load_default="", validate=validate.Length(max=320), metadata={"reason": "invalid_email"})
    # The utm_campaign of the link the customer arrived by (the store's script adds it): one
    # that is not shaped like one is dropped rather than refused, so no buyer is turned away.
    campaign = fields.String(load_default=None, validate=validate.Length(max=200),
                             metadata={"description": "The utm_campaign the customer arrived by"})


# The buy box's form. A customer's browser posts it from the store's own page, so it is a
# form (not JSON) and the cross-site guard applies. It answers 303 to the payment
# provider's page, or a short page saying why no order was opened.
@bp.post("/store/<slug>/checkout")
@bp.declare(changes_state=True, session=False, form=True, storefront=True,
            refuses={400: ["invalid_quantity", "invalid_email", "unknown_product"], 404: ["not_found"],
                     409: ["store_not_published", "product_not_on_sale"], 200: ["payment_unavailable"]})
@bp.arguments(CheckoutForm, location="form")
@bp.response(303, headers={"Location": {"schema": {"type": "string"}}})
def store_checkout(form, slug):
    """Opens an order from the store's buy box and sends the customer to the payment provider."""
    state.require_sells(slug, form["product_id"])
    try:
        started = orders.open_order(session=None, product_id=form["product_id"], quantity=form["quantity"],
                                    email=form["email"], campaign=form["campaign"])
    except Refused as refusal:
        return _refusal_page(slug, refusal)
    return redirect(started["checkout_url"], 303)


# A reload or a shared link of the checkout address: back to the buy box (this route also
# keeps the path from reading as a store page named "checkout"). /store/p/checkout is not a
# store's: /store/p/ holds generated pages (api/pages.py), and no store is given the slug p,
# so that one address is the pages route's 404.
@bp.get("/store/<slug>/checkout")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.response(303, headers={"Location": {"schema": {"type": "string"}}})
def store_checkout_page(slug):
    """Sends the browser to the store's buy box."""
    base, _origin = hosts.store_base(quote(slug, safe=""))
    return redirect(f"{base}/product#buy", 303)


def _refusal_page(slug: str, refusal: Refused):
    explanation = refusal.explanation or sentence(refusal.reason)
    html = render_template("storefront/refused.html", explanation=explanation,
                           back=f"{hosts.store_base(slug)[0]}/product")
    response = _answer(html, "text/html; charset=utf-8", preview=True)
    response.status_code = REASONS[refusal.reason].status if refusal.reason in REASONS else 400
    return response


@bp.get("/store/<slug>/thanks")
@bp.declare(changes_state=False, session=False, refuses={404: ["not_found"]})
@bp.arguments(ThanksQuery, location="query")
@bp.response(200, _HTML, content_type="text/html")
def store_thanks(query, slug):
    """The thank-you page of an order, after asking the payment provider about it."""
    document, order, follow_ups = orders.thanks(slug=slug, order_id=query["order"])
    send_all(follow_ups)
    html = render.render_thanks(document, order, base_path=hosts.store_base(slug)[0], cancelled=query["cancelled"],
                                amount=display(order["amount_minor"], order["currency"]))
    response = _answer(html, "text/html; charset=utf-8", preview=True)  # one customer's page: never cached
    response.headers["Content-Security-Policy"] = public_csp()
    return response
