"""A sample its founder cancelled says cancelled, not expired (issue 47, point 6), in Chromium on
a desktop and a phone: a founder who claimed a demo catalog product connects one of its offers,
orders a sample, presses "Cancel and go back" on the payment provider's page and is back on
the Suppliers screen, where the sample reads "Cancelled by you" (the API's `expired_because:
cancelled`) and no word on the screen says "Expired"."""
from __future__ import annotations

import re

import pytest

from tests.browser.steps import HOSTED_PAGE, PAY, api_answer, claim_own_card, screen
from tests.factories import KNIFE_STRIP, OFFERS, demo_product, load

# The provider's page and its landing addresses are made from BASE_URL: the live server's here too.
pytestmark = pytest.mark.usefixtures("base_url_is_the_live_server")


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_sample_cancelled_on_the_payment_page_says_cancelled_by_you_not_expired(open_app, run_jobs, width):
    load(demo_product(KNIFE_STRIP))
    founder = open_app(width)
    claim_own_card(founder)
    run_jobs()  # the claim's research

    page = screen(founder, "/#/app/suppliers", "suppliers")
    line = OFFERS[KNIFE_STRIP][0]
    page.get_by_role("button", name=f"Connect {line['supplier']}, SKU {line['sku']}").click()
    page.locator(f"[data-connection=connected][data-sku='{line['sku']}']").wait_for()

    page.get_by_label("Sample quantity").fill("1")
    page.get_by_role("button", name="Order a sample").click()
    page.wait_for_url(HOSTED_PAGE)
    page.get_by_role("heading", name=PAY).wait_for()
    page.get_by_role("button", name="Cancel and go back").click()

    page.wait_for_url(re.compile(r"#/app/suppliers\?payment=[^&]+&cancelled=1"))
    page.wait_for_selector("main[data-screen=suppliers][data-state=ready]", state="attached", timeout=30_000)
    page.locator("[data-payment-state=cancelled]").get_by_text("Not paid").wait_for()
    row = page.locator(f"table.samples tr[data-state=expired][data-sku='{line['sku']}']")
    tag = row.locator("[data-expired-because=cancelled]")
    assert tag.inner_text() == "Cancelled by you"
    [sample] = api_answer(founder, "/api/samples")["samples"]
    assert (sample["state"], sample["expired_because"]) == ("expired", "cancelled")
    said = page.locator("main").inner_text()
    assert "Expired" not in said and "expired" not in said, said
    founder.shot("suppliers-sample-cancelled")
