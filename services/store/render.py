"""Store pages from a store document (format 1): a pure function of the document.

The same document, base path and origin always give byte-identical HTML: nothing here
reads a database, a request, the clock or the environment. The build and publish checks
render every page once (services/store/verify.py); the routes render the version they serve
on each request and send it with `CSP` (a preview with `PREVIEW_CSP`) as the
Content-Security-Policy.

Founder- and AI-written text is untrusted. Every template is autoescaped (our own Jinja
environment, not Flask's, so rendering in a worker escapes just the same), the one rich
field (`copy.about`) goes through nh3 with a short allow-list, URLs are checked by
scheme before they reach an attribute, and the only scripts on a page are its JSON-LD
structured data (Product on the pages about the product, Organization on the home page),
serialised with `<`, `>` and `&` escaped so founder text cannot close it, and (on public
pages, never a preview) the funnel events' external script, TRACKER.

A page is written to pass Fix's audit (services/fix/page_checks.py) as it is built: its title
and search description within the audit's bounds (services/page_titles.py), every picture
with alt text, width and height, a canonical link and Open Graph tags, and the structured data
above; a store built here scores 100 before any repair (tests/test_built_store_passes_its_audit.py).

The document is read leniently: a missing or mistyped field renders as absent, never as
a KeyError, so a half-written copy still gives a working page.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import nh3
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from services.day_words import day_words
from services.evidence_kinds import source_label
from services.money import display_major, major_text, minor_units
from services.page_titles import DESCRIPTION_MOST, fitted_title
from services.store.document_format import FORMAT, PALETTES, POLICY_TOPICS
from services.store.proof import shopper_proof
from services.store.sections import NAMES as SECTION_NAMES
from services.store.sections import PAGES as SECTION_PAGES

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "storefront"

PAGE_IDS = ("home", "product", "faq", "shipping", "contact", "privacy", "terms")
# The pages about the product, which state it as structured data (Product JSON-LD).
PRODUCT_PAGES = ("home", "product")
# The public pages run one script of our own, the funnel events' (TRACKER), which posts to
# this origin; the owner's preview runs none (a preview never counts), so it keeps the
# policy with no script at all.
PREVIEW_CSP = ("default-src 'none'; img-src 'self' https: data:; style-src 'self'; base-uri 'none'; "
               "form-action 'self'; frame-ancestors 'none'")
CSP = PREVIEW_CSP.replace("default-src 'none';", "default-src 'none'; script-src 'self'; connect-src 'self';")
STYLESHEET = "/static/storefront/store.css"
TRACKER = "/static/storefront/track.js"

# Every section type the renderer knows; anything else in a document is skipped, so an
# older renderer reads a newer document's pages without failing.
SECTION_TYPES = frozenset(SECTION_NAMES)
NAV = (("home", "Home"), ("product", "Product"), ("faq", "FAQ"), ("shipping", "Shipping"), ("contact", "Contact"))
# A page the document leaves out still renders (the nav links to every page).
DEFAULT_PAGES = {page: (title, SECTION_PAGES[page]) for page, title in (
    ("home", "Home"), ("product", "Product"), ("faq", "Frequently asked questions"),
    ("shipping", "Shipping and returns"), ("contact", "Contact"), ("privacy", "Privacy policy"),
    ("terms", "Terms of sale"))}
MAX_IMAGES = 8  # spec decisions: a founder product has at most 8 images
# The width and height each picture is written with, so the page does not jump as it loads.
# The stylesheet shows every store picture in a square box (object-fit: cover), so a square
# states its real shape there whatever the file's own size.
IMAGE_BOX = {"hero": 800, "gallery": 800, "thumb": 160}

ABOUT_TAGS = {"p", "strong", "em", "ul", "ol", "li", "a"}
ABOUT_SCHEMES = {"http", "https", "mailto"}


# Characters HTML calls parse errors (C0/C1 controls, noncharacters) and lone surrogates,
# which a JSON document can carry but UTF-8 cannot encode: dropped from every text.
_UNWANTED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
_EMAIL = re.compile(r"^[^@\s<>\"'()\\,;:]+@[^@\s<>\"'()\\,;:]+\.[A-Za-z]{2,}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(default=True, default_for_string=True),
    # A missing name in a template is a bug here, not an empty space on someone's store.
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def _paragraphs(text: str) -> list[list[str]]:
    """Blank-line separated paragraphs, each a list of its lines (the templates join them)."""
    return [[line.strip() for line in block.strip().splitlines()]
            for block in re.split(r"\n\s*\n", text) if block.strip()]


_env.filters["paragraphs"] = _paragraphs


def page_path(page_id: str) -> str:
    """The page's path below the store's base path: "" for home, else the page id."""
    if page_id not in PAGE_IDS:
        raise ValueError(f"unknown store page: {page_id!r}")
    return "" if page_id == "home" else page_id


# What the buy box of a product its founder paused or retired says to a customer, instead of
# the buy button.
NOT_ON_SALE = "This product is not on sale right now, so it cannot be ordered."


def render_page(document: dict, page_id: str, *, base_path: str, origin: str, preview: bool = False,
                payments_on: bool = True, on_sale: bool = True) -> str:
    """Renders one page of the store as a complete HTML document (`payments_on` false: the
    service takes no payments now, so the buy box shows closed whatever the document says;
    `on_sale` false: the product is not on sale (paused or retired), so the buy box says so
    and has no form)."""
    page_path(page_id)  # refuses an unknown page id
    store = _store(document)
    store["checkout"] = store["checkout"] and payments_on and on_sale
    store["on_sale"] = on_sale
    store["not_on_sale"] = NOT_ON_SALE
    links = _links(base_path)
    page = _page(document, page_id, store, preview=preview)
    absolute = {pid: origin.rstrip("/") + href for pid, href in links.items() if pid in PAGE_IDS}
    # Home: the founder's search title, kept as written when it fits; any other page: its name
    # and the business's. Either way within the audit's bound, the business's name kept when it fits.
    title = (fitted_title(store["copy"]["seo_title"], store["business_name"]) if page_id == "home"
             else fitted_title(page["title"], store["business_name"], with_brand=True))
    og_image = next((img["absolute"] for img in store["product"]["images"] if img["absolute"]), None)
    if og_image is None:
        og_image = next((origin.rstrip("/") + img["src"] for img in store["product"]["images"]
                         if img["src"].startswith("/")), None)
    meta = {
        "title": title,
        "description": store["copy"]["seo_description"],
        "canonical": absolute[page_id],
        "og_type": "product" if page_id == "product" else "website",
        "og_image": og_image,
    }
    # Structured data says what a page is about: the product on the pages about it (home and
    # product), the business on its home page; a policy or FAQ page states no Product.
    jsonld = []
    if page_id == "home":
        jsonld.append(_organization(store, url=absolute["home"]))
    if page_id in PRODUCT_PAGES:
        jsonld.append(_jsonld(store, origin=origin.rstrip("/"), url=absolute["product"]))
    return _env.get_template("page.html").render(
        store=store, copy=store["copy"], page=page, links=links, nav=NAV, meta=meta, jsonld=jsonld, preview=preview,
        box=IMAGE_BOX,
        tracker=None if preview or not store["product_id"] else TRACKER)


def render_sitemap(document: dict, *, base_path: str, origin: str) -> str:
    """An XML sitemap listing every page of the store by its absolute URL."""
    links = _links(base_path)
    locs = "".join(f"  <url><loc>{xml_escape(origin.rstrip('/') + links[pid])}</loc></url>\n" for pid in PAGE_IDS)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + locs + "</urlset>\n")


def render_robots(document: dict, *, base_path: str, origin: str) -> str:
    """A robots.txt that allows the store, keeps crawlers out of its preview and names the sitemap."""
    base = _base(base_path)
    return (f"User-agent: *\nAllow: {base}/\nDisallow: {base}/preview\n"
            f"Sitemap: {origin.rstrip('/')}{base}/sitemap.xml\n")


# -- reading the document ---------------------------------------------------------------

def _text(value) -> str:
    return _UNWANTED.sub("", value).strip() if isinstance(value, str) else ""


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _base(base_path: str) -> str:
    return base_path.rstrip("/")


def _links(base_path: str) -> dict:
    base = _base(base_path)
    links = {pid: f"{base}/{page_path(pid)}" for pid in PAGE_IDS}
    links["buy"] = links["product"] + "#buy"
    links["checkout"] = f"{base}/checkout"
    return links


def _store(document: dict) -> dict:
    """The document read into plain, complete values the templates can use as they are."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"not a store document of format {FORMAT}")
    business = _dict(document.get("business"))
    product = _dict(document.get("product"))
    copy = _dict(document.get("copy"))
    name = _text(product.get("name")) or _text(business.get("name")) or "Our product"
    business_name = _text(business.get("name")) or name
    description = _text(product.get("description"))
    currency = _text(document.get("currency")).upper()
    price = _price(document.get("price"), currency)
    subheadline = _text(copy.get("subheadline"))
    email = _text(business.get("support_email"))
    palette = _text(_dict(document.get("theme")).get("palette"))
    return {
        "business_name": business_name,
        "support_email": email if _EMAIL.match(email) else None,
        "palette": palette if palette in PALETTES else PALETTES[0],
        "product_id": _text(document.get("product_id")),
        "currency": currency,
        "price": price,
        # Whether the store takes orders: only a document that says so (`"checkout": true`,
        # once payments exist) gets a live buy box; any other document shows it closed.
        "checkout": document.get("checkout") is True,
        "product": {
            "name": name,
            "description": description,
            "category": _text(product.get("category")),
            "images": [img for img in map(_image, _list(product.get("images"))) if img][:MAX_IMAGES],
        },
        "copy": {
            "headline": _text(copy.get("headline")) or name,
            "subheadline": subheadline,
            "benefits": _pairs(copy.get("benefits"), "title", "text"),
            "faq": _pairs(copy.get("faq"), "question", "answer"),
            "about_html": _about(copy.get("about")),
            "shipping": _text(copy.get("shipping")),
            "returns": _text(copy.get("returns")),
            "guarantee": _text(copy.get("guarantee")),
            "seo_title": _text(copy.get("seo_title")) or (
                name if name == business_name else f"{name} · {business_name}"),
            # Within the audit's bound however long the founder's or the writer's words are.
            "seo_description": _clip(_text(copy.get("seo_description")) or subheadline or description,
                                     DESCRIPTION_MOST),
            "call_to_action": _text(copy.get("call_to_action")) or "Buy now",
        },
        "evidence": [row for row in map(_evidence, _list(document.get("evidence"))) if row],
        # The founder's statements of their policy (document.business.policy), in topic order:
        # shown as the business's own word on the shipping page, apart from the evidence.
        "policy": _policy(business.get("policy")),
        # What the evidence backs, in a shopper's words (services/store/proof.py), or None.
        "proof": shopper_proof([_dict(row) for row in _list(document.get("evidence"))], name),
        # Format 1 has no reviews: the section renders nothing until a document carries some.
        "reviews": [],
    }


