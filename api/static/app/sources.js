// How a figure's source reads: a catalog field, a figure the founder gave for their own
// product, a dated evidence row, a setting, similar catalog products' prices, or another
// figure of the offer. Every figure the app shows carries one, in a founder's words; a
// setting's own name is small print for the operator, behind "Where this figure comes from".
import { h, money } from "./dom.js";

// The offer's figures and inputs (services/research/offer.py) as a founder calls them.
export const FIGURE_WORDS = {
  price: "Recommended retail price",
  cost: "Unit cost",
  shipping: "Shipping per unit",
  fees: "Payment fees per sale",
  unit_margin: "Unit margin",
  margin_pct: "Margin",
  break_even_cpa: "Break-even cost per acquisition",
  break_even_roas: "Break-even ROAS",
  price_for_target_margin: "Price for the target margin",
  market_price: "Market price",
  catalog_cost: "Catalog cost",
  your_price: "Your price",
  your_cost: "Your unit cost",
  supplier_quote: "Supplier quote",
  supplier_unit_cost: "Your supplier's unit cost",
  weight_grams: "Weight in grams",
  payment_fee_pct: "Payment fee rate",
  payment_fee_fixed: "Fixed payment fee",
  shipping_flat: "Flat shipping",
  shipping_per_kg: "Shipping per kg",
  target_margin_pct: "Target margin",
};

// The service's settings a figure may come from (config.py), in words.
const SETTING_WORDS = {
  OFFER_FEE_PCT: "the payment fee rate",
  OFFER_FEE_FIXED: "the fixed payment fee",
  OFFER_SHIPPING_FLAT: "the flat shipping rate",
  OFFER_SHIPPING_PER_KG: "the shipping rate per kg",
  TARGET_MARGIN_PCT: "the target margin",
  EVIDENCE_MAX_AGE_DAYS: "how recent evidence must be",
  EVIDENCE_MIN_ROWS: "how much evidence a product needs",
  MIN_MARGIN_PCT: "the lowest margin worth selling at",
};

// The catalog record's fields, as "the catalog's price".
const CATALOG_WORDS = { price: "price", cost: "cost", weight_grams: "weight" };
// A figure of a product of the founder's own: it is theirs, never "the catalog's" (their unit
// cost may be one they have not given yet, counted as 0: "your own", not "you gave").
const OWN_WORDS = { price: "The price you set", cost: "Your own unit cost" };
// A figure's name where it is the founder's own product's: its price is theirs, not a recommendation.
const OWN_FIGURE_WORDS = { price: "Your price" };

// Evidence sources and metrics by name (google_trends, interest_index) read as words.
const PROPER = { google_trends: "Google Trends", amazon: "Amazon", tiktok: "TikTok", ebay: "eBay", etsy: "Etsy",
  instagram: "Instagram", youtube: "YouTube", pinterest: "Pinterest", reddit: "Reddit", x: "X", meta: "Meta", google: "Google" };

/** A key of the records ("interest_index") as words ("interest index"). */
export function plain(key) {
  if (key === null || key === undefined) return "";
  const text = String(key);
  return PROPER[text.toLowerCase()] || text.replace(/_/g, " ");
}

/** A figure's name in words, lower case when it runs inside a sentence; `own` for a product of
 * the founder's own. */
export function figureWords(name, { inSentence = false, own = false } = {}) {
  const words = (own && OWN_FIGURE_WORDS[name]) || FIGURE_WORDS[name] || plain(name);
  return inSentence ? words.charAt(0).toLowerCase() + words.slice(1) : words;
}

/** A formula of the offer ("price - cost - shipping") with its figures named in words. */
export function formulaWords(formula) {
  return String(formula || "")
    .replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (name) => figureWords(name, { inSentence: true }))
    .replace(/ x /g, " × ");
}

