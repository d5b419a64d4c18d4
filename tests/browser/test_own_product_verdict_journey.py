"""A founder's own product in its own words, in Chromium (issue 47, points 5 and 6): the
dashboard of a product nothing outside has measured yet says it is worth a small test, not a
pass, names the founder's price and cost as theirs, compares the price with similar catalog
products, and counts evidence as readings (no rows, no gate); the Offer screen calls the
price and the cost the founder's own. On a desktop and on a phone."""
from __future__ import annotations

import re

import pytest

from tests.browser.steps import screen
from tests.factories import item, load

MINE = {"name": "Hand-thrown Espresso Cups", "description": "Two stoneware espresso cups, glazed by hand.",
        "price": 38, "cost": 11.5}
# What an own product's screens must never say: the catalog's words for the founder's figures,
# a judgement of pass for what nobody measured, and the machine's words for evidence.
NEVER = re.compile(r"catalog's price|catalog's cost|catalog cost|[Rr]ecommended retail price|\bPass\b|row\(s\)|"
                   r"\brows?\b|\bgate\b")
# And no machine's words (as tests/browser/test_founder_words.py reads every screen): a code of
# the service's (no_outside_evidence, your_price), a setting's name, a machine-written time.
MACHINE_WORDS = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b|"
                           r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def unsaid(text: str, ids: list[str]) -> list[str]:
    """What a founder's own product's screen must not say that it does: the words above, and
    a product's id where its name belongs."""
    return (NEVER.findall(text) + MACHINE_WORDS.findall(text)
            + [pid for pid in ids if re.search(rf"\b{re.escape(pid)}\b", text)])


def similar_catalog() -> list[str]:
    """Three espresso cups of the catalog in Kitchen ($20, $30, $45): what the price is read against."""
    return load(*[{**item(pid, name=name, category="Kitchen", price=price), "description": description}
                  for pid, name, price, description in (
                      ("c1", "Espresso Cup", 20.0, "A small espresso cup."),
                      ("c2", "Stoneware Espresso Cups", 30.0, "Two stoneware cups."),
                      ("c3", "Porcelain Mug", 45.0, "A large mug."))])


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_an_own_products_dashboard_speaks_of_the_founders_figures(open_app, run_jobs, width):
    ids = similar_catalog()
    app = open_app(width)
    app.goto("/#/app/home")  # the founder's cookie
    made = app.context.request.post(f"{app.base_url}/api/product", data=MINE)
    assert made.status == 200, made.text()
    ids.append(made.json()["product_id"])
    run_jobs()  # its research: the offer and the verdict

    page = screen(app, "/#/app/dashboard", "dashboard")
    verdict = page.locator("[data-verdict]")
    assert (verdict.get_attribute("data-verdict"), verdict.inner_text()) == ("test_small", "Test small")
    main = page.locator("main")
    said = page.locator("section.verdict")
    said.get_by_text(re.compile(r"^No outside readings yet, so this is no verdict on demand")).wait_for()
    said.get_by_text("Decided by: no outside readings yet for a product of your own", exact=False).wait_for()
    page.locator("[data-fact=price]").get_by_text("Your price: $38.00.").wait_for()
    page.locator("[data-fact=cost]").get_by_text(re.compile(r"^Each unit costs \$11\.50, the cost you gave")).wait_for()
    page.locator("[data-fact=price]").get_by_text("The price you set").wait_for()
    similar = page.locator("[data-fact=similar_prices]")
    similar.get_by_text("3 similar catalog products (Kitchen) sell for $20.00 to $45.00, $30.00 in the middle: "
                        "your price is above the middle.").wait_for()
    similar.get_by_text("Prices of 3 similar catalog products (Kitchen)").wait_for()
    page.locator("[data-fact=evidence_in_window]").get_by_text(
        "No outside readings yet: nothing has measured demand for your own product.").wait_for()
    # Every source behind the figures, opened: the founder's own figures are named as theirs.
    page.get_by_text(re.compile(r"^All \d+ sources$")).click()
    sources = page.locator("details[open] ul.list")
    sources.get_by_text("The price you set").wait_for()
    sources.get_by_text("Your own unit cost").wait_for()
    sources.get_by_text("Prices of 3 similar catalog products (Kitchen)").wait_for()
    app.shot("own-product-dashboard")
    said = main.inner_text()
    assert not unsaid(said, ids), unsaid(said, ids)

    page = screen(app, "/#/app/offer", "offer")
    assert page.locator(".stat-label").first.inner_text() == "Your price"
    assert page.locator("tr[data-figure=price] th").inner_text() == "Your price"
    row = page.locator("tr[data-figure=price]")
    row.get_by_text("Your price: $38.00").wait_for()
    row.get_by_text("The price you set").wait_for()
    page.locator("tr[data-figure=cost]").get_by_text("Your own unit cost").wait_for()
    page.locator("[data-supplier-cost=none]").get_by_text(re.compile(r"^The unit cost, \$11\.50, is the one you gave")).wait_for()
    app.shot("own-product-offer")
    said = page.locator("main").inner_text()
    assert not unsaid(said, ids), unsaid(said, ids)
