// Pictures of the figures the API serves, drawn as SVG in the page: a trend line per evidence
// series, the price split into what it pays for, revenue per day, the store's funnel, the pass
// bars and a store's score before and after its repairs.
// Built like dom.js builds HTML: elements made one by one, text only through textContent, so
// nothing the server or a catalog wrote becomes markup. No library: a few small drawings did
// not need one, and this way nothing is fetched from another host or built.
//
// Each picture is an <svg role="img"> whose <title> and aria-label state its numbers, with
// the same figures as text beside it (a legend, a list or a table), so a screen reader and a
// founder who would rather read lose nothing. The content security policy forbids style
// attributes: sizes are SVG attributes and colours are classes of charts.css.
import { h, moneyMinor, money, plural, scrollingTable } from "./dom.js";
import { dayWords } from "./words.js";

const NS = "http://www.w3.org/2000/svg";
// The days the pictures of sales and visits cover (Orders and Store).
export const WINDOW_DAYS = 14;
// Revenue per day is summed from the orders GET /api/tracking lists: as many as it lists.
export const ORDERS_FOR_REVENUE = "/api/tracking?limit=200";

/** An SVG element: s("rect", {x: 0, width: 10}, children...). */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The picture's root: role img, its words as <title> and aria-label. */
export function picture(words, { width, height, kind, stretch = false }, ...children) {
  return s("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": words, class: `chart chart-${kind}`,
    focusable: "false", "data-chart": kind,
    // Bars and lines may stretch to the width they are given; a thumbnail keeps its shape.
    preserveAspectRatio: stretch ? "none" : "xMidYMid meet",
  }, s("title", {}, words), ...children);
}

const NUMBER = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
export const number = (value) => NUMBER.format(value);

/** "12 November 2026" for "2026-11-12": a calendar day, the same wherever the founder is, in
 * the one style of every screen (words.js). */
export function day(iso) {
  return dayWords(String(iso).slice(0, 10));
}

// --- Trend lines (the cards' and the dashboard's dated evidence) ----------------------------

const SPARK_W = 120;
const SPARK_H = 30;
const PAD = 4;

/** The words of one series: what it is, how many readings, first and newest. */
export function trendWords(trend) {
  const points = trend.points || [];
  const what = `${trend.label} (${trend.source_label}${trend.lower_is_better ? ", lower is better" : ""})`;
  if (!points.length) return `${what}: no readings`;
  const last = points[points.length - 1];
  if (points.length === 1) return `${what}: one reading, ${number(last.value)} on ${day(last.date)}`;
  const first = points[0];
  return `${what}: ${points.length} readings, from ${number(first.value)} on ${day(first.date)} `
    + `to ${number(last.value)} on ${day(last.date)}`;
}

