// Research: the analysis of your product (demand, competition, margin, risk, each with the
// evidence behind it), the same analyser over any product idea, and questions answered from
// the catalog with the products they cite.
import { h, fill, title, field, button, busy, money } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { whileResearching } from "../poll.js";
import { sourceChip } from "../sources.js";
import { productName } from "../words.js";

export const name = "research";
export const label = "Research";

const FIGURES = { demand: "Demand", competition: "Competition", margin: "Margin", risk: "Risk" };
// Whether a high reading is good news: high demand and margin are; high competition and risk are not.
const HIGH_IS_GOOD = { demand: true, margin: true, competition: false, risk: false };

function tone(figure) {
  if (figure.no_evidence || !["high", "medium", "low"].includes(figure.level)) return "unknown";
  if (figure.level === "medium") return "medium";
  return (figure.level === "high") === HIGH_IS_GOOD[figure.id] ? "good" : "bad";
}

export async function render(ctx) {
  const mine = h("div", {});
  fill(ctx.main,
    title("Research", "What the evidence says about your product, about any idea, and what the catalog holds."),
    h("section", { class: "panel", "aria-labelledby": "mine-title" }, h("h2", { id: "mine-title" }, "Your product"), mine),
    h("section", { class: "panel", "aria-labelledby": "analyze-title" }, h("h2", { id: "analyze-title" }, "Analyse an idea"), analyzeForm()),
    h("section", { class: "panel", "aria-labelledby": "ask-title" }, h("h2", { id: "ask-title" }, "Ask the catalog"), askForm()));
  const result = await whileResearching(ctx, () => get("/api/analysis"), mine);
  if (!result) return;
  const said = refusalOf(result);
  if (said) {
    fill(mine, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const productTitle = await productName(result.data.product_id);
  if (ctx.alive()) fill(mine, analysisView(result.data, productTitle));
}

/** The four figures, each with its level, why, and its evidence rows. */
export function analysisView(analysis, productTitle) {
  return [
    productTitle ? h("p", { class: "muted", dataset: { productId: analysis.product_id } }, productTitle) : null,
    analysis.basis ? h("p", {}, analysis.basis) : null,
    h("div", { class: "figure-grid" }, (analysis.figures || []).map((figure) => h("article", { class: "figure-card", dataset: { figure: figure.id } },
      h("h3", {}, FIGURES[figure.id] || figure.id),
      h("p", { class: `level level-${tone(figure)}` }, figure.no_evidence ? "No evidence" : figure.level),
      h("p", {}, figure.because),
      (figure.evidence || []).length
        ? h("details", {}, h("summary", {}, `${figure.evidence.length} source${figure.evidence.length === 1 ? "" : "s"}`),
          h("ul", { class: "chips" }, figure.evidence.map((source) => h("li", {}, sourceChip(source)))))
        : null))),
  ];
}

function analyzeForm() {
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "form-grid", novalidate: true },
    field("Product name", { type: "text", name: "name", maxlength: "200" }),
    field("Description", { name: "description", rows: "3", maxlength: "5000" }, { multiline: true }),
    h("div", { class: "form-actions" }, button("Analyse", null, { type: "submit" })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/analyze", { name: form.name.value, description: form.description.value });
      const said = refusalOf(result);
      fill(out, said ? refusal(said, {}, result.http) : analysisView(result.data));
    });
  });
  return [h("p", { class: "hint" }, "Describe a product. The analyser reads it through the closest catalog product "
    + "you may see; with none, every figure says there is no evidence rather than guess."), form, out];
}

function askForm() {
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "inline-form", role: "search", novalidate: true },
    field("Your question", { type: "search", name: "question", maxlength: "500", placeholder: "Which kitchen tools sell best?" }),
    button("Ask", null, { type: "submit" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/ask", { question: form.question.value });
      const said = refusalOf(result);
      if (said) {
        fill(out, refusal(said, {}, result.http));
        return;
      }
      const answer = result.data;
      const names = Object.fromEntries((answer.results || []).map((hit) => [hit.product_id, hit.name]));
      fill(out,
        h("p", { class: "answer" }, answer.answer),
        (answer.results || []).length ? h("ol", { class: "results" }, answer.results.map((hit) => h("li", { dataset: { productId: hit.product_id } },
          h("strong", {}, hit.name), ` (${hit.category}, ${money(hit.price, hit.currency)})`,
          h("br"), h("span", { class: "muted" }, hit.snippet)))) : null,
        (answer.citations || []).length
          ? h("p", { class: "muted" }, `From: ${answer.citations.map((id) => names[id] || "a catalog product").join(", ")}`)
          : null);
    });
  });
  return [form, out];
}