def _policy(value) -> list[dict]:
    stated = _dict(value)
    return [{"topic": topic, "text": _text(stated.get(topic))} for topic in POLICY_TOPICS if _text(stated.get(topic))]


def _pairs(items, first: str, second: str) -> list[dict]:
    pairs = ({first: _text(_dict(item).get(first)), second: _text(_dict(item).get(second))} for item in _list(items))
    return [pair for pair in pairs if pair[first] or pair[second]]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


def _image(value) -> dict | None:
    """An image URL the page may show: absolute http(s), or a path on this origin."""
    url = _text(value)
    if re.match(r"^https?://[^\s\"'<>\\]+$", url, re.IGNORECASE):
        return {"src": url, "absolute": url}
    if re.match(r"^/(?![/\\])[^\s\"'<>\\]*$", url):
        return {"src": url, "absolute": None}
    return None  # data:, javascript:, protocol-relative or relative: not shown


def _about(value) -> str:
    """The about text as sanitised HTML (the only founder text rendered as markup)."""
    html = _text(value)
    if not html:
        return ""
    return nh3.clean(
        html,
        tags=ABOUT_TAGS,
        attributes={"a": {"href"}, "*": set()},
        url_schemes=ABOUT_SCHEMES,
        url_relative="deny",
        link_rel="noopener nofollow",
    ).strip()