/** One series as a small line; better is up (a rank is drawn upside down). */
export function sparkline(trend) {
  const points = trend.points || [];
  const values = points.map((p) => p.value);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const x = (i) => (points.length === 1 ? SPARK_W / 2 : PAD + (i * (SPARK_W - 2 * PAD)) / (points.length - 1));
  const y = (v) => {
    const share = high === low ? 0.5 : (v - low) / (high - low);
    const up = trend.lower_is_better ? 1 - share : share;
    return SPARK_H - PAD - up * (SPARK_H - 2 * PAD);
  };
  const at = points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`);
  const newest = at[at.length - 1];
  return picture(trendWords(trend), { width: SPARK_W, height: SPARK_H, kind: "spark", stretch: true },
    points.length > 1 ? s("polyline", { points: at.join(" "), class: "spark-line", "vector-effect": "non-scaling-stroke" }) : null,
    // A zero-length line with round caps: a dot that stays round when the picture stretches.
    newest ? s("line", { x1: newest.split(",")[0], y1: newest.split(",")[1], x2: newest.split(",")[0],
      y2: newest.split(",")[1], class: "spark-dot", "vector-effect": "non-scaling-stroke" }) : null);
}

/** Every series of a product: its label, its line, its newest reading; each reading as text.
 * A series of one reading has no trend to draw: it is its number with its date ("48 on Nov 12,
 * 2026"), not a line of one dot. */
export function trendList(trends, { title } = {}) {
  if (!(trends || []).length) return null;
  return h("div", { class: "trends", dataset: { trends: String(trends.length) } },
    title ? h("p", { class: "trends-title" }, title) : null,
    h("ul", { class: "trend-list" }, trends.map((trend) => {
      const points = trend.points || [];
      const last = points[points.length - 1];
      const drawn = points.length > 1
        ? [sparkline(trend), h("span", { class: "trend-value" }, number(last.value))]
        : [h("span", { class: "trend-value", dataset: { reading: "one" } },
          last ? `${number(last.value)} on ${day(last.date)}` : "No readings yet")];
      return h("li", { class: "trend", dataset: { metric: trend.metric, source: trend.source } },
        h("span", { class: "trend-label" }, trend.label),
        ...drawn,
        h("span", { class: "visually-hidden" }, `Readings of ${trend.label} from ${trend.source_label}: `
          + points.map((p) => `${number(p.value)} on ${day(p.date)}`).join("; ")));
    })));
}

// --- The price split (the offer) -------------------------------------------------------------

const SPLIT_PARTS = [["cost", "Cost"], ["shipping", "Shipping"], ["fees", "Fees"], ["unit_margin", "Margin"]];

/** The words of the split: "Price $29.99: cost $10.00, shipping $4.99, fees $1.17, margin $13.83". */
export function splitWords(offer) {
  const parts = SPLIT_PARTS.map(([key, label]) => `${label.toLowerCase()} ${money(offer[key], offer.currency)}`);
  const loss = offer.unit_margin < 0 ? " (each sale loses money)" : "";
  return `Price ${money(offer.price, offer.currency)}: ${parts.join(", ")}${loss}`;
}

/** One bar, the price, cut into cost, shipping, fees and margin, with a legend of the figures. */
export function priceSplit(offer) {
  const width = 300;
  const height = 28;
  // A loss: the bar is what a sale costs, longer than the price, and the price is marked on it.
  const spent = offer.cost + offer.shipping + offer.fees;
  const whole = Math.max(offer.price, spent) || 1;
  let at = 0;
  const segments = SPLIT_PARTS.filter(([key]) => offer[key] > 0).map(([key]) => {
    const w = (offer[key] / whole) * width;
    const rect = s("rect", { x: at.toFixed(2), y: 0, width: w.toFixed(2), height, class: `part part-${key}` });
    at += w;
    return rect;
  });
  const marker = offer.price < spent
    ? s("line", { x1: (offer.price / whole) * width, x2: (offer.price / whole) * width, y1: 0, y2: height,
      class: "price-mark", "vector-effect": "non-scaling-stroke" })
    : null;
  const share = (value) => (offer.price ? ` (${Math.round((value / offer.price) * 100)}%)` : "");
  return h("figure", { class: "chart-figure", dataset: { picture: "price-split" } },
    picture(splitWords(offer), { width, height, kind: "split", stretch: true }, segments, marker),
    h("figcaption", {},
      h("ul", { class: "chart-legend" }, SPLIT_PARTS.map(([key, label]) => h("li", { dataset: { part: key } },
        h("span", { class: `swatch part-${key}`, "aria-hidden": "true" }),
        `${label} ${money(offer[key], offer.currency)}${share(offer[key])}`)))));
}

// --- Revenue per day (orders) -----------------------------------------------------------------

/** The founder's local calendar day of a timestamp, as YYYY-MM-DD. */
function localDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Paid orders summed per currency and local day over the last `days` days, today last. */
export function revenueDays(orders, days, today = new Date()) {
  const dates = [];
  for (let n = days - 1; n >= 0; n -= 1) {
    dates.push(localDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - n)));
  }
  const byCurrency = new Map();
  for (const order of orders || []) {
    if (order.state !== "paid" || !order.paid_at) continue;
    const key = localDay(new Date(order.paid_at));
    if (!dates.includes(key)) continue;
    if (!byCurrency.has(order.currency)) byCurrency.set(order.currency, new Map(dates.map((d) => [d, 0])));
    const sums = byCurrency.get(order.currency);
    sums.set(key, sums.get(key) + order.amount_minor);
  }
  return [...byCurrency].map(([currency, sums]) => ({ currency, days: [...sums].map(([date, minor]) => ({ date, minor })) }));
}

export function revenueWords(series, days) {
  const total = series.days.reduce((sum, d) => sum + d.minor, 0);
  const paid = series.days.filter((d) => d.minor > 0)
    .map((d) => `${day(d.date)} ${moneyMinor(d.minor, series.currency)}`);
  return `Revenue per day over the last ${days} days (${series.currency}): ${moneyMinor(total, series.currency)} in all; `
    + (paid.length ? paid.join(", ") : "no paid order");
}

/** A bar per day for each currency the founder was paid in; a table of the paid days beside it. */
export function revenueChart(orders, days) {
  const all = revenueDays(orders, days);
  if (!all.length) {
    return h("p", { class: "empty", dataset: { picture: "revenue-days" } },
      `No paid order in the last ${days} days, so there is nothing to draw yet.`);
  }
  return all.map((series) => {
    const width = 280;
    const height = 100;
    const top = Math.max(...series.days.map((d) => d.minor)) || 1;
    const slot = width / series.days.length;
    const bars = series.days.map((d, i) => s("rect", {
      x: (i * slot + slot * 0.15).toFixed(2), width: (slot * 0.7).toFixed(2),
      y: (height - (d.minor / top) * height).toFixed(2), height: ((d.minor / top) * height).toFixed(2),
      class: d.minor ? "bar" : "bar bar-zero",
    }));
    const paid = series.days.filter((d) => d.minor > 0);
    return h("figure", { class: "chart-figure", dataset: { picture: "revenue-days", currency: series.currency } },
      h("p", { class: "chart-scale", "aria-hidden": "true" }, `Highest day ${moneyMinor(top, series.currency)}`),
      picture(revenueWords(series, days), { width, height, kind: "bars", stretch: true },
        s("line", { x1: 0, x2: width, y1: height, y2: height, class: "axis", "vector-effect": "non-scaling-stroke" }), bars),
      h("p", { class: "chart-axis", "aria-hidden": "true" },
        h("span", {}, day(series.days[0].date)), h("span", {}, "Today")),
      h("details", { class: "chart-table" },
        h("summary", {}, "The days with sales"),
        h("table", {},
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day"), h("th", { scope: "col" }, "Revenue"))),
          h("tbody", {}, paid.map((d) => h("tr", {}, h("th", { scope: "row" }, day(d.date)),
            h("td", { class: "num" }, moneyMinor(d.minor, series.currency))))))));
  });
}

// --- The store's funnel (Store and Orders) --------------------------------------------------

const STEPS = [["sessions", "Visits"], ["cart", "Added to cart"], ["checkout", "Started checkout"],
  ["paid", "Paid (unverified)"]];

export function funnelWords(metrics) {
  return `Your store's visitors over the last ${metrics.days} days: `
    + STEPS.map(([key, label]) => `${metrics[key]} ${label.toLowerCase()}`).join(", ");
}

