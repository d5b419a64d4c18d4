// The pass bars of an ad: the click-through-rate floor and the cost-per-click ceiling of its
// platform, each drawn as a gauge (charts.js) beside its figure, with the published benchmark
// it comes from named under it (sources.js).
import { h, money, moneyMinor } from "../dom.js";
import { passGauge } from "../charts.js";
import { benchmarkText } from "../sources.js";

const PLATFORM_NAME = { meta: "Meta", google: "Google" };

/** The pass bars of a platform: the CTR floor and the CPC ceiling, each a gauge beside its figure. */
export function passBars(ad) {
  const bars = ad.pass_criteria || {};
  const currency = bars.currency || "USD";
  const pct = (v) => `${Number(v).toLocaleString(undefined, { maximumFractionDigits: 2 })}%`;
  const cpcMinor = bars.cpc_max_minor !== undefined && bars.cpc_max_minor !== null;
  const cpc = cpcMinor ? bars.cpc_max_minor : bars.cpc_max;
  const cost = (v) => (cpcMinor ? moneyMinor(v, currency) : money(v, currency));
  const platform = PLATFORM_NAME[ad.platform] || "this platform";
  const items = [];
  if (typeof bars.ctr_min_pct === "number") {
    items.push(h("div", { class: "pass-bar", dataset: { bar: "ctr" } },
      h("p", { class: "pass-bar-name" }, "Click-through rate"),
      h("p", { class: "pass-bar-figure" }, `At least ${pct(bars.ctr_min_pct)}`),
      h("p", { class: "hint" }, `Of every 100 people ${platform} shows your ad to, at least `
        + `${pct(bars.ctr_min_pct).replace("%", "")} should click it.`),
      passGauge({ what: "The click-through rate", bar: bars.ctr_min_pct, kind: "floor", format: pct }),
      sourceLine(bars.source, "ctr")));
  }
  if (typeof cpc === "number") {
    items.push(h("div", { class: "pass-bar", dataset: { bar: "cpc" } },
      h("p", { class: "pass-bar-name" }, "Cost per click"),
      h("p", { class: "pass-bar-figure" }, `At most ${cost(cpc)}`),
      h("p", { class: "hint" }, `A visit to your store from ${platform} should cost no more than that.`),
      passGauge({ what: "The cost per click", bar: cpc, kind: "ceiling", format: cost }),
      sourceLine(bars.source, "cpc")));
  }
  return h("div", { class: "pass-bars-panel", dataset: { passBars: ad.platform } },
    h("h3", {}, `What your ad must beat on ${platform}`),
    items.length ? h("div", { class: "pass-bars" }, items)
      : h("p", { class: "empty" }, "No pass bars for this platform yet."),
    h("p", { class: "hint pass-source" }, "Each bar is the published average for goods like yours: a running ad doing "
      + "worse than it costs more than it should."));
}

/** The benchmark a bar comes from, named. */
function sourceLine(source, measure) {
  return h("p", { class: "pass-bar-source", dataset: { benchmark: measure } }, "Source: ",
    h("cite", {}, benchmarkText(source, measure)));
}
