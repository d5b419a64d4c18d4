"""The cards' trends and the candidates' cards kept between requests
(services/discovery/card_cache.py): a repeat feed or find serves them without reading the
evidence again, a catalog reload that rewrites a product's evidence is seen at once (its gate
row's evidence_version is new), and so is a product row changed in place; the caches stay
within their bound, and a product without a version is always read afresh."""
from __future__ import annotations

from decimal import Decimal

import pytest

from models.catalog import Product
from services.discovery import card_cache
from services.discovery.cards import card, product_rows, with_trends
from services.kept import Kept
from tests.factories import find, item, load, statements

pytestmark = pytest.mark.usefixtures("frozen_clock")


def _with_values(pid, value, **kwargs):
    """A catalog line whose evidence readings all say `value` (same dates as item's)."""
    line = item(pid, **kwargs)
    line["evidence"] = [dict(row, value=value) for row in line["evidence"]]
    return line


def _values(card_body):
    return [point["value"] for series in card_body["trends"] for point in series["points"]]


def _reads_evidence(seen) -> bool:
    return any("FF_CARD_EVIDENCE" in sql.upper() or 'FROM "evidence"' in sql for sql in seen)


def test_a_repeat_feed_serves_the_kept_trends_without_reading_the_evidence(founder):
    load(*[item(f"p{n:02d}", rank=100 - n) for n in range(5)])
    client = founder()
    with statements() as seen:
        first = client.get("/api/feed")
    assert first.status_code == 200 and _reads_evidence(seen), seen
    with statements() as seen:
        again = client.get("/api/feed")
    assert again.status_code == 200 and not _reads_evidence(seen), seen
    assert again.get_json() == first.get_json()
    assert all(c["trends"] and _values(c) == [50.0, 50.0, 50.0] for c in again.get_json())
    # Another founder's find is served from what this process keeps, too.
    with statements() as seen:
        assert find(founder()).status_code == 200
    assert not _reads_evidence(seen), seen


def test_a_reload_that_rewrites_a_products_evidence_is_served_at_once(founder):
    """The reload keeps the dates, the count and the latest date: only the values change, so
    nothing but the new evidence version tells the kept trends are old."""
    load(_with_values("p00", 50, rank=100), _with_values("p01", 50, rank=90))
    client = founder()
    assert {c["product_id"]: _values(c) for c in client.get("/api/feed").get_json()} == \
        {"p00": [50.0] * 3, "p01": [50.0] * 3}
    load(_with_values("p00", 70, rank=100))
    cards = {c["product_id"]: c for c in client.get("/api/feed").get_json()}
    assert _values(cards["p00"]) == [70.0] * 3 and _values(cards["p01"]) == [50.0] * 3
    assert cards["p00"]["evidence_count"] == 3  # the figures the gate keeps did not change


def test_the_cache_keeps_at_most_its_bound_and_serves_right_past_it(founder, monkeypatch):
    monkeypatch.setattr(card_cache, "TRENDS", Kept(3))
    monkeypatch.setattr(card_cache, "CARDS", Kept(3))
    load(*[_with_values(f"p{n:02d}", 10 + n, rank=100 - n, price=30 + n) for n in range(8)])
    client = founder()
    for _ in range(3):
        cards = client.get("/api/feed").get_json()
        assert [_values(c) for c in cards] == [[float(10 + n)] * 3 for n in range(8)]
        assert [c["price"] for c in cards] == [float(30 + n) for n in range(8)]
        assert len(card_cache.TRENDS) == 3 and len(card_cache.CARDS) == 3


def test_a_product_changed_without_a_reload_shows_its_new_values(founder):
    """The own-product flow changes a catalog row in place (services/own_product.py sets its
    cost) without a gate refresh: the kept card is keyed by every value it shows, so the next
    feed shows the new one."""
    load(item("p00", rank=100, cost=10), item("p01", rank=90, cost=10))
    client = founder()
    assert {c["product_id"]: c["cost"] for c in client.get("/api/feed").get_json()} == {"p00": 10.0, "p01": 10.0}
    Product.update(cost=Decimal("12.50"), name="Renamed").where(Product.product_id == "p01").execute()
    cards = {c["product_id"]: c for c in client.get("/api/feed").get_json()}
    assert (cards["p01"]["cost"], cards["p01"]["margin"], cards["p01"]["name"]) == (12.5, 17.5, "Renamed")
    assert (cards["p00"]["cost"], cards["p00"]["name"]) == (10.0, "Product p00")
    # The founder's own (held) card is kept under its columns as read too.
    assert cards["p00"]["yours"] is True
    Product.update(price=Decimal("31.25")).where(Product.product_id == "p00").execute()
    own = client.get("/api/feed").get_json()[0]
    assert (own["product_id"], own["price"], own["margin"], own["yours"]) == ("p00", 31.25, 21.25, True)
    assert client.get("/api/find").get_json()["price"] == 31.25


def test_a_product_without_an_evidence_version_is_read_afresh_each_time():
    load(item("p00"))
    product, gate = product_rows(["p00"])["p00"]
    before = len(card_cache.TRENDS)
    for _ in range(2):
        with statements() as seen:
            body = with_trends([card(product, gate, yours=False)], [None])[0]
        assert _reads_evidence(seen) and _values(body) == [50.0] * 3
    assert len(card_cache.TRENDS) == before
    # With its version it is kept: the next read serves it without a statement.
    with_trends([card(product, gate, yours=False)], [gate.evidence_version])
    with statements() as seen:
        body = with_trends([card(product, gate, yours=False)], [gate.evidence_version])[0]
    assert seen == [] and _values(body) == [50.0] * 3
