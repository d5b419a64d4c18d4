// Tasks: the founder's own to-do list and the next launch steps the service adds to it (each
// with a link to the screen where it is done), ticked off as they come true; a bar shows how
// far the launch has come, counted as the Launch screen counts it.
import { h, fill, title, field, button, busy, linkButton, plural } from "../dom.js";
import { dayWords } from "../words.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "tasks";
export const label = "Tasks";

// Where each launch step is done.
const STEP_SCREENS = {
  product_claimed: ["Find a product", "#/app/find"],
  offer_researched: ["See the offer", "#/app/offer"],
  store_built: ["Open your store", "#/app/store"],
  store_published: ["Open your store", "#/app/store"],
  domain_connected: ["Choose a domain", "#/app/domains"],
  payments_ready: ["Check your launch", "#/app/launch"],
  supplier_connected: ["Choose a supplier", "#/app/suppliers"],
  sample_ordered: ["Order a sample", "#/app/suppliers"],
  ad_balance_funded: ["Top up your ads", "#/app/growth"],
  support_address_set: ["Open settings", "#/app/settings"],
};

export async function render(ctx) {
  const launchSlot = h("div", {});
  const listSlot = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "inline-form", novalidate: true },
    field("A new task", { type: "text", name: "text", maxlength: "300", autocomplete: "off" }),
    button("Add task", null, { type: "submit" }));
  fill(ctx.main, title("Tasks", "What is left to do: your own tasks, and the next steps to launch, which we add "
    + "and tick off as you go."),
  launchSlot,
  h("section", { class: "panel", "aria-labelledby": "tasks-title" }, h("h2", { id: "tasks-title" }, "Your list"),
    form, listSlot));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = form.text.value;
    await busy(form.querySelector("button[type=submit]"), async () => {
      if (await change({ op: "add", text })) form.text.value = "";
    });
  });

  async function change(body) {
    const result = await post("/api/todos", body);
    if (!ctx.alive()) return false;
    const said = refusalOf(result);
    if (said) {
      ctx.toast(said.explanation);
      return false;
    }
    show(result.data);
    return true;
  }

  function show(data) {
    const open = data.todos.filter((t) => !t.done);
    const done = data.todos.filter((t) => t.done);
    fill(launchSlot, launchProgress(stands));
    fill(listSlot,
      open.length ? h("ul", { class: "tasks", dataset: { open: String(open.length) } }, open.map(row))
        : h("p", { class: "empty" }, "Nothing left to do on your list."),
      done.length ? h("details", { class: "tasks-done" },
        h("summary", {}, `Done (${data.done})`),
        h("ul", { class: "tasks" }, done.map(row))) : null);
  }

  function row(task) {
    const box = h("input", { type: "checkbox", id: `task-${task.id}`, checked: task.done || undefined });
    box.addEventListener("change", () => busy(box, () => change({ op: task.done ? "reopen" : "complete", id: task.id })));
    const screen = task.done ? null : task.source === "launch" ? STEP_SCREENS[task.fact_id]
      : task.source === "ads" ? ["Open Growth", "#/app/growth"] : null;
    return h("li", { class: `task${task.done ? " task-done" : ""}`, dataset: { taskId: String(task.id), source: task.source } },
      box,
      h("label", { for: `task-${task.id}` }, task.text,
        task.source === "launch" ? h("span", { class: "chip chip-launch" }, "Launch step") : null,
        task.source === "ads" ? h("span", { class: "chip chip-launch" }, "Your ads") : null,
        task.done ? h("span", { class: "muted" }, ` Done ${dayWords(task.completed_at)}`) : null),
      h("span", { class: "task-actions" },
        screen ? linkButton(screen[0], screen[1]) : null,
        button("Delete", (event) => busy(event.currentTarget, () => change({ op: "delete", id: task.id })),
          { kind: "ghost", "aria-label": `Delete: ${task.text.slice(0, 60)}` })));
  }

  // The launch's progress is the Launch screen's own count of its facts (GET /api/launch
  // next_step), not a count of the steps that happen to be on this list.
  const [result, launch] = await Promise.all([get("/api/todos"), get("/api/launch")]);
  if (!ctx.alive()) return;
  const stands = launch.data && launch.data.next_step;
  const said = refusalOf(result);
  if (said) {
    fill(listSlot, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  show(result.data);
}

/** How far the launch has come: the launch facts true today of all, as a bar and in words, and
 * the next step as every screen says it. */
function launchProgress(step) {
  if (!step || step.step === "find") return null;
  const words = `${step.facts_true} of ${plural(step.facts_total, "launch fact")} true today`;
  return h("section", { class: "panel", "aria-labelledby": "launch-progress-title", dataset: { step: step.step } },
    h("h2", { id: "launch-progress-title" }, "Your launch"),
    h("p", {}, step.says),
    h("progress", { class: "launch-bar", max: String(step.facts_total), value: String(step.facts_true), "aria-label": words }),
    h("p", { class: "muted" }, `${words}. `, h("a", { href: "#/app/launch" }, "See every launch step")));
}
