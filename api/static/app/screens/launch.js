// Launch: where your claimed product stands (draft, ready, live, paused, retired), the steps
// it can take now, and for a step that waits, the launch facts it waits on; below, every
// launch fact, each computed from the real records (areas the service does not offer yet
// read false and say so).
import { h, fill, title, button, busy, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { LAUNCH_STATES as STATE_WORDS, stateWord, momentWords } from "../words.js";

export const name = "launch";
export const label = "Launch";

// The actions of POST /api/product-launch, in the order the buttons show them.
const ACTIONS = ["prepare", "launch", "pause", "resume", "retire"];
const ACTION_WORDS = { prepare: "Get ready", launch: "Launch", pause: "Pause", resume: "Resume", retire: "Retire" };

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Launch", "Where your product stands, the steps it can take now, and everything that must "
    + "be true before it goes live, checked against your records today."), body);
  const result = await get("/api/launch");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const facts = result.data.facts || [];
  const labels = Object.fromEntries(facts.map((fact) => [fact.id, fact.label]));
  const details = Object.fromEntries(facts.map((fact) => [fact.id, fact.detail]));
  const named = (ids) => ids.map((id) => labels[id] || id).join(", ");
  const outcome = h("div", { "aria-live": "polite" });

  const act = (action) => (event) => busy(event.currentTarget, async () => {
    const answer = await post("/api/product-launch", { action });
    if (!ctx.alive()) return;
    const refused = refusalOf(answer);
    if (!refused) {
      await ctx.rerender();
      // After the new render: a render clears the toast of the screen it replaces.
      ctx.toast(`${ACTION_WORDS[action]}: your product is ${stateWord(STATE_WORDS, answer.data.state).toLowerCase()} now.`);
      return;
    }
    fill(outcome, refusal(refused, { retry: () => ctx.rerender() }, answer.http),
      (refused.blocked_by || []).length
        ? h("ul", { class: "list", dataset: { blockedBy: refused.blocked_by.join(" ") } },
          refused.blocked_by.map((id) => h("li", {}, h("strong", {}, labels[id] || id),
            details[id] ? `: ${details[id]}` : "")))
        : null);
  });

  // Retiring is final, so it asks once more, on the page (no browser dialog).
  const retire = (event) => {
    const row = event.currentTarget.closest("li");
    const confirm = h("p", { class: "actions", dataset: { confirm: "retire" } },
      h("span", {}, "Retire for good? Nothing can follow it."),
      button("Yes, retire it", act("retire"), { kind: "secondary" }),
      button("Keep it", () => confirm.remove(), { kind: "ghost" }));
    if (!row.querySelector("[data-confirm]")) row.append(confirm);
    confirm.querySelector("button").focus();
  };

  fill(body,
    result.data.product_id
      ? h("p", { class: "muted", dataset: { productId: result.data.product_id } }, result.data.product_name || "Your product")
      : h("div", { class: "notice notice-info", role: "status" },
        h("p", { class: "notice-title" }, "No product yet"),
        h("p", {}, "Hold and claim a product first; the facts below follow from it."),
        h("p", { class: "actions" }, linkButton("Find a product", "#/app/find", "primary"))),
    nextStep(result.data.next_step),
    stateSection(result.data, { named, act, retire }),
    outcome,
    h("h2", {}, "Launch facts"),
    checklist(facts));
}

/** The one sentence every screen says of where the product stands (GET /api/launch next_step). */
function nextStep(step) {
  if (!step || step.step === "find") return null;
  return h("div", { class: `notice ${step.selling ? "notice-success" : "notice-info"}`, role: "status",
    dataset: { step: step.step, selling: String(step.selling) } },
  h("p", { class: "notice-title" }, step.selling ? "Selling now" : "Not selling now"),
  h("p", {}, step.says));
}

function stateSection(data, { named, act, retire }) {
  const launch = data.launch_state;
  if (!launch) {
    if (!data.product_id) return null;
    return h("div", { class: "notice notice-info", role: "status", dataset: { launchState: "none" } },
      h("p", { class: "notice-title" }, "Claim it to launch it"),
      h("p", {}, "You hold this product but have not claimed it; its launch starts once it is yours."),
      h("p", { class: "actions" }, linkButton("Go to your feed", "#/app/find", "primary")));
  }
  const [word, meaning] = STATE_WORDS[launch.state] || [launch.state, ""];
  const steps = ACTIONS.filter((action) => launch.allowed.includes(action) || launch.blocked[action]);
  return h("section", { class: "panel", "aria-labelledby": "launch-state-title", dataset: { launchState: launch.state } },
    h("h2", { id: "launch-state-title" }, `Your product is ${launch.state === "draft" ? "a draft" : word.toLowerCase()}`),
    h("p", {}, meaning),
    h("dl", { class: "pairs" },
      h("dt", {}, "State"), h("dd", {}, word),
      h("dt", {}, "Before"), h("dd", {}, launch.previous ? stateWord(STATE_WORDS, launch.previous) : "—"),
      h("dt", {}, "Changed"), h("dd", {}, launch.changed_at ? momentWords(launch.changed_at) : "not yet")),
    steps.length
      ? h("ul", { class: "launch-steps" }, steps.map((action) => {
        const waits = launch.blocked[action] || [];
        const hintId = `launch-waits-${action}`;
        return h("li", { dataset: { action, blocked: String(waits.length > 0) } },
          button(ACTION_WORDS[action], action === "retire" ? retire : act(action), {
            kind: waits.length ? "secondary" : action === "retire" ? "ghost" : "primary",
            "aria-describedby": waits.length ? hintId : undefined,
          }),
          waits.length
            ? h("span", { class: "hint", id: hintId, dataset: { waits: waits.join(" ") } }, `Waits on: ${named(waits)}`)
            : null);
      }))
      : h("p", { class: "hint" }, "No step follows."));
}

function checklist(facts) {
  const done = facts.filter((fact) => fact.true_today).length;
  return [
    h("p", {}, h("strong", {}, `${done} of ${facts.length}`), " are true today."),
    h("progress", { max: String(facts.length || 1), value: String(done), "aria-label": "Launch facts true today" }),
    h("ul", { class: "checklist" }, facts.map((fact) => h("li", {
      class: fact.true_today ? "check-yes" : "check-no", dataset: { fact: fact.id, true: String(fact.true_today) },
    },
    h("span", { class: "check-mark", "aria-hidden": "true" }, fact.true_today ? "✓" : "○"),
    h("span", {}, h("strong", {}, fact.label), h("span", { class: "visually-hidden" }, fact.true_today ? ": true" : ": not yet"),
      h("br"), h("span", { class: "muted" }, fact.detail))))),
  ];
}
