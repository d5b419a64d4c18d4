"""A founder's own product (spec 4.7: POST /api/product publishes a founder's own product into
the store engine): made by a session with no product, that founder's alone, never in anyone's
feed, and resolved like a claimed product for the offer, the store, editing, publishing and
checkout."""
import pytest

from models.catalog import Product
from models.discovery import Claim, ClaimAllowance
from models.payment import CustomerOrder
from tests.factories import built, choose, claim, data_url, find, item, load, png_bytes, refusal, revenue_of

pytestmark = pytest.mark.usefixtures("frozen_clock")  # every test lives on tests.factories.NOW

MINE = {"name": "Hand-thrown Espresso Cups", "description": "Two stoneware cups, glazed by hand in our studio.",
        "price": 38.0, "cost": 11.5}


def make_own(client, **changes):
    response = client.post("/api/product", json={**MINE, **changes})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "created" and body["own_product"] is True, body
    return body


def test_a_session_with_nothing_resolved_makes_its_own_product(client, run_jobs):
    load(item("p01"))
    body = make_own(client, images=[data_url(png_bytes())])
    product_id = body["product_id"]
    assert product_id.startswith("own-") and body["product"]["name"] == MINE["name"]
    assert body["product"]["price"] == 38.0 and body["product"]["images"][0].startswith("/media/")
    assert client.get(body["product"]["images"][0]).status_code == 200
    assert client.get("/api/product").get_json()["product_id"] == product_id
    # Claimed by this founder at once, without spending the claim allowance.
    (row,) = Claim.select().where(Claim.product == product_id)
    assert row.account_id is None
    assert sum(a.claims_made for a in ClaimAllowance.select()) == 0
    # The offer is researched from the founder's own figures.
    run_jobs()
    offer = client.get("/api/offer").get_json()
    assert offer["product_id"] == product_id and offer["status"] == "ok", offer
    assert (offer["price"], offer["cost"], offer["currency"]) == (38.0, 11.5, "USD")
    assert Product.get_by_id(product_id).cost == pytest.approx(11.5)


def test_the_shapes_are_checked_first_and_nothing_is_made_when_one_is_bad(client):
    before = Product.select().count()
    refusal(client.post("/api/product", json={**MINE, "price": "free"}), 400, "invalid_price")
    refusal(client.post("/api/product", json={**MINE, "name": "  "}), 400, "invalid_name")
    refusal(client.post("/api/product", json={**MINE, "cost": -1}), 400, "invalid_cost")
    refusal(client.post("/api/product", json={**MINE, "images": ["data:image/png;base64,AAAA"]}), 400,
            "invalid_images")
    body = refusal(client.post("/api/product", json={"name": "Only a name"}), 400, "invalid_description")
    assert "needs a name, a description and a price" in body["explanation"]
    refusal(client.post("/api/product", json={"name": "N", "description": "D"}), 400, "invalid_price")
    assert Product.select().count() == before and Claim.select().count() == 0


def test_an_own_product_is_never_in_anyone_elses_feed_or_answers(founder):
    load(item("p01", rank=10))
    own_id = make_own(founder())["product_id"]
    other = founder()
    assert find(other).get_json()["product_id"] == "p01"
    assert own_id not in str(other.get("/api/feed").get_json())
    answer = other.post("/api/ask", json={"question": "espresso cups stoneware"}).get_json()
    assert own_id not in str(answer)


def test_an_own_product_goes_from_store_to_a_paid_order(founder, run_jobs):
    owner = founder()
    own_id = make_own(owner)["product_id"]
    run_jobs()
    state = built(owner, run_jobs)
    assert state["product_id"] == own_id
    preview = owner.get(state["preview_url"]).get_data(as_text=True)
    assert MINE["name"] in preview
    # Edited in words of its own details, then published: it is claimed, so it may be.
    assert owner.post("/api/product", json={"price": 42}).get_json()["status"] == "saved"
    published = owner.post("/api/store/publish").get_json()
    assert published["status"] == "published", published
    customer = founder()
    started = customer.post("/api/store/checkout", json={"product_id": own_id, "quantity": 1,
                                                          "email": "buyer@example.com"}).get_json()
    assert started["status"] == "checkout_started", started
    choose(customer, started["checkout_url"], "pay")
    run_jobs()
    assert CustomerOrder.get_by_id(started["order_id"]).state == "paid"
    assert revenue_of(owner) == [{"product_id": own_id, "product_name": MINE["name"], "currency": "USD",
                                  "confirmed_minor": 4200, "orders": 1}]


def test_with_a_claimed_catalog_product_the_same_route_edits_it_and_takes_no_cost(founder):
    load(item("p01"))
    client = founder()
    find(client)
    claim(client)
    assert client.post("/api/product", json={"name": "My name for it"}).get_json()["status"] == "saved"
    refusal(client.post("/api/product", json={"cost": 3}), 400, "invalid_cost")
    assert Product.select().count() == 1


def test_a_hold_is_neither_edited_nor_replaced_by_an_own_product(founder):
    load(item("p01"))
    client = founder()
    find(client)
    refusal(client.post("/api/product", json=MINE), 409, "claim_required")
    assert Product.select().count() == 1
