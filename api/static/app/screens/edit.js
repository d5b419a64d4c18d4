// Edit: two ways to change the store, named apart. "Suggest from the evidence": say what the
// store should achieve and the service proposes the section to lead with, only with a dated
// evidence row behind it (apply it, undo it). "Rewrite it yourself": a plain-language edit of
// the words, questions or price. And the leading section picked by hand, in words.
import { h, fill, title, field, button, busy, linkButton, money } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { sourceText } from "../sources.js";
import { exampleChips, refusalWithExamples } from "../plain-edit.js";

export const name = "edit";
export const label = "Edit the store";

const SURFACES = [["home", "Home page"], ["product", "Product page"], ["faq", "FAQ"], ["shipping", "Shipping"], ["about", "About"]];

// Requests the plain-language editor understands (services/plain_requests.py), offered as chips
// that start the founder's own; a question needs the founder's words, so its chip only begins one.
const STARTERS = ["Make the headline shorter", "Mention free returns within 30 days", "Lead with the price",
  "Change the tone to friendly", { label: "Add a question: …", words: "Add a question: " }];

// The parts of a store's copy as a founder calls them (services/store/sections.py COPY_PARTS),
// by the name an edit's change gives them: a change is told by these, never by its path.
const COPY_PART_WORDS = {
  headline: "the headline", subheadline: "the line under the headline", call_to_action: "the buy button's words",
  benefits: "the benefits", faq: "the questions", about: "the About text", shipping: "the shipping text",
  returns: "the returns text", guarantee: "the guarantee", seo_title: "the title search engines show",
  seo_description: "the description search engines show",
};
const POLICY_WORDS = { returns: "returns", shipping: "shipping", guarantee: "guarantee", ships_to: "where you ship to" };

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
  const plainAnswer = h("div", { "aria-live": "polite" }); // a plain-language edit's answer, under its button
  // One answer on screen at a time: the newest, wherever it shows, so an older one never
  // contradicts it ("version 2" under the edit box after a step back to version 1).
  const tell = (...nodes) => {
    fill(plainAnswer);
    return fill(outcome, ...nodes);
  };
  const tellUnderEdit = (node) => {
    fill(outcome);
    return fill(plainAnswer, node);
  };
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
        tell(refusal(no, {}, result.http));
        return;
      }
      fill(proposalArea);
      tell(h("div", { class: "notice notice-success", role: "status", dataset: { applied: result.data.lead } },
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
  const request = field("Your edit", { name: "message", required: true, maxlength: "2000" }, { multiline: true });
  const box = request.querySelector("textarea");
  const plain = h("form", { class: "panel", novalidate: true },
    h("h2", {}, "Rewrite it yourself"),
    signedIn
      ? [h("p", { class: "hint" }, "Tell the editor in your own words what to change in your store's words, questions "
          + "or price. It understands: make a part shorter or longer, mention something, remove or replace words, "
          + "change a part to new words, lead with a section, change the tone (friendly, plain or premium), set the "
          + "price and add a question. Ask for several at once by joining them with “and”. No evidence needed; "
          + "each edit that changes your store costs AI editor credits."),
        h("p", { class: "hint" }, "Start from an example: it goes in the box, and nothing changes until you press "
          + "Make this edit."),
        exampleChips(STARTERS, box, { label: "Example edits" }),
        request,
        h("div", { class: "form-actions" }, button("Make this edit", null, { type: "submit" })),
        plainAnswer]
      : h("p", { class: "hint" }, "Sign in to rewrite your store's words yourself."));
  plain.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(plain.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/ai/edit", { message: box.value });
      const no = refusalOf(result);
      const said = no ? refusalWithExamples(no, result.http, box) : await editedNotice(result.data);
      tellUnderEdit(said);
      await loadHistory();
    });
  });

  /** A plain-language edit that was made, said as the parts it changed and what they read now. */
  async function editedNotice(answer) {
    if (answer.version === null || answer.version === undefined) {
      return h("p", { class: "notice notice-info", role: "status" }, "Your edit is being made: it shows in your store "
        + "and in the versions below once it is written.");
    }
    const changes = storeWordsFirst((answer.diff || []).map(changeInWords));
    const parts = [...new Set(changes.map((change) => change.part))];
    const store = await get("/api/store");
    const previewUrl = store.data && store.data.preview_url;
    return h("div", { class: "notice notice-success", role: "status", dataset: { edited: String(answer.version) } },
      h("p", { class: "notice-title" }, "Your edit is made"),
      h("p", {}, `${parts.length ? `Changed ${plainList(parts)}. ` : ""}You are now editing version ${answer.version}.`),
      changes.some((change) => change.reads)
        ? h("ul", { class: "list" }, changes.filter((change) => change.reads).map((change) => h("li", {}, change.reads)))
        : null,
      previewUrl ? h("p", { class: "actions" }, h("a", { class: "btn btn-secondary", href: previewUrl, target: "_blank",
        rel: "noopener" }, "Open the preview")) : null);
  }

  /** One change of an edit's patch ({op, path, value}) as a founder says it: the part it
   * changed ("the headline") and, when it has new words, a sentence with them. */
  function changeInWords({ op, path, value }) {
    const [top, key, index] = String(path || "").split("/").slice(1);
    if (top === "copy" && key === "faq" && index !== undefined) {
      if (op === "add") return { part: "the questions", reads: value && value.question ? `A new question: “${value.question}”` : null };
      if (op === "remove") return { part: "the questions", reads: "A question is taken out." };
    }
    if (top === "copy") {
      const part = COPY_PART_WORDS[key] || "your store's words";
      return { part, reads: index === undefined && typeof value === "string" ? `${capitalized(part)} now reads “${value}”` : null };
    }
    if (top === "price") return { part: "the price", reads: `The price is now ${money(value, currency)}.` };
    if (top === "lead") return { part: "what your home page leads with", reads: `Your home page now leads with ${sectionWords(value)}.` };
    if (top === "business") return policyInWords(key, index, value);
    if (top === "pages") return { part: "the order of your page's sections", reads: null };
    return { part: "another part of your store", reads: null };
  }

  // What the founder stated (free returns within 30 days, say) is kept as their own word and
  // shown on the store as its policy: say so, with the sentence the store now shows.
  function policyInWords(key, topic, value) {
    if (key !== "policy") return { part: "your business details", reads: null };
    const stated = topic ? { [topic]: value } : (value || {});
    const sentences = Object.values(stated).filter((sentence) => typeof sentence === "string");
    const topics = Object.keys(stated).map((name) => POLICY_WORDS[name] || "policy");
    return { part: `your stated ${plainList(topics) || "policy"} policy`, stated: true,
      reads: sentences.length ? [`Your store now states: “${sentences.join(" ")}” `,
        h("a", { href: "#/app/settings" }, "Change it in your business settings"), "."] : null };
  }

  // What the home page leads with now: the version being edited says (GET /api/editor/draft), and
  // the list below starts there, so it never shows a section the page does not lead with.
  const leadsNow = h("p", { class: "hint", "aria-live": "polite" });
  let currency = null; // the store's, from the version being edited: a new price is said in it
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
    currency = result.data.document.currency;
    order.lead.value = lead;
    leadsNow.dataset.leads = lead;
    leadsNow.textContent = `Version ${result.data.number}, the one you are editing, leads with ${sectionWords(lead)}.`;
  }
  order.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(order.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/intent/order", { section: order.lead.value });
      const no = refusalOf(result);
      tell(no ? refusal(no, {}, result.http) : h("p", { class: "notice notice-success", role: "status" },
        `Your home page leads with ${sectionWords(result.data.lead)}${result.data.version ? ` (version ${result.data.version})` : " already"}.`));
      await loadHistory();
    });
  });

  const undo = button("Undo the last applied change", (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/intent/revert");
    const no = refusalOf(result);
    if (no) {
      tell(refusal(no, {}, result.http));
      return;
    }
    tell(h("div", { class: `notice ${result.data.status === "reverted" ? "notice-success" : "notice-warn"}`, role: "status",
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
    tell(no ? refusal(no, {}, result.http)
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

/** "the headline, the line under the headline and the price". */
function plainList(words) {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const capitalized = (words) => words.charAt(0).toUpperCase() + words.slice(1);

/** The changes to the store's own words first, then what the founder stated (which the store
 * shows too): the words they asked to change are what they look for. */
const storeWordsFirst = (changes) => [...changes.filter((c) => !c.stated), ...changes.filter((c) => c.stated)];
