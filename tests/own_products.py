"""A founder's own product made through HTTP, and the catalog it is compared with, shared by
the tests of its offer and verdict (tests/test_own_product_verdict.py) and of its edits
reaching them (tests/test_own_product_edits_reach_the_offer.py)."""
from __future__ import annotations

from tests.factories import item, load

MINE = {"name": "Hand-thrown Espresso Cups", "description": "Two stoneware espresso cups, glazed by hand.",
        "price": 38.0, "cost": 11.5}


def similar_catalog():
    """Three espresso cups of the catalog in Kitchen ($20, $30, $45), and a yoga mat in Sports."""
    load(item("c1", name="Espresso Cup", category="Kitchen", price=20.0),
         item("c2", name="Stoneware Espresso Cups", category="Kitchen", price=30.0),
         item("c3", name="Porcelain Mug", category="Kitchen", price=45.0),
         item("m1", name="Yoga Mat", category="Sports", price=99.0))


def own_product(client, run_jobs, **changes) -> str:
    """Makes the founder's own product from MINE with `changes` (None leaves a field out) and
    runs its research; answers its product id."""
    body = {k: v for k, v in {**MINE, **changes}.items() if v is not None}
    created = client.post("/api/product", json=body).get_json()
    assert created["status"] == "created", created
    run_jobs()  # its research
    return created["product_id"]
