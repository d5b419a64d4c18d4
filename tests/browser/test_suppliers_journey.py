"""Suppliers per offer line in Chromium (issue 20, point 5), on a phone (390 px) and a
desktop: a founder who claimed a demo catalog product sees that product's own offers, one
row per supplier's offer (its SKU, unit cost with its currency, minimum order, lead time,
where it ships from), connects one offer, and pays for a sample of exactly that offer on the
payment provider's page; the sample names the same SKU. A product no supplier lists shows
similar goods, said to be other products before anything else. No screen shows a route, a
setting name or a field name."""
from __future__ import annotations

import re

import pytest

from models.payment import SampleOrder
from models.supplier import SupplierConnection
from tests.browser.steps import DEMO_PHOTOS, claim_own_card, order_a_paid_sample, screen
from tests.factories import DEMO_PRODUCTS as DEMO
from tests.factories import KNIFE_STRIP, OFFERS, demo_product, item, load

# The provider's page and its landing addresses are made from BASE_URL: the live server's here too.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

VIEWPORTS = ["phone", "desktop"]
# What a founder never reads on these screens: routes, field names, setting names.
NOT_FOUNDER_WORDS = re.compile(r"/api/|product_id|offers_product_id|unit_cost|shipping_days|SUPPLIER_FEED|\bmoq\b")


def founder_words_only(page) -> None:
    text = page.locator("main").inner_text()
    assert not NOT_FOUNDER_WORDS.search(text), NOT_FOUNDER_WORDS.search(text).group(0)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_founder_sees_their_products_offers_connects_one_and_pays_for_its_sample(open_app, run_jobs, viewport):
    # The knife strip ranks first, so it is the card the feed holds for the founder.
    load(demo_product(KNIFE_STRIP), demo_product("kitchen-collapsible-silicone-colander") | {"rank": 900})
    founder = open_app(viewport)
    claim_own_card(founder)
    run_jobs()  # the claim's research

    page = screen(founder, "/#/app/suppliers", "suppliers")
    page.get_by_role("heading", name=f"Offers for {DEMO[KNIFE_STRIP]['name']}").wait_for()
    table = page.locator("table.offers[data-match=exact]")
    rows = table.locator("tbody tr")
    assert rows.count() == len(OFFERS[KNIFE_STRIP]) >= 2
    assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.productId)")) == {KNIFE_STRIP}
    shown = rows.evaluate_all("rows => rows.map(r => [r.dataset.supplier, r.dataset.sku])")
    assert sorted(map(tuple, shown)) == sorted((line["supplier"], line["sku"]) for line in OFFERS[KNIFE_STRIP])
    cheapest_first = sorted(OFFERS[KNIFE_STRIP], key=lambda line: line["cost"])
    for row, line in zip(rows.all(), cheapest_first, strict=True):
        text = row.inner_text()
        assert line["sku"] in text and "USD" in text and f"{line['moq']} units" in text, text
        assert f"{line['lead_time_days']} days" in text and f"{line['rating']:g} of 5" in text, text
    assert page.locator("[data-match=similar_goods]").count() == 0
    founder_words_only(page)
    founder.shot("suppliers-offers")

    # Not the cheapest: the one connected is the one the sample is of.
    line = cheapest_first[1]
    page.get_by_role("button", name=f"Connect {line['supplier']}, SKU {line['sku']}").click()
    page.locator(f"[data-connection=connected][data-sku='{line['sku']}']").wait_for()
    connected = table.locator("tr[data-connected=true]")
    assert connected.evaluate_all("rows => rows.map(r => r.dataset.sku)") == [line["sku"]]
    assert SupplierConnection.get().sku == line["sku"]
    founder.shot("suppliers-offer-connected")

    page = order_a_paid_sample(founder)
    paid = page.locator(f"table.samples tr[data-state=paid][data-sku='{line['sku']}']")
    assert paid.count() == 1
    assert line["name"] in paid.inner_text() and "USD" in paid.inner_text()
    (order,) = SampleOrder.select()
    assert (order.supplier, order.sku, order.offers_product_id, order.quantity, order.amount_minor) == (
        line["supplier"], line["sku"], KNIFE_STRIP, 2, round(line["cost"] * 100) * 2)
    founder_words_only(page)
    founder.shot("suppliers-sample-paid")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_product_no_supplier_lists_shows_similar_goods_said_to_be_other_products(open_app, run_jobs, viewport):
    product = item("p00", rank=1000, name="Long Cat Tunnel")
    product["images"] = [f"/static/demo/{DEMO_PHOTOS[0]}"]
    load(product)
    founder = open_app(viewport)
    claim_own_card(founder)
    run_jobs()

    page = screen(founder, "/#/app/suppliers", "suppliers")
    notice = page.locator("[role=note][data-match=similar_goods]")
    notice.get_by_text("Similar goods, not your product").wait_for()
    assert "Long Cat Tunnel" in notice.inner_text()
    rows = page.locator("table.offers[data-match=similar_goods] tbody tr")
    assert rows.count() >= 1
    assert "p00" not in rows.evaluate_all("rows => rows.map(r => r.dataset.productId)")
    assert "Tunnel" in rows.first.inner_text()  # the goods each row offers are named on it
    founder_words_only(page)
    founder.shot("suppliers-similar-goods")

    # Words typed in: goods named like them, also never passed off as the product.
    search = page.get_by_role("search", name="Look up goods")
    search.get_by_label("Words describing the goods").fill("bamboo cutting board")
    search.get_by_role("button", name="Search suppliers").click()
    page.get_by_text("Goods named like “bamboo cutting board”").wait_for()
    assert page.locator("table.offers[data-match=similar_goods]").count() == 2
    founder.shot("suppliers-search-by-words")
