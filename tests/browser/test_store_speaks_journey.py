"""The store speaks for the business, to shoppers, in Chromium on a desktop and a phone (issue 47,
point 2): a founder names their business and their support address in Settings, buys a domain
for the store (so the address exists), builds a new version and publishes; a customer opening
the public store reads the business's name on every page, the support address on the Contact
page (a mail link), and no seller research anywhere: no evidence rows, no search counts or
best-seller ranks, no "we chose it for the demand"."""
from __future__ import annotations

import re

import pytest

from tests.browser.steps import (
    api_answer,
    catalog,
    claimed_and_built,
    pay_on_the_hosted_page,
    publish_store,
    screen,
)

# The provider's page and its landing addresses are made from BASE_URL: the live server's here.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")

BUSINESS = "Acacia & Co"
RESEARCH = re.compile(r"why this product|best-seller|searched for|monthly searches|we chose it|demand|research|"
                      r"ranked #|search interest|trends index|your own product", re.IGNORECASE)


def buy_domain(app, domain: str) -> None:
    """Buys `domain` on the Domains screen through the sandbox's hosted page, until it is connected."""
    page = screen(app, "/#/app/domains", "domains")
    quote = page.locator("form[data-form=quote]")
    quote.get_by_label("A domain you have in mind").fill(domain)
    quote.get_by_role("button", name="Get a price").click()
    page.locator(f"[data-quote='{domain}']").wait_for()
    page.get_by_role("button", name=f"Buy {domain}").click()
    pay_on_the_hosted_page(app, "hosted-checkout-domain")
    page.wait_for_url(re.compile(r"#/app/domains\?payment="))
    page.wait_for_selector("main[data-screen=domains][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=paid]").wait_for()
    assert page.locator(f"[data-connected='{domain}']").count() == 1


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_public_store_names_the_business_shows_its_address_and_no_research(open_app, run_jobs, width):
    catalog(3)
    founder = open_app(width)
    claimed_and_built(founder, run_jobs)

    # Settings: the business's name and the support address's name.
    page = screen(founder, "/#/app/settings", "settings")
    business = page.locator("form[data-form=business]")
    business.get_by_label("Business name").fill(BUSINESS)
    business.get_by_label("Support address").fill("help")
    business.get_by_role("button", name="Save").click()
    page.get_by_text("Last saved").wait_for()
    domain = f"acacia-{width}-store.com"
    buy_domain(founder, domain)
    founder.shot("speaks-domain-connected")

    # A new version, built from the settings as they are now, then published.
    page = screen(founder, "/#/app/store", "store")
    page.get_by_role("button", name="Build a new version").click()
    page.wait_for_function("() => document.querySelector('[data-store-status=built]') && "
                           "[...document.querySelectorAll('dt')].some((dt) => dt.textContent === 'Newest version' "
                           "&& dt.nextElementSibling.textContent === '2')", timeout=60_000)
    page = publish_store(founder)
    public_url = api_answer(founder, "/api/store")["public_url"]
    founder.shot("speaks-published")

    customer = open_app("phone" if width == "desktop" else "desktop")
    shop = customer.page
    shop.goto(customer.base_url + public_url + "contact")
    mail_link = shop.get_by_role("link", name=f"help@{domain}")
    assert mail_link.get_attribute("href") == f"mailto:help@{domain}"
    said = shop.locator("main").inner_text()
    assert "coming soon" not in said and f"Get in touch with {BUSINESS}" in said
    customer.shot("speaks-contact")

    for path in ("", "product", "faq", "shipping", "contact"):
        shop.goto(customer.base_url + public_url + path)
        assert shop.locator("header .brand-name").inner_text() == BUSINESS
        text = shop.locator("body").inner_text()
        found = RESEARCH.search(text)
        assert found is None, (path, text[max(0, found.start() - 80):found.end() + 80])
        assert "through this store" not in text
    customer.shot("speaks-home")
