#!/usr/bin/env python3
"""Generate the demo product catalog and its placeholder images.

Outputs (paths relative to the repository root):

* ``scripts/data/demo_catalog.jsonl`` - one product per line (72 products,
  8 categories x 9 products).
* ``api/static/demo/<product_id>-<n>.svg`` - one small SVG card per image
  path listed in the catalog.

The script is deterministic and uses only the standard library: all product
data below is hand-written, and evidence dates are either fixed literals or
computed as "N days before" the fixed anchor date ``ANCHOR`` (2026-11-20),
never from today's date. Re-running it rewrites byte-identical files.

The data deliberately contains products that a quality gate should reject:
a handful with thin (< 20 %) or zero/negative gross margins, some whose
evidence is all old (before 2025-06-01), and some with a single evidence row.

Each hand-written reading is the newest of its metric's series: the script
adds earlier monthly readings before it (``SERIES_READINGS`` per metric in
all, a steady rise, fall or plateau chosen per product and metric from a hash
of their names), so a card's "Evidence over time" shows a trend. A product
written with a single evidence row keeps its one row: it is there to fail
the evidence gate.

Usage::

    python3 scripts/make_demo_catalog.py
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from datetime import date, timedelta
from pathlib import Path
from xml.sax.saxutils import escape

# The products and their vocabulary (this folder is on sys.path when run as a script).
from demo_products import PRODUCTS
from demo_products.record import BAB, BEA, CATEGORIES, FIT, HK, OFF, OUT, PET, SOURCE_METRIC, TEC

ROOT = Path(__file__).resolve().parent.parent
CATALOG_PATH = ROOT / "scripts" / "data" / "demo_catalog.jsonl"
IMAGE_DIR = ROOT / "api" / "static" / "demo"
IMAGE_URL_PREFIX = "/static/demo/"

# Fixed anchor: integer evidence offsets mean "this many days before ANCHOR".
ANCHOR = date(2026, 11, 20)
OLD_CUTOFF = date(2025, 6, 1)
RECENT_WINDOW_DAYS = 120
# Readings per metric: the hand-written one and the earlier monthly ones added before it.
SERIES_READINGS = 6
SERIES_STEP_DAYS = 30


# ---------------------------------------------------------------- catalog build

def _evidence_date(when) -> date:
    if isinstance(when, int):
        return ANCHOR - timedelta(days=when)
    return date.fromisoformat(when)


def _unit(*words: str) -> float:
    """A number in [0, 1) fixed by the words: the same on every run and machine."""
    digest = hashlib.sha256(":".join(words).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def _earlier_readings(pid: str, source: str, rows: list[dict]) -> list[dict]:
    """The monthly readings before a metric's first hand-written one, so that the metric has
    SERIES_READINGS in all: each month back moves the value by the same share (a rise toward
    the hand-written reading, a fall or a plateau) with a small wobble, all fixed by names."""
    first = min(rows, key=lambda row: row["date"])
    value, start = first["value"], date.fromisoformat(first["date"])
    # The share a month moves, from -8 % (it was higher before) to +12 % (it grew into today's value).
    monthly = -0.08 + 0.20 * _unit(pid, source, "trend")
    whole = isinstance(value, int)
    added = []
    for back in range(1, SERIES_READINGS - len(rows) + 1):
        wobble = 1 + 0.06 * (_unit(pid, source, str(back)) - 0.5)
        earlier = value / (1 + monthly) ** back * wobble
        earlier = max(1, round(earlier)) if whole else max(0.01, round(earlier, 2))
        added.append({
            "date": (start - timedelta(days=SERIES_STEP_DAYS * back)).isoformat(),
            "source": source,
            "metric": SOURCE_METRIC[source],
            "value": earlier,
            "note": "Earlier monthly reading of the same measure.",
        })
    return added


def build_records() -> list[dict]:
    records = []
    for p in PRODUCTS:
        evidence = []
        for when, source, value, note in p["evidence"]:
            evidence.append({
                "date": _evidence_date(when).isoformat(),
                "source": source,
                "metric": SOURCE_METRIC[source],
                "value": value,
                "note": note,
            })
        if len(evidence) > 1:  # a single row is there to fail the gate: it stays single
            for source in dict.fromkeys(row["source"] for row in evidence):
                evidence += _earlier_readings(p["product_id"], source,
                                              [row for row in evidence if row["source"] == source])
        evidence.sort(key=lambda e: e["date"])  # stable: ties keep literal order
        pid = p["product_id"]
        record = {
            "product_id": pid,
            "name": p["name"],
            "description": p["description"],
            "category": p["category"],
            "price": round(p["price"], 2),
            "cost": round(p["cost"], 2),
            "currency": p["currency"],
            "images": [f"{IMAGE_URL_PREFIX}{pid}-{n}.svg" for n in range(1, p["images"] + 1)],
            "rank": round(p["rank"], 1),
            "evidence": evidence,
        }
        record.update(p["extra"])
        records.append(record)
    return records


def validate(records: list[dict]) -> None:
    """Fail loudly if the hand-written data drifts from the catalog contract."""
    import re

    slug = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    assert len(records) == 72, len(records)
    ids = [r["product_id"] for r in records]
    assert len(set(ids)) == len(ids), "duplicate product_id"
    names = [r["name"] for r in records]
    assert len(set(names)) == len(names), "duplicate name"
    descs = [r["description"] for r in records]
    assert len(set(descs)) == len(descs), "duplicate description"
    for cat in CATEGORIES:
        n = sum(r["category"] == cat for r in records)
        assert n == 9, (cat, n)
    for r in records:
        pid = r["product_id"]
        assert slug.match(pid), pid
        assert 3 <= len(r["name"]) <= 80, pid
        assert r["currency"] in ("USD", "EUR", "GBP"), pid
        assert 9.99 <= r["price"] <= 149.00, pid
        assert r["cost"] > 0, pid
        assert 0.0 <= r["rank"] <= 100.0, pid
        assert 1 <= len(r["images"]) <= 3, pid
        ev = r["evidence"]
        assert len(ev) == 1 or all(sum(e["source"] == source for e in ev) >= SERIES_READINGS
                                   for source in {e["source"] for e in ev}), pid
        assert [e["date"] for e in ev] == sorted(e["date"] for e in ev), pid
        for e in ev:
            d = date.fromisoformat(e["date"])
            assert d <= ANCHOR, (pid, e)
            assert isinstance(e["value"], (int, float)) and e["value"] > 0, (pid, e)


# ---------------------------------------------------------------- SVG cards

CATEGORY_STYLE = {
    # category: (background, accent, text colour)
    HK: ("#F4A261", "#FFFFFF", "#2B2118"),
    PET: ("#6A994E", "#F2E8CF", "#FFFFFF"),
    FIT: ("#D1495B", "#FFD6A5", "#FFFFFF"),
    BEA: ("#E5989B", "#FFF1F2", "#3D1F2B"),
    OUT: ("#2A9D8F", "#E9F5DB", "#FFFFFF"),
    TEC: ("#1D3557", "#A8DADC", "#FFFFFF"),
    BAB: ("#A8DADC", "#FFFFFF", "#1D3557"),
    OFF: ("#6D6875", "#E5E5E5", "#FFFFFF"),
}


def _motif(category: str, accent: str, n: int) -> str:
    """A simple per-category shape group, rotated a little per image index."""
    shapes = {
        HK: '<circle cx="200" cy="120" r="62"/><circle cx="200" cy="120" r="38" fill-opacity="0.6"/>',
        PET: ('<ellipse cx="200" cy="140" rx="40" ry="32"/><circle cx="158" cy="96" r="15"/>'
              '<circle cx="186" cy="80" r="15"/><circle cx="214" cy="80" r="15"/><circle cx="242" cy="96" r="15"/>'),
        FIT: ('<rect x="120" y="110" width="160" height="20" rx="6"/><rect x="104" y="82" width="26" height="76" rx="8"/>'
              '<rect x="270" y="82" width="26" height="76" rx="8"/>'),
        BEA: '<path d="M200 52 C250 100 250 150 200 186 C150 150 150 100 200 52 Z"/>',
        OUT: '<path d="M96 182 L166 76 L214 148 L244 110 L304 182 Z"/><circle cx="284" cy="74" r="16"/>',
        TEC: ('<rect x="146" y="58" width="108" height="130" rx="16"/>'
              '<rect x="160" y="74" width="80" height="92" rx="6" fill-opacity="0.5"/>'),
        BAB: '<path d="M200 56 L218 100 L266 104 L230 134 L242 180 L200 156 L158 180 L170 134 L134 104 L182 100 Z"/>',
        OFF: ('<rect x="120" y="70" width="160" height="26" rx="6"/><rect x="120" y="108" width="160" height="26" rx="6"/>'
              '<rect x="120" y="146" width="160" height="26" rx="6"/>'),
    }[category]
    angle = ((n - 1) * 15) % 360
    transform = f' transform="rotate({angle} 200 120)"' if angle else ""
    return f'<g fill="{accent}" fill-opacity="0.85"{transform}>{shapes}</g>'


def _wrap_name(name: str) -> tuple[list[str], int]:
    for width, size in ((18, 28), (22, 24), (26, 20)):
        lines = textwrap.wrap(name, width=width)
        if len(lines) <= 3:
            return lines, size
    lines = textwrap.wrap(name, width=26)[:3]
    lines[-1] = lines[-1][:25].rstrip() + "\u2026"
    return lines, 20


def render_svg(record: dict, n: int, total: int) -> str:
    bg, accent, fg = CATEGORY_STYLE[record["category"]]
    lines, size = _wrap_name(record["name"])
    line_h = int(size * 1.25)
    y0 = 268 - (len(lines) - 1) * line_h // 2
    tspans = "".join(
        f'<tspan x="200" y="{y0 + i * line_h}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    label = escape(f"{record['category']} \u00b7 {n}/{total}")
    aria = escape(record["name"], {'"': "&quot;"})
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400" '
        f'role="img" aria-label="{aria}">'
        f'<rect x="4" y="4" width="392" height="392" rx="36" fill="{bg}"/>'
        f'{_motif(record["category"], accent, n)}'
        f'<text font-family="Helvetica, Arial, sans-serif" font-size="{size}" font-weight="700" '
        f'fill="{fg}" text-anchor="middle">{tspans}</text>'
        f'<text x="200" y="366" font-family="Helvetica, Arial, sans-serif" font-size="15" '
        f'fill="{fg}" fill-opacity="0.8" text-anchor="middle">{label}</text>'
        '</svg>\n'
    )


# ---------------------------------------------------------------- main

def main() -> None:
    records = build_records()
    validate(records)

    CATALOG_PATH.parent.mkdir(parents=True, exist_ok=True)
    with CATALOG_PATH.open("w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")

    IMAGE_DIR.mkdir(parents=True, exist_ok=True)
    n_images = 0
    for r in records:
        total = len(r["images"])
        for n in range(1, total + 1):
            svg = render_svg(r, n, total)
            assert len(svg.encode("utf-8")) < 2048, (r["product_id"], n)
            (IMAGE_DIR / f"{r['product_id']}-{n}.svg").write_text(svg, encoding="utf-8", newline="\n")
            n_images += 1

    print(f"wrote {len(records)} products -> {CATALOG_PATH.relative_to(ROOT)}")
    print(f"wrote {n_images} images -> {IMAGE_DIR.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
