"""A store built here scores 100 before any repair (issue 48, point 1): the renderer writes
what Fix's audit checks (services/fix/checks.py), so every page of a freshly built and
published store (render.PAGE_IDS: home, product, FAQ, shipping and returns, contact, privacy,
terms) has no finding at all, read the way a Fix run reads a store built here
(services/fix/own_store.py) and through a real Fix run over HTTP: titles and search
descriptions within the audit's bounds with the business's name kept where it fits, every
picture with alt text, width and height, canonical links and link previews, the business as
Organization data on its home page, the product as Product data only on the pages about it,
and a sitemap naming every page."""
from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup

from models.store import Store
from services.fix import checks, own_store, page_checks
from services.store import render
from tests.factories import built, claimed_founder, demo_item
from tests.store_pages import publish

pytestmark = pytest.mark.usefixtures("jobs_drained")

BUSINESS = "Northwood Kitchen Goods"
# Longer than a search result shows beside the business's name: the product page's title is
# shortened to keep it.
NAME = "Acacia Wood Magnetic Knife Strip for Kitchen Walls with Strong Magnets"
SECURE = "https://localhost"  # the service as deployed: its stores are served over https


@pytest.fixture
def store(founder, run_jobs, settings_with) -> dict:
    """A founder's store built with their business's name in Settings and published; the
    service answering at an https address (an http one is rightly an `https` finding)."""
    settings_with(base_url=SECURE)
    client = claimed_founder(founder, demo_item(name=NAME))
    answer = client.post("/api/settings/business", json={"business_name": BUSINESS})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    built(client, run_jobs)
    public = publish(client)
    url = public if public.startswith("http") else SECURE + public
    return {"client": client, "url": url, "slug": Store.get().slug}


def pages_as_fix_reads_them(url: str) -> tuple[dict, list[checks.Page]]:
    own = own_store.own_store(url)
    assert own is not None, url
    return own, own_store.store_pages(own)


def no_outside_link(url: str):
    raise AssertionError(f"a store built here links outside itself: {url}")


def test_every_page_of_a_built_store_has_no_finding_and_scores_100(store):
    own, pages = pages_as_fix_reads_them(store["url"])
    assert [p.url for p in pages] == [store["url"] + render.page_path(pid) for pid in render.PAGE_IDS]

    found = checks.audit(pages, status_of=own_store.own_status_of(own, no_outside_link))

    by_page = {pid: [(f["check"], f["detail"]) for f in found if f["page"] == page.url]
               for pid, page in zip(render.PAGE_IDS, pages, strict=True)}
    assert by_page == {pid: [] for pid in render.PAGE_IDS}
    assert checks.score(found) == 100


def test_titles_fit_a_search_result_and_keep_the_business_name(store):
    _own, pages = pages_as_fix_reads_them(store["url"])
    titles = {pid: BeautifulSoup(page.html, "html.parser").title.get_text()
              for pid, page in zip(render.PAGE_IDS, pages, strict=True)}
    assert all(len(title) <= page_checks.TITLE_MOST for title in titles.values()), titles
    # The product's long name is shortened at a word so the business's name still fits.
    assert titles["product"] == f"Acacia Wood Magnetic Knife Strip · {BUSINESS}"
    assert titles["faq"] == f"Questions and answers · {BUSINESS}"
    assert all(title.endswith(f" · {BUSINESS}") for pid, title in titles.items() if pid != "home"), titles
    for page in pages:
        description = BeautifulSoup(page.html, "html.parser").find("meta", attrs={"name": "description"})
        assert 0 < len(description["content"]) <= page_checks.DESCRIPTION_MOST


def structured(html: str) -> list[dict]:
    soup = BeautifulSoup(html, "html.parser")
    return [json.loads(s.string) for s in soup.find_all("script", attrs={"type": "application/ld+json"})]