/** Four bars, each step's visitors against the visits, with the count and share beside each. */
export function funnel(metrics) {
  const row = 26;
  const width = 200;
  const most = Math.max(metrics.sessions, metrics.cart, metrics.checkout, metrics.paid) || 1;
  const bars = STEPS.map(([key], i) => {
    const w = Math.max((metrics[key] / most) * width, metrics[key] ? 2 : 0);
    return s("rect", { x: ((width - w) / 2).toFixed(2), y: i * row + 3, width: w.toFixed(2), height: row - 6,
      class: `step step-${key}` });
  });
  const share = (key) => (key !== "sessions" && metrics.sessions ? ` (${Math.round((metrics[key] / metrics.sessions) * 100)}%)` : "");
  return h("figure", { class: "chart-figure funnel", dataset: { picture: "funnel" } },
    picture(funnelWords(metrics), { width, height: row * STEPS.length, kind: "funnel", stretch: true }, bars),
    h("figcaption", {}, h("ol", { class: "funnel-steps" }, STEPS.map(([key, label]) => h("li", { dataset: { step: key } },
      h("span", {}, label), " ", h("strong", { dataset: { metric: key } }, String(metrics[key])), share(key))))));
}

// --- The pass bars (Growth): a floor or a ceiling on a scale -----------------------------------

