"""The demo catalog carries dated series (issue 47.6): every metric of a product has at least
six readings, so the cards and the dashboard of `make run` draw trends, not single dots. A
product written with one evidence row keeps it (it is there to fail the evidence gate)."""
import importlib.util
import json
import sys

import pytest

from config import ROOT
from services import evidence_gate
from services.catalog import load_catalog_file
from tests.factories import DEMO_CATALOG, find

pytestmark = pytest.mark.usefixtures("frozen_clock")

LINES = [json.loads(line) for line in DEMO_CATALOG.read_text().splitlines() if line.strip()]


def _script():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location("make_demo_catalog", ROOT / "scripts" / "make_demo_catalog.py")
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return script


def test_every_metric_of_a_demo_product_has_at_least_six_dated_readings():
    series = [[row for row in line["evidence"] if row["metric"] == metric]
              for line in LINES if len(line["evidence"]) > 1 for metric in {row["metric"] for row in line["evidence"]}]
    assert len(series) > 200
    assert all(len(readings) >= 6 for readings in series)
    assert all(len({row["date"] for row in readings}) == len(readings) for readings in series)
    # Not flat lines: most series move.
    assert sum(len({row["value"] for row in readings}) > 1 for readings in series) > 0.9 * len(series)
    assert sum(len(line["evidence"]) == 1 for line in LINES) == 4  # the single-row products stay single


def test_the_shipped_catalog_is_what_the_script_makes():
    made = _script().build_records()
    assert made == LINES


def test_a_demo_card_draws_each_metric_as_a_series_of_six_or_more(client):
    load_catalog_file(DEMO_CATALOG)
    evidence_gate.refresh([line["product_id"] for line in LINES])
    card = find(client).get_json()
    assert card["trends"] and all(len(trend["points"]) >= 6 for trend in card["trends"])
