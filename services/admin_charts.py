"""The operator pages' charts, drawn on the server as inline SVG (no script, no image request).

Each chart is an <svg role="img"> whose first child is a <title> stating, in words, every
figure it draws, so the numbers can be read (and tested) without looking at the picture.
Every piece of text put in the markup goes through markupsafe's escape; colours come from
classes styled by /static/admin/admin.css (the pages' policy allows no inline style).
"""
from __future__ import annotations

from markupsafe import Markup, escape

WIDTH = 640
ROW = 26  # height of one horizontal bar's row
LABEL_WIDTH = 170
COLUMNS_HEIGHT = 200


def _number(value) -> str:
    if value is None:
        return "none"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def _figures(pairs) -> str:
    return ", ".join(f"{label} {_number(value)}" for label, value in pairs)


def _svg(chart_id: str, title: str, height: int, body: str) -> Markup:
    chart_id = escape(chart_id)
    return Markup(f'<svg class="chart" id="{chart_id}" viewBox="0 0 {WIDTH} {height}" role="img" '
                  f'aria-labelledby="{chart_id}-title" xmlns="http://www.w3.org/2000/svg">'
                  f'<title id="{chart_id}-title">{escape(title)}</title>{body}</svg>')


def _clip(text: str, length: int = 26) -> str:
    return text if len(text) <= length else text[:length - 1] + "\u2026"


def bars(chart_id: str, title: str, items: list[tuple[str, int | float]], *, notes: list[str] | None = None,
         css: str = "bar") -> Markup:
    """Horizontal bars, one per (label, value), scaled to the largest; `notes` (one per item)
    are written after the value."""
    top = max([value for _label, value in items] + [1])
    span = WIDTH - LABEL_WIDTH - 90
    parts = []
    for i, (label, value) in enumerate(items):
        y = 8 + i * ROW
        length = round(span * value / top) if value else 0
        note = f" {notes[i]}" if notes and notes[i] else ""
        parts.append(
            f'<text class="label" x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">{escape(_clip(label))}</text>'
            f'<rect class="{escape(css)} {escape(css)}-{i}" x="{LABEL_WIDTH}" y="{y + 3}" width="{length}" height="{ROW - 8}">'
            f'<title>{escape(label)}: {escape(_number(value))}{escape(note)}</title></rect>'
            f'<text class="value" x="{LABEL_WIDTH + length + 6}" y="{y + 15}">{escape(_number(value))}{escape(note)}</text>')
    return _svg(chart_id, title, 16 + ROW * len(items), "".join(parts))


def columns(chart_id: str, title: str, labels: list[str], series: dict[str, list[int]], *,
            label_every: int = 1) -> Markup:
    """Stacked columns: one per label, a segment per series (styled by the series' name)."""
    count = max(1, len(labels))
    totals = [sum(values[i] for values in series.values()) for i in range(len(labels))]
    top = max(totals + [1])
    left, bottom, legend = 36, COLUMNS_HEIGHT - 24, 22
    step = (WIDTH - left - 8) / count
    width = max(2.0, step - 3)
    parts = [f'<text class="axis" x="{left - 6}" y="{legend + 10}" text-anchor="end">{top}</text>',
             f'<text class="axis" x="{left - 6}" y="{bottom}" text-anchor="end">0</text>',
             f'<line class="baseline" x1="{left}" y1="{bottom}" x2="{WIDTH - 8}" y2="{bottom}"/>']
    for n, name in enumerate(series):
        x = left + n * 110
        parts.append(f'<rect class="seg seg-{escape(name)}" x="{x}" y="4" width="12" height="12"/>'
                     f'<text class="legend" x="{x + 16}" y="14">{escape(name)}</text>')
    plot = bottom - legend - 4
    for i, label in enumerate(labels):
        x = left + i * step + 1.5
        y = bottom
        for name, values in series.items():
            value = values[i]
            if not value:
                continue
            height = plot * value / top
            y -= height
            parts.append(f'<rect class="seg seg-{escape(name)}" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
                         f'height="{height:.1f}"><title>{escape(label)}: {escape(name)} {value}</title></rect>')
        if i % label_every == 0:
            parts.append(f'<text class="axis" x="{x + width / 2:.1f}" y="{bottom + 16}" '
                         f'text-anchor="middle">{escape(label)}</text>')
    return _svg(chart_id, title, COLUMNS_HEIGHT, "".join(parts))


def _conversions(steps: list[tuple[str, int]]) -> list[str]:
    notes = [""]
    for (_a, before), (_b, after) in zip(steps, steps[1:], strict=False):
        notes.append(f"({round(100 * after / before)}% of the step before)" if before else "")
    return notes


# --- The charts of each page, from services/admin's figures -----------------------------------

def jobs_chart(by_hour: dict) -> Markup:
    title = (f"Jobs created in the last 24 hours, by state now: {_figures(by_hour['totals'].items())}"
             f" (one column per hour, {by_hour['hours'][0]} to {by_hour['hours'][-1]} UTC)")
    return columns("chart-jobs", title, by_hour["hours"], by_hour["series"], label_every=3)


def queue_age_chart(ages: dict) -> Markup:
    oldest = ages["oldest_seconds"]
    title = (f"Jobs waiting in the queue, by how long they have waited: {_figures(ages['buckets'])}; oldest "
             + (f"{oldest:,} s" if oldest is not None else "none"))
    return bars("chart-queue-age", title, ages["buckets"], css="age")


def meter_chart(meter: dict) -> Markup:
    rows = meter["buckets"]
    title = ("Credits used this week per meter bucket, every account: "
             + _figures((r["bucket"], r["used_week"]) for r in rows)
             + "; this five-hour window: " + _figures((r["bucket"], r["used_5h"]) for r in rows))
    return bars("chart-meter", title, [(r["name"], r["used_week"]) for r in rows],
                notes=[f"({r['used_5h']:,} in this 5 h window)" for r in rows], css="meter")


def referral_chart(referrals: dict) -> Markup:
    steps = referrals["steps"]
    return bars("chart-referrals", f"Referral funnel: {_figures(steps)}", steps, notes=_conversions(steps),
                css="funnel")


def store_funnel_chart(funnel: dict) -> Markup:
    steps = funnel["steps"]
    title = f"Store funnel, distinct visitors {funnel['since']} to {funnel['until']}, every store: {_figures(steps)}"
    return bars("chart-store-funnel", title, steps, notes=_conversions(steps), css="funnel")


def fix_chart(fix: dict) -> Markup:
    totals = fix["totals"]
    days = fix["days"]
    title = (f"Fix runs per day, {days[0]['day']} to {days[-1]['day']}: {totals['runs']:,} runs, "
             f"{totals['done']:,} done, {totals['failed']:,} failed; average score before "
             f"{_number(totals['score_before'])}, after {_number(totals['score_after'])}")
    series = {"done": [d["done"] for d in days], "failed": [d["failed"] for d in days],
              "unfinished": [d["runs"] - d["done"] - d["failed"] for d in days]}
    return columns("chart-fix", title, [d["day"][5:] for d in days], series, label_every=2)