/** A source in words; `own` for a product of the founder's own (its price figure is theirs). */
export function sourceText(source, { own = false } = {}) {
  if (!source || typeof source !== "object") return "Unknown source";
  switch (source.type) {
    case "catalog":
      return `The catalog's ${CATALOG_WORDS[source.field] || plain(source.field)}`;
    case "own":
      return OWN_WORDS[source.field] || `Your own ${plain(source.field)}`;
    case "similar":
      return `Prices of ${source.products} similar catalog product${source.products === 1 ? "" : "s"}`
        + (source.category ? ` (${source.category})` : "");
    case "evidence": {
      const value = source.value !== undefined && source.value !== null ? ` ${source.value}` : "";
      return `Evidence of ${source.date}: ${plain(source.source)}, ${plain(source.metric)}${value}`;
    }
    case "setting":
      return `Set by the service: ${SETTING_WORDS[source.name] || "one of its settings"}`;
    case "offer":
      return `From the offer: ${figureWords(source.figure, { inSentence: true, own })}`;
    case "supplier":
      return `Your connected supplier: ${source.supplier}, SKU ${source.sku}`;
    case "none":
      return "No evidence";
    default:
      return Object.entries(source).map(([k, v]) => `${plain(k)} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
  }
}

/** A small labelled chip naming a source (`own` as for sourceText); a setting's own name is small print under it. */
export function sourceChip(source, { own = false } = {}) {
  const chip = h("span", { class: `chip chip-${(source && source.type) || "other"}` }, sourceText(source, { own }));
  if (!(source && source.type === "setting" && source.name)) return chip;
  return h("span", {}, chip, h("details", { class: "small-print" },
    h("summary", { class: "hint" }, "Where this figure comes from"),
    h("p", { class: "hint" }, `The operator sets it with ${source.name} in the service's configuration.`)));
}

// --- Growth: the benchmark a pass bar comes from, and what a post idea cites -----------------

// Publishers and reports by the names people know them by.
const BENCHMARK_WORDS = {
  wordstream: "WordStream",
  localiq: "LocaliQ",
  "wordstream/localiq": "WordStream and LocaliQ",
  meta: "Meta",
  google: "Google",
};

/** The published benchmark a pass bar comes from, as a founder would name it: "WordStream and
 * LocaliQ, Facebook Ads Benchmarks (2024)". A sentence the server wrote is kept as it is, but
 * when it names one report per measure ("CPC: …; CTR: …"), `measure` ("ctr", "cpc") picks its own. */
export function benchmarkText(source, measure = null) {
  if (!source) return "No benchmark named";
  if (typeof source === "string") {
    // "CPC: one report; CTR: another": the part naming the measure asked about, when there is one.
    const parts = source.split(/;\s*/).map((part) => part.match(/^([A-Z]{2,4}):\s*(.+)$/)).filter(Boolean);
    const own = measure ? parts.find((match) => match[1].toLowerCase() === measure.toLowerCase()) : null;
    return own ? own[2] : source;
  }
  if (measure && source[measure]) return benchmarkText(source[measure]);
  const publisher = source.publisher || source.by || source.author;
  const name = source.name || source.title || source.report;
  const year = source.year || (source.published ? String(source.published).slice(0, 4) : null);
  const who = publisher ? BENCHMARK_WORDS[String(publisher).toLowerCase()] || publisher : null;
  const parts = [who, name].filter(Boolean).join(", ");
  return `${parts || "A published benchmark"}${year ? ` (${year})` : ""}`;
}

// The product record's fields a post may cite, as a founder calls them.
const PRODUCT_FIELD_WORDS = {
  name: "name", title: "name", price: "price", cost: "cost", category: "category", description: "description",
  weight_grams: "weight", margin: "margin", margin_pct: "margin", benefits: "benefits", material: "material",
  dimensions: "size", images: "photos", rating: "rating", reviews: "reviews",
};

const MONEY_FIELDS = new Set(["price", "cost", "margin"]);

/** What one post idea cites: a fact of the product's record or a dated evidence row. */
export function citeText(cite) {
  if (!cite || typeof cite !== "object") return "Unknown source";
  const value = cite.value !== undefined && cite.value !== null && cite.value !== "" ? `: ${cite.value}` : "";
  if (cite.kind === "product") {
    const field = cite.field || cite.name;
    // A price or cost reads as money ("30.00", or "$30.00" when the cite names its currency).
    const amount = MONEY_FIELDS.has(field) && typeof cite.value === "number"
      ? `: ${cite.currency ? money(cite.value, cite.currency) : cite.value.toFixed(2)}` : value;
    return `Your product's ${PRODUCT_FIELD_WORDS[field] || plain(field) || "record"}${amount}`;
  }
  if (cite.kind === "evidence") {
    const when = cite.date ? `Evidence of ${cite.date}` : "Evidence";
    const what = [cite.source ? plain(cite.source) : null, cite.metric ? plain(cite.metric) : null].filter(Boolean).join(", ");
    return `${when}${what ? `: ${what}` : ""}${cite.value !== undefined && cite.value !== null ? ` ${cite.value}` : ""}`;
  }
  return sourceText(cite);
}

/** A chip naming what a post idea cites. */
export function citeChip(cite) {
  const kind = cite && cite.kind === "evidence" ? "evidence" : "catalog";
  return h("span", { class: `chip chip-${kind}`, dataset: { cite: (cite && cite.kind) || "other" } }, citeText(cite));
}
