// Launch facts: what must be true before the product goes live, each computed from the
// real records (areas the service does not offer yet read false and say so).
import { h, fill, title, linkButton } from "../dom.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "launch";
export const label = "Launch facts";

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Launch facts", "Everything that must be true before your product goes live, checked against "
    + "your records today."), body);
  const result = await get("/api/launch");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const facts = result.data.facts || [];
  const done = facts.filter((fact) => fact.true_today).length;
  fill(body,
    result.data.product_id
      ? h("p", { class: "muted" }, `Product ${result.data.product_id}`)
      : h("div", { class: "notice notice-info", role: "status" },
        h("p", { class: "notice-title" }, "No product yet"),
        h("p", {}, "Hold and claim a product first; the facts below follow from it."),
        h("p", { class: "actions" }, linkButton("Find a product", "#/app/find", "primary"))),
    h("p", {}, h("strong", {}, `${done} of ${facts.length}`), " are true today."),
    h("progress", { max: String(facts.length || 1), value: String(done), "aria-label": "Launch facts true today" }),
    h("ul", { class: "checklist" }, facts.map((fact) => h("li", {
      class: fact.true_today ? "check-yes" : "check-no", dataset: { fact: fact.id, true: String(fact.true_today) },
    },
    h("span", { class: "check-mark", "aria-hidden": "true" }, fact.true_today ? "✓" : "○"),
    h("span", {}, h("strong", {}, fact.label), h("span", { class: "visually-hidden" }, fact.true_today ? ": true" : ": not yet"),
      h("br"), h("span", { class: "muted" }, fact.detail))))));
}
