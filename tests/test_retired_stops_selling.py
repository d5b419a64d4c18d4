"""A retired product stops selling (issue 44): once its founder retires it, a customer who
tries to buy it (the checkout API or the store's buy box form) is refused in a customer's
words and no order is opened, and its store page shows a sentence instead of the buy button,
even where the page was already rendered and cached. A checkout started before is honoured."""
from __future__ import annotations

from models.payment import CustomerOrder, Payment
from services.reasons import sentence
from services.store.render import NOT_ON_SALE
from tests.factories import ADDRESS, checkout, choose, confirm, follow, refusal, slug, started


def retire(founder_client) -> None:
    answer = founder_client.post("/api/product-launch", json={"action": "retire"})
    assert answer.status_code == 200 and answer.get_json()["state"] == "retired", answer.get_json()


def product_page(client, **headers):
    return client.get(f"/store/{slug()}/product", headers=headers)


def test_a_retired_products_checkout_is_refused_in_a_customers_words(shop, founder):
    customer = founder()
    retire(shop)
    body = refusal(checkout(customer), 409, "product_retired")
    assert body["explanation"] == sentence("product_retired") and "no longer sold" in body["explanation"]
    form = customer.post(f"/store/{slug()}/checkout", data={"product_id": "p00", "quantity": "1",
                                                           "email": "late@example.com"})
    assert form.status_code == 409 and form.mimetype == "text/html"
    assert "no longer sold here" in form.get_data(as_text=True)
    assert CustomerOrder.select().count() == 0 and Payment.select().count() == 0


def test_the_store_page_says_it_is_no_longer_sold_instead_of_the_buy_button(shop, founder):
    customer = founder()
    before = product_page(customer)  # rendered and kept in memory before the product is retired
    assert 'class="buy-form"' in before.get_data(as_text=True)
    assert NOT_ON_SALE not in before.get_data(as_text=True)
    retire(shop)
    after = product_page(customer, **{"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    page = after.get_data(as_text=True)
    assert NOT_ON_SALE in page and 'class="buy-form"' not in page and "Email for your receipt" not in page
    home = customer.get(f"/store/{slug()}/").get_data(as_text=True)
    assert 'class="buy-form"' not in home
    assert product_page(founder()).get_data(as_text=True) == page  # now kept like this, for everyone


def test_a_checkout_started_before_retiring_is_honoured_when_paid(shop, founder):
    customer = founder()
    order = started(customer)
    retire(shop)
    paid = choose(customer, order["checkout_url"], "pay", ADDRESS)
    follow(customer, follow(customer, paid))
    assert confirm(customer, order["order_id"])["state"] == "paid"
