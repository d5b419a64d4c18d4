// The campaign book on the Growth screen: the founder's ad campaigns as cards (where each runs,
// its daily budget, what it is for, who sees it, whether it runs), a new one added, one started
// or paused, and the defaults new campaigns take, all in a founder's words.
import { h, fill, field, button, busy, moneyMinor, uid, plural } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { plain } from "../sources.js";
import { toMinor, toMajor } from "./money.js";

const PLATFORMS = { meta: "Meta (Facebook and Instagram)", google: "Google search" };
const OBJECTIVES = { sales: "Sales", traffic: "Visits to your store", awareness: "Getting known", leads: "Sign-ups",
  engagement: "Likes, comments and shares" };
const AUDIENCES = { broad: "Anyone likely to buy", interests: "People interested in products like yours",
  lookalike: "People like your customers", retargeting: "People who visited your store" };
const STATUSES = { draft: ["Draft", "Not running"], active: ["Running", "Spending its daily budget"],
  paused: ["Paused", "Not spending"] };
// The step a campaign can take from its status: [new status, button words].
const NEXT = { draft: ["active", "Start it"], active: ["paused", "Pause it"], paused: ["active", "Run it again"] };

const words = (table, value) => table[value] || plain(value) || "—";

/** A select of a table's choices, with the current value kept even when the app does not know it. */
function choice(label, name, table, value) {
  const id = uid(name);
  const entries = Object.entries(table);
  if (value && !table[value]) entries.push([value, plain(value)]);
  return h("div", { class: "field" }, h("label", { for: id }, label),
    h("select", { id, name }, entries.map(([code, text]) => h("option", { value: code, selected: code === value }, text))));
}

/** The daily budget typed in money; `bounds` (the book's options) say between what. */
function budgetField(label, currency, minor, bounds, hint) {
  const low = bounds.daily_budget_min_minor;
  const high = bounds.daily_budget_max_minor;
  const within = low !== undefined && high !== undefined
    ? ` Between ${moneyMinor(low, currency)} and ${moneyMinor(high, currency)}.` : "";
  return field(label, { type: "number", name: "budget", step: "0.01", inputmode: "decimal", required: true,
    min: low !== undefined ? String(toMajor(low, currency)) : "0",
    max: high !== undefined ? String(toMajor(high, currency)) : undefined,
    value: minor === undefined || minor === null ? "" : String(toMajor(minor, currency)) },
  { hint: `${hint || `In ${currency}, per day.`}${within}` });
}

