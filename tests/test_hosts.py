"""A connected domain serves its store (issue 20, point 6; api/hosts.py): its Host gets the
store's public pages under its own paths and nothing founder-facing, any other Host gets the
service, a store that is unpublished or a domain that stops being connected stops serving,
the store's own POST /api/track and buy box are accepted from that origin while founder
routes are not, no Location is built from the Host, and GET /internal/domain-check."""
from __future__ import annotations

import re

import pytest

from api.hosts import host_name
from api.storefront import PUBLISHED_CACHE
from models.domain import DomainOrder
from models.funnel import FunnelEvent
from models.payment import CustomerOrder
from models.store import Store
from services import domains
from tests.conftest import SETTINGS
from tests.factories import demo_item, order, refusal, store_founder

DOMAIN = "brandshop.com"


def connect(client, domain=DOMAIN) -> DomainOrder:
    row = order(client, domain)
    assert domains.connect_paid_domain(domain_order_id=row.id) is True
    return row


def slug(product_id="p00") -> str:
    return Store.get(Store.product == product_id).slug


class Visitor:
    """A browser on one host (its own cookie jar): every request carries that Host header."""

    def __init__(self, app, host):
        self.client, self.host = app.test_client(), host

    def open(self, method, path, **kwargs):
        kwargs["headers"] = {"Host": self.host, **kwargs.get("headers", {})}
        return self.client.open(path, method=method, **kwargs)

    def get(self, path, **kwargs):
        return self.open("GET", path, **kwargs)

    def post(self, path, **kwargs):
        return self.open("POST", path, **kwargs)


def visitor(app, host=DOMAIN) -> Visitor:
    return Visitor(app, host)


def no_cookie(answer) -> None:
    assert not answer.headers.getlist("Set-Cookie"), answer.headers


def not_found(answer) -> None:
    """The JSON 404 of an unknown path (status `error`) or of a store page (`refused`, as for
    an unknown slug): reason not_found either way, no redirect, no cookie."""
    assert answer.status_code == 404 and answer.mimetype == "application/json", answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["reason"] == "not_found" and body["status"] in ("refused", "error") and body["explanation"], body
    assert "Location" not in answer.headers
    no_cookie(answer)


@pytest.mark.parametrize(("host", "name"), [
    ("brandshop.com", "brandshop.com"), ("BrandShop.COM", "brandshop.com"), ("brandshop.com:8443", "brandshop.com"),
    ("brandshop.com.", "brandshop.com"), ("Brandshop.com.:443", "brandshop.com"), ("xn--bcher-kva.shop", "xn--bcher-kva.shop"),
    ("localhost", None), ("localhost:8000", None), ("127.0.0.1", None), ("127.0.0.1:8000", None), ("[::1]:8000", None),
    ("", None), ("shop..com", None), ("-shop.com", None), ("sh_op.com", None), ("b\u00fccher.shop", None),
    ("shop.123", None), ("10.0.0.5", None),
])
def test_a_host_is_read_as_a_domain_lower_cased_without_port_or_trailing_dot(host, name):
    assert host_name(host) == name


def test_a_connected_domain_serves_the_store_home_and_pages(shop, app):
    connect(shop)
    browser = visitor(app)
    home = browser.get("/")
    assert home.status_code == 200 and home.mimetype == "text/html"
    served = app.test_client().get(f"/store/{slug()}/")  # what the service's own host serves today
    for header in ("Content-Security-Policy", "Cache-Control", "X-Frame-Options", "X-Content-Type-Options"):
        assert header in home.headers, header
    assert home.headers["Cache-Control"] == served.headers["Cache-Control"] == PUBLISHED_CACHE
    # The buy form's 303 leads to BASE_URL (the sandbox checkout), which is not 'self' here.
    assert home.headers["Content-Security-Policy"] == served.headers["Content-Security-Policy"].replace(
        "form-action 'self'", f"form-action 'self' {SETTINGS.origin}")
    no_cookie(home)
    page = home.get_data(as_text=True)
    # The same store, linked under the domain's own paths and named by its own origin.
    assert re.search(r"<h1[^>]*>", page)
    assert f"/store/{slug()}" not in page and "/store/" not in page
    assert f'<link rel="canonical" href="https://{DOMAIN}/">' in page
    assert 'href="/product"' in page and 'href="/faq"' in page
    assert 'src="/static/storefront/track.js"' in page and 'href="/static/storefront/store.css"' in page
    assert served.get_data(as_text=True).replace(f"/store/{slug()}", "").replace(
        SETTINGS.base_url, f"https://{DOMAIN}") == page

    product = browser.get("/product")
    assert product.status_code == 200 and f'href="https://{DOMAIN}/product"' in product.get_data(as_text=True)
    assert 'action="/checkout"' in product.get_data(as_text=True)
    sitemap = browser.get("/sitemap.xml")
    assert sitemap.status_code == 200 and f"<loc>https://{DOMAIN}/faq</loc>" in sitemap.get_data(as_text=True)
    assert f"Sitemap: https://{DOMAIN}/sitemap.xml" in browser.get("/robots.txt").get_data(as_text=True)
    # The Host as browsers and proxies may send it: another case, a port, the root's dot.
    for host in ("BrandShop.COM", f"{DOMAIN}:8443", f"{DOMAIN}."):
        assert visitor(app, host).get("/faq").status_code == 200, host
    not_found(browser.get("/no-such-page"))