def _price(value, currency: str) -> dict | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None
    # Shown as it is charged (services/commerce/orders.py): rounded to the currency's minor unit.
    if not amount.is_finite() or minor_units(amount, currency) <= 0:
        return None
    return {"amount": major_text(amount, currency), "display": display_major(amount, currency)}


def _evidence(row) -> dict | None:
    row = _dict(row)
    text = _text(row.get("text")) or _text(row.get("note"))
    if not text:
        return None
    day = _text(row.get("date"))
    source = _text(row.get("source"))
    metric = _text(row.get("metric"))
    value = row.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = _text(value) if isinstance(value, str) else ""
    elif isinstance(value, int) or float(value).is_integer():
        shown = f"{int(value):,}"
    else:
        shown = f"{value:,.2f}"
    return {
        "text": text,
        "date": day,
        "date_display": _day(day),
        "source": source_label(source),
        # The document's words for the metric (services/store/document.py), else its name as words.
        "metric": _sentence_case(_text(row.get("label")) or " ".join(re.split(r"[^A-Za-z0-9]+", metric)).strip()),
        "value": shown,
    }


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


def _day(value: str) -> str:
    """An evidence row's date as the store's pages write it, in the service's one style ("12 November 2026")."""
    return day_words(value)


# Whether a section has something to show on a page (`preview`: the founder's): the page lists
# only those, and their templates render what they are given. The one rule for what a page
# shows, so the Store screen's drawing reads it from here (shown_sections) rather than
# repeating it. A section not named here always shows.
SHOWS = {
    "benefits": lambda store, preview: bool(store["copy"]["benefits"]),
    "faq": lambda store, preview: bool(store["copy"]["faq"]),
    "guarantee": lambda store, preview: bool(store["copy"]["guarantee"]),
    "shipping": lambda store, preview: bool(store["copy"]["shipping"]),
    "returns": lambda store, preview: bool(store["copy"]["returns"]),
    "reviews": lambda store, preview: bool(store["reviews"]),
    "gallery": lambda store, preview: bool(store["product"]["images"]),
    "about": lambda store, preview: bool(store["copy"]["about_html"] or store["product"]["description"]),
    # The founder's preview shows the research rows; shoppers read what they back, if anything.
    "evidence": lambda store, preview: bool(store["evidence"]) if preview else store["proof"] is not None,
}