/**
 * A pass bar as a gauge: a scale from 0 to twice the bar, the part that passes in green and the
 * bar marked where it sits (a floor passes from the mark up, a ceiling from 0 to the mark). With
 * a `value` (a figure measured), a pointer shows where it stands. `format` writes a figure the
 * way the founder reads it (a percentage, money); `what` names the measure ("Click-through rate").
 */
export function passGauge({ what, bar, kind, format, value = null }) {
  const width = 240;
  const height = 22;
  const top = bar > 0 ? bar * 2 : 1;
  const at = (v) => Math.max(0, Math.min(width, (v / top) * width));
  const mark = at(bar);
  const floor = kind === "floor";
  const passes = floor ? [mark, width - mark] : [0, mark];
  const fails = floor ? [0, mark] : [mark, width - mark];
  const rule = floor ? `at least ${format(bar)}` : `at most ${format(bar)}`;
  const measured = value === null || value === undefined ? ""
    : `; yours is ${format(value)}, which ${(floor ? value >= bar : value <= bar) ? "passes" : "does not pass"}`;
  const words = `${what} must be ${rule}: the green part of the scale from ${format(0)} to ${format(top)} passes${measured}`;
  return h("figure", { class: "chart-figure pass-gauge", dataset: { picture: "pass-gauge", kind, bar: String(bar) } },
    picture(words, { width, height, kind: "gauge", stretch: true },
      s("rect", { x: fails[0].toFixed(2), y: 4, width: fails[1].toFixed(2), height: height - 8, class: "gauge-fail" }),
      s("rect", { x: passes[0].toFixed(2), y: 4, width: passes[1].toFixed(2), height: height - 8, class: "gauge-pass" }),
      s("line", { x1: mark, x2: mark, y1: 0, y2: height, class: "gauge-mark", "vector-effect": "non-scaling-stroke" }),
      value === null || value === undefined ? null
        : s("line", { x1: at(value), x2: at(value), y1: 2, y2: height - 2, class: "gauge-value", "vector-effect": "non-scaling-stroke" })),
    h("p", { class: "chart-axis", "aria-hidden": "true" },
      h("span", {}, format(0)), h("span", { class: "gauge-bar-label" }, `${floor ? "floor" : "ceiling"} ${format(bar)}`),
      h("span", {}, format(top))));
}

// --- A store's score before and after its repairs (Fix) ------------------------------------------

/** The words of the two scores: "Your score out of 100: 54 before the repairs, 92 after them"
 * when the score after was measured (a new version of a store built here), else "..., 92
 * expected with them": repairs nobody has put on the store yet give it no score of its own. */
export function scoresWords(before, after, { measured = true } = {}) {
  const known = (value) => value !== null && value !== undefined;
  if (!known(before)) return "Your score out of 100: not measured";
  if (!known(after)) return `Your score out of 100: ${before} before the repairs; no score after them yet`;
  const change = after - before;
  const moved = change > 0 ? `, up ${change}` : change < 0 ? `, down ${-change}` : ", unchanged";
  return `Your score out of 100: ${before} before the repairs, ${after} ${measured ? "after them" : "expected with them"}${moved}`;
}

/** Two bars side by side on a scale of 0 to 100, the score before the repairs and after them
 * (or expected with them, when not `measured`), each with its figure over it and its name under
 * it; the same figures as a list beside it. */