def test_structured_data_names_the_business_and_the_product_only_where_it_belongs(store):
    _own, pages = pages_as_fix_reads_them(store["url"])
    data = {pid: structured(page.html) for pid, page in zip(render.PAGE_IDS, pages, strict=True)}

    [organization] = [d for d in data["home"] if d["@type"] == "Organization"]
    assert organization["name"] == BUSINESS and organization["url"] == store["url"]
    for pid in ("home", "product"):
        [product] = [d for d in data[pid] if d["@type"] == "Product"]
        assert product["name"] == NAME
        assert product["brand"] == {"@type": "Brand", "name": BUSINESS}
        assert product["image"] == [f"{SECURE}/static/demo/kitchen-magnetic-knife-strip-1.svg"]
        assert product["offers"]["price"] == "30.00" and product["offers"]["priceCurrency"] == "USD"
    # A policy, FAQ or contact page is about no product: it states none.
    assert {pid: d for pid, d in data.items() if pid not in ("home", "product")} == {
        pid: [] for pid in render.PAGE_IDS if pid not in ("home", "product")}


def test_every_picture_has_alt_text_width_and_height(store):
    _own, pages = pages_as_fix_reads_them(store["url"])
    images = [img for page in pages for img in BeautifulSoup(page.html, "html.parser").find_all("img")]
    assert images  # the home and product pages show the product
    for img in images:
        assert img["alt"].strip() and re.fullmatch(r"\d+", img["width"]) and re.fullmatch(r"\d+", img["height"])


def test_the_sitemap_names_every_page_by_its_canonical_address(store, founder):
    answer = founder().get(f"/store/{store['slug']}/sitemap.xml")
    assert answer.status_code == 200
    listed = [loc.text for loc in ElementTree.fromstring(answer.data).iter(
        "{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    _own, pages = pages_as_fix_reads_them(store["url"])
    canonical = [BeautifulSoup(p.html, "html.parser").find("link", rel="canonical")["href"] for p in pages]
    assert listed == canonical == [p.url for p in pages]


def test_a_fix_run_of_a_built_store_reports_100_and_no_finding(store, run_jobs):
    client = store["client"]
    answer = client.post("/api/fix", json={"url": store["url"]})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    run_jobs()
    run = client.get(f"/api/fix/mine?token={answer.get_json()['token']}").get_json()["run"]

    assert run["stage"] == "done", run
    assert run["pages"] == [store["url"] + render.page_path(pid) for pid in render.PAGE_IDS]
    assert run["findings"] == []
    assert run["score_before"] == 100 and run["score_after"] == 100
    # Nothing to repair: no new version of the store is written.
    assert run["store_version"] is None and run["repaired_in_place"] is False


@pytest.mark.parametrize(("kind", "intent"), [
    ("landing", "Make a landing page for my product"), ("returns", "Write my returns page"),
    ("shipping", "Write my shipping page"), ("privacy", "Write my privacy policy"), ("faq", "Write an FAQ page")])
def test_a_generated_page_of_a_built_store_has_no_finding(store, run_jobs, kind, intent):
    client = store["client"]
    started = client.post("/api/pages", json={"intent": intent})
    if started.get_json().get("status") != "ok":  # the route waits on its job: let a worker pass run it
        run_jobs()
        started = client.post("/api/pages", json={"intent": intent})
    body = started.get_json()
    assert body["status"] == "ok", body
    shown = client.get(body["url"])
    assert shown.status_code == 200, (body["url"], shown.status_code)
    html = shown.get_data(as_text=True)
    url = body["url"] if body["url"].startswith("http") else SECURE + body["url"]
    found = checks.audit([checks.Page(url=url, status=200, html=html, size=len(html.encode()))],
                         status_of=lambda _url: 200)
    assert [(f["check"], f["detail"]) for f in found] == []
    stated = {data["@type"] for data in map(json.loads, re.findall(
        r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S))}
    assert stated == {"Organization", *({"landing": {"Product"}, "faq": {"FAQPage"}}.get(kind, set()))}
    assert f"· {BUSINESS}" in BeautifulSoup(html, "html.parser").title.get_text() or kind == "landing"