def shown_sections(document: dict, page_id: str = "home") -> tuple[list[str], list[str]]:
    """The sections a page of the document shows, top to bottom: (as its founder's preview
    shows them, as shoppers see them), from one reading of the document."""
    store = _store(document)
    return tuple([section["type"] for section in _page(document, page_id, store, preview=preview)["sections"]]
                 for preview in (True, False))


def _page(document: dict, page_id: str, store: dict, *, preview: bool) -> dict:
    """The page's title and the sections it shows in the order they render, each with its
    anchor and heading level."""
    default_title, default_types = DEFAULT_PAGES[page_id]
    found = next((p for p in map(_dict, _list(document.get("pages"))) if p.get("id") == page_id), None)
    if found is None:
        title, types = default_title, list(default_types)
    else:
        title = _text(found.get("title")) or default_title
        types = [_text(_dict(s).get("type")) for s in _list(found.get("sections"))]
    types = [t for t in types if t in SECTION_TYPES]
    if page_id == "home":
        lead = _text(document.get("lead"))
        if lead in types:
            types.insert(0, types.pop(types.index(lead)))
    if page_id == "product" and "about" not in types:
        # The product page always says what the product is: right after its price if it has one.
        types.insert(types.index("price") + 1 if "price" in types else len(types), "about")
    types = [kind for kind in types if SHOWS.get(kind, lambda store, preview: True)(store, preview)]

    # One h1 per page: home's hero headline, the product page's buy box, else the page header.
    h1_type = {"home": "hero", "product": "price"}.get(page_id)
    h1_at = types.index(h1_type) if h1_type in types else None
    seen = set()
    sections = []
    for index, kind in enumerate(types):
        anchor = None if kind in seen else ("buy" if kind == "price" else kind)
        seen.add(kind)
        sections.append({
            "type": kind,
            "anchor": anchor,
            "h1": index == h1_at,
            # A page made of one section (FAQ, contact, ...) has its title as the h1 already.
            "heading_hidden": page_id != "home" and len(types) == 1,
        })
    return {
        "id": page_id,
        "title": title,
        "header_h1": None if h1_at is not None else (store["copy"]["headline"] if page_id == "home" else title),
        "sections": sections,
    }


def _organization(store: dict, *, url: str) -> str:
    """The business as structured data (Organization): its name, as Settings hold it, and the
    store's home address; its support address when it has one."""
    data = {"@context": "https://schema.org", "@type": "Organization", "name": store["business_name"], "url": url}
    if store["support_email"]:
        data["email"] = store["support_email"]
    return script_json(data)


