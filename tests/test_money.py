"""Money charged and shown from one table (issue 22, point 2c): a store's price in a
currency without decimals (CLP, JPY) is charged in whole units and shown without decimals
on the store, the provider's page, the thank-you page and the receipt; USD and EUR with
two; a three-decimal currency (KWD) with three, which the sandbox provider accepts (Stripe
refuses one that is not a whole hundredth: tests/test_stripe_provider.py)."""
from __future__ import annotations

import pytest

from integrations.payments import major_units, minor_digits, minor_units
from models.payment import CustomerOrder, SandboxCheckout
from models.store import Store, StoreVersion
from services.money import display, display_major
from tests.factories import ADDRESS, follow, path_of, payment_of, slug, started
from tests.mailbox import messages_to, text_of

CUSTOMER = "buyer@example.com"


def priced(currency: str, price: str) -> None:
    """The published store of p00 now sells at `price` in `currency` (as if built so)."""
    store = Store.get(Store.product == "p00")
    version = StoreVersion.get(StoreVersion.store == "p00", StoreVersion.number == store.published_version)
    StoreVersion.update(document={**version.document, "price": price, "currency": currency}).where(
        StoreVersion.store == "p00", StoreVersion.number == version.number).execute()


@pytest.mark.parametrize("currency, price, unit_minor, shown", [
    ("CLP", "12990", 12990, "CLP12,990"),
    ("JPY", "1200.5", 1201, "¥1,201"),  # rounded to the yen it is charged in
    ("USD", "30", 3000, "$30.00"),
    ("EUR", "24.99", 2499, "€24.99"),
    ("KWD", "12.345", 12345, "KWD12.345"),
])
def test_a_price_is_charged_and_shown_at_its_currencys_minor_unit(shop, founder, run_jobs, currency, price,
                                                                  unit_minor, shown):
    priced(currency, price)
    customer = founder()
    product_page = customer.get(f"/store/{slug()}/product").get_data(as_text=True)
    assert f'<p class="price">{shown}</p>' in product_page

    order = started(customer, quantity=2, email=CUSTOMER)
    stored = CustomerOrder.get_by_id(order["order_id"])
    assert (stored.unit_price_minor, stored.amount_minor, stored.currency) == (unit_minor, 2 * unit_minor, currency)
    charged = SandboxCheckout.get_by_id(payment_of(order["order_id"]).provider_ref)
    assert (charged.amount_minor, charged.currency) == (2 * unit_minor, currency)
    total = display(2 * unit_minor, currency)
    assert f'<span class="amount">{total}</span>' in customer.get(path_of(order["checkout_url"])).get_data(as_text=True)

    thanks = follow(customer, follow(customer, customer.post(path_of(order["checkout_url"]),
                                                             data={"action": "pay", **ADDRESS})))
    assert f"<strong>{total}</strong>" in thanks.get_data(as_text=True)
    run_jobs()
    [receipt] = [m for m in messages_to(CUSTOMER) if m["Subject"].startswith("Your receipt from")]
    assert f"Quantity: 2 at {shown} each" in text_of(receipt) and f"Total paid: {total} ({currency})" in text_of(receipt)


def test_the_charged_and_the_shown_amount_come_from_one_table():
    assert [minor_digits(code) for code in ("CLP", "JPY", "KRW", "USD", "EUR", "KWD", "BHD")] == [0, 0, 0, 2, 2, 3, 3]
    assert minor_units("12990.4", "CLP") == 12990 and minor_units("19.995", "usd") == 2000
    assert minor_units("1.2345", "KWD") == 1235 and str(major_units(1235, "KWD")) == "1.235"
    assert display(12990, "CLP") == display_major("12990.4", "CLP") == "CLP12,990"
    assert display(1999, "usd") == "$19.99" and display(100, "JPY") == "¥100"
