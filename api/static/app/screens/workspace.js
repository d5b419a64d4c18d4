// The research workspace of a signed-in account: notes, a shortlist of products, saved
// queries, and discovery research runs over the supplier feed.
import { h, fill, title, field, button, busy, when, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { progress, poll } from "../poll.js";

export const name = "workspace";
export const label = "Research workspace";

// How a finished discovery run ended (services/discovery/runs.py), in words.
const RUN_WORDS = { done: "finished", failed: "failed", timed_out: "ran out of time", cancelled: "was cancelled" };

export async function render(ctx) {
  if (!(ctx.state.account && ctx.state.account.account)) {
    fill(ctx.main, title("Research workspace"),
      h("div", { class: "notice notice-info", role: "status" },
        h("p", { class: "notice-title" }, "Sign in to research"),
        h("p", {}, "Notes, a shortlist, saved queries and discovery research runs belong to a signed-in account."),
        h("p", { class: "actions" }, linkButton("Sign in", "#login", "primary"), linkButton("Save your progress", "#/app/account"))));
    return;
  }
  const lists = h("div", { class: "stack", "aria-live": "polite" });
  const runArea = h("div", {});
  fill(ctx.main, title("Research workspace", "Your notes, shortlist and saved queries, kept with your account."),
    lists, h("section", { class: "panel", "aria-labelledby": "run-title" },
      h("h2", { id: "run-title" }, "Discovery research"), runArea));

  const change = async (body) => {
    const result = await post("/api/research-workspace", body);
    const said = refusalOf(result);
    if (said) {
      ctx.toast(said.explanation);
      return;
    }
    show(result.data);
  };

  function show(space) {
    const noteForm = h("form", { class: "inline-form", novalidate: true },
      field("New note", { type: "text", name: "text", maxlength: "2000" }), button("Add note", null, { type: "submit" }));
    noteForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(noteForm.querySelector("button[type=submit]"), () => change({ op: "add_note", text: noteForm.text.value }));
    });
    const queryForm = h("form", { class: "inline-form", novalidate: true },
      field("Save a query", { type: "text", name: "query", maxlength: "200" }), button("Save query", null, { type: "submit" }));
    queryForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(queryForm.querySelector("button[type=submit]"), () => change({ op: "save_query", query: queryForm.query.value }));
    });
    fill(lists,
      h("section", { class: "panel", "aria-labelledby": "notes-title" }, h("h2", { id: "notes-title" }, "Notes"), noteForm,
        space.notes.length ? h("ul", { class: "list" }, space.notes.map((note) => h("li", {}, note.text, " ",
          h("span", { class: "muted" }, when(note.created_at)), " ",
          button("Delete", () => change({ op: "delete_note", id: note.id }), { kind: "ghost", "aria-label": `Delete note: ${note.text.slice(0, 40)}` }))))
          : h("p", { class: "empty" }, "No notes yet.")),
      h("section", { class: "panel", "aria-labelledby": "shortlist-title" }, h("h2", { id: "shortlist-title" }, "Shortlist"),
        space.shortlist.length ? h("ul", { class: "list" }, space.shortlist.map((item) => h("li", {}, h("strong", {}, item.name),
          " ", button("Remove", () => change({ op: "unshortlist", product_id: item.product_id }), { kind: "ghost", "aria-label": `Remove ${item.name}` }))))
          : h("p", { class: "empty" }, "Nothing shortlisted. Use Shortlist on a card in your feed.")),
      h("section", { class: "panel", "aria-labelledby": "queries-title" }, h("h2", { id: "queries-title" }, "Saved queries"), queryForm,
        space.saved_queries.length ? h("ul", { class: "list" }, space.saved_queries.map((q) => h("li", {}, q.query, " ",
          button("Run", () => startRun(q.query), { kind: "ghost", "aria-label": `Run discovery for ${q.query}` }),
          button("Delete", () => change({ op: "delete_query", id: q.id }), { kind: "ghost", "aria-label": `Delete query ${q.query}` }))))
          : h("p", { class: "empty" }, "No saved queries.")));
  }

  async function startRun(query) {
    const result = await post("/api/discovery-research", query ? { q: query } : {});
    const said = refusalOf(result);
    if (said) {
      fill(runArea, refusal(said, {}, result.http));
      return;
    }
    await followRun();
  }

  async function followRun() {
    const panel = progress("Discovery research is running…");
    const result = await poll(ctx, () => get("/api/discovery-research"), {
      waiting: ({ data }) => data && (data.status === "queued" || data.status === "running"),
      onWait: ({ data }) => {
        if (!runArea.contains(panel.node)) fill(runArea, panel.node);
        // What is happening for the founder (it starts by itself), not how the service runs it.
        panel.update(data.status === "queued" ? "Discovery research is in the queue, starting in a moment…"
          : "Discovery research is searching the supplier feed…");
      },
      every: 1500,
    });
    if (!result) return;
    const run = result.data;
    const form = h("form", { class: "inline-form", novalidate: true },
      field("Search the supplier feed for", { type: "text", name: "q", maxlength: "200" }),
      button("Start a run", null, { type: "submit" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(form.querySelector("button[type=submit]"), () => startRun(form.q.value.trim()));
    });
    fill(runArea,
      run.status === "never_run" ? h("p", { class: "empty" }, run.explanation)
        : h("div", { class: "run", dataset: { run: run.status } },
          h("p", {}, `The last run${run.query ? ` for “${run.query}”` : ""} ${RUN_WORDS[run.status] || run.status}, `
            + `${when(run.finished_at)}.`),
          // What the script printed is for whoever runs the service: small print, closed.
          (run.log || []).length || (run.stderr || []).length
            ? h("details", {}, h("summary", { class: "hint" }, "What the run printed"),
              (run.log || []).length ? h("pre", { class: "log" }, run.log.join("\n")) : null,
              (run.stderr || []).length ? h("pre", { class: "log log-err" }, run.stderr.join("\n")) : null)
            : null),
      form);
  }

  const result = await get("/api/research-workspace");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) fill(lists, refusal(said, { retry: () => ctx.rerender() }, result.http));
  else show(result.data);
  await followRun();
}
