"""Store pages from a store document (services/store/render.py): complete, valid, findable
pages; a pure function of the document; and founder or AI text that can never run script
(reliability guide, Isolation and injection). No database, no Flask: the renderer is
called as the build job calls it."""
from __future__ import annotations

import ast
import copy
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import html5lib
import pytest

from services.store.render import (
    CSP,
    PAGE_IDS,
    PALETTES,
    PREVIEW_CSP,
    TRACKER,
    page_path,
    render_page,
    render_robots,
    render_sitemap,
)

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = "https://shop.example.com"
BASE = "/store/acacia-x7k2"
PREVIEW_BASE = "/store/acacia-x7k2/preview"
PATHS = {"home": "", "product": "product", "faq": "faq", "shipping": "shipping",
         "contact": "contact", "privacy": "privacy", "terms": "terms"}


def _demo_product(product_id="kitchen-magnetic-knife-strip"):
    with open(ROOT / "scripts" / "data" / "demo_catalog.jsonl") as catalog:
        return next(p for p in map(json.loads, catalog) if p["product_id"] == product_id)


def store_document() -> dict:
    """A format-1 store document for the demo catalog's knife strip, with hand-written copy."""
    product = _demo_product()
    return {
        "format": 1,
        "product_id": product["product_id"],
        "slug": "acacia-wood-magnetic-knife-strip-x7k2",
        "currency": product["currency"],
        "price": product["price"],
        "business": {"name": "Acacia Wood Magnetic Knife Strip", "support_email": "help@example.com"},
        "theme": {"palette": "ocean"},
        "product": {key: product[key] for key in ("name", "description", "category", "images")},
        "copy": {
            "headline": "Free your counter. Keep every knife in reach.",
            "subheadline": "A 16-inch solid acacia strip with strong magnets that holds up to eight knives flat on the wall.",
            "benefits": [
                {"title": "Counter space back", "text": "The knife block goes; eight knives hang flat on a 16-inch strip."},
                {"title": "Holds firmly", "text": "Embedded neodymium magnets grip chef's knives and cleavers alike."},
                {"title": "Kind to edges", "text": "Blades rest on smooth acacia, not bare metal, so edges stay sharp."},
                {"title": "Up in minutes", "text": "Screws and wall anchors are in the box, so renters can mount it fast."},
            ],
            "faq": [
                {"question": "How many knives does it hold?", "answer": "Up to eight, depending on blade width."},
                {"question": "Can I mount it on tile?", "answer": "Yes, with a tile drill bit.\n\nThe included anchors suit drywall and brick."},
                {"question": "Does it work with ceramic knives?", "answer": "No. Ceramic blades are not magnetic."},
            ],
            "about": ('<p>Solid <strong>acacia</strong> wood with the magnets set inside, so only wood touches your '
                      'blades.</p><ul><li>16 inches long</li><li>Holds up to eight knives</li></ul>'
                      '<p>Read <a href="https://example.com/care">how to care for acacia</a>.</p>'),
            "shipping": "Orders ship within 2 business days.\n\nYou get a tracking link by email as soon as your parcel leaves.",
            "returns": "Changed your mind? Send it back unused within 30 days for a full refund.",
            "guarantee": "If the strip ever loses its grip, write to us and we will replace it.",
            "seo_title": "Acacia Wood Magnetic Knife Strip, 16 in | Free your counter",
            "seo_description": "A 16-inch acacia magnetic knife strip that holds up to eight knives. Screws and anchors included.",
            "call_to_action": "Get yours",
        },
        "evidence": [
            {"date": row["date"], "source": row["source"], "metric": row["metric"], "value": row["value"], "text": row["note"]}
            for row in product["evidence"] if row["source"] != "supplier_quote"
        ],
        "lead": "hero",
        "pages": [
            {"id": "home", "title": "Home", "sections": [{"type": t} for t in (
                "hero", "benefits", "evidence", "price", "reviews", "faq", "guarantee", "shipping")]},
            {"id": "product", "title": "The knife strip", "sections": [{"type": t} for t in ("gallery", "price", "benefits", "shipping")]},
            {"id": "faq", "title": "Frequently asked questions", "sections": [{"type": "faq"}]},
            {"id": "shipping", "title": "Shipping and returns", "sections": [{"type": "shipping"}, {"type": "returns"}]},
            {"id": "contact", "title": "Contact us", "sections": [{"type": "contact"}]},
            {"id": "privacy", "title": "Privacy policy", "sections": [{"type": "privacy"}]},
            {"id": "terms", "title": "Terms of sale", "sections": [{"type": "terms"}]},
        ],
    }