def test_a_store_host_serves_its_assets_and_nothing_founder_facing(shop, app):
    connect(shop)
    browser = visitor(app)
    css = browser.get("/static/storefront/store.css")
    assert css.status_code == 200 and css.mimetype == "text/css"
    no_cookie(css)
    assert browser.get("/static/storefront/track.js").status_code == 200
    for path in ("/api/health", "/api/store", "/api/reasons", "/login", "/pay/landing?payment=x", "/app",
                 "/internal/domain-check?domain=brandshop.com", "/preview", "/preview/faq", f"/store/{slug()}/",
                 f"/store/{slug()}/faq", "/static", "/api//track", "/product/", "/faq/x", "/metrics"):
        not_found(browser.get(path))
    for path in ("/api/store", "/api/store/publish", "/pay/notify", "/pay/upgrade", "/api/accounts/sign-in"):
        not_found(browser.post(path, json={}, headers={"Origin": f"https://{DOMAIN}"}))
    # One segment is a store page's path, and a page takes no POST (as /store/<slug>/login).
    for path in ("/", "/login", "/faq"):
        answer = browser.post(path, json={}, headers={"Origin": f"https://{DOMAIN}"})
        assert answer.status_code == 405 and answer.get_json()["reason"] == "method_not_allowed", path
        no_cookie(answer)
    # The owner's cookie, were it sent to the store's domain, opens no preview there either.
    shop_cookie = shop.get_cookie("ff_session")
    browser.client.set_cookie("ff_session", shop_cookie.value, domain=DOMAIN)
    not_found(browser.get("/preview"))


def test_any_other_host_gets_the_service(shop, app):
    connect(shop)
    for host in ("localhost", "127.0.0.1:8000", "unknown-brand.com", "www.brandshop.com", "[::1]:8000"):
        client = visitor(app, host)
        health = client.get("/api/health")
        assert health.status_code == 200 and health.mimetype == "application/json", host
        assert client.get(f"/store/{slug()}/faq").status_code == 200, host
        not_found(client.get("/faq"))  # no store page under the service's own paths
        home = client.get("/")
        assert home.get_data() == visitor(app, "localhost").get("/").get_data(), host  # the app, not the store
        assert f"/store/{slug()}" not in home.get_data(as_text=True)


def test_an_unpublished_stores_domain_answers_404(founder, run_jobs, app):
    owner = store_founder(founder, run_jobs, demo_item("p01"))  # built, never published
    connect(owner, "unpublished.shop")
    browser = visitor(app, "unpublished.shop")
    for path in ("/", "/product", "/sitemap.xml", "/robots.txt", "/thanks?order=x"):
        not_found(browser.get(path))
    assert app.test_client().get(f"/store/{slug('p01')}/").status_code == 404  # as on the service's host
    assert browser.get("/api/health").status_code == 404  # still the store's host: nothing founder-facing


