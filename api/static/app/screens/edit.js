// Edit: two ways to change the store, named apart. "Suggest from the evidence": say what the
// store should achieve and the service proposes the section to lead with, only with a dated
// evidence row behind it (apply it, undo it). "Rewrite it yourself": a plain-language edit of
// the words, questions or price. And the leading section picked by hand, in words.
import { h, fill, title, field, button, busy, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { sourceText } from "../sources.js";

export const name = "edit";
export const label = "Edit the store";

const SURFACES = [["home", "Home page"], ["product", "Product page"], ["faq", "FAQ"], ["shipping", "Shipping"], ["about", "About"]];
export async function render(ctx) {
  const store = await get("/api/store");
  if (!ctx.alive()) return;
  const said = refusalOf(store);
  // The sections the home page can lead with, in order, as a founder calls them: the store's
  // own answer says them (services/store/sections.py), so the screen keeps no list of its own.
  const leads = (store.data && store.data.leads) || [];
  const words = Object.fromEntries(leads.map((lead) => [lead.section, lead.said]));
  const sectionWords = (section) => words[section] || section;
  if (said && !(store.data && store.data.version)) {
    fill(ctx.main, title("Edit the store"), refusal(said, {}, store.http),
      h("p", { class: "actions" }, linkButton("Go to your store", "#/app/store", "primary")));
    return;
  }
  const outcome = h("div", { "aria-live": "polite" });
  const proposalArea = h("div", { "aria-live": "polite" });
  const preview = store.data.preview_url;
  const signedIn = ctx.state.account && ctx.state.account.account;

  const ask = h("form", { class: "panel", novalidate: true },
    h("h2", {}, "Suggest from the evidence"),
    h("p", { class: "hint" }, "Say what your store should achieve (\"show that it is trending\", \"lead with the "
      + "price\"). The service suggests what your home page should lead with, only when a dated evidence row "
      + "backs it, and shows you that evidence before anything changes. Free."),
    h("div", { class: "field" }, h("label", { for: "surface" }, "Where"),
      h("select", { id: "surface", name: "surface" }, SURFACES.map(([value, text]) => h("option", { value }, text)))),
    field("What should your store achieve?", { name: "requested", required: true, maxlength: "2000" }, { multiline: true }),
    h("div", { class: "form-actions" }, button("Suggest a change", null, { type: "submit" })));
  ask.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(ask.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/intent", { surface: ask.surface.value, requested: ask.requested.value });
      const no = refusalOf(result);
      fill(proposalArea, no ? refusal(no, {}, result.http) : proposalView(result.data.proposal));
    });
  });

  function proposalView(proposal) {
    const row = proposal.source_row;
    const apply = button("Apply this change", (event) => busy(event.currentTarget, async () => {
      const result = await post("/api/intent/apply", { intent_change: proposal.intent_change });
      const no = refusalOf(result);
      if (no) {
        fill(outcome, refusal(no, {}, result.http));
        return;
      }
      fill(proposalArea);
      fill(outcome, h("div", { class: "notice notice-success", role: "status", dataset: { applied: result.data.lead } },
        h("p", { class: "notice-title" }, result.data.status === "applied" ? "Applied" : "Applying…"),
        h("p", {}, `Your store now leads with ${sectionWords(result.data.lead)}${result.data.version ? ` (version ${result.data.version})` : ""}.`),
        h("p", { class: "actions" }, preview ? h("a", { class: "btn btn-secondary", href: preview, target: "_blank", rel: "noopener" }, "Open the preview") : null)));
      await loadHistory();
    }), { "data-action": "apply" });
    return h("section", { class: "panel proposal", "aria-labelledby": "proposal-title", dataset: { lead: proposal.lead } },
      h("h2", { id: "proposal-title" }, "Suggested change"),
      h("p", { class: "verdict-gloss" }, proposal.diff),
      h("p", {}, proposal.because),
      h("p", { class: "chip chip-evidence" }, sourceText({ type: "evidence", ...row })),
      h("p", { class: "hint" }, proposal.reversible ? "You can undo it afterwards." : "This change cannot be undone."),
      h("p", { class: "actions" }, apply));
  }

  // A plain-language edit (signed-in founders; metered only when it makes a version).
  const plain = h("form", { class: "panel", novalidate: true },
    h("h2", {}, "Rewrite it yourself"),
    signedIn
      ? [h("p", { class: "hint" }, "Tell the editor exactly what to change in your store's words, questions or price. "
          + "For example: \"change the headline to ...\", \"add a question: ...? ...\", \"remove the question "
          + "about returns\", \"set the price to 24.99\". No evidence needed; each edit that changes your store "
          + "costs AI editor credits."),
        field("Your edit", { name: "message", required: true, maxlength: "2000" }, { multiline: true }),
        h("div", { class: "form-actions" }, button("Make this edit", null, { type: "submit" }))]
      : h("p", { class: "hint" }, "Sign in to rewrite your store's words yourself."));
  plain.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(plain.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/ai/edit", { message: plain.message.value });
      const no = refusalOf(result);
      fill(outcome, no ? refusal(no, {}, result.http) : h("p", { class: "notice notice-success", role: "status",
        dataset: { edited: String(result.data.version) } }, `Edited: you are now editing version ${result.data.version}.`));
      await loadHistory();
    });
  });

  // What the home page leads with now: the version being edited says (GET /api/editor/draft), and
  // the list below starts there, so it never shows a section the page does not lead with.
  const leadsNow = h("p", { class: "hint", "aria-live": "polite" });
  const order = h("form", { class: "panel inline-form", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "lead" }, "Lead the home page with"),
      h("select", { id: "lead", name: "lead" }, leads.map(({ section, said: named }) => h("option", { value: section },
        named.charAt(0).toUpperCase() + named.slice(1))))),
    button("Set the leading section", null, { type: "submit", kind: "secondary" }),
    leadsNow);
  async function showLead() {
    const result = await get("/api/editor/draft");
    if (!ctx.alive() || refusalOf(result)) return;
    const lead = result.data.document.lead;
    order.lead.value = lead;
    leadsNow.dataset.leads = lead;
    leadsNow.textContent = `Version ${result.data.number}, the one you are editing, leads with ${sectionWords(lead)}.`;
  }
  order.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(order.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/intent/order", { section: order.lead.value });
      const no = refusalOf(result);
      fill(outcome, no ? refusal(no, {}, result.http) : h("p", { class: "notice notice-success", role: "status" },
        `Your home page leads with ${sectionWords(result.data.lead)}${result.data.version ? ` (version ${result.data.version})` : " already"}.`));
      await loadHistory();
    });
  });

  const undo = button("Undo the last applied change", (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/intent/revert");
    const no = refusalOf(result);
    if (no) {
      fill(outcome, refusal(no, {}, result.http));
      return;
    }
    fill(outcome, h("div", { class: `notice ${result.data.status === "reverted" ? "notice-success" : "notice-warn"}`, role: "status",
      dataset: { reverted: result.data.status } },
      h("p", { class: "notice-title" }, result.data.status === "reverted" ? "Undone" : "Not undone"),
      h("p", {}, result.data.explanation || `${result.data.reverted_from.diff} That is undone`
        + (result.data.version ? `: you are now editing version ${result.data.version}.` : "."))));
    await loadHistory();
  }), { kind: "secondary", "data-action": "revert" });

  const history = h("section", { class: "panel", "aria-labelledby": "history-title" });
  const step = (body) => async (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/ai/edit", body);
    const no = refusalOf(result);
    fill(outcome, no ? refusal(no, {}, result.http)
      : h("p", { class: "notice notice-success", role: "status" }, `You are now editing version ${result.data.version}.`));
    await loadHistory();
  });
  // Every change and every step between versions ends here: the versions, and what the home
  // page leads with, are read again from the version being edited.
  async function loadHistory() {
    const [result] = await Promise.all([get("/api/editor/versions"), showLead()]);
    if (!ctx.alive()) return;
    const no = refusalOf(result);
    if (no) {
      fill(history, refusal(no, {}, result.http));
      return;
    }
    fill(history, h("h2", { id: "history-title" }, "Versions"),
      h("p", { class: "hint" }, "Step back and Step forward move between versions. Undo the last applied change "
        + "undoes the newest suggestion the version you are editing carries and keeps what you changed since. "
        + "Building a new version keeps every change the version you are editing carries."),
      signedIn
        ? h("p", { class: "actions" }, button("Step back", step({ direction: "undo" }), { kind: "secondary", "data-action": "undo" }),
          button("Step forward", step({ direction: "redo" }), { kind: "secondary", "data-action": "redo" }))
        : h("p", { class: "hint" }, "Sign in to step back and forth between versions."),
      h("ol", { class: "list versions", reversed: true }, result.data.versions.map((v) => h("li", { dataset: { version: String(v.number) } },
        h("strong", {}, `Version ${v.number}`), ` · ${v.summary}`,
        v.draft ? h("span", { class: "tag tag-ok" }, " being edited") : null,
        v.published ? h("span", { class: "tag tag-ok" }, " published") : null,
        signedIn && !v.draft ? [" ", button("Go to it", step({ version: v.number }), { kind: "ghost", "aria-label": `Go to version ${v.number}` })] : null))));
  }

  fill(ctx.main,
    title("Edit the store", "Let the evidence suggest what to lead with, or rewrite the words yourself; every change "
      + "is a new version you can step back from."),
    ask, proposalArea, outcome, plain, order, history,
    h("p", { class: "actions" }, undo, preview ? h("a", { class: "btn btn-ghost", href: preview, target: "_blank", rel: "noopener" }, "Open the preview") : null,
      linkButton("Your store", "#/app/store")));
  await loadHistory();
}