@pytest.fixture
def document():
    return store_document()


def render(document, page_id, *, preview=False):
    return render_page(document, page_id, base_path=PREVIEW_BASE if preview else BASE, origin=ORIGIN, preview=preview)


class Page(HTMLParser):
    """What a page says, read back with the standard library's parser."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[tuple[str, dict, list[str]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if tag in {"title", "h1", "h2", "script", "summary", "a", "p", "button", "footer", "section"}:
            self._open.append((tag, attributes, []))

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index][0] == tag:
                _, attributes, parts = self._open.pop(index)
                text = "".join(parts)
                if tag == "script":
                    self.scripts.append((attributes, text))
                self.texts.setdefault(tag, []).append(" ".join(text.split()))
                return

    def handle_data(self, data):
        for _, _, parts in self._open:
            parts.append(data)

    def all(self, tag, **match):
        return [attrs for t, attrs in self.elements if t == tag and all(attrs.get(k) == v for k, v in match.items())]

    def meta(self, **match):
        found = self.all("meta", **match)
        assert len(found) == 1, (match, found)
        return found[0]["content"]

    def jsonld(self, kind="Product"):
        found = [json.loads(text) for attributes, text in self.scripts if attributes.get("type") == "application/ld+json"]
        of_kind = [data for data in found if data.get("@type") == kind]
        assert len(of_kind) == 1, self.scripts
        return of_kind[0]

    def script_kinds(self) -> list[str]:
        """Each script as "json-ld" or "tracker", or as itself when it is neither: the tracker is
        the funnel events' external file with its product id, no type and no inline text."""
        kinds = []
        for attributes, text in self.scripts:
            if attributes == {"type": "application/ld+json"}:
                kinds.append("json-ld")
            elif (set(attributes) == {"src", "data-product-id", "defer"} and attributes["src"] == TRACKER
                  and attributes["defer"] is None and text == ""):
                kinds.append("tracker")
            else:
                kinds.append(repr((attributes, text)))
        return kinds