def test_a_domain_that_stops_being_connected_stops_serving_at_the_next_request(shop, app):
    row = connect(shop)
    browser = visitor(app)
    assert browser.get("/faq").status_code == 200
    # Nothing in the service disconnects a domain yet; an operator's update (or a later
    # refund) moves the row out of `connected`, and no cache keeps it serving.
    DomainOrder.update(state=DomainOrder.FAILED).where(DomainOrder.id == row.id).execute()
    after = browser.get("/faq")
    assert after.status_code == 404 and after.mimetype == "application/json"
    health = browser.get("/api/health")
    assert health.status_code == 200 and health.get_json()["status"]  # the service, as for any unknown name
    assert browser.get("/internal/domain-check", query_string={"domain": DOMAIN}).status_code == 404


def test_the_store_funnel_events_are_accepted_from_its_domain_and_founder_routes_are_not(shop, app):
    connect(shop)
    browser = visitor(app)
    event = {"product_id": "p00", "event": "page_view", "session_id": "visitor-0001"}
    for origin in (f"https://{DOMAIN}", f"http://{DOMAIN}"):
        answer = browser.post("/api/track", json=event, headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})
        assert answer.status_code == 200 and answer.get_json()["status"] == "recorded", answer.get_json()
        no_cookie(answer)
    assert FunnelEvent.select().where(FunnelEvent.product == "p00").count() == 1  # once per visitor and day
    # Another site, or a name that is not this store's domain, is still another site.
    for origin in ("https://evil.example", f"https://www.{DOMAIN}", "https://unknown-brand.com"):
        refusal(browser.post("/api/track", json=event, headers={"Origin": origin}), 403, "cross_site_request")
    refusal(browser.post("/api/track", json=event, headers={"Sec-Fetch-Site": "cross-site"}), 403,
            "cross_site_request")
    # On the service's own host the domain's origin opens no founder route, nor the events.
    refusal(shop.post("/api/store", headers={"Origin": f"https://{DOMAIN}"}), 403, "cross_site_request")
    refusal(shop.post("/api/store/publish", headers={"Origin": f"http://{DOMAIN}"}), 403, "cross_site_request")
    refusal(app.test_client().post("/api/track", json=event, headers={"Origin": f"https://{DOMAIN}"}), 403,
            "cross_site_request")


def test_the_buy_box_on_the_domain_opens_an_order_with_no_location_from_the_host(shop, app):
    connect(shop)
    browser = visitor(app)
    form = {"product_id": "p00", "quantity": "2", "email": "form@example.com"}
    answer = browser.post("/checkout", data=form, headers={"Origin": f"https://{DOMAIN}"})
    assert answer.status_code == 303, answer.get_data(as_text=True)
    assert answer.headers["Location"].startswith(f"{SETTINGS.base_url}/pay/sandbox/checkout/")
    no_cookie(answer)
    placed = CustomerOrder.get()
    assert (placed.quantity, placed.email) == (2, "form@example.com")
    refusal(browser.post("/checkout", data=form, headers={"Origin": "https://evil.example"}), 403,
            "cross_site_request")
    assert CustomerOrder.select().count() == 1
    # A reload of /checkout goes back to the buy box on the same host, by a relative Location.
    back = browser.get("/checkout")
    assert back.status_code == 303 and back.headers["Location"] == "/product#buy"
    refused = browser.post("/checkout", data={**form, "email": "x"})
    assert refused.status_code == 400 and 'href="/product"' in refused.get_data(as_text=True)
    thanks = browser.get("/thanks", query_string={"order": placed.id})
    assert thanks.status_code == 200 and 'href="/product"' in thanks.get_data(as_text=True)
    assert "/store/" not in thanks.get_data(as_text=True)
    no_cookie(thanks)


def test_the_domain_check_answers_whether_a_name_is_connected(shop, app):
    check = app.test_client()
    not_found(check.get("/internal/domain-check", query_string={"domain": DOMAIN}))
    connect(shop)
    answer = check.get("/internal/domain-check", query_string={"domain": "BrandShop.com."})
    assert answer.status_code == 200 and answer.get_json() == {"status": "ok", "domain": DOMAIN}
    assert answer.headers["Cache-Control"] == "no-store"
    no_cookie(answer)
    not_found(check.get("/internal/domain-check", query_string={"domain": "unknown-brand.com"}))
    refusal(check.get("/internal/domain-check", query_string={"domain": "not a domain"}), 400, "invalid_domain")
    refusal(check.get("/internal/domain-check"), 400, "invalid_domain")