def _jsonld(store: dict, *, origin: str, url: str) -> str:
    """The Product structured data, safe inside <script>: no <, > or & survives serialising."""
    product = store["product"]
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": product["name"],
        "description": product["description"] or store["copy"]["seo_description"],
        "image": [img["absolute"] or origin + img["src"] for img in product["images"]],
        "sku": store["product_id"],
        "brand": {"@type": "Brand", "name": store["business_name"]},
    }
    if product["category"]:
        data["category"] = product["category"]
    if store["price"] and _CURRENCY.match(store["currency"]):
        data["offers"] = {
            "@type": "Offer",
            "price": store["price"]["amount"],
            "priceCurrency": store["currency"],
            # A product its founder paused or retired cannot be ordered (the buy box says so).
            "availability": "https://schema.org/InStock" if store["on_sale"] else "https://schema.org/OutOfStock",
            "url": url,
        }
    return script_json(data)


def script_json(value, *, indent: int | None = None) -> str:
    """JSON for inside a <script>: no <, > or & survives serialising, so no text in it can end
    the element or start markup (Fix's structured-data repair writes its JSON-LD with it too)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render_generated(*, title: str, intro: str, sections: list[dict], kind: str, url: str,
                     document: dict | None, base_path: str, origin: str, on_sale: bool = True,
                     draft: bool = False) -> str:
    """A generated page (services/pages.py): its title, intro and [{heading, paragraphs}], at
    `url`, written to pass Fix's audit as the store's pages are: a title within the bound with
    the business's name where it fits, a search description from its intro, its canonical
    address and link preview, the business as Organization data, and what the page is about
    as structured data: a landing page the store's product (the Product data of the store's
    own pages, from its `document`), an FAQ page its questions (FAQPage); a policy page states
    no product. Without a store document, the page names no business and no product; `on_sale`
    as render_page's (its product's offer is out of stock while paused or retired). A `draft`
    (written with no product, for the founder to fill) asks search engines not to index it."""
    store = _store(document) if document is not None else None
    if store:
        store["on_sale"] = on_sale
    business = store["business_name"] if store else ""
    description = _clip(_text(intro) or next((p for s in sections for p in s["paragraphs"]), ""), DESCRIPTION_MOST)
    origin, links = origin.rstrip("/"), _links(base_path)
    jsonld = []
    if store:
        jsonld.append(_organization(store, url=origin + links["home"]))
    if kind == "landing" and store:
        jsonld.append(_jsonld(store, origin=origin, url=origin + links["product"]))
    elif kind == "faq":
        jsonld.append(script_json({"@context": "https://schema.org", "@type": "FAQPage", "mainEntity": [
            {"@type": "Question", "name": s["heading"],
             "acceptedAnswer": {"@type": "Answer", "text": " ".join(s["paragraphs"])}}
            for s in sections if s["heading"] and s["paragraphs"]]}))
    image = None
    if store:
        image = next((img["absolute"] or origin + img["src"] for img in store["product"]["images"]), None)
    meta = {"title": fitted_title(title, business, with_brand=True), "description": description, "url": url,
            "image": image, "site_name": business}
    return _env.get_template("generated.html").render(title=title, intro=intro, sections=sections, meta=meta,
                                                      jsonld=jsonld, draft=draft)


def render_thanks(document: dict, order: dict, *, base_path: str, cancelled: bool, amount: str) -> str:
    """The thank-you page of an order, as the provider's answer left it, in the store's own look."""
    store = _store(document)
    return _env.get_template("thanks.html").render(store=store, order=order, links=_links(base_path), nav=NAV,
                                                   cancelled=cancelled, amount=amount,
                                                   tracker=TRACKER if store["product_id"] else None)


def render_rating(document: dict | None, *, base_path: str, state: str, score: int | None = None,
                  business_name: str = "", action: str = "") -> str:
    """The one-click rating page of a reply (services/desk/satisfaction.py), in the store's own
    look when it has a published store (`document`), else plain with the business's name.
    `state`: ask (the choices, posting to `action`), recorded, already or invalid."""
    store = _store(document) if document is not None else None
    name = store["business_name"] if store else (_text(business_name) or "Customer support")
    return _env.get_template("rate.html").render(store=store, links=_links(base_path) if store else None, nav=NAV,
                                                 state=state, score=score, name=name, action=action)