def assert_html5(html: str):
    """A real HTML5 parse: any parse error (stray end tag, bad nesting, NUL...) raises."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def expected_url(page_id, base=BASE):
    return f"{ORIGIN}{base}/{PATHS[page_id]}"


# -- complete pages ---------------------------------------------------------------------

@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_every_page_is_a_complete_findable_html5_document(document, page_id):
    html = render(document, page_id)
    assert html.startswith("<!doctype html>\n<html lang=\"en\">")
    assert_html5(html)
    page = Page(html)
    business = document["business"]["name"]

    assert page.all("meta", charset="utf-8")
    assert page.meta(name="viewport") == "width=device-width, initial-scale=1"
    title = page.texts["title"][0]
    if page_id == "home":
        assert title == document["copy"]["seo_title"]
    else:
        page_title = next(p["title"] for p in document["pages"] if p["id"] == page_id)
        # The page's name and the business's, when both fit a search result (60 characters).
        named = f"{page_title} · {business}"
        assert title == (named if len(named) <= 60 else page_title)
    assert page.meta(name="description") == document["copy"]["seo_description"]
    assert [link["href"] for link in page.all("link", rel="canonical")] == [expected_url(page_id)]

    assert page.meta(property="og:title") == title
    assert page.meta(property="og:description") == document["copy"]["seo_description"]
    assert page.meta(property="og:type") == ("product" if page_id == "product" else "website")
    assert page.meta(property="og:url") == expected_url(page_id)
    assert page.meta(property="og:image") == ORIGIN + document["product"]["images"][0]

    assert len(page.texts["h1"]) == 1 and page.texts["h1"][0]
    images = page.all("img")
    assert all(img.get("alt", "").strip() for img in images), images
    assert [link["href"] for link in page.all("link", rel="stylesheet")] == ["/static/storefront/store.css"]
    # The store's CSP forbids inline styles: no style element, no style attribute.
    assert not page.all("style") and not any("style" in attrs for _, attrs in page.elements)
    assert page.all("body")[0]["class"].split()[0] == "palette-ocean"
    assert not page.all("meta", name="robots")
    assert "Preview" not in html
    assert business in page.texts["footer"][0]
    footer_links = {a["href"] for a in page.all("a")}
    assert {f"{BASE}/privacy", f"{BASE}/terms"} <= footer_links


def test_titles_and_headings_say_what_each_page_is(document):
    assert Page(render(document, "home")).texts["h1"] == [document["copy"]["headline"]]
    assert Page(render(document, "product")).texts["h1"] == [document["product"]["name"]]
    assert Page(render(document, "faq")).texts["h1"] == ["Frequently asked questions"]
    assert Page(render(document, "terms")).texts["title"] == ["Terms of sale · Acacia Wood Magnetic Knife Strip"]


@pytest.mark.parametrize("page_id", ["home", "product"])
def test_home_and_product_carry_product_structured_data(document, page_id):
    data = Page(render(document, page_id)).jsonld()
    assert data["@context"] == "https://schema.org" and data["@type"] == "Product"
    assert data["name"] == document["product"]["name"]
    assert data["description"] == document["product"]["description"]
    assert data["sku"] == "kitchen-magnetic-knife-strip"
    assert data["image"] == [ORIGIN + src for src in document["product"]["images"]]
    assert data["offers"] == {
        "@type": "Offer", "price": "34.99", "priceCurrency": "USD",
        "availability": "https://schema.org/InStock", "url": expected_url("product"),
    }
    # The business is described on its home page only.
    stated = [json.loads(text) for attributes, text in Page(render(document, page_id)).scripts
              if attributes.get("type") == "application/ld+json"]
    organizations = [d for d in stated if d["@type"] == "Organization"]
    assert organizations == ([{"@context": "https://schema.org", "@type": "Organization",
                               "name": document["business"]["name"], "url": expected_url("home"),
                               "email": "help@example.com"}] if page_id == "home" else [])


@pytest.mark.parametrize("page_id", ["faq", "shipping", "contact", "privacy", "terms"])
def test_other_public_pages_carry_only_the_tracker_and_previews_no_script_at_all(document, page_id):
    html = render(document, page_id)
    assert html.lower().count("<script") == 1 and Page(html).script_kinds() == ["tracker"]
    preview = render(document, page_id, preview=True)
    assert "<script" not in preview.lower() and Page(preview).scripts == []


@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_every_public_page_loads_the_tracker_for_its_product_and_no_preview_does(document, page_id):
    [tracker] = Page(render(document, page_id)).all("script", src=TRACKER)
    assert tracker["data-product-id"] == document["product_id"] and "defer" in tracker
    assert Page(render(document, page_id, preview=True)).all("script", src=TRACKER) == []


def test_prices_have_two_decimals_in_structured_data_and_a_symbol_on_the_page(document):
    document.update(price=1200, currency="EUR")
    html = render(document, "product")
    assert Page(html).jsonld()["offers"]["price"] == "1200.00"
    assert Page(html).jsonld()["offers"]["priceCurrency"] == "EUR"
    assert '<p class="price">€1,200.00</p>' in html
    document.update(price=19.5, currency="SEK")
    assert '<p class="price">SEK19.50</p>' in render(document, "product")  # Babel's en_US format


def test_absolute_images_stay_as_they_are_and_unsafe_ones_are_left_out(document):
    document["product"]["images"] = [
        "https://cdn.example/strip.jpg", "/static/demo/kitchen-magnetic-knife-strip-2.svg",
        "javascript:alert(1)", "data:image/svg+xml;base64,PHN2Zz4=", "//evil.example/x.png",
        'https://cdn.example/x.jpg" onerror="alert(1)', "relative/x.png",
    ]
    page = Page(render(document, "product"))
    assert [img["src"] for img in page.all("img")] == [
        "https://cdn.example/strip.jpg", "/static/demo/kitchen-magnetic-knife-strip-2.svg"]
    assert page.meta(property="og:image") == "https://cdn.example/strip.jpg"
    assert page.jsonld()["image"] == [
        "https://cdn.example/strip.jpg", ORIGIN + "/static/demo/kitchen-magnetic-knife-strip-2.svg"]
    assert [img["alt"] for img in page.all("img")] == [
        document["product"]["name"], document["product"]["name"] + ", photo 2 of 2"]


def test_navigation_links_stay_under_the_base_path(document):
    page = Page(render(document, "faq"))
    nav = [a["href"] for a in page.all("a") if a.get("href", "").startswith("/")]
    assert nav[:6] == [f"{BASE}/", f"{BASE}/", f"{BASE}/product", f"{BASE}/faq", f"{BASE}/shipping", f"{BASE}/contact"]
    assert page.all("a", href=f"{BASE}/faq")[0]["aria-current"] == "page"
    home = Page(render(document, "home"))
    assert home.all("a", href=f"{BASE}/product#buy"), "the hero's call to action leads to the product page's buy box"
    assert Page(render(document, "product")).all("section", id="buy")


def test_page_paths_and_unknown_pages():
    assert [page_path(p) for p in PAGE_IDS] == ["", "product", "faq", "shipping", "contact", "privacy", "terms"]
    with pytest.raises(ValueError):
        page_path("admin")
    with pytest.raises(ValueError):
        render_page(store_document(), "../home", base_path=BASE, origin=ORIGIN)
    with pytest.raises(ValueError):
        render_page({**store_document(), "format": 2}, "home", base_path=BASE, origin=ORIGIN)


def test_a_sparse_document_still_renders_every_page():
    """Missing or mistyped fields read as absent: no KeyError, still one h1 and a valid page."""
    sparse = {"format": 1, "product": {"name": "Bamboo Drawer Dividers", "images": "not-a-list"},
              "copy": {"benefits": [None, {"title": 3}], "faq": "nope"}, "price": "n/a", "pages": None}
    for page_id in PAGE_IDS:
        html = render(sparse, page_id)
        assert_html5(html)
        assert len(Page(html).texts["h1"]) == 1
    product = render(sparse, "product")
    assert "Price coming soon" in product and "offers" not in Page(product).jsonld()
    assert "<fieldset disabled>" in product


def test_contact_page_links_the_support_address_or_says_the_receipt_reaches_the_business(document):
    page = Page(render(document, "contact"))
    assert page.all("a", href="mailto:help@example.com")
    document["business"]["support_email"] = None
    html = render(document, "contact")
    # Issue 47: never "coming soon": a reply to the order's receipt reaches the business's desk.
    assert "mailto:" not in html and "coming soon" not in html
    assert "Reply to the receipt we emailed you" in html


def test_about_text_keeps_its_simple_markup_and_loses_everything_else(document):
    document["copy"]["about"] = (
        '<p onclick="alert(1)">Solid <strong>acacia</strong> and <em>steel</em></p>'
        '<ol><li>one</li></ol><a href="javascript:alert(1)">bad</a> <a href="https://ok.example/care" title="t">good</a> '
        '<a href="mailto:help@example.com">mail</a><img src=x onerror=alert(1)><script>alert(2)</script>'
        '<h1>second h1</h1><a href="/relative">rel</a>')
    html = render(document, "product")
    assert '<p>Solid <strong>acacia</strong> and <em>steel</em></p><ol><li>one</li></ol>' in html
    assert '<a rel="noopener nofollow">bad</a>' in html
    assert '<a href="https://ok.example/care" rel="noopener nofollow">good</a>' in html
    assert '<a href="mailto:help@example.com" rel="noopener nofollow">mail</a>' in html
    assert '<a rel="noopener nofollow">rel</a>' in html
    assert "alert(2)" not in html and "onerror" not in html and "onclick" not in html
    assert len(Page(html).texts["h1"]) == 1


def test_only_the_json_ld_and_the_cleaned_about_text_bypass_autoescaping():
    """Everything else a template prints is escaped: a new |safe must be argued for here."""
    safe = {str(path.relative_to(ROOT / "templates" / "storefront")): len(re.findall(r"\|\s*safe\b", path.read_text()))
            for path in (ROOT / "templates" / "storefront").rglob("*.html")}
    # The JSON-LD of a store page and of a generated page (render.script_json), and the about text (nh3).
    assert {name: count for name, count in safe.items() if count} == {"page.html": 1, "generated.html": 1,
                                                                      "sections/about.html": 1}


# -- purity ---------------------------------------------------------------------------

def test_rendering_is_a_pure_function_of_the_document(document):
    before = copy.deepcopy(document)
    first = [render(document, p, preview=v) for p in PAGE_IDS for v in (False, True)]
    first += [render_sitemap(document, base_path=BASE, origin=ORIGIN), render_robots(document, base_path=BASE, origin=ORIGIN)]
    second = [render(copy.deepcopy(document), p, preview=v) for p in PAGE_IDS for v in (False, True)]
    second += [render_sitemap(document, base_path=BASE, origin=ORIGIN), render_robots(document, base_path=BASE, origin=ORIGIN)]
    assert first == second
    assert document == before, "rendering must not change the document"


def _imported(path, *, on_import_only=False) -> set[str]:
    """What a module imports besides the standard library (`on_import_only`: what importing it
    loads, leaving out imports inside functions)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if on_import_only else list(ast.walk(tree))
    imported = {alias.name for node in nodes if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in nodes if isinstance(node, ast.ImportFrom) and node.module}
    return {name for name in imported if name.split(".")[0] not in set(sys.stdlib_module_names) | {"__future__"}}


