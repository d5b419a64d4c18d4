"""What a store's customer sees around paying (issue 23, point 8): the thank-you page wears the
store's own look (its palette, header, photo and footer), and what the store's pages say about
the checkout holds on the checkout page (the sandbox provider's hosted page)."""
from __future__ import annotations

import re

from services.store.render import NAV
from tests.factories import choose, follow, path_of, slug, started

# What the store's copy says of its checkout, and what the checkout page shows for it.
CHECKOUT_PROMISE = "The checkout asks where to send it and shows the total before you pay."
# What no page may promise: the checkout offers no delivery options and no shipping charge.
UNKEPT = re.compile(r"delivery options|shipping cost|cost of shipping|shipping charge", re.IGNORECASE)


def store_page(client, page: str = "") -> str:
    answer = client.get(f"/store/{slug()}/{page}")
    assert answer.status_code == 200, answer.status_code
    return answer.get_data(as_text=True)


def header_of(html: str) -> str:
    """The store's header, without the mark of the page it is on."""
    found = re.search(r'<header class="site-header">.*?</header>', html, re.DOTALL)
    assert found, "no store header"
    return found.group(0).replace(' aria-current="page"', "")


def palette_of(html: str) -> str:
    return re.search(r'<body class="(palette-[a-z]+) ', html).group(1)


def test_the_thank_you_page_wears_the_stores_palette_header_photo_and_footer(shop, founder):
    customer = founder()
    product_page = store_page(customer, "product")
    order = started(customer, quantity=2)
    landing = follow(customer, choose(customer, order["checkout_url"], "pay"))
    answer = follow(customer, landing)
    thanks = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "Thank you for your order" in thanks

    assert palette_of(thanks) == palette_of(product_page)
    assert '<link rel="stylesheet" href="/static/storefront/store.css">' in thanks
    # The same header as the store's own pages: its mark, its name, its navigation.
    assert header_of(thanks) == header_of(product_page)
    business = re.search(r'<span class="brand-name">([^<]+)</span>', thanks).group(1)
    assert f"<title>Thank you · {business}</title>" in thanks
    assert [label for _pid, label in NAV] == re.findall(r'<li><a href="[^"]+">([^<]+)</a></li>',
                                                        header_of(thanks))
    # What was bought, as a picture, and the store's footer with its policies.
    photo = re.search(r'<img class="thanks-photo" src="([^"]+)"', thanks)
    assert photo and photo.group(1) in product_page
    assert '<footer class="site-footer">' in thanks and ">Shipping and returns</a>" in thanks


def test_what_the_store_says_of_its_checkout_holds_on_the_checkout_page(shop, founder):
    customer = founder()
    pages = {page: store_page(customer, page) for page in ("", "product", "faq", "shipping", "terms")}
    assert CHECKOUT_PROMISE in pages["shipping"]
    for page, html in pages.items():
        assert not UNKEPT.search(html), f"the {page or 'home'} page promises what the checkout does not show"

    order = started(customer, quantity=2)
    checkout = customer.get(path_of(order["checkout_url"])).get_data(as_text=True)
    # Where to send it: the shipping address the page asks for, in the countries the shop ships to.
    assert "<legend>Shipping address</legend>" in checkout
    assert re.search(r'<select name="country" required', checkout)
    # The total before paying: two at the store's price, $30.00 each.
    assert '<h1>Pay <span class="amount">$60.00</span></h1>' in checkout

