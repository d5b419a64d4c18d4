"""What Fix suggests for a store elsewhere is right for the page it is suggested on (issue 48,
point 3): Product structured data is suggested only on a page about a product, named after
the product and sold under the shop's name (its brand, as the shop's pages state it); an FAQ
page that mentions a price is asked for none (a Product named "Questions and answers" would
tell search engines something false). The store is a real local site, read by a real Fix run
over HTTP (tests/fix_site.py)."""
from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from tests.fix_site import PNG, Site

pytestmark = pytest.mark.usefixtures("jobs_drained")

SHOP = "Blue Mug Co"
HEAD = '<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'

HOME = f"""<!doctype html><html lang="en"><head>{HEAD}<title>{SHOP}</title></head><body>
<h1>Mugs made by hand</h1><p>Two potters, one small studio.</p>
<a href="/products/blue-ceramic-mug">Blue ceramic mug</a> <a href="/faq.html">Questions and answers</a>
</body></html>"""

MUG = f"""<!doctype html><html lang="en"><head>{HEAD}<title>Blue ceramic mug – {SHOP}</title>
<meta name="description" content="A hand-thrown blue ceramic mug that holds 350 ml."></head><body>
<h1>Blue ceramic mug</h1><p>A hand-thrown blue ceramic mug that holds 350 ml.</p>
<p class="price">$24.00</p><img src="/img/blue-ceramic-mug.png" alt="Blue ceramic mug" width="1" height="1">
<a href="/faq.html">Questions and answers</a></body></html>"""

# An FAQ page whose answers mention prices: it is about no product.
FAQ = f"""<!doctype html><html lang="en"><head>{HEAD}<title>FAQ – {SHOP}</title>
<meta name="description" content="Answers about our mugs, shipping and returns."></head><body>
<h1>Questions and answers</h1>
<h2>What does shipping cost?</h2><p>Shipping is $4.95, and free on orders over $50.00.</p>
<h2>Can I return a mug?</h2><p>Yes, within 30 days.</p>
<a href="/products/blue-ceramic-mug">Blue ceramic mug</a></body></html>"""


@pytest.fixture
def shop(settings_with):
    html = "text/html; charset=utf-8"
    pages = {"/": (200, html, HOME.encode()), "/products/blue-ceramic-mug": (200, html, MUG.encode()),
             "/faq.html": (200, html, FAQ.encode()), "/img/blue-ceramic-mug.png": (200, "image/png", PNG)}
    with Site(pages) as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def fix_run(client, run_jobs, url: str) -> dict:
    answer = client.post("/api/fix", json={"url": url})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    run_jobs()
    run = client.get(f"/api/fix/mine?token={answer.get_json()['token']}").get_json()["run"]
    assert run["stage"] == "done", run
    return run


def suggested_data(finding: dict) -> list[dict]:
    """The JSON-LD a finding's snippet suggests."""
    snippet = (finding.get("fix") or {}).get("snippet") or ""
    scripts = BeautifulSoup(snippet, "html.parser").find_all("script", attrs={"type": "application/ld+json"})
    return [json.loads(script.string) for script in scripts]


def test_an_faq_page_that_mentions_prices_is_suggested_no_product_data(client, run_jobs, shop):
    run = fix_run(client, run_jobs, shop.origin + "/")
    faq = shop.origin + "/faq.html"
    assert faq in run["pages"]

    on_faq = [f for f in run["findings"] if f["page"] == faq]
    assert not [f for f in on_faq if f["check"] == "product_data"], on_faq
    suggested = [d for f in run["findings"] for d in suggested_data(f)]
    assert not [d for d in suggested if d["@type"] == "Product" and d["name"] == "Questions and answers"]


def test_a_product_page_is_suggested_product_data_with_its_name_and_the_shops_brand(client, run_jobs, shop):
    run = fix_run(client, run_jobs, shop.origin + "/")
    mug = shop.origin + "/products/blue-ceramic-mug"

    [finding] = [f for f in run["findings"] if f["page"] == mug and f["check"] == "product_data"]
    assert finding["fixed"] is True
    [product] = suggested_data(finding)
    assert product["@type"] == "Product"
    assert product["name"] == "Blue ceramic mug"
    assert product["brand"] == {"@type": "Brand", "name": SHOP}
    assert product["url"] == mug
    # Only the product's own page is asked for Product data: the shop's front page shows no
    # price, and the FAQ's prices are no product's.
    assert {f["page"] for f in run["findings"] if f["check"] == "product_data" and suggested_data(f)
            and suggested_data(f)[0]["@type"] == "Product"} == {mug}