def test_the_renderer_imports_only_jinja2_nh3_the_money_formatter_the_section_list_the_document_format_the_evidence_words_and_stdlib():
    assert _imported(ROOT / "services" / "store" / "render.py") == {
        "jinja2", "nh3", "services.money", "services.store.sections", "services.store.document_format",
        "services.evidence_kinds", "services.day_words", "services.store.proof", "services.page_titles"}
    # ...what the evidence backs in a shopper's words reads the evidence rules alone...
    assert _imported(ROOT / "services" / "store" / "proof.py") == {"services.evidence_kinds", "services.day_words"}
    # ...of the evidence rules, only the words (a source's and a metric's names), and the day in
    # words every text of the service writes: the standard library alone.
    assert _imported(ROOT / "services" / "evidence_kinds.py") == {"services.day_words"}
    assert _imported(ROOT / "services" / "day_words.py") == set()
    # ...and a title's and a description's bounds, shared with Fix's audit: plain text.
    assert _imported(ROOT / "services" / "page_titles.py") == set()
    # ...which are as pure: the section list and the document's format number and palettes are
    # plain data on the standard library alone; the formatter uses Babel's currency data and the
    # payment seam's minor units, nothing more.
    assert _imported(ROOT / "services" / "store" / "sections.py") == set()
    assert _imported(ROOT / "services" / "store" / "document_format.py") == set()
    assert _imported(ROOT / "services" / "money.py") == {"babel.numbers", "integrations.payments"}
    assert _imported(ROOT / "integrations" / "payments" / "__init__.py", on_import_only=True) == {"babel.numbers"}


