"""Catalog loading: the demo catalog, idempotence by product_id, and all-or-nothing files."""
import json
from decimal import Decimal

import pytest

from config import ROOT
from models.catalog import Evidence, Product
from services.catalog import CatalogError, load_catalog_file
from tests.factories import DEMO_CATALOG as DEMO


def _line(pid, **changes):
    item = {"product_id": pid, "name": f"Product {pid}", "description": "A thing.", "category": "Home",
            "price": 20, "cost": 5.5, "currency": "USD", "images": [f"/static/demo/{pid}.svg"], "rank": 10,
            "evidence": [{"date": "2026-10-01", "source": "google_trends", "metric": "interest_index",
                          "value": 55, "note": "steady"}]}
    item.update(changes)
    return json.dumps(item)


def _write(tmp_path, lines, name="catalog.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_demo_catalog_is_realistic_and_varied():
    items = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    assert len(items) >= 60
    assert len({i["category"] for i in items}) >= 6
    assert len({i["name"] for i in items}) == len(items)
    for item in items:
        assert item["price"] > 0 and item["cost"] > 0 and item["images"]
        for image in item["images"]:
            assert (ROOT / "api" / image.lstrip("/")).is_file(), image
        assert item["evidence"]
    assert sum(len(i["evidence"]) >= 2 for i in items) >= 60


def test_demo_catalog_loads(tmp_path):
    report = load_catalog_file(DEMO)
    assert report.products == report.created == Product.select().count() >= 60
    assert Evidence.select().count() == report.evidence > 100


def test_loading_twice_changes_nothing_but_counts_updates():
    first = load_catalog_file(DEMO)
    evidence = Evidence.select().count()
    second = load_catalog_file(DEMO)
    assert (second.created, second.updated) == (0, first.products)
    assert Product.select().count() == first.products
    assert Evidence.select().count() == evidence


def test_a_reload_updates_the_product_and_replaces_its_evidence(tmp_path):
    load_catalog_file(_write(tmp_path, [_line("p1"), _line("p2")]))
    newer = [{"date": "2026-11-01", "source": "tiktok_views", "metric": "weekly_views", "value": 1e6, "note": ""},
             {"date": "2026-11-08", "source": "tiktok_views", "metric": "weekly_views", "value": 2e6, "note": ""}]
    load_catalog_file(_write(tmp_path, [_line("p1", name="Renamed", price=24.999, evidence=newer)], "again.jsonl"))
    product = Product.get_by_id("p1")
    assert product.name == "Renamed" and product.price == Decimal("25.00")
    assert [e.source for e in Evidence.select().where(Evidence.product == "p1")] == ["tiktok_views"] * 2
    assert Product.select().count() == 2  # p2 untouched


def test_unknown_fields_are_kept(tmp_path):
    load_catalog_file(_write(tmp_path, [_line("p1", weight_grams=340, hs_code="3924.10")]))
    assert Product.get_by_id("p1").extra == {"weight_grams": 340, "hs_code": "3924.10"}


@pytest.mark.parametrize("bad, mentions", [
    ('{"product_id": "x"', "not valid JSON"),
    ("[1, 2]", "not valid JSON"),
    (_line("bad", price=-1), "price"),
    (_line("bad", price="12"), "price"),
    (_line("bad", currency="usd"), "currency"),
    (_line("bad", images=["javascript:alert(1)"]), "images"),
    (_line("bad", evidence=[{"date": "01/10/2026", "source": "s", "metric": "m", "value": 1}]), "evidence"),
    (_line("bad", evidence=[{"date": "2026-10-01", "source": "s", "metric": "m", "value": "many"}]), "evidence"),
    (_line("bad", product_id="has space"), "product_id"),
    (_line("p1"), "already on line 1"),
])
def test_a_bad_line_is_reported_by_number_and_nothing_is_loaded(tmp_path, bad, mentions):
    path = _write(tmp_path, [_line("p1"), _line("p2"), "", bad, _line("p3")])
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    assert caught.value.errors[0][0] == 4
    assert mentions in caught.value.errors[0][1]
    assert "line 4" in str(caught.value)
    assert Product.select().count() == 0 and Evidence.select().count() == 0


def test_every_bad_line_is_reported(tmp_path):
    path = _write(tmp_path, [_line("p1"), "{", _line("p3", price=0), _line("p4")])
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    assert [n for n, _ in caught.value.errors] == [2, 3]


def test_a_bad_file_leaves_an_existing_catalog_untouched(tmp_path):
    load_catalog_file(_write(tmp_path, [_line("p1")]))
    with pytest.raises(CatalogError):
        load_catalog_file(_write(tmp_path, [_line("p1", name="Changed"), "oops"], "bad.jsonl"))
    assert Product.get_by_id("p1").name == "Product p1"


def test_cli_load_reports_counts_and_bad_lines(app, tmp_path):
    runner = app.test_cli_runner()
    good = runner.invoke(args=["catalog", "load", str(_write(tmp_path, [_line("p1"), _line("p2")]))])
    assert good.exit_code == 0 and "2 products (2 new, 0 updated)" in good.output
    bad = runner.invoke(args=["catalog", "load", str(_write(tmp_path, [_line("p3"), "nope"], "bad.jsonl"))])
    assert bad.exit_code == 1 and "line 2" in bad.output and "nothing loaded" in bad.output
    missing = runner.invoke(args=["catalog", "load", str(tmp_path / "absent.jsonl")])
    assert missing.exit_code == 1 and "cannot read" in missing.output


def test_cli_seed_loads_only_into_an_empty_catalog(app):
    runner = app.test_cli_runner()
    first = runner.invoke(args=["catalog", "seed"])
    assert first.exit_code == 0 and "products" in first.output
    count = Product.select().count()
    assert count >= 60
    second = runner.invoke(args=["catalog", "seed"])
    assert "nothing loaded" in second.output and Product.select().count() == count
