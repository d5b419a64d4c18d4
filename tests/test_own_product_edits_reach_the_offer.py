"""A founder's own product in its own words, one figure for one fact (issue 47, points 4 and 5):
a price, unit cost, name or description the founder saves after making their own product
reaches its offer and its dashboard (the research reads the product's record, so a save puts
them there too and the research runs again), and the store sells at the price the offer
speaks of. A catalog product's record is never changed by a founder's save. Making a product
of one's own lets go of the product the founder held, so another founder can hold it at once."""
import pytest

from models.catalog import Product
from models.discovery import Hold
from models.research import Research
from models.store import StoreVersion
from services.store import facts as store_facts
from tests.factories import built, claimed_founder, demo_item, edit, find, item, load, new_account, saved
from tests.own_products import MINE, own_product, similar_catalog

pytestmark = pytest.mark.usefixtures("frozen_clock")  # the clock never moves between saves: updated_at must

OWN_PRICE = {"type": "own", "field": "price"}
OWN_COST = {"type": "own", "field": "cost"}


def offer_of(client) -> dict:
    offer = client.get("/api/offer").get_json()
    assert offer["status"] == "ok" and offer["refreshing"] is False, offer
    return offer


def inputs_of(offer: dict) -> dict:
    return {i["name"]: (i["value"], i["source"]) for i in offer["inputs"]}


def facts_of(board: dict) -> dict:
    return {f["id"]: f for f in board["facts"]}


def test_a_new_price_and_cost_reach_the_offer_the_dashboard_and_the_store(client, run_jobs):
    similar_catalog()
    product_id = own_product(client, run_jobs)
    state = built(client, run_jobs)
    assert (offer_of(client)["price"], offer_of(client)["cost"]) == (38.0, 11.5)

    answer = saved(client, price=42, cost=12.75)
    assert answer["product"]["price"] == 42.0
    run_jobs()  # the research the save sent

    offer = offer_of(client)
    assert (offer["product_id"], offer["price"], offer["cost"], offer["cost_given"]) == (product_id, 42.0, 12.75, True)
    assert inputs_of(offer)["your_price"] == (42, OWN_PRICE)
    assert inputs_of(offer)["your_cost"] == (12.75, OWN_COST)
    # The offer's rules over the new figures: 42 - 12.75 - 4.50 - 1.52.
    assert (offer["fees"], offer["unit_margin"]) == (1.52, 23.23)
    board = client.get("/api/dashboard").get_json()
    assert (board["status"], board["product_id"]) == ("ok", product_id), board
    facts = facts_of(board)
    assert (facts["price"]["text"], facts["price"]["source"]) == ("Your price: $42.00.", OWN_PRICE)
    assert facts["cost"]["text"].startswith("Each unit costs $12.75, the cost you gave:")
    assert "at your price of $42.00 each sale leaves" in board["because"] and "$38.00" not in board["because"]
    assert OWN_PRICE in board["sources"] and OWN_COST in board["sources"]
    # The store sells at the price the offer speaks of: one figure for one fact.
    document = StoreVersion.get(StoreVersion.store == product_id, StoreVersion.number == state["version"] + 1).document
    assert document["price"] == offer["price"] == store_facts.load(product_id).price == 42.0
    # The research reads the product's record: it says what the founder said.
    row = Product.get_by_id(product_id)
    assert (float(row.price), float(row.cost), row.extra["cost_given"]) == (42.0, 12.75, True)


def test_a_cost_given_after_the_product_was_made_is_given_even_when_it_is_nothing(client, run_jobs):
    similar_catalog()
    own_product(client, run_jobs, cost=None, price=25.0)
    assert (offer_of(client)["cost"], offer_of(client)["cost_given"]) == (0, False)
    saved(client, cost=0)  # "it costs me nothing": said, so no longer "not given yet"
    run_jobs()
    offer = offer_of(client)
    assert (offer["cost"], offer["cost_given"]) == (0, True)
    assert next(f for f in offer["figures"] if f["name"] == "cost")["formula"] == "the unit cost you gave"
    board = client.get("/api/dashboard").get_json()
    assert "You have not said what one unit costs you" not in board["because"]


def test_a_new_name_and_description_are_what_similar_products_are_read_from(client, run_jobs):
    similar_catalog()
    own_product(client, run_jobs)
    before = client.get("/api/dashboard").get_json()
    assert {"type": "similar", "category": "Kitchen", "products": 3} in before["sources"]
    saved(client, name="Travel Yoga Mat", description="A thin yoga mat that folds into a bag.")
    run_jobs()
    board = client.get("/api/dashboard").get_json()
    assert {"type": "similar", "category": "Sports", "products": 1} in board["sources"], board["sources"]
    assert Product.get_by_id(board["product_id"]).name == "Travel Yoga Mat"


def test_a_price_set_in_plain_words_reaches_the_offer_too(founder, run_jobs):
    similar_catalog()
    client = new_account(founder, run_jobs, "own-words@example.com")  # a plain-language edit needs an address
    product_id = own_product(client, run_jobs)
    built(client, run_jobs)
    body = edit(client, "Set the price to $44.50").get_json()
    assert body["status"] == "edited", body
    client.get("/api/offer")  # its first read finds the record changed and sends the research
    run_jobs()
    offer = offer_of(client)
    assert (offer["product_id"], offer["price"]) == (product_id, 44.5)
    assert inputs_of(offer)["your_price"] == (44.5, OWN_PRICE)


def test_a_catalog_products_edit_leaves_the_catalog_record_and_its_research_as_they_were(founder, run_jobs):
    client = claimed_founder(founder, demo_item())
    client.get("/api/offer")
    run_jobs()
    offer = offer_of(client)
    record = dict(Product.get_by_id("p00").__data__)
    researched = Research.get_by_id("p00").fingerprint

    answer = saved(client, name="Walnut knife rail", description="Holds eight knives on a walnut rail.", price=24.5)
    assert (answer["product"]["name"], answer["product"]["price"]) == ("Walnut knife rail", 24.5)
    run_jobs()
    assert dict(Product.get_by_id("p00").__data__) == record
    assert offer_of(client) == offer  # the researched offer, not researched again
    assert Research.get_by_id("p00").fingerprint == researched
    # The store sells at the founder's price over the catalog's.
    assert store_facts.load("p00").price == 24.5


def test_making_an_own_product_lets_go_of_the_held_product(founder):
    load(item("p01"))
    holder = founder()
    assert find(holder).get_json()["product_id"] == "p01"
    created = holder.post("/api/product", json={**MINE, "create": True}).get_json()
    assert created["status"] == "created", created
    assert Hold.select().where(Hold.product == "p01").count() == 0
    other = founder()
    assert find(other).get_json().get("product_id") == "p01"  # held by them now, not blocked for 30 minutes
    assert holder.get("/api/product").get_json()["product_id"] == created["product_id"]
