"""Commerce in Chromium: a founder claims a product, builds and publishes its store; a
customer on a phone buys from the public product page, gives a shipping address and pays on
the sandbox provider's hosted page and lands on the thank-you page, which says the receipt
was sent once it was; the founder's Orders screen shows the paid order, where it ships and
the confirmed revenue (on a desktop and a phone). The founder then
connects a supplier's offer and pays for a sample of it on the Suppliers screen, buys a domain on the
Domains screen, and the Launch screen reads those facts, and payments ready, true."""
from __future__ import annotations

import re

import pytest

from tests.browser.steps import (
    DEMO_PHOTOS,
    HOSTED_PAGE,
    PAY,
    claimed_and_built,
    order_a_paid_sample,
    pay_on_the_hosted_page,
    screen,
    sign_in_by_link,
)
from tests.factories import item, load

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

FOUNDER = "seller@example.com"
CUSTOMER = "customer@example.com"
SHIP_TO = {"Full name": "Ada Lovelace", "Address": "12 Analytical Row", "Apartment, suite, floor (optional)": "Flat 3",
           "City": "London", "Postal code": "N1 7AA"}


def catalog_with_a_sourceable_product():
    """Three servable products; the top one is named like lines of the bundled supplier feed."""
    names = ["Long Cat Tunnel", "Demo product 01", "Demo product 02"]
    products = []
    for n, name in enumerate(names):
        product = item(f"p{n:02d}", rank=1000 - n, name=name)
        product["images"] = [f"/static/demo/{DEMO_PHOTOS[n % len(DEMO_PHOTOS)]}"]
        products.append(product)
    return load(*products)


def pay_with_a_shipping_address(app, shot_name: str) -> None:
    """On the sandbox provider's page of a customer order: the address, a screenshot, then Pay."""
    page = app.page
    page.wait_for_url(HOSTED_PAGE)
    page.get_by_role("heading", name=PAY).wait_for()
    shipping = page.get_by_role("group", name="Shipping address")
    for label, value in SHIP_TO.items():
        shipping.get_by_label(label, exact=True).fill(value)
    shipping.get_by_label("Country").select_option("GB")
    app.shot(shot_name)
    page.get_by_role("button", name=PAY).click()


def fact(page, fact_id: str) -> str:
    return page.locator(f"[data-fact={fact_id}]").get_attribute("data-true")


def test_a_customer_pays_the_founder_sees_the_order_then_orders_a_sample_and_buys_a_domain(open_app, run_jobs):
    catalog_with_a_sourceable_product()
    founder = open_app("desktop")
    sign_in_by_link(founder, FOUNDER, new=True)
    page = claimed_and_built(founder, run_jobs)
    page.get_by_role("button", name="Publish").click()
    page.locator("[data-store-status=published]").wait_for(timeout=60_000)
    public_url = page.get_by_role("link", name="Open the public store").get_attribute("href")

    page = screen(founder, "/#/app/orders", "orders")
    page.locator("[data-reason=no_orders_yet]").get_by_role("link", name="Go to your store").wait_for()
    founder.shot("orders-none-yet")

    # The customer, on a phone of their own, buys two from the public product page.
    customer = open_app("phone")
    shop = customer.page
    shop.goto(customer.base_url + public_url + "product")
    buy_box = shop.locator("form.buy-form").first
    buy_box.get_by_label("Quantity").fill("2")
    buy_box.get_by_label("Email for your receipt").fill(CUSTOMER)
    customer.shot("store-product-buy-box")
    buy_box.locator("button[type=submit]").click()
    pay_with_a_shipping_address(customer, "hosted-checkout-order-address")
    shop.wait_for_url(re.compile(r"/store/[^/]+/thanks\?order="))
    shop.get_by_role("heading", name="Thank you for your order").wait_for()
    assert shop.locator("[data-order-state=paid]").count() == 1
    # The receipt's job runs after the landing committed: the page says "sent" only once it was.
    run_jobs()
    shop.reload()
    shop.locator("[data-receipt=sent]").wait_for()
    assert "A receipt was sent to c…@example.com." in shop.locator("[data-receipt=sent]").inner_text()
    customer.shot("store-thank-you")

    # The founder sees the paid order and the revenue it confirmed (a reload: the screen is open already).
    page.reload()
    page.wait_for_selector("main[data-screen=orders][data-state=ready]", state="attached")
    row = page.locator("tr[data-state=paid]")
    assert row.count() == 1
    assert CUSTOMER in row.inner_text() and "2" in row.locator("td.num").first.inner_text()
    assert row.locator("address.ship-to").inner_text().splitlines() == [
        "Ada Lovelace", "12 Analytical Row", "Flat 3", "London, N1 7AA", "United Kingdom"]
    assert row.locator("[data-receipt=sent]").count() == 1
    revenue = page.locator("[data-revenue-product=p00]")
    assert revenue.count() == 1 and int(revenue.get_attribute("data-confirmed-minor")) > 0
    assert "1 paid order" in revenue.inner_text()
    founder.shot("orders-paid")

    phone = open_app("phone")
    sign_in_by_link(phone, FOUNDER)
    page = screen(phone, "/#/app/orders", "orders")
    assert page.locator("tr[data-state=paid]").count() == 1
    page.locator("tr[data-state=paid] address.ship-to").scroll_into_view_if_needed()
    assert "12 Analytical Row" in page.locator("tr[data-state=paid] address.ship-to").inner_text()
    phone.shot("orders-paid")

    # A supplier's offer for the product (no supplier lists this test product itself: similar
    # goods, said so), and a sample of that offer through the hosted page.
    page = screen(founder, "/#/app/suppliers", "suppliers")
    page.locator("[role=note][data-match=similar_goods]").wait_for()
    options = page.locator("table.options tbody tr")
    assert options.count() >= 1
    supplier, sku = options.first.get_attribute("data-supplier"), options.first.get_attribute("data-sku")
    founder.shot("suppliers-options")
    options.first.get_by_role("button", name=f"Connect {supplier}, SKU {sku}").click()
    page.locator(f"[data-connection=connected][data-supplier='{supplier}'][data-sku='{sku}']").wait_for()
    founder.shot("suppliers-connected")
    page = order_a_paid_sample(founder)
    assert page.locator(f"table.samples tr[data-state=paid][data-sku='{sku}']").count() == 1
    founder.shot("suppliers-sample-paid")

    # A domain for the store, bought through the hosted page.
    page = screen(founder, "/#/app/domains", "domains")
    assert page.locator("[data-connected='']").count() == 1
    assert page.get_by_label("Words about your business").input_value() == "Long Cat Tunnel"
    assert page.locator("table.domains tr[data-available=true]").count() >= 1
    founder.shot("domains-suggestions")
    quote = page.locator("form[data-form=quote]")
    quote.get_by_label("A domain you have in mind").fill("taken-tunnel.com")
    quote.get_by_role("button", name="Get a price").click()
    page.locator("[data-reason=not_available]").wait_for()
    domain = "long-cat-tunnel-store.com"
    quote.get_by_label("A domain you have in mind").fill(domain.upper())
    quote.get_by_role("button", name="Get a price").click()
    page.locator(f"[data-quote='{domain}']").wait_for()
    founder.shot("domains-quoted")
    page.get_by_role("button", name=f"Buy {domain}").click()
    pay_on_the_hosted_page(founder, "hosted-checkout-domain")
    page.wait_for_url(re.compile(r"#/app/domains\?payment="))
    page.wait_for_selector("main[data-screen=domains][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=paid]").wait_for()
    assert page.locator(f"[data-connected='{domain}']").count() == 1
    founder.shot("domains-connected")

    page = screen(founder, "/#/app/launch", "launch")
    for fact_id in ("supplier_connected", "sample_ordered", "domain_connected", "payments_ready"):
        assert fact(page, fact_id) == "true", (fact_id, page.locator(f"[data-fact={fact_id}]").inner_text())
    founder.shot("launch-commerce-facts")