# -- untrusted text ---------------------------------------------------------------------

XSS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'><svg onload=alert(1)>",
    "</script><script>alert(1)</script>",
    '</title><script>alert(1)</script>',
    '<a href="javascript:alert(1)">click</a>',
    "javascript:alert(1)",
    '<a href="jav&#x09;ascript:alert(1)">tab</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>',
    '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    '<div style="background:url(javascript:alert(1));width:expression(alert(1))">x</div>',
    "<style>body{display:none}</style>",
    '<iframe src="https://evil.example/"></iframe>',
    '" autofocus onfocus="alert(1)',
    "' onmouseover='alert(1)",
    "{{7*7}}",
    "{% for x in range(3) %}loop{% endfor %}",
    "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e",
    "＜script＞alert(1)＜/script＞ \u202egnp.exe \x00<script>alert(1)</script> \ud800",
    "<<SCRIPT>alert('XSS');//<</SCRIPT>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<!--<script>-->alert(1)<!-- -->",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="https://evil.example/">',
    '<form action="https://evil.example/"><button>Go</button></form>',
    "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#60;script&#62;",
    '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
    "]]><!--</script>--><script>alert(1)</script>",
]


def poisoned_document(payload: str) -> dict:
    """The payload in every piece of founder- and AI-written text the document carries."""
    doc = store_document()
    doc["product"].update(name=f"Strip {payload}", description=f"Description {payload}", category=payload)
    doc["product"]["images"].append(payload)
    doc["business"] = {"name": f"Shop {payload}", "support_email": f"help@example.com{payload}"}
    doc["theme"]["palette"] = payload
    doc["currency"] = payload
    doc["lead"] = payload
    copy_ = doc["copy"]
    for field in ("headline", "subheadline", "about", "shipping", "returns", "guarantee",
                  "seo_title", "seo_description", "call_to_action"):
        copy_[field] = f"{field} {payload}"
    copy_["benefits"] = [{"title": f"Title {payload}", "text": f"Text {payload}"}] * 2
    copy_["faq"] = [{"question": f"Question {payload}", "answer": f"Answer {payload}"}] * 2
    doc["evidence"] = [{"date": payload, "source": payload, "metric": payload, "value": payload, "text": f"Row {payload}"},
                       {"date": "2026-10-18", "source": "search_volume", "metric": "monthly_searches",
                        "value": 22400, "text": f"Searches {payload}"}]
    for page in doc["pages"]:
        page["title"] = f"{page['title']} {payload}"
        page["sections"].append({"type": payload})
    return doc


URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "content", "srcdoc", "xlink:href"}
FORBIDDEN_TAGS = {"iframe", "svg", "math", "object", "embed", "style", "base", "frame", "frameset", "applet"}


@pytest.mark.parametrize("payload", XSS, ids=range(len(XSS)))
@pytest.mark.parametrize("preview", [False, True], ids=["public", "preview"])
def test_no_payload_in_founder_or_ai_text_can_run_script(payload, preview):
    document = poisoned_document(payload)
    for page_id in PAGE_IDS:
        html = render(document, page_id, preview=preview)
        assert_html5(html)
        html.encode("utf-8")  # nothing unencodable (a lone surrogate) reaches the page
        page = Page(html)

        # The only scripts are the tracker (public pages) and the JSON-LD (home and product),
        # and no payload opens another.
        expected_scripts = {"home": 2, "product": 1}.get(page_id, 0)  # home: Organization and Product
        expected = ([] if preview else ["tracker"]) + ["json-ld"] * expected_scripts
        assert html.lower().count("<script") == len(expected), page_id
        assert page.script_kinds() == expected, page_id
        for tag, attributes in page.elements:
            assert tag not in FORBIDDEN_TAGS, (page_id, tag)
            assert not [name for name in attributes if name.startswith("on")], (page_id, tag, attributes)
            assert "style" not in attributes, (page_id, tag)
            for name in URL_ATTRIBUTES & attributes.keys():
                value = re.sub(r"[\x00-\x20]", "", attributes[name] or "").lower()
                assert not value.startswith(("javascript:", "vbscript:")), (page_id, tag, attributes)
                if tag in ("a", "img", "form"):
                    assert not value.startswith("data:"), (page_id, tag, attributes)
            if tag == "meta":
                assert "http-equiv" not in attributes
        forms = page.all("form")
        assert all(form["action"] == f"{PREVIEW_BASE if preview else BASE}/checkout" for form in forms)

        # Template syntax in the text is printed, never evaluated.
        if "{{7*7}}" in payload:
            assert "{{7*7}}" in html and "headline 49" not in html
        if "{% for" in payload:
            assert "{% for x in range(3) %}" in html and "looplooploop" not in html

        # The JSON-LD still parses, and gives back the founder's text intact.
        if expected_scripts:
            data = page.jsonld()
            assert data["name"].startswith("Strip ")
            assert "offers" not in data  # the payload is no currency code
        # The founder's text is shown as text, not dropped.
        assert page.texts["h1"][0].startswith({"home": "headline", "product": "Strip"}.get(page_id, ""))


