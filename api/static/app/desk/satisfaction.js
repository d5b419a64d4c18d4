// How happy the founder's customers are with the answers they get: the analysis GET
// /api/satisfaction answers (services/desk/satisfaction.py), said in a sentence and drawn as a
// bar per week (the average rating, out of 5) with charts.js's pieces, the worst rated kinds
// of question beside it. The Desk screen imports satisfactionChart and puts it where it likes.
// Like every picture of the app, the <svg role="img"> says its figures in its title, and the
// same figures are text beside it (a caption, a list, a table of the weeks).
import { h } from "../dom.js";
import { day, number, picture, s } from "../charts.js";

const WIDTH = 280;
const HEIGHT = 100;
const TOP = 5; // the best rating

// The ticket categories in a founder's words.
const CATEGORY = {
  question: "Questions", order: "Orders", shipping: "Shipping", return: "Returns", billing: "Billing",
  other: "Other messages",
};

const percent = (share) => `${Math.round(share * 100)}%`;
const ratings = (count) => (count === 1 ? "1 rating" : `${count} ratings`);

/** The sentence of the whole sample: how many rated, the average, the share happy. */
export function scoreWords(analysis) {
  const { count, score } = analysis;
  return `Customers rated ${count === 1 ? "1 answer" : `${count} answers`}: on average ${number(score.average)} `
    + `out of ${TOP}, and ${percent(score.satisfied_share)} were happy with it (4 or 5).`;
}

/** The words of the weekly picture: each week that had ratings, with its average. */
export function trendWords(trend) {
  const rated = trend.filter((week) => week.count);
  const span = `week by week since ${day(trend[0].week)}`;
  if (!rated.length) return `Average rating ${span}: no ratings in these weeks`;
  return `Average rating out of ${TOP}, ${span}: `
    + rated.map((week) => `week of ${day(week.week)} ${number(week.average)} (${ratings(week.count)})`).join(", ");
}

/** A bar per week, as tall as its average rating; a week without ratings has none. */
function weeklyBars(trend) {
  const slot = WIDTH / trend.length;
  const bars = trend.map((week, i) => {
    const tall = week.count ? (week.average / TOP) * HEIGHT : 0;
    return s("rect", {
      x: (i * slot + slot * 0.15).toFixed(2), width: (slot * 0.7).toFixed(2),
      y: (HEIGHT - tall).toFixed(2), height: tall.toFixed(2), class: week.count ? "bar" : "bar bar-zero",
      "data-week": week.week,
    });
  });
  return picture(trendWords(trend), { width: WIDTH, height: HEIGHT, kind: "bars", stretch: true },
    s("line", { x1: 0, x2: WIDTH, y1: HEIGHT, y2: HEIGHT, class: "axis", "vector-effect": "non-scaling-stroke" }),
    bars);
}

/** The kinds of message customers rated lowest, each with its average and how many rated. */
function worstList(categories) {
  if (!categories.length) return null;
  return h("div", { class: "satisfaction-worst" },
    h("p", { class: "trends-title" }, "Rated lowest"),
    h("ul", { class: "chart-legend" }, categories.map((c) => h("li", { dataset: { category: c.category } },
      `${CATEGORY[c.category] || c.category}: ${number(c.average)} out of ${TOP} (${ratings(c.count)}, `
      + `${percent(c.satisfied_share)} happy)`))));
}

/** The satisfaction picture for the Desk screen, from GET /api/satisfaction's answer. */
export function satisfactionChart(analysis) {
  if (!analysis || !analysis.count) {
    return h("p", { class: "empty", dataset: { picture: "satisfaction" } },
      "No customer has rated an answer yet. Every reply you send ends with a one-click rating link, "
      + "and what customers choose shows here.");
  }
  const weeks = analysis.trend || [];
  const rated = weeks.filter((week) => week.count);
  return h("figure", { class: "chart-figure", dataset: { picture: "satisfaction", count: String(analysis.count) } },
    h("p", { class: "satisfaction-score" }, scoreWords(analysis)),
    weeks.length ? h("p", { class: "chart-scale", "aria-hidden": "true" }, `Bars: the average rating each week, out of ${TOP}`) : null,
    weeks.length ? weeklyBars(weeks) : null,
    weeks.length ? h("p", { class: "chart-axis", "aria-hidden": "true" },
      h("span", {}, `Week of ${day(weeks[0].week)}`), h("span", {}, "This week")) : null,
    h("figcaption", {},
      worstList(analysis.worst_categories || []),
      rated.length ? h("details", { class: "chart-table" },
        h("summary", {}, "The weeks with ratings"),
        h("table", {},
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Week of"), h("th", { scope: "col" }, "Ratings"),
            h("th", { scope: "col" }, "Average"), h("th", { scope: "col" }, "Happy"))),
          h("tbody", {}, rated.map((week) => h("tr", {}, h("th", { scope: "row" }, day(week.week)),
            h("td", { class: "num" }, String(week.count)), h("td", { class: "num" }, number(week.average)),
            h("td", { class: "num" }, percent(week.satisfied_share))))))) : null));
}
