"""The store audit and its repair (services/fix): every check found on pages with known
defects, every repairable finding repaired so the corrected page audited again no longer
has it, the score rising, JSON-LD stating only what the page states, mixed content
rewritten only where https answers, broken links reported and never changed, hostile page
text kept inside its JSON and attributes, and the two AI kinds' offline drafts."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from integrations import ai
from integrations.ai.schemas import validate
from services.fix import checks, drafts, platforms, repairs
from services.fix.checks import CHECK_LABELS, CHECKS, SEVERITIES, Page, audit, same_site_links, score
from services.fix.drafts import FIX_ALT, FIX_META, Drafts
from services.fix.repairs import repair
from tests.conftest import SETTINGS

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
HOME, MUG, TEE = "http://shop.example/", "https://shop.example/products/blue-mug", \
    "https://shop.example/products/plain-tee?variant=3"

# What each address answers; a link not named here answers 200.
STATUSES = {
    "https://shop.example/products/missing-saucer": 404,
    "https://gone.example/care": None,
    "https://old.example/lifestyle.jpg": None,  # the http picture has no https copy
}
SIZES = {"https://shop.example/files/blue-ceramic-mug_800x.jpg": (800, 600),
         "http://shop.example/files/IMG_0042.jpg": (1200, 900),
         "https://shop.example/files/plain-tee-white.jpg": (1000, 1250)}


class Probe:
    """A link probe that remembers what it was asked."""

    def __init__(self, statuses=None):
        self.statuses = {**STATUSES, **(statuses or {})}
        self.asked: list[str] = []

    def __call__(self, url):
        self.asked.append(url)
        return self.statuses.get(url, 200)


def page(url, name=None, *, html=None, size=None, status=200):
    html = html if html is not None else (FIXTURES / name).read_text()
    return Page(url=url, status=status, html=html, size=size if size is not None else len(html.encode()))


def shop_pages():
    # The front page is served over http and weighs 600 KB as served (its size is the server's).
    return [page(HOME, "home.html", size=600 * 1024), page(MUG, "blue-mug.html"), page(TEE, "plain-tee.html")]


def repaired(pages, findings, *, probe=None, sizes=SIZES, write=None):
    """Each page repaired: (corrected pages, findings with fix filled in)."""
    probe = probe or Probe()
    out, done = [], {f["id"]: f for f in findings}
    for p in pages:
        html, fixed = repair(p, findings, drafts=Drafts(**({"write": write} if write else {})), status_of=probe,
                             image_size=sizes.get)
        out.append(Page(p.url, p.status, html, len(html.encode())))
        done.update({f["id"]: f for f in fixed if f["page"] == p.url})
    return out, [done[f["id"]] for f in findings]


def key(finding):
    """What a finding is about, apart from its number (numbers move once others are gone)."""
    target = finding["target"]
    about = target.get("problem") or target.get("missing") or target.get("kind")
    return finding["check"], finding["page"], tuple(about) if isinstance(about, list) else about


def by_id(findings):
    return {f["id"]: f for f in findings}


# --- The audit --------------------------------------------------------------------------------

def test_every_check_is_found_on_the_fixture_pages():
    findings = audit(shop_pages(), status_of=Probe())
    assert {f["check"] for f in findings} == set(CHECKS)
    assert "image_size" in CHECKS and set(CHECK_LABELS) == set(CHECKS)
    for finding in findings:
        assert set(finding) == {"id", "check", "severity", "page", "detail", "fixed", "fix", "target"}
        assert finding["severity"] in SEVERITIES and finding["fixed"] is False and finding["fix"] is None
        check, index, n = finding["id"].split(":")
        assert check == finding["check"] and finding["page"] == shop_pages()[int(index)].url and n.isdigit()
    found = {f["id"]: f["detail"] for f in findings}
    assert found["https:0:0"].startswith("This page is served without encryption")
    assert found["image_alt:1:0"] == ("1 image has no description for screen readers and search engines: "
                                      "blue-ceramic-mug_800x.jpg.")
    assert found["title:1:0"].startswith("This page's title is 80 characters long")
    assert found["meta_description:2:0"].startswith("This page's search result description is 168 characters")
    assert found["one_h1:2:0"].startswith("This page has 2 main headings")
    assert found["canonical:2:1"] == "This page tells search engines not to list it, so it will not appear in search results."
    assert found["page_weight:0:0"].startswith("This page's HTML alone weighs 600 KB")
    assert "app.js" in found["page_weight:1:0"]  # a script without async or defer
    assert found["mixed_content:1:0"].endswith("app.js.") and "mug-side.jpg, lifestyle.jpg" in found["mixed_content:1:1"]


def test_each_detail_is_one_plain_sentence_for_a_founder():
    for finding in audit(shop_pages(), status_of=Probe()):
        detail = finding["detail"]
        assert (detail[0].isupper() or detail[0].isdigit()) and detail.endswith(".") and "\n" not in detail
        assert not re.search(r"\bDOM\b|\$\.|\{|\}|<|>|og:|JSON|meta\b|alt=|h1\b", detail), detail


def test_the_alt_check_lets_an_empty_alt_pass_only_on_a_decoration():
    findings = by_id(audit([page(TEE, "plain-tee.html")], status_of=Probe()))
    images = findings["image_alt:0:0"]["target"]["images"]
    assert [i["src"] for i in images] == ["/files/plain-tee-white.jpg"]  # divider.svg says role="presentation"


def test_the_audit_is_the_same_twice_and_probes_each_link_once():
    probe = Probe()
    first = audit(shop_pages(), status_of=probe)
    assert first == audit(shop_pages(), status_of=Probe())
    asked = probe.asked
    assert len(asked) == len(set(asked))
    # Internal and external links are probed; the fetched pages answer with their own status, and
    # mail links, script links and fragments are never probed.
    assert "https://shop.example/products/missing-saucer" in asked and "https://gone.example/care" in asked
    assert "https://elsewhere.example/partners" in asked
    assert MUG not in asked and not any(u.startswith(("mailto:", "javascript:")) or "#" in u for u in asked)


def test_link_probes_stop_at_the_cap():
    links = "".join(f'<a href="/p{i}">Product number {i}</a>' for i in range(checks.MAX_LINK_PROBES + 40))
    probe = Probe()
    audit([page("https://shop.example/", html=f"<html><body>{links}</body></html>")], status_of=probe)
    assert len(probe.asked) == checks.MAX_LINK_PROBES


def test_broken_links_are_reported_and_never_changed():
    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    broken = by_id(findings)["broken_links:1:0"]
    assert broken["target"]["links"] == [{"href": "https://shop.example/products/missing-saucer", "status": 404},
                                         {"href": "https://gone.example/care", "status": None}]
    assert broken["detail"] == ("2 links lead to a page that does not open: /products/missing-saucer (page not found), "
                                "https://gone.example/care (no answer).")
    corrected, fixed = repaired(pages, findings)
    links = [f for f in fixed if f["check"] == "broken_links"]
    assert links and all(f["fixed"] is False and f["fix"] is None for f in links)
    hrefs = [a.get("href") for a in BeautifulSoup(corrected[1].html, "html.parser").find_all("a")]
    assert hrefs == [a.get("href") for a in BeautifulSoup(pages[1].html, "html.parser").find_all("a")]
    assert '<a href="/products/missing-saucer">Matching saucer</a>' in corrected[1].html


# --- The repair -------------------------------------------------------------------------------

NOT_REPAIRED = {"https:0:0", "one_h1:0:0", "page_weight:0:0", "broken_links:1:0", "broken_links:1:1",
                "broken_links:1:2", "page_weight:1:0", "one_h1:2:0",
                "canonical:2:1",  # noindex may be meant
                "mixed_content:1:1"}  # one of its two pictures has no https copy: repaired in part


def test_every_repairable_finding_is_repaired_and_gone_when_the_page_is_audited_again():
    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    corrected, fixed = repaired(pages, findings)
    assert {f["id"] for f in fixed if not f["fixed"]} == NOT_REPAIRED
    for finding in fixed:
        if finding["fixed"]:
            assert finding["fix"]["kind"] == "snippet" and finding["fix"]["snippet"].startswith("<")
            assert finding["fix"]["where"] in ("head", "replace") and isinstance(finding["fix"]["draft"], bool)
        elif finding["id"] != "mixed_content:1:1":
            assert finding["fix"] is None
    again = audit(corrected, status_of=Probe())
    left = {key(f) for f in again}
    assert not {key(f) for f in fixed if f["fixed"]} & left
    assert {f["check"] for f in again} <= {"https", "one_h1", "page_weight", "broken_links", "canonical", "mixed_content"}


def test_the_score_is_documented_bounded_and_rises_after_the_repair():
    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    corrected, _ = repaired(pages, findings)
    before, after = score(findings), score(audit(corrected, status_of=Probe()))
    assert 0 <= before < after <= 100
    assert score([]) == 100
    # One check cannot sink the score alone: fifty insecure pages cost at most its cap.
    assert score([{"check": "https", "severity": "high"}] * 50) == 100 - checks.CAPS["https"]
    assert sum(checks.CAPS.values()) == 100 and set(checks.CAPS) == set(CHECKS)
    everything = [{"check": c, "severity": "high"} for c in CHECKS] * 10
    assert score(everything) == 0
    assert score([{"check": "title", "severity": "low"}]) == 100 - checks.WEIGHTS["low"]


def test_a_partial_repair_keeps_fixed_false_and_shows_what_was_done():
    findings = audit(shop_pages(), status_of=Probe())
    _, fixed = repaired(shop_pages(), findings)
    partial = by_id(fixed)["mixed_content:1:1"]
    assert partial["fixed"] is False
    assert partial["fix"]["snippet"].count("<img") == 1 and "https://cdn.example/img/mug-side.jpg" in partial["fix"]["snippet"]


def test_mixed_content_is_rewritten_only_when_the_https_address_answers():
    html = ('<html><head><link rel="stylesheet" href="http://cdn.example/a.css"></head><body>'
            '<img src="http://cdn.example/ok.jpg" alt="Ok" width="1" height="1">'
            '<img src="http://cdn.example/missing.jpg" alt="Missing" width="1" height="1">'
            '<img src="http://cdn.example/broken.jpg" alt="Broken" width="1" height="1">'
            '<img src="http://cdn.example/silent.jpg" alt="Silent" width="1" height="1">'
            '<img src="https://cdn.example/b.jpg" srcset="http://cdn.example/ok.jpg 1x, http://cdn.example/missing.jpg 2x" '
            'alt="Set" width="1" height="1">'
            '<iframe src="http://video.example/embed/1"></iframe></body></html>')
    shop = page("https://shop.example/", html=html)
    probe = Probe({"https://cdn.example/ok.jpg": 200, "https://cdn.example/missing.jpg": 404,
                   "https://cdn.example/broken.jpg": 500, "https://cdn.example/silent.jpg": None,
                   "https://cdn.example/a.css": 301, "https://video.example/embed/1": 403})
    findings = [f for f in audit([shop], status_of=Probe()) if f["check"] == "mixed_content"]
    corrected, fixed = repair(shop, findings, drafts=Drafts(), status_of=probe, image_size=lambda _u: None)
    soup = BeautifulSoup(corrected, "html.parser")
    srcs = [img["src"] for img in soup.find_all("img")]
    assert srcs == ["https://cdn.example/ok.jpg", "http://cdn.example/missing.jpg", "http://cdn.example/broken.jpg",
                    "http://cdn.example/silent.jpg", "https://cdn.example/b.jpg"]
    assert soup.find_all("img")[-1]["srcset"] == "https://cdn.example/ok.jpg 1x, http://cdn.example/missing.jpg 2x"
    assert soup.find("link")["href"] == "https://cdn.example/a.css"  # 301 is below 400
    assert soup.find("iframe")["src"] == "http://video.example/embed/1"
    assert all(u.startswith("https://") for u in probe.asked) and len(probe.asked) == len(set(probe.asked))
    assert [f["fixed"] for f in fixed] == [False, False]  # each has an address that stays on http


def test_mixed_content_is_not_a_finding_on_an_http_page():
    html = '<html><body><img src="http://cdn.example/a.jpg" alt="A" width="1" height="1"></body></html>'
    assert not [f for f in audit([page("http://shop.example/", html=html)], status_of=Probe())
                if f["check"] == "mixed_content"]


def test_json_ld_states_only_what_the_page_states():
    pages = shop_pages()
    _, fixed = repaired(pages, audit(pages, status_of=Probe()))
    found = by_id(fixed)

    def stated(finding_id):
        snippet = found[finding_id]["fix"]["snippet"]
        return json.loads(BeautifulSoup(snippet, "html.parser").find("script").string)

    # The mug's page names its price and currency in its product meta tags.
    assert stated("product_data:1:0") == {
        "@context": "https://schema.org", "@type": "Product", "name": "Blue Ceramic Mug",
        "brand": {"@type": "Brand", "name": "Acme Goods"},  # the shop's name, as its pages' titles share it
        "image": "https://shop.example/files/blue-ceramic-mug_800x.jpg", "url": MUG,
        "offers": {"@type": "Offer", "price": "12.99", "priceCurrency": "USD"}}
    # The tee's page shows "$19.00" (the crossed-out $25.00 is not its price) but names no currency:
    # a bare $ is several countries' dollar, so no offer is stated.
    tee = stated("product_data:2:0")
    assert "offers" not in tee and tee["name"] == "Plain Tee" and tee["url"] == "https://shop.example/products/plain-tee"
    assert tee["description"].startswith("A plain cotton tee") and set(tee) == {"@context", "@type", "name", "brand",
                                                                               "description", "image", "url"}
    # The shop: its name as its pages' titles share it, and its address; nothing else.
    assert stated("product_data:0:0") == {"@context": "https://schema.org", "@type": "Organization",
                                          "name": "Acme Goods", "url": "http://shop.example/"}


def test_a_price_written_in_the_page_gives_an_offer_only_with_its_currency():
    cases = {
        '<p class="price">€24,50</p>': ("24.50", "EUR"),
        '<span itemprop="price" content="30.00">30 €</span><meta itemprop="priceCurrency" content="eur">': ("30.00", "EUR"),
        "<p>Now 1,299.00 USD</p>": ("1299.00", "USD"),
        "<p>£8</p>": ("8", "GBP"),
        "<p>$5.00</p>": ("5.00", None),
    }
    for body, expected in cases.items():
        price = checks.find_price(BeautifulSoup(f"<html><body><h1>Thing</h1>{body}</body></html>", "html.parser"))
        assert (price.amount, price.currency) == expected, body
    html = "<html><head><title>Thing</title></head><body><h1>Thing</h1><p>No price shown here.</p></body></html>"
    assert checks.find_price(BeautifulSoup(html, "html.parser")) is None
    assert not [f for f in audit([page("https://shop.example/p", html=html)], status_of=Probe())
                if f["target"].get("missing") == "Product"]


def test_image_sizes_come_from_the_picture_and_keep_a_set_dimension():
    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    corrected, fixed = repaired(pages, findings)
    tee = BeautifulSoup(corrected[2].html, "html.parser").find("img")
    assert (tee["width"], tee["height"]) == ("600", "750")  # 600 kept, 1000x1250 gives 750
    mug = BeautifulSoup(corrected[1].html, "html.parser").find("img")
    assert (mug["width"], mug["height"]) == ("800", "600")
    _, unsized = repaired(pages, findings, sizes={})
    assert all(f["fixed"] is False and f["fix"] is None for f in unsized if f["check"] == "image_size")


def test_the_corrected_page_keeps_everything_a_repair_did_not_touch():
    pages = shop_pages()
    corrected, _ = repaired(pages, audit(pages, status_of=Probe()))
    mug = corrected[1].html
    assert mug.startswith("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
    for kept in ('<html lang="en">', '<meta charset="utf-8">', '<h1>Blue Ceramic Mug</h1>',
                 '<p>A sturdy mug for slow mornings. It holds 350 ml of coffee or tea and keeps its colour wash after '
                 'wash.</p>', '<img src="http://old.example/lifestyle.jpg" alt="A kitchen shelf" width="400" height="300">',
                 '<a href="javascript:void(0)">Menu</a>', '<figcaption>The blue mug on a breakfast table</figcaption>'):
        assert kept in mug, kept
    before = BeautifulSoup(pages[1].html, "html.parser").body.get_text()
    assert BeautifulSoup(mug, "html.parser").body.get_text() == before


def test_drafted_words_are_marked_as_drafts():
    pages = shop_pages()
    _, fixed = repaired(pages, audit(pages, status_of=Probe()))
    found = by_id(fixed)
    assert found["meta_description:1:0"]["fix"]["draft"] is True
    assert found["image_alt:1:0"]["fix"]["draft"] is True
    assert found["open_graph:1:0"]["fix"]["draft"] is True  # it repeats the drafted description
    assert found["meta_description:2:0"]["fix"]["draft"] is False  # the founder's own words, cut
    assert found["title:1:0"]["fix"]["draft"] is False and found["viewport:1:0"]["fix"]["draft"] is False
    assert found["image_alt:1:0"]["fix"]["snippet"] == '<img src="/files/blue-ceramic-mug_800x.jpg" alt="Blue ceramic mug">'
    assert found["title:1:0"]["fix"]["snippet"] == "<title>Blue Ceramic Mug with a Hand-Painted Glaze – Acme Goods</title>"
    assert found["title:0:0"]["fix"] == {"kind": "snippet", "snippet": "<title>Acme Goods</title>", "where": "head",
                                         "draft": False, "how": platforms.how(platforms.HTML, "title")}


HOSTILE = "Mug </script><script>alert(1)</script> \"quoted\" & 'single'"


def test_hostile_page_text_cannot_break_out_of_json_ld_or_attributes():
    from html import escape

    text = escape(HOSTILE)
    html = (f'<!DOCTYPE html><html><head><title>{text}</title>'
            f'<meta property="og:site_name" content="{text}"></head><body><main><h1>{text}</h1>'
            f'<figure><img src="/files/IMG_1.jpg"><figcaption>{escape(chr(34) + " onerror=" + chr(34) + "alert(2)")}'
            f'</figcaption></figure><p>{text}. Priced at US$9.99 today.</p></main></body></html>')
    shop = page("https://shop.example/products/x", html=html)
    findings = audit([shop], status_of=Probe())
    corrected, fixed = repair(shop, findings, drafts=Drafts(), status_of=Probe(), image_size=lambda _u: (10, 10))
    soup = BeautifulSoup(corrected, "html.parser")
    scripts = soup.find_all("script")
    assert [s.get("type") for s in scripts] == ["application/ld+json"] * 2  # Product and Organization, nothing else
    for script in scripts:
        raw = script.string
        assert "<" not in raw and ">" not in raw and "&" not in raw
        assert json.loads(raw)["name"] == HOSTILE
    assert json.loads(scripts[0].string)["offers"] == {"@type": "Offer", "price": "9.99", "priceCurrency": "USD"}
    og_title = soup.find("meta", property="og:title")
    assert og_title.attrs == {"property": "og:title", "content": HOSTILE}
    img = soup.find("img")
    assert set(img.attrs) == {"src", "alt", "width", "height"} and img["alt"] == '" onerror="alert(2)'
    assert "alert(1)" not in soup.get_text(" ").replace(HOSTILE, "")
    for finding in fixed:
        if finding["fix"]:
            snippet = BeautifulSoup(finding["fix"]["snippet"], "html.parser")
            for script in snippet.find_all("script"):
                assert json.loads(script.string)["name"] == HOSTILE
            assert not snippet.find_all(attrs={"onerror": True})


def test_repairs_of_other_pages_findings_pass_through_unchanged():
    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    _, fixed = repair(pages[1], findings, drafts=Drafts(), status_of=Probe(), image_size=SIZES.get)
    assert [f["id"] for f in fixed] == [f["id"] for f in findings]
    assert all(f == o for f, o in zip(fixed, findings, strict=True) if f["page"] != MUG)
    assert all(o["fixed"] is False and o["fix"] is None for o in findings)  # the input is not changed


# --- Same-site links --------------------------------------------------------------------------

def test_same_site_links_are_absolute_unique_in_order_and_on_the_same_host():
    html = ('<html><body><a href="/b">B</a><a href="/a#top">A</a><a href="/b?x=1">B1</a><a href="/b#again">B</a>'
            '<a href="https://shop.example/c">C</a><a href="http://shop.example/d">other scheme</a>'
            '<a href="https://shop.example:8443/e">other port</a><a href="https://other.example/f">other host</a>'
            '<a href="mailto:a@shop.example">mail</a><a href="javascript:go()">js</a><a href="#here">here</a>'
            '<a href="https://shop.example/products/x">self</a><a href="g">relative</a></body></html>')
    shop = page("https://shop.example/products/x", html=html)
    assert same_site_links(shop) == ["https://shop.example/b", "https://shop.example/a", "https://shop.example/b?x=1",
                                     "https://shop.example/c", "https://shop.example/products/g"]
    assert same_site_links(shop, limit=2) == ["https://shop.example/b", "https://shop.example/a"]
    files = page("https://shop.example/", html='<a href="/manual.PDF">Manual</a><a href="/files/mug.jpg">Mug</a>'
                                              '<a href="/pages/care">Care</a>')
    assert same_site_links(files) == ["https://shop.example/pages/care"]
    based = page("https://shop.example/x", html='<html><head><base href="/shop/"></head><body><a href="y">Y</a></body></html>')
    assert same_site_links(based) == ["https://shop.example/shop/y"]


# --- The two AI kinds ---------------------------------------------------------------------------

def test_the_offline_drafts_are_deterministic_and_within_their_limits():
    text = ("Our mugs are thrown on a wheel in a small studio. Each one holds 350 ml and survives the dishwasher. "
            "Add to cart. " + "Glazed in deep blue with a speckled rim that catches the light every morning. " * 5)
    first = Drafts().meta_description(title="Blue Ceramic Mug", text=text)
    assert first == Drafts().meta_description(title="Blue Ceramic Mug", text=text)
    assert 0 < len(first) <= 155 and first.startswith("Our mugs are thrown on a wheel") and "Add to cart" not in first
    assert Drafts().meta_description(title="", text="") == ""
    short = Drafts().meta_description(title="Tea towel", text="Linen.")
    assert short and len(short) <= 155 and "Tea towel" in short
    alt = Drafts().alt_text(src="https://cdn.example/files/blue-ceramic-mug_800x.jpg?v=3", context="Blue mug")
    assert alt == "Blue ceramic mug"
    assert Drafts().alt_text(src="/files/IMG_0042@2x.JPG", context="The blue mug on a breakfast table") == \
        "The blue mug on a breakfast table"
    assert len(Drafts().alt_text(src="/x/DSC_1.jpg", context="word " * 100)) <= 120
    assert drafts.file_words("/files/5f3a9c0e1b2d4f6a.png") == "" and drafts.file_words("mug-1024x1024.webp") == "mug"


def test_the_two_kinds_are_registered_with_their_limits_and_their_offline_answers_follow_them():
    facts = ai.Facts(product={"name": "Blue mug", "description": "A sturdy mug. " * 40}, evidence=[], offer=None)
    meta = ai.complete(ai.Task(kind=FIX_META, facts=facts))
    assert meta.backend == "offline" and len(meta.copy["description"]) <= 155
    assert validate(meta.copy, drafts.META_SCHEMA) == [] and drafts.META_SCHEMA["properties"]["description"]["maxLength"] == 155
    alt = ai.complete(ai.Task(kind=FIX_ALT, facts=ai.Facts(product={"name": "x", "description": "blue mug"},
                                                           evidence=[], offer=None)))
    assert alt.copy == {"alt": "Blue mug"} and drafts.ALT_SCHEMA["properties"]["alt"]["maxLength"] == 120


def test_a_drafted_sentence_the_page_does_not_back_is_dropped_by_the_seam(monkeypatch):
    # A backend that adds a claim: the seam's claim filter drops the sentence the page's words cannot back.
    class Boastful:
        name = "boastful"

        def __init__(self, settings):
            pass

        def write(self, task):
            return {"description": "A sturdy blue mug. Rated number 1 by 5000 buyers."}

    monkeypatch.setitem(ai.BACKENDS, "boastful", Boastful)
    facts = ai.Facts(product={"name": "Blue mug", "description": "A sturdy blue mug."}, evidence=[], offer=None)
    answer = ai.complete(ai.Task(kind=FIX_META, facts=facts), settings=SETTINGS.but(ai_backend="boastful"))
    assert answer.copy == {"description": "A sturdy blue mug."} and answer.dropped[0]["why"] == "number"


def test_a_backend_that_failed_for_good_leaves_the_finding_unrepaired_and_the_rest_of_the_report_standing():
    def failing(_task):
        raise ai.AIError(ai.errors.FAILED, "the model answered with an error")

    pages = shop_pages()
    findings = audit(pages, status_of=Probe())
    _, fixed = repaired(pages, findings, write=failing)
    found = by_id(fixed)
    assert found["meta_description:1:0"]["fixed"] is False and found["meta_description:1:0"]["fix"] is None
    assert found["image_alt:1:0"]["fix"] is None
    assert found["viewport:1:0"]["fixed"] is True and found["product_data:1:0"]["fixed"] is True


def test_a_page_declaring_another_character_set_is_declared_utf8():
    html = ('<html><head><meta charset="windows-1252"><meta http-equiv="Content-Type" content="text/html; '
            'charset=ISO-8859-1"><title>Café mugs</title></head><body><h1>Café</h1></body></html>')
    shop = page("https://shop.example/", html=html)
    corrected, _ = repair(shop, [], drafts=Drafts(), status_of=Probe(), image_size=SIZES.get)
    assert '<meta charset="utf-8">' in corrected and 'content="text/html; charset=utf-8"' in corrected
    assert "<title>Café mugs</title>" in corrected


@pytest.mark.parametrize("check", CHECKS)
def test_every_check_has_a_founder_label_and_a_cap(check):
    assert CHECK_LABELS[check] and CHECK_LABELS[check][0].isupper() and "_" not in CHECK_LABELS[check]
    assert checks.CAPS[check] > 0
    assert check in repairs.REPAIRABLE or check in ("https", "one_h1", "broken_links", "page_weight")