def test_json_ld_cannot_be_closed_by_founder_text(document):
    document["product"]["name"] = "</script><script>alert(1)</script><!-- & -->"
    html = render(document, "product")
    script = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    assert "<" not in script and ">" not in script and "&" not in script
    assert "\\u003c/script\\u003e" in script
    assert json.loads(script)["name"] == document["product"]["name"]


def test_csp_allows_only_scripts_and_fetches_of_this_origin_and_no_inline_style():
    directives = dict(d.strip().split(" ", 1) for d in CSP.split(";"))
    assert directives["default-src"] == "'none'"
    # The tracker, an external file of this origin posting to this origin: nothing inline
    # (JSON-LD is data, not run), nothing from elsewhere.
    assert directives["script-src"] == "'self'" and directives["connect-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["base-uri"] == "'none'"


def test_the_preview_csp_allows_no_script_at_all():
    directives = dict(d.strip().split(" ", 1) for d in PREVIEW_CSP.split(";"))
    assert directives["default-src"] == "'none'"
    assert "script-src" not in directives and "connect-src" not in directives
    assert {k: v for k, v in dict(d.strip().split(" ", 1) for d in CSP.split(";")).items()
            if k not in ("script-src", "connect-src")} == directives


# -- size -------------------------------------------------------------------------------

def test_every_page_stays_under_100_kb_with_the_longest_copy(document):
    """Longest allowed copy, written with the characters that escape the most (& " < >)."""
    heavy = '&"<>' * 2000
    document["product"].update(name=heavy[:120], description=heavy[:5000],
                               images=[f"https://cdn.example/{'a' * 200}{i}.jpg" for i in range(8)])
    document["business"]["name"] = heavy[:120]
    document["copy"].update(
        headline=heavy[:120], subheadline=heavy[:240], about=heavy[:900], shipping=heavy[:800],
        returns=heavy[:800], guarantee=heavy[:400], seo_title=heavy[:70], seo_description=heavy[:160],
        call_to_action=heavy[:40],
        benefits=[{"title": heavy[:80], "text": heavy[:240]}] * 5,
        faq=[{"question": heavy[:200], "answer": heavy[:400]}] * 6,
    )
    document["evidence"] = [{"date": "2026-10-18", "source": "search_volume", "metric": "monthly_searches",
                             "value": 22400, "text": heavy[:300]}] * 10
    for page_id in PAGE_IDS:
        for preview in (False, True):
            size = len(render(document, page_id, preview=preview).encode("utf-8"))
            assert size < 100_000, (page_id, size)


# -- order of sections --------------------------------------------------------------------

def _section_order(html):
    return [s["class"].split()[1].removeprefix("section-") for s in Page(html).all("section")]


def test_home_renders_its_sections_in_document_order(document):
    # The evidence rows are the founder's research: only their preview shows them (issue 47);
    # shoppers read what they back in their place (the knife strip's demand backs a line).
    order = _section_order(render(document, "home", preview=True))
    assert order == ["hero", "benefits", "evidence", "price", "faq", "guarantee", "shipping"]
    assert _section_order(render(document, "home")) == order
    document["evidence"] = []  # nothing to show: the section is on neither page
    assert "evidence" not in _section_order(render(document, "home", preview=True))
    assert "evidence" not in _section_order(render(document, "home"))


def test_home_leads_with_the_documents_lead(document):
    document["lead"] = "faq"
    html = render(document, "home", preview=True)
    assert _section_order(html) == ["faq", "hero", "benefits", "evidence", "price", "guarantee", "shipping"]
    assert Page(html).texts["h1"] == [document["copy"]["headline"]]
    document["lead"] = "gallery"  # not on the home page: nothing moves
    assert _section_order(render(document, "home"))[0] == "hero"


def test_unknown_section_types_are_skipped(document):
    plain = render(document, "home")
    document["pages"][0]["sections"][1:1] = [{"type": "countdown"}, {"type": "../page"}, {}, "hero", {"type": None}]
    assert render(document, "home") == plain


def test_reviews_render_nothing_when_there_are_none(document):
    html = render(document, "home")
    assert "section-reviews" not in html and "Reviews" not in html


def test_product_page_shows_photos_buy_box_and_about_text(document):
    order = _section_order(render(document, "product"))
    assert order == ["gallery", "price", "about", "benefits", "shipping"]


# -- preview, sitemap, robots -------------------------------------------------------------

@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_a_preview_says_so_is_not_indexed_and_keeps_every_link_inside_it(document, page_id):
    html = render(document, page_id, preview=True)
    page = Page(html)
    assert "Preview: not published yet" in page.texts["p"]
    assert page.meta(name="robots") == "noindex"
    local = [a["href"] for a in page.all("a") if a["href"].startswith("/")] + [f["action"] for f in page.all("form")]
    assert local and all(href.startswith(PREVIEW_BASE + "/") for href in local), local
    assert page.all("link", rel="canonical")[0]["href"] == expected_url(page_id, PREVIEW_BASE)
    if page.all("form"):
        assert "<fieldset disabled>" in html, "a preview cannot take an order"


def test_a_published_store_takes_orders_once_its_document_opens_checkout(document):
    html = render(document | {"checkout": True}, "product")
    assert "<fieldset>" in html and Page(html).all("form", method="post", action=f"{BASE}/checkout")


@pytest.mark.parametrize("checkout", [False, None, "yes"])
def test_a_store_whose_document_does_not_open_checkout_shows_its_buy_box_closed(document, checkout):
    html = render(document | {"checkout": checkout}, "product")
    assert "<fieldset disabled>" in html and "does not take payments yet" in html


def test_sitemap_lists_every_page_by_absolute_url(document):
    xml = render_sitemap(document, base_path=BASE, origin=ORIGIN)
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [loc.text for loc in ElementTree.fromstring(xml.encode()).findall("s:url/s:loc", namespace)]
    assert locs == [expected_url(p) for p in PAGE_IDS]


def test_robots_allows_the_store_and_names_its_sitemap(document):
    robots = render_robots(document, base_path=BASE, origin=ORIGIN).splitlines()
    assert "User-agent: *" in robots
    assert f"Allow: {BASE}/" in robots
    assert f"Disallow: {BASE}/preview" in robots
    assert f"Sitemap: {ORIGIN}{BASE}/sitemap.xml" in robots


# -- the stylesheet -----------------------------------------------------------------------

def _luminance(hex_colour):
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a, b):
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("palette", PALETTES)
def test_every_palette_is_a_body_class_with_aa_contrast(document, palette):
    css = (ROOT / "api" / "static" / "storefront" / "store.css").read_text()
    rule = re.search(r"\.palette-" + re.escape(palette) + r" \{([^}]*)\}", css)
    assert rule, palette
    colours = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", rule.group(1)))
    root = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", re.search(r":root \{([^}]*)\}", css).group(1)))
    white, muted, ink = root["white"], root["muted"], root["ink"]
    assert _contrast(white, colours["brand"]) >= 4.5   # button text, brand mark
    assert _contrast(white, colours["brand-dark"]) >= 4.5  # hovered button
    assert _contrast(colours["brand"], colours["tint"]) >= 4.5  # kicker and links on the hero
    assert _contrast(muted, colours["tint"]) >= 4.5  # subheadline on the hero
    assert _contrast(ink, colours["tint"]) >= 4.5
    document["theme"]["palette"] = palette
    assert f'<body class="palette-{palette} page-home">' in render(document, "home")


def test_an_unknown_palette_falls_back_to_the_first(document):
    document["theme"] = {"palette": "neon"}
    assert '<body class="palette-ocean page-home">' in render(document, "home")
