"""Pictures in Chromium, on a desktop and on a phone: a founder finds, claims, builds and
publishes; customers visit and one pays. Each picture is on its screen (the cards' and the
dashboard's trend lines, the offer's price split, the Store screen's thumbnail, funnel and
sales per day, the Orders screen's funnel and sales per day), and its title states the
figures the API answers this founder, in the words a founder reads. The page raises no
console error (the fixture fails the test on one) and axe passes on each screenshot."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from services.day_words import day_words
from tests.browser.steps import DEMO_PHOTOS, api_answer, build_store, claim_own_card, publish_store, screen
from tests.factories import TODAY, choose, confirm, item, load, started

DAYS = 14  # the window of the funnel and the sales pictures (charts.js WINDOW_DAYS)
# Three visitors of the public store, each with the steps they took.
VISITS = [("page_view", "add_to_cart", "checkout", "paid"), ("page_view", "add_to_cart"), ("page_view",)]


def _row(days_ago: int, source: str, metric: str, value: float) -> dict:
    return {"date": (TODAY - timedelta(days=days_ago)).isoformat(), "source": source, "metric": metric,
            "value": value, "note": ""}


def catalog_with_moving_evidence():
    """Three servable products; the top one (p00) has a rising interest index and a rank that got better."""
    products = []
    for n in range(3):
        product = item(f"p{n:02d}", rank=1000 - n, name=f"Demo product {n:02d}")
        product["images"] = [f"/static/demo/{DEMO_PHOTOS[n % len(DEMO_PHOTOS)]}"]
        products.append(product)
    products[0]["evidence"] = [_row(90, "google_trends", "interest_index", 40), _row(40, "google_trends", "interest_index", 48),
                               _row(10, "google_trends", "interest_index", 61.5),
                               _row(30, "amazon_bestsellers", "bsr_rank", 2400), _row(5, "amazon_bestsellers", "bsr_rank", 1800)]
    load(*products)


# --- The words each picture should say, from the API's answer (charts.js in Python) ---------

def number(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def usd(value: float) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def day(iso: str) -> str:
    """A calendar day as every screen writes one (charts.js `day`, words.js `dayWords`)."""
    return day_words(iso[:10])


def trend_words(trend: dict) -> str:
    what = f"{trend['label']} ({trend['source_label']}{', lower is better' if trend['lower_is_better'] else ''})"
    points = trend["points"]
    first, last = points[0], points[-1]
    if len(points) == 1:
        return f"{what}: one reading, {number(last['value'])} on {day(last['date'])}"
    return (f"{what}: {len(points)} readings, from {number(first['value'])} on {day(first['date'])} to "
            f"{number(last['value'])} on {day(last['date'])}")


def split_words(offer: dict) -> str:
    parts = ", ".join(f"{word} {usd(offer[key])}" for word, key in
                      (("cost", "cost"), ("shipping", "shipping"), ("fees", "fees"), ("margin", "unit_margin")))
    return f"Price {usd(offer['price'])}: {parts}"


def funnel_words(m: dict) -> str:
    return (f"Your store's visitors over the last {m['days']} days: {m['sessions']} visits, {m['cart']} added to "
            f"cart, {m['checkout']} started checkout, {m['paid']} paid (unverified)")


def revenue_words(orders: list[dict]) -> str:
    # The founder's own calendar day: Chromium runs on this machine, in its time zone.
    by_day: dict[str, int] = {}
    for o in orders:
        if o["state"] == "paid":
            local = datetime.fromisoformat(o["paid_at"].replace("Z", "+00:00")).astimezone().date().isoformat()
            by_day[local] = by_day.get(local, 0) + o["amount_minor"]
    paid = ", ".join(f"{day(d)} {usd(m / 100)}" for d, m in sorted(by_day.items()))
    return f"Revenue per day over the last {DAYS} days (USD): {usd(sum(by_day.values()) / 100)} in all; {paid}"


def titles(scope, selector: str) -> list[str]:
    """The <title> of each picture under `scope`, checked against its aria-label."""
    found = []
    for svg in scope.locator(selector).all():
        words = svg.locator("title").text_content()
        assert svg.get_attribute("role") == "img" and svg.get_attribute("aria-label") == words
        found.append(words)
    return found


def drawn(locator) -> None:
    """The picture takes room on the page: it is drawn, not only present."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box and box["width"] > 40 and box["height"] > 15, box