export function scoresChart(before, after, { measured = true } = {}) {
  const width = 220;
  const height = 150;
  const base = 120; // the bars stand on this line; their names sit under it
  const tall = 96; // a score of 100
  const bar = (value, x, kind, words) => {
    const known = value !== null && value !== undefined;
    const top = base - (known ? (Math.max(0, Math.min(100, value)) / 100) * tall : 0);
    return [
      s("rect", { x, y: (base - tall).toFixed(2), width: 64, height: tall, class: "score-room" }),
      known ? s("rect", { x, y: top.toFixed(2), width: 64, height: (base - top).toFixed(2), class: `score-bar score-${kind}`,
        "data-score": value }) : null,
      s("text", { x: x + 32, y: (top - 6).toFixed(2), "text-anchor": "middle", class: "score-figure" }, known ? String(value) : "—"),
      s("text", { x: x + 32, y: base + 20, "text-anchor": "middle", class: "score-name" }, words),
    ];
  };
  return h("figure", { class: "chart-figure scores", dataset: { picture: "scores", before: String(before ?? ""), after: String(after ?? "") } },
    picture(scoresWords(before, after, { measured }), { width, height, kind: "scores" },
      bar(before, 30, "before", "Before"),
      bar(after, 126, "after", measured ? "After" : "Expected"),
      s("line", { x1: 10, x2: width - 10, y1: base, y2: base, class: "axis" })),
    h("figcaption", {},
      h("ul", { class: "chart-legend" },
        h("li", { dataset: { score: "before" } }, h("span", { class: "swatch score-before", "aria-hidden": "true" }),
          `Before the repairs: ${before ?? "—"} out of 100`),
        h("li", { dataset: { score: "after" } }, h("span", { class: "swatch score-after", "aria-hidden": "true" }),
          `${measured ? "After them" : "Expected with them"}: ${after ?? "—"} out of 100`))));
}

// --- An ad campaign's days (Growth) -------------------------------------------------------------

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "22 Nov" for "2026-11-22": a calendar day as it is, short, where the year goes without saying
 * (a campaign's days, the ad balance's spend). Anything else as words.js writes a day. */
export function shortDay(iso) {
  const calendar = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(iso ?? ""));
  return calendar ? `${Number(calendar[3])} ${SHORT_MONTHS[Number(calendar[2]) - 1]}` : dayWords(iso);
}

const pctWords = (value) => `${number(value)}%`;
const known = (value) => value !== null && value !== undefined;

/**
 * What a campaign's delivery comes to, in a sentence: "Over 3 days it spent $36.44; 2.14% of
 * people who saw it clicked, above the 1.59% it should reach; each click cost $0.54, under the
 * $0.70 ceiling." Until `min_impressions` people have seen it, it is not judged against its bars.
 */
export function adDeliveryWords(delivery) {
  const days = delivery.days || [];
  const totals = delivery.totals || {};
  const bars = delivery.bars || {};
  const currency = totals.currency || bars.currency || "USD";
  const cash = (minor) => moneyMinor(minor, currency);
  const spent = `Over ${plural(days.length, "day")} it spent ${cash(totals.spend_minor || 0)}`;
  const seen = totals.impressions || 0;
  const enough = delivery.min_impressions || 0;
  if (seen < enough) {
    return `${spent} and was seen ${number(seen)} ${seen === 1 ? "time" : "times"}. It is not judged yet: `
      + `it is held to its bars once it has been seen ${number(enough)} times.`;
  }
  const side = (value, bar, { low, high }) => (value === bar ? "at" : value > bar ? high : low);
  const ctr = known(totals.ctr_pct) && known(bars.ctr_min_pct)
    ? `${pctWords(totals.ctr_pct)} of people who saw it clicked, ${side(totals.ctr_pct, bars.ctr_min_pct,
      { low: "under", high: "above" })} the ${pctWords(bars.ctr_min_pct)} it should reach`
    : "nobody who saw it clicked";
  const cpc = known(totals.cpc_minor) && known(bars.cpc_max_minor)
    ? `each click cost ${cash(totals.cpc_minor)}, ${side(totals.cpc_minor, bars.cpc_max_minor,
      { low: "under", high: "over" })} the ${cash(bars.cpc_max_minor)} ceiling`
    : "so no click has a cost yet";
  return `${spent}; ${ctr}; ${cpc}.`;
}

const DELIVERY_W = 280;
const DELIVERY_H = 64;
const DELIVERY_PAD = 6;

