"""Where a repair goes on the platform a store elsewhere is made with (issue 48, point 3): Fix
recognises Shopify, WooCommerce (WordPress), Wix and Squarespace from what their pages always
carry, and every repair it writes says, in words, where in that platform's admin the change
goes; a page none of them made is plain HTML, whose file is edited directly."""
from __future__ import annotations

import pytest

from services.fix import platforms
from services.fix.repairs import REPAIRS
from tests.fix_site import FAQ, HOME, PNG, Site

pytestmark = pytest.mark.usefixtures("jobs_drained")

# What each platform's pages carry, as a theme of it writes them.
MADE_WITH = {
    platforms.SHOPIFY: '<link rel="preconnect" href="https://cdn.shopify.com"><script>Shopify.theme = {};</script>',
    platforms.WOOCOMMERCE: '<link rel="stylesheet" href="/wp-content/plugins/woocommerce/assets/css/woocommerce.css">',
    platforms.WIX: '<meta name="generator" content="Wix.com Website Builder">',
    platforms.SQUARESPACE: '<script src="https://static1.squarespace.com/static/vta/site.js"></script>',
    platforms.HTML: '<link rel="stylesheet" href="/style.css">',
}
# A word of each platform's own admin that its instructions name.
ADMIN = {platforms.SHOPIFY: "Shopify admin", platforms.WOOCOMMERCE: "WordPress", platforms.WIX: "Wix editor",
         platforms.SQUARESPACE: "Squarespace", platforms.HTML: "HTML file"}


def page_made_with(platform: str, page: str = HOME) -> str:
    return page.replace("<head>", "<head>" + MADE_WITH[platform], 1)


@pytest.mark.parametrize("platform", platforms.PLATFORMS)
def test_each_platform_is_recognised_from_what_its_pages_carry(platform):
    assert platforms.recognise(page_made_with(platform)) == platform


@pytest.mark.parametrize("platform", platforms.PLATFORMS)
def test_every_repair_says_where_it_goes_in_that_platforms_admin(platform):
    for check in REPAIRS:
        said = platforms.how(platform, check)
        assert said and ADMIN[platform] in said, (check, said)
    assert platforms.how(platform, "broken_links") is None  # no repair, nothing to say


@pytest.fixture
def shopify_site(settings_with):
    html = "text/html; charset=utf-8"
    pages = {"/": (200, html, page_made_with(platforms.SHOPIFY).encode()),
             "/faq.html": (200, html, page_made_with(platforms.SHOPIFY, FAQ).encode()),
             "/img/blue-ceramic-mug.png": (200, "image/png", PNG)}
    with Site(pages) as running:
        settings_with(fix_allow_hosts=running.allow)
        yield running


def test_a_shopify_stores_report_says_where_each_repair_goes_in_shopify(client, run_jobs, shopify_site):
    answer = client.post("/api/fix", json={"url": shopify_site.origin + "/"})
    assert answer.status_code == 200, answer.get_json()
    run_jobs()
    run = client.get(f"/api/fix/mine?token={answer.get_json()['token']}").get_json()["run"]
    assert run["stage"] == "done", run
    repaired = [f for f in run["findings"] if f["fix"]]
    assert {"meta_description", "image_alt", "viewport"} <= {f["check"] for f in repaired}
    for finding in repaired:
        assert finding["fix"]["how"] == platforms.how(platforms.SHOPIFY, finding["check"])
        assert "Shopify admin" in finding["fix"]["how"]
    title = next(f for f in repaired if f["check"] == "meta_description")
    assert "Edit website SEO" in title["fix"]["how"]