def customers_visit_and_one_pays(founder, run_jobs) -> None:
    """Three visitors of the public store (their own clients, no founder cookie); the first pays for two."""
    for n, steps in enumerate(VISITS):
        visitor = founder()
        for event in steps:
            sent = visitor.post("/api/track", json={"product_id": "p00", "event": event, "session_id": f"visitor-{n:04d}"})
            assert sent.get_json()["status"] == "recorded"
    customer = founder()
    order = started(customer, quantity=2)
    choose(customer, order["checkout_url"], "pay")
    assert confirm(customer, order["order_id"])["state"] == "paid"
    run_jobs()  # the receipt and the founder's notice


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_each_picture_states_the_figures_the_api_answers(open_app, founder, run_jobs, viewport):
    catalog_with_moving_evidence()
    app = open_app(viewport)

    # Find: every card draws each series of its dated evidence.
    page = screen(app, "/#/app/find", "find")
    page.locator("article.card-yours svg[data-chart=spark]").first.wait_for()
    feed = api_answer(app, "/api/feed")
    assert [len(c["trends"]) for c in feed[:1]] == [2]
    for card in feed:
        article = page.locator(f"article[data-product-id='{card['product_id']}']")
        assert titles(article, "svg[data-chart=spark]") == [trend_words(t) for t in card["trends"]]
    assert titles(page.locator("article.card-yours"), "svg[data-chart=spark]")[0] == (
        "search interest index (Google Trends): 3 readings, from 40 on "
        f"{day((TODAY - timedelta(days=90)).isoformat())} to 61.5 on {day((TODAY - timedelta(days=10)).isoformat())}")
    drawn(page.locator("article.card-yours svg[data-chart=spark]").first)
    app.shot("find-trend-lines")

    claim_own_card(app)
    run_jobs()  # the claim's research

    # Offer: the price in one bar, cut into cost, shipping, fees and margin.
    page = screen(app, "/#/app/offer", "offer")
    offer = api_answer(app, "/api/offer")
    assert titles(page, "svg[data-chart=split]") == [split_words(offer)]
    drawn(page.locator("svg[data-chart=split]"))
    assert page.locator("[data-picture=price-split] li[data-part=unit_margin]").inner_text().startswith(
        f"Margin {usd(offer['unit_margin'])}")
    app.shot("offer-price-split")

    # Dashboard: the evidence the research read, one line per measure and source.
    page = screen(app, "/#/app/dashboard", "dashboard")
    board = api_answer(app, "/api/dashboard")
    assert len(board["trends"]) == 2
    assert titles(page, "[data-picture=trends] svg[data-chart=spark]") == [trend_words(t) for t in board["trends"]]
    drawn(page.locator("[data-picture=trends] svg[data-chart=spark]").first)
    app.shot("dashboard-trend-lines")

    build_store(app)
    publish_store(app)
    customers_visit_and_one_pays(founder, run_jobs)

    # Store: what the store looks like, who came and what they bought.
    screen(app, "/#/app/home", "home")  # leave the Store screen, to come back to it as it is now
    page = screen(app, "/#/app/store", "store")
    page.locator("svg[data-chart=funnel]").wait_for()
    metrics = api_answer(app, f"/api/editor/metrics?days={DAYS}")
    assert [metrics[k] for k in ("sessions", "cart", "checkout", "paid")] == [3, 2, 1, 1]
    assert titles(page, "svg[data-chart=funnel]") == [funnel_words(metrics)]
    draft = api_answer(app, "/api/editor/draft")
    [thumb] = titles(page, "svg[data-chart=thumb]")
    assert thumb.startswith(f"A picture of your store's home page in its {draft['document']['theme']['palette']} colours: "
                            f"the headline “{draft['document']['copy']['headline']}”")
    assert page.locator("svg[data-chart=thumb] text").first.text_content() == draft["document"]["business"]["name"]
    orders = api_answer(app, "/api/tracking?limit=200")["orders"]
    assert titles(page, "svg[data-chart=bars]") == [revenue_words(orders)]
    [store] = api_answer(app, "/api/revenue")["stores"]
    assert f"{usd(store['confirmed_minor'] / 100)} in all" in revenue_words(orders)
    for kind in ("thumb", "funnel", "bars"):
        drawn(page.locator(f"svg[data-chart={kind}]"))
    app.shot("store-pictures")

    # Orders: the same sales per day and the same funnel.
    page = screen(app, "/#/app/orders", "orders")
    assert titles(page, "svg[data-chart=bars]") == [revenue_words(orders)]
    assert titles(page, "svg[data-chart=funnel]") == [funnel_words(metrics)]
    drawn(page.locator("svg[data-chart=bars]"))
    app.shot("orders-pictures")