def test_the_meter_offers_upgrades_only_when_signed_in(open_app):
    anonymous = open_app("desktop")
    page = screen(anonymous, "/#/app/meter", "meter")
    assert page.locator("[data-upgrade=sign-in]").count() == 1
    assert page.get_by_role("button", name=re.compile("^Upgrade")).count() == 0

    founder = open_app("desktop")
    sign_in_by_link(founder, "upgrader@example.com", new=True)
    page = screen(founder, "/#/app/meter", "meter")
    assert [b.inner_text() for b in page.locator("[data-upgrade=ready] button").all()] == [
        "Upgrade to Pro", "Upgrade to Max 5x", "Upgrade to Max 20x"]
    founder.shot("meter-upgrades")
    page.get_by_role("button", name="Upgrade to Pro").click()
    pay_on_the_hosted_page(founder, "hosted-checkout-upgrade")
    page.wait_for_url(re.compile(r"#/app/meter\?payment="))
    page.wait_for_selector("main[data-screen=meter][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=paid]").wait_for()
    page.get_by_role("heading", name="Credit meter").wait_for()
    assert "Pro plan" in page.locator(".lede").first.inner_text()
    assert [b.inner_text() for b in page.locator("[data-upgrade=ready] button").all()] == [
        "Upgrade to Max 5x", "Upgrade to Max 20x"]
    founder.shot("meter-after-upgrade")


def test_before_any_sale_the_screens_explain_and_a_declined_sample_is_not_paid(open_app):
    catalog_with_a_sourceable_product()
    founder = open_app("phone")  # nothing claimed yet
    page = screen(founder, "/#/app/orders", "orders")
    page.locator("[data-reason=no_orders_yet]").wait_for()
    assert page.locator("[data-revenue=none]").count() == 1
    founder.shot("orders-empty")

    page = screen(founder, "/#/app/domains", "domains")
    page.locator("[data-reason=not_claimed]").get_by_role("link", name="Find a product").wait_for()
    founder.shot("domains-not-claimed")

    # Sourcing comes before the claim: search by words, connect, then decline the sample's card.
    page = screen(founder, "/#/app/suppliers", "suppliers")
    page.get_by_text("No product claimed yet").wait_for()
    page.locator("[data-reason=no_samples_yet]").wait_for()
    page.get_by_label("Words describing the goods").fill("cat tunnel")
    page.get_by_role("button", name="Search suppliers").click()
    options = page.locator("table.options tbody tr")
    options.first.wait_for()
    supplier, sku = options.first.get_attribute("data-supplier"), options.first.get_attribute("data-sku")
    options.first.get_by_role("button", name=f"Connect {supplier}, SKU {sku}").click()
    page.locator(f"[data-connection=connected][data-sku='{sku}']").wait_for()
    founder.shot("suppliers-connected-before-a-claim")
    page.get_by_role("button", name="Order a sample").click()
    page.wait_for_url(HOSTED_PAGE)
    page.get_by_role("button", name="Simulate a declined card").click()
    page.wait_for_url(re.compile(r"#/app/suppliers\?payment=[^&]+&cancelled=1"))
    page.wait_for_selector("main[data-screen=suppliers][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=cancelled]").get_by_text("Not paid").wait_for()
    assert page.locator("table.samples tr[data-state=failed]").count() == 1
    founder.shot("suppliers-sample-declined")