/** A figure per day as a line (a dot a day) against its bar, drawn as a dashed line across:
 * a floor (`kind` floor: a day under it misses) or a ceiling (a day over it misses). As the
 * pass gauges do, the scale runs from 0 to twice the bar, so the bar sits half way up (further
 * when a day went past twice the bar). */
function dayLine({ words, days, values, bar, kind }) {
  const drawn = values.filter(known);
  const top = Math.max(known(bar) ? bar * 2 : 0, ...drawn.map((v) => v * 1.1), 0) || 1;
  const slot = DELIVERY_W / days.length;
  const x = (i) => (i * slot + slot / 2).toFixed(2);
  const y = (v) => (DELIVERY_H - DELIVERY_PAD - (v / top) * (DELIVERY_H - 2 * DELIVERY_PAD)).toFixed(2);
  const misses = (v) => known(bar) && (kind === "floor" ? v < bar : v > bar);
  // The line breaks where a day has no figure (no click, no cost per click).
  const runs = [];
  let run = [];
  values.forEach((v, i) => {
    if (known(v)) run.push(`${x(i)},${y(v)}`);
    else if (run.length) { runs.push(run); run = []; }
  });
  if (run.length) runs.push(run);
  return picture(words, { width: DELIVERY_W, height: DELIVERY_H, kind: "day-line", stretch: true },
    s("line", { x1: 0, x2: DELIVERY_W, y1: DELIVERY_H, y2: DELIVERY_H, class: "axis", "vector-effect": "non-scaling-stroke" }),
    known(bar) ? s("line", { x1: 0, x2: DELIVERY_W, y1: y(bar), y2: y(bar), class: `delivery-bar-line delivery-${kind}`,
      "vector-effect": "non-scaling-stroke", "data-bar": String(bar) }) : null,
    runs.filter((points) => points.length > 1).map((points) => s("polyline", { points: points.join(" "),
      class: "delivery-line", "vector-effect": "non-scaling-stroke" })),
    // Zero-length lines with round caps: dots that stay round when the picture stretches.
    values.map((v, i) => (known(v) ? s("line", { x1: x(i), x2: x(i), y1: y(v), y2: y(v),
      class: misses(v) ? "delivery-dot delivery-dot-miss" : "delivery-dot", "vector-effect": "non-scaling-stroke",
      "data-day": days[i].day }) : null)));
}

/**
 * A campaign's days as it delivered them: what it spent each day as bars, and its click-through
 * rate and its cost per click each day as lines against their bars (the floor and the ceiling);
 * beside them the sentence of adDeliveryWords, and every day's figures in a table. `name` is the
 * campaign's, for the pictures' words.
 */
