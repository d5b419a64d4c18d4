// Offer: the researched price and margins of your product; each figure shows its formula
// and the inputs behind it, and each input its source. The unit cost is one figure: your
// connected supplier's price when you have one, with what their minimum order costs up front.
// A product of your own is priced from your own price and cost, and says so: never "the catalog's".
import { h, fill, title, money, percent, when, linkButton, scrollingTable } from "../dom.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { whileResearching } from "../poll.js";
import { sourceChip, figureWords, formulaWords } from "../sources.js";
import { productName } from "../words.js";
import { priceSplit } from "../charts.js";

export const name = "offer";
export const label = "Offer";

/** An input's value as a founder reads it: money with its currency, a rate as a percent. */
function inputValue(name, value, currency) {
  if (name === "weight_grams") return `${value} g`;
  return formatFigure(name, value, currency);
}

export function formatFigure(key, value, currency) {
  if (key === "margin_pct" || key.endsWith("_pct")) return percent(value);
  if (key === "break_even_roas") return value === null || value === undefined ? "none (a sale loses money)" : `${value}×`;
  if (typeof value === "number") return money(value, currency);
  return value === null || value === undefined ? "—" : String(value);
}

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Offer", "What your product sells for and what each sale leaves you, with where every figure "
    + "comes from: its price and cost, its dated evidence and the service's own rates for fees and shipping."), body);
  const result = await whileResearching(ctx, () => get("/api/offer"), body);
  if (!result) return;
  const said = refusalOf(result);
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  fill(body, offerView(result.data, await productName(result.data.product_id)));
}

function offerView(offer, productTitle) {
  const inputs = Object.fromEntries((offer.inputs || []).map((input) => [input.name, input]));
  const headline = ["price", "cost", "unit_margin", "margin_pct", "break_even_roas"];
  return [
    h("p", { class: "muted" }, `${productTitle} · researched ${when(offer.researched_at)}`,
      offer.refreshing ? " · new evidence arrived: refreshing the figures" : ""),
    h("div", { class: "stats" }, headline.map((key) => h("div", { class: "stat" },
      h("p", { class: "stat-label" }, figureWords(key, { own: offer.own_product })),
      h("p", { class: "stat-value", dataset: { figure: key } }, formatFigure(key, offer[key], offer.currency))))),
    firstOrder(offer),
    h("section", { class: "panel", "aria-labelledby": "split-title" },
      h("h2", { id: "split-title" }, "Where the price goes"),
      priceSplit(offer)),
    h("section", { class: "panel", "aria-labelledby": "figures-title" },
      h("h2", { id: "figures-title" }, "Every figure and where it comes from"),
      scrollingTable("Offer figures", h("table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Figure"), h("th", { scope: "col" }, "Value"),
          h("th", { scope: "col" }, "How it is computed"), h("th", { scope: "col" }, "Inputs and sources"))),
        h("tbody", {}, (offer.figures || []).map((figure) => figureRow(figure, inputs, offer)))))),
    h("p", { class: "actions" }, linkButton("See the verdict", "#/app/dashboard", "primary"),
      linkButton("Launch facts", "#/app/launch")),
  ];
}

function figureRow(figure, inputs, offer) {
  const currency = offer.currency;
  const own = Boolean(offer.own_product);
  const sources = (figure.inputs || []).map((name) => h("li", {}, inputs[name]
    ? [h("span", { class: "input-name" }, `${figureWords(name)}: ${inputValue(name, inputs[name].value, currency)}`), " ",
      sourceChip(inputs[name].source)]
    : sourceChip({ type: "offer", figure: name }, { own })));
  return h("tr", { dataset: { figure: figure.name } },
    h("th", { scope: "row" }, figureWords(figure.name, { own })),
    h("td", { class: "num" }, formatFigure(figure.name, figure.value, currency)),
    h("td", {}, formulaWords(figure.formula)),
    h("td", {}, h("ul", { class: "chips" }, sources)));
}

/** Whose the unit cost is without a supplier: the catalog's, or the one you gave for your own product. */
function whoseCost(offer) {
  const cost = money(offer.cost, offer.currency);
  if (!offer.own_product) return `The unit cost, ${cost}, is the catalog's.`;
  if (offer.cost_given === false) {
    return `You have not said what one unit costs you, so every figure counts it as ${cost}: add it on the Product screen.`;
  }
  return `The unit cost, ${cost}, is the one you gave.`;
}

/** Whose price the unit cost is, and what the connected supplier's minimum order costs up front. */
function firstOrder(offer) {
  const line = offer.supplier;
  const section = (state, ...children) => h("section", { class: "panel", "aria-labelledby": "supplier-title",
    dataset: { supplierCost: state } }, h("h2", { id: "supplier-title" }, "Your supplier and your first order"), ...children);
  if (!line) {
    return section("none",
      h("p", {}, `${whoseCost(offer)} Connect a supplier's offer to count their price here and see what your first `
        + "order costs up front."),
      h("p", { class: "actions" }, linkButton("Choose a supplier", "#/app/suppliers"),
        offer.own_product ? linkButton("Your product", "#/app/product") : null));
  }
  const minimum = h("p", { dataset: { minimumOrderTotal: String(line.minimum_order_total) } },
    `Their minimum order is ${line.minimum_order_quantity} unit${line.minimum_order_quantity === 1 ? "" : "s"} at `
    + `${money(line.unit_cost, line.currency)}: your first order costs ${money(line.minimum_order_total, line.currency)} up front.`);
  if (!line.used_as_cost) return section("other-currency", h("p", { class: "notice notice-warn" }, line.explanation), minimum);
  return section("supplier",
    h("p", {}, `Your unit cost is ${money(offer.cost, offer.currency)}, the price of your connected supplier `
      + `${line.supplier} (SKU ${line.sku}). Every figure below counts it.`),
    minimum,
    h("p", { class: "actions" }, linkButton("Your supplier", "#/app/suppliers")));
}
