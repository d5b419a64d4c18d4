// Insights: the nightly research brief (what moved in the catalog) and the public track
// record of every founder's declared outcomes.
import { h, fill, title, when, money, percent } from "../dom.js";
import { plain } from "../sources.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { dayWords } from "../words.js";

export const name = "insights";
export const label = "Insights";

// Why a product no longer clears the evidence gate (services/brief.py), in words.
const WHY_NOT = {
  thin_margin: "its margin is too thin",
  too_few_rows: "too few recent evidence rows",
  old_evidence: "its evidence is too old",
  not_assessed: "not assessed yet",
};

export async function render(ctx) {
  const [record, brief] = await Promise.all([get("/api/track-record"), get("/api/brief")]);
  if (!ctx.alive()) return;
  fill(ctx.main,
    title("Insights", "What moved in the catalog overnight, and how founders' claims have turned out."),
    h("section", { class: "panel", "aria-labelledby": "record-title" },
      h("h2", { id: "record-title" }, "Track record"), trackRecord(record)),
    h("section", { class: "panel", "aria-labelledby": "brief-title" },
      h("h2", { id: "brief-title" }, "Nightly research brief"), briefView(brief)));
}

function trackRecord(result) {
  const said = refusalOf(result);
  if (said) return refusal(said, {}, result.http);
  const r = result.data;
  return [
    h("div", { class: "stats" },
      stat("Hit rate", r.hit_rate === null ? "No outcomes yet" : percent(r.hit_rate * 100), "hit-rate"),
      stat("Wins", r.wins, "wins"), stat("Misses", r.misses, "misses"), stat("Pending claims", r.pending, "pending")),
    h("p", { class: "hint" }, `Over ${r.basis.outcomes} declared outcome${r.basis.outcomes === 1 ? "" : "s"}. ${r.basis.definition}`),
  ];
}

function stat(label, value, key) {
  return h("div", { class: "stat" }, h("p", { class: "stat-label" }, label), h("p", { class: "stat-value", dataset: { stat: key } }, String(value)));
}

function briefView(result) {
  const said = refusalOf(result);
  if (said) return refusal(said, {}, result.http);
  if (result.data.status === "never_run") {
    return h("p", { class: "empty", dataset: { brief: "never_run" } }, result.data.explanation);
  }
  const brief = result.data.brief;
  const items = Object.fromEntries((brief.items || []).map((item) => [item.kind, item]));
  return [
    h("p", { class: "muted" }, `Made ${when(brief.generated_at)}, covering ${brief.window ? `${dayWords(brief.window.start)} up to ${dayWords(brief.window.end)}` : "the last day"}.`),
    section("New evidence", items.new_evidence, (item) => item.products.length
      ? h("ul", { class: "list" }, item.products.map((p) => h("li", {}, h("strong", {}, p.name), ` (${p.category}): `,
        p.rows.map((row) => `${plain(row.source)} ${plain(row.metric)} ${row.value} on ${dayWords(row.date)}`).join("; "))))
      : h("p", { class: "empty" }, "No new evidence in this window.")),
    section("Crossed the evidence gate", items.crossed_gate, (item) => item.baseline
      ? h("p", {}, `This first brief recorded the baseline: ${item.clearing} products clear the gate.`)
      : item.products.length
        ? h("ul", { class: "list" }, item.products.map((p) => h("li", {}, h("strong", {}, p.name),
          p.direction === "in" ? " now clears the gate" : ` no longer clears it: ${WHY_NOT[p.why_not] || plain(p.why_not)}`)))
        : h("p", { class: "empty" }, "No product crossed the gate either way.")),
    section("New claims by category", items.new_claims, (item) => item.by_category.length
      ? h("ul", { class: "list" }, item.by_category.map((c) => h("li", {}, `${c.category}: ${c.claims}`)))
      : h("p", { class: "empty" }, "No new claims in this window.")),
    section("Best unclaimed candidates", items.candidates, (item) => h("ol", { class: "list" }, item.products.map((p) => h("li", {},
      h("strong", {}, p.name), ` (${p.category}) ${money(p.price, p.currency)}, margin ${percent(p.margin_pct)}, `
      + `${p.evidence_count} evidence rows`)))),
  ];
}

function section(heading, item, body) {
  if (!item) return null;
  return h("div", { class: "brief-item", dataset: { kind: item.kind } },
    h("h3", {}, heading), body(item),
    item.left_out ? h("p", { class: "muted" }, `${item.left_out} more not shown.`) : null,
    h("details", {}, h("summary", { class: "hint" }, "How this is counted"), h("p", { class: "hint" }, item.basis)));
}