export function adDeliveryChart(delivery, name) {
  const days = delivery.days || [];
  const bars = delivery.bars || {};
  const currency = (delivery.totals || {}).currency || bars.currency || "USD";
  const cash = (minor) => moneyMinor(minor, currency);
  const each = (values, format) => days.map((d, i) => `${known(values[i]) ? format(values[i]) : "none"} on ${shortDay(d.day)}`)
    .join(", ");
  const spend = days.map((d) => d.spend_minor);
  const ctr = days.map((d) => d.ctr_pct);
  const cpc = days.map((d) => d.cpc_minor);
  const total = spend.reduce((sum, v) => sum + (v || 0), 0);

  const most = Math.max(...spend, 1);
  const slot = DELIVERY_W / Math.max(days.length, 1);
  const barWidth = Math.min(slot * 0.6, 48); // a day or two stay bars, not blocks
  const spendWords = `Spent per day on \u201c${name}\u201d: ${each(spend, cash)}; ${cash(total)} in all`;
  const spendPicture = picture(spendWords, { width: DELIVERY_W, height: DELIVERY_H, kind: "bars", stretch: true },
    s("line", { x1: 0, x2: DELIVERY_W, y1: DELIVERY_H, y2: DELIVERY_H, class: "axis", "vector-effect": "non-scaling-stroke" }),
    spend.map((v, i) => s("rect", { x: (i * slot + (slot - barWidth) / 2).toFixed(2), width: barWidth.toFixed(2),
      y: (DELIVERY_H - (v / most) * (DELIVERY_H - DELIVERY_PAD)).toFixed(2),
      height: ((v / most) * (DELIVERY_H - DELIVERY_PAD)).toFixed(2), class: "delivery-spend", "data-day": days[i].day })));
  const ctrWords = `Click-through rate per day of \u201c${name}\u201d against its floor of `
    + `${known(bars.ctr_min_pct) ? pctWords(bars.ctr_min_pct) : "none"}: ${each(ctr, pctWords)}`;
  const cpcWords = `Cost per click per day of \u201c${name}\u201d against its ceiling of `
    + `${known(bars.cpc_max_minor) ? cash(bars.cpc_max_minor) : "none"}: ${each(cpc, cash)}`;

  // Under each picture its days: each one under its own bar or dot, or the first and the last
  // when there are more than a week of them.
  const labelled = days.length <= 7 ? days : [days[0], days[days.length - 1]];
  const axis = () => h("p", { class: `chart-axis delivery-axis${days.length <= 7 ? " delivery-axis-each" : ""}`,
    "aria-hidden": "true" }, labelled.map((d) => h("span", {}, shortDay(d.day))));
  const part = (measure, label, note, drawn) => h("div", { class: "delivery-part", dataset: { measure } },
    h("p", { class: "delivery-label", "aria-hidden": "true" }, h("span", {}, label), note), drawn, axis());
  const barNote = (kind, text) => h("span", { class: "delivery-bar-note" },
    h("span", { class: `swatch-line delivery-${kind}`, "aria-hidden": "true" }), text);

  const table = h("table", { class: "delivery-table" },
    h("caption", { class: "visually-hidden" }, `The days of \u201c${name}\u201d`),
    h("thead", {}, h("tr", {}, ["Day", "Seen", "Clicks", "Spent", "Click-through rate", "Cost per click"]
      .map((head) => h("th", { scope: "col" }, head)))),
    h("tbody", {}, days.map((d) => h("tr", { dataset: { day: d.day } },
      h("th", { scope: "row" }, shortDay(d.day)),
      h("td", { class: "num" }, number(d.impressions)),
      h("td", { class: "num" }, number(d.clicks)),
      h("td", { class: "num" }, cash(d.spend_minor)),
      h("td", { class: "num" }, known(d.ctr_pct) ? pctWords(d.ctr_pct) : "—"),
      h("td", { class: "num" }, known(d.cpc_minor) ? cash(d.cpc_minor) : "—")))));

  return h("figure", { class: "chart-figure ad-delivery", dataset: { picture: "ad-delivery", days: String(days.length) } },
    h("div", { class: "delivery-parts" },
      part("spend", "Spent per day", h("span", { class: "delivery-bar-note" }, `highest ${cash(Math.max(...spend, 0))}`),
        spendPicture),
      part("ctr", "Click-through rate per day", known(bars.ctr_min_pct)
        ? barNote("floor", `floor ${pctWords(bars.ctr_min_pct)}`) : null,
      dayLine({ words: ctrWords, days, values: ctr, bar: bars.ctr_min_pct, kind: "floor" })),
      part("cpc", "Cost per click per day", known(bars.cpc_max_minor)
        ? barNote("ceiling", `ceiling ${cash(bars.cpc_max_minor)}`) : null,
      dayLine({ words: cpcWords, days, values: cpc, bar: bars.cpc_max_minor, kind: "ceiling" }))),
    h("figcaption", { class: "delivery-caption" },
      h("p", { class: "delivery-words", dataset: { judged: String((delivery.totals || {}).impressions >= delivery.min_impressions) } },
        adDeliveryWords(delivery)),
      h("p", { class: "hint delivery-key" }, "A dashed line is the bar a day should reach; a red dot is a day that "
        + "missed it."),
      h("details", { class: "chart-table" },
        h("summary", {}, "Each day's figures"),
        scrollingTable(`The days of \u201c${name}\u201d`, table))));
}
