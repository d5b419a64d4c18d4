"""A paused or retired product stops selling (issues 44 and 47): once its founder pauses or
retires it, a customer who tries to buy it (the checkout API or the store's buy box form) is
refused in a customer's words and no order is opened; its store page says it is not on sale
instead of showing the buy button, even where the page was already rendered and cached; and a
checkout a customer opened before is closed at the provider, so it can no longer be paid (the
sandbox's page says the shop closed it) and its order expires, recorded. A customer who paid
before the close keeps a paid order. Resuming a paused product sells again."""
from __future__ import annotations

import pytest

from integrations.payments import ProviderUnavailable, sandbox_bank
from models.launch import ProductLaunch
from models.payment import CustomerOrder, Payment, RevenueCredit
from services.commerce.orders import NOT_ON_SALE_ERROR, close_open_checkouts
from services.errors import TransientError
from services.reasons import sentence
from services.store.render import NOT_ON_SALE
from tests.factories import ADDRESS, checkout, choose, confirm, follow, path_of, payment_of, refusal, slug, started

STOPS = ["pause", "retire"]


def live() -> None:
    """The product launched (its launch facts are another test's: tests/test_product_launch.py)."""
    (ProductLaunch.insert(product="p00", state=ProductLaunch.LIVE)
     .on_conflict(conflict_target=[ProductLaunch.product], update={ProductLaunch.state: ProductLaunch.LIVE}).execute())


def move(founder_client, action: str) -> dict:
    answer = founder_client.post("/api/product-launch", json={"action": action})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def stop(founder_client, action: str) -> None:
    live()
    assert move(founder_client, action)["state"] == {"pause": "paused", "retire": "retired"}[action]


def product_page(client, **headers):
    return client.get(f"/store/{slug()}/product", headers=headers)


@pytest.mark.parametrize("action", STOPS)
def test_a_stopped_products_checkout_is_refused_in_a_customers_words(shop, founder, action):
    customer = founder()
    stop(shop, action)
    body = refusal(checkout(customer), 409, "product_not_on_sale")
    assert body["explanation"] == sentence("product_not_on_sale") and "not on sale right now" in body["explanation"]
    form = customer.post(f"/store/{slug()}/checkout", data={"product_id": "p00", "quantity": "1",
                                                           "email": "late@example.com"})
    assert form.status_code == 409 and form.mimetype == "text/html"
    assert "not on sale right now" in form.get_data(as_text=True)
    assert CustomerOrder.select().count() == 0 and Payment.select().count() == 0


@pytest.mark.parametrize("action", STOPS)
def test_the_store_page_says_it_is_not_on_sale_instead_of_the_buy_button(shop, founder, action):
    customer = founder()
    before = product_page(customer)  # rendered and kept before the product stops selling
    assert 'class="buy-form"' in before.get_data(as_text=True)
    assert NOT_ON_SALE not in before.get_data(as_text=True)
    stop(shop, action)
    after = product_page(customer, **{"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    page = after.get_data(as_text=True)
    assert NOT_ON_SALE in page and 'class="buy-form"' not in page and "Email for your receipt" not in page
    home = customer.get(f"/store/{slug()}/").get_data(as_text=True)
    assert 'class="buy-form"' not in home
    assert product_page(founder()).get_data(as_text=True) == page  # now kept like this, for everyone


def test_resuming_a_paused_product_sells_again(shop, founder):
    customer = founder()
    stop(shop, "pause")
    refusal(checkout(customer), 409, "product_not_on_sale")
    assert move(shop, "resume")["state"] == "live"
    page = product_page(customer).get_data(as_text=True)
    assert 'class="buy-form"' in page and NOT_ON_SALE not in page
    started(customer)


@pytest.mark.parametrize("action", STOPS)
def test_a_checkout_opened_before_is_closed_and_cannot_be_paid(shop, founder, run_jobs, action):
    customer = founder()
    order = started(customer)
    stop(shop, action)
    run_jobs()  # the close_checkouts job the transition sent
    page = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    assert "The shop closed this checkout" in page and "not on sale right now" in page and 'value="pay"' not in page
    tried = customer.post(path_of(order["checkout_url"]), data={"action": "pay", **ADDRESS})
    assert tried.status_code == 303 and "/pay/back?" in tried.headers["Location"]  # back to the shop, unpaid
    assert confirm(customer, order["order_id"])["state"] == "expired"
    payment = payment_of(order["order_id"])
    assert (payment.state, payment.error) == (Payment.EXPIRED, NOT_ON_SALE_ERROR)
    assert RevenueCredit.select().count() == 0
    run_jobs()
    assert CustomerOrder.get_by_id(order["order_id"]).state == CustomerOrder.EXPIRED


def test_a_customer_who_paid_before_the_pause_keeps_a_paid_order(shop, founder, run_jobs):
    customer = founder()
    order = started(customer)
    follow(customer, follow(customer, choose(customer, order["checkout_url"], "pay", ADDRESS)))
    stop(shop, "pause")
    run_jobs()
    assert confirm(customer, order["order_id"])["state"] == "paid"
    assert RevenueCredit.select().count() == 1


def test_a_provider_that_does_not_answer_leaves_the_order_open_for_the_jobs_next_try(shop, founder, run_jobs,
                                                                                   monkeypatch):
    customer = founder()
    order = started(customer)
    real_close = sandbox_bank.close

    def away(checkout_id):
        raise ProviderUnavailable("the sandbox provider could not answer")

    monkeypatch.setattr(sandbox_bank, "close", away)
    live()
    ProductLaunch.update(state=ProductLaunch.PAUSED).where(ProductLaunch.product == "p00").execute()
    with pytest.raises(TransientError):  # the job's try: it is tried again later
        close_open_checkouts("p00")
    assert CustomerOrder.get_by_id(order["order_id"]).state == CustomerOrder.OPEN  # nothing half-done
    monkeypatch.setattr(sandbox_bank, "close", real_close)
    assert close_open_checkouts("p00")[0] == {"closed": 1}
    assert CustomerOrder.get_by_id(order["order_id"]).state == CustomerOrder.EXPIRED


def test_a_product_resumed_before_the_job_ran_keeps_its_checkouts_open(shop, founder):
    customer = founder()
    order = started(customer)
    live()
    assert close_open_checkouts("p00")[0] == {"closed": 0, "on_sale": True}
    assert CustomerOrder.get_by_id(order["order_id"]).state == CustomerOrder.OPEN
