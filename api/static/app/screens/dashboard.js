// Dashboard: the verdict on your product by the published rules, the facts behind it with
// their sources, the 3D preview, and the outcome you declare once you have sold.
import { h, fill, title, button, busy, field, money, moneyMinor, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { whileResearching, poll, progress } from "../poll.js";
import { sourceChip, sourceText } from "../sources.js";
import { showModel } from "../viewer3d.js";
import { productName } from "../words.js";
import { trendList } from "../charts.js";

export const name = "dashboard";
export const label = "Dashboard";

const VERDICTS = {
  go: ["Go", "The figures and the evidence back launching this product."],
  test_small: ["Test small", "Worth a small, bounded test before you commit."],
  pass: ["Pass", "The figures or the evidence do not back this product."],
};
// The rule that decided the verdict (services/research/verdict.py), in words.
const RULES = {
  loses_money: "a sale would lose money",
  thin_margin: "the margin is too thin",
  too_little_evidence: "too little recent evidence",
  no_outside_evidence: "no outside readings yet for a product of your own, so your own figures speak",
  strong: "a margin at or above the target, with demand and low risk",
  mixed: "some figures are good, some are not",
};

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Dashboard", "The verdict on your product, the facts behind it, and where each one comes from."), body);
  const result = await whileResearching(ctx, () => get("/api/dashboard"), body);
  if (!result) return;
  const said = refusalOf(result);
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const board = result.data;
  const [productTitle, revenue] = await Promise.all([productName(board.product_id), get("/api/revenue")]);
  if (!ctx.alive()) return;
  // What the store's paid orders earned in the product's currency: Orders knows it, so it is not asked for.
  const earned = ((revenue.data && revenue.data.stores) || [])
    .find((store) => store.product_id === board.product_id && store.currency === board.offer.currency) || null;
  const [word, gloss] = VERDICTS[board.verdict] || [board.verdict, ""];
  const modelSlot = h("div", {});
  fill(body,
    h("section", { class: `verdict verdict-${board.verdict}`, "aria-labelledby": "verdict-title" },
      h("p", { class: "verdict-kicker" }, `Verdict for ${productTitle}`),
      h("h2", { id: "verdict-title", class: "verdict-word", dataset: { verdict: board.verdict } }, word),
      h("p", { class: "verdict-gloss" }, gloss),
      h("p", {}, board.because),
      board.rule ? h("p", { class: "muted" }, `Decided by: ${RULES[board.rule] || board.rule.replace(/_/g, " ")}. `
        + "The same rules judge every product.") : null),
    h("section", { class: "panel", "aria-labelledby": "facts-title" },
      h("h2", { id: "facts-title" }, "The facts behind it"),
      h("ul", { class: "facts" }, (board.facts || []).map((fact) => h("li", { dataset: { fact: fact.id } },
        h("p", {}, fact.text), sourceChip(fact.source, { own: board.own_product }))))),
    (board.trends || []).length ? h("section", { class: "panel", "aria-labelledby": "trends-title", dataset: { picture: "trends" } },
      h("h2", { id: "trends-title" }, "How the evidence moves"),
      h("p", { class: "hint" }, "Each line is one measure from one source over the last six months, oldest on the left; "
        + "higher on the line is better, even for a rank."),
      trendList(board.trends)) : null,
    h("details", { class: "panel" },
      h("summary", {}, `All ${(board.sources || []).length} sources`),
      h("ul", { class: "list" }, (board.sources || []).map((source) => h("li", {}, sourceText(source, { own: board.own_product }))))),
    h("section", { class: "panel", "aria-labelledby": "outcome-title" },
      h("h2", { id: "outcome-title" }, "How did it go?"),
      earned
        ? h("p", { dataset: { ordersRevenueMinor: String(earned.confirmed_minor) } },
          `Your paid orders earned ${moneyMinor(earned.confirmed_minor, earned.currency)} (${earned.orders} paid `
          + `order${earned.orders === 1 ? "" : "s"}, on the Orders screen); it is counted as your revenue. Declare what you spent.`)
        : h("p", { class: "hint" }, "Once you have sold, declare what you spent and what it earned. Every founder's "
          + "outcomes make the public track record."),
      outcomeForm(earned, board.offer.currency)),
    h("section", { class: "panel", "aria-labelledby": "model-title" },
      h("h2", { id: "model-title" }, "3D preview"), modelSlot),
    h("p", { class: "actions" }, linkButton("Launch facts", "#/app/launch", "primary"), linkButton("The offer", "#/app/offer")));
  loadModel(ctx, modelSlot); // not awaited: the verdict is the screen; the preview shows its own progress
}

// `earned`: the store's confirmed revenue (GET /api/revenue); with it the form asks for spend
// only, and the service counts the orders' revenue.
function outcomeForm(earned, currency) {
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "form-grid", novalidate: true },
    field("Spend (ads and samples)", { type: "number", name: "spend", min: "0", step: "0.01", inputmode: "decimal" }),
    earned ? null : field("Revenue", { type: "number", name: "revenue", min: "0", step: "0.01", inputmode: "decimal" }),
    field("Note", { type: "text", name: "note", maxlength: "500" }),
    h("div", { class: "form-actions" }, button("Record the outcome", null, { type: "submit" })),
    message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const payload = {};
    for (const key of ["spend", "revenue"]) {
      if (!form[key]) continue;
      const raw = form[key].value.trim();
      if (raw !== "") payload[key] = Number(raw);
    }
    if (form.note.value.trim()) payload.note = form.note.value.trim();
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/outcome", payload);
      if (result.data && result.data.status === "recorded") {
        const outcome = result.data.outcome;
        fill(message, h("p", { class: "notice notice-success", role: "status" },
          `Recorded: spent ${money(outcome.spend ?? 0, currency)}, earned ${money(outcome.revenue ?? 0, currency)}`
          + `${outcome.revenue_from_orders ? " (from your paid orders)" : ""}; that counts as a ${outcome.result}.`));
      } else {
        fill(message, refusal(refusalOf(result), {}, result.http));
      }
    });
  });
  return form;
}

async function loadModel(ctx, slot) {
  const panel = progress("Building the 3D preview…");
  const result = await poll(ctx, () => get("/api/model"), {
    waiting: ({ data }) => data && data.status === "building",
    onWait: () => { if (!slot.contains(panel.node)) fill(slot, panel.node); },
    every: 1500,
  });
  if (!result) return;
  const data = result.data;
  if (data && data.status === "ready") {
    showModel(slot, data);
    return;
  }
  fill(slot,
    refusal(refusalOf(result) || data, {}, result.http),
    data && data.image ? h("img", { src: data.image, alt: "Product photo", class: "model-fallback", width: 320, height: 240 }) : null);
}