/** The book's panel; `load()` reads the book and draws it. */
export function bookPanel(ctx) {
  const cards = h("div", {});
  const outcome = h("div", { "aria-live": "polite" });
  const addSlot = h("div", {});
  const settingsSlot = h("div", {});
  let book = null;
  let bounds = {}; // what the book takes (GET /api/ads-manager `options`): budget bounds, choices

  async function save(body, { done } = {}) {
    const answer = await post("/api/ads-manager", body);
    if (!ctx.alive()) return false;
    const said = refusalOf(answer);
    if (said) {
      fill(outcome, refusal(said, {}, answer.http));
      return false;
    }
    fill(outcome);
    show(answer.data.book, answer.data.options);
    if (done) ctx.toast(done);
    return true;
  }

  function show(next, options) {
    book = next;
    bounds = options || bounds;
    const settings = book.settings || {};
    const currency = settings.currency || "USD";
    const campaigns = book.campaigns || [];
    fill(cards, campaigns.length
      ? [h("p", { class: "muted" }, `${plural(campaigns.length, "campaign")}.`),
        h("ul", { class: "campaigns" }, campaigns.map((campaign) => h("li", {}, campaignCard(campaign, currency))))]
      : h("p", { class: "empty", dataset: { campaigns: "none" } }, "No campaigns yet: add your first below. A new "
        + "campaign starts as a draft, so nothing is spent until you start it."));
    fill(addSlot, addForm(settings));
    fill(settingsSlot, settingsForm(settings));
  }

  function campaignCard(campaign, currency) {
    const [state, gloss] = STATUSES[campaign.status] || [plain(campaign.status), ""];
    const step = NEXT[campaign.status];
    return h("article", { class: "campaign-card", dataset: { campaignId: String(campaign.id), status: campaign.status,
      platform: campaign.platform } },
    h("div", { class: "campaign-head" },
      h("h3", { class: "campaign-name" }, campaign.name),
      h("span", { class: `tag${campaign.status === "active" ? " tag-ok" : ""}`, title: gloss }, state)),
    h("dl", { class: "pairs" },
      h("dt", {}, "Runs on"), h("dd", {}, words(PLATFORMS, campaign.platform)),
      h("dt", {}, "Daily budget"), h("dd", { dataset: { budgetMinor: String(campaign.daily_budget_minor) } },
        moneyMinor(campaign.daily_budget_minor, campaign.currency || currency)),
      campaign.objective ? [h("dt", {}, "What for"), h("dd", {}, words(OBJECTIVES, campaign.objective))] : null,
      campaign.audience ? [h("dt", {}, "Who sees it"), h("dd", {}, words(AUDIENCES, campaign.audience))] : null),
    h("p", { class: "actions" },
      step ? button(step[1], (event) => busy(event.currentTarget, () => save(
        { campaigns: [{ id: campaign.id, status: step[0] }] },
        { done: `“${campaign.name}”: ${(STATUSES[step[0]] || [step[0]])[0].toLowerCase()}.` })),
      { kind: "secondary", class: "btn btn-secondary btn-small", "aria-label": `${step[1]}: ${campaign.name}`,
        "data-action": `campaign-${step[0]}` }) : null,
      button("Remove", (event) => busy(event.currentTarget, () => save({ campaigns: [{ id: campaign.id, delete: true }] },
        { done: `Removed the campaign “${campaign.name}”.` })),
      { kind: "ghost", "aria-label": `Remove: ${campaign.name}`, "data-action": "campaign-remove" })));
  }

  function addForm(settings) {
    const currency = settings.currency || "USD";
    const form = h("form", { class: "form-grid", novalidate: true, dataset: { form: "campaign" } },
      field("Campaign name", { type: "text", name: "name", maxlength: String(bounds.name_max_chars || 80), required: true, autocomplete: "off" },
        { hint: "Yours to recognise it by, for example: Spring launch." }),
      choice("Runs on", "platform", PLATFORMS, settings.platform || "meta"),
      budgetField("Daily budget", currency, settings.daily_budget_minor, bounds),
      choice("Status", "status", { draft: "Draft: not running yet", active: "Running", paused: "Paused" }, "draft"),
      h("div", { class: "form-actions" }, button("Save the campaign", null, { type: "submit", "data-action": "add-campaign" })));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = form.name.value.trim();
      const budget = toMinor(form.budget.value, currency);
      if (!name || budget === null) {
        fill(outcome, h("p", { class: "notice notice-warn", role: "alert" },
          !name ? "Give the campaign a name." : "Give the daily budget as an amount, for example 10.00."));
        return;
      }
      await busy(form.querySelector("button[type=submit]"), () => save({
        campaigns: [{ name, platform: form.platform.value, status: form.status.value,
          daily_budget_minor: budget }],
      }, { done: `Saved the campaign “${name}”.` }));
    });
    return form;
  }

  function settingsForm(settings) {
    const currency = settings.currency || "USD";
    const form = h("form", { class: "form-grid", novalidate: true, dataset: { form: "book-settings" } },
      budgetField("Daily budget", currency, settings.daily_budget_minor, bounds,
        `In ${currency}, per day, for each new campaign.`),
      choice("Runs on", "platform", PLATFORMS, settings.platform),
      choice("What you want from your ads", "objective", OBJECTIVES, settings.objective),
      choice("Who sees them", "audience", AUDIENCES, settings.audience),
      h("div", { class: "form-actions" }, button("Save your defaults", null, { type: "submit", kind: "secondary",
        "data-action": "save-settings" })));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const budget = toMinor(form.budget.value, currency);
      if (budget === null) {
        fill(outcome, h("p", { class: "notice notice-warn", role: "alert" }, "Give the daily budget as an amount, for example 10.00."));
        return;
      }
      await busy(form.querySelector("button[type=submit]"), () => save({ settings: {
        daily_budget_minor: budget, platform: form.platform.value, objective: form.objective.value,
        audience: form.audience.value } }, { done: "Saved your defaults for new campaigns." }));
    });
    return form;
  }

  async function load() {
    const result = await get("/api/ads-manager");
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(cards, refusal(said, { retry: () => load() }, result.http));
      return;
    }
    show(result.data.book, result.data.options);
  }

  const node = h("section", { class: "panel", "aria-labelledby": "book-title", dataset: { section: "book" } },
    h("h2", { id: "book-title" }, "Your campaigns"),
    h("p", { class: "hint" }, "The ads you plan to run, where, and what each may spend a day. Running ones are paid "
      + "from your ad balance below."),
    cards, outcome,
    h("h3", {}, "Add a campaign"), addSlot,
    h("details", { class: "book-settings" },
      h("summary", {}, "Defaults for new campaigns"),
      h("p", { class: "hint" }, "What a new campaign starts with: you can change each one after."),
      settingsSlot));
  return { node, load };
}
