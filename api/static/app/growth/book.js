// The campaign book on the Growth screen: the founder's ad campaigns as cards (where each runs,
// its daily budget, what it is for, who sees it, what it really does on the ad platform: starting,
// running, paused by them, by an empty balance or by its bars, or refused), a picture of each
// day it delivered against its bars, a new one added, one started or paused, and the defaults
// new campaigns take, all in a founder's words. A campaign the service will not start says why
// beside it.
import { h, fill, field, button, busy, moneyMinor, uid, plural } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { plain } from "../sources.js";
import { adDeliveryChart } from "../charts.js";
import { toMinor, toMajor } from "./money.js";

const PLATFORMS = { meta: "Meta (Facebook and Instagram)", google: "Google search" };
const OBJECTIVES = { sales: "Sales", traffic: "Visits to your store", awareness: "Getting known", leads: "Sign-ups",
  engagement: "Likes, comments and shares" };
const AUDIENCES = { broad: "Anyone likely to buy", interests: "People interested in products like yours",
  lookalike: "People like your customers", retargeting: "People who visited your store" };
// The step a campaign can take from its status: [new status, button words, what the toast says it did].
const NEXT = { draft: ["active", "Start it", "starts within the hour"], active: ["paused", "Pause it", "paused"],
  paused: ["active", "Run it again", "starts again within the hour"] };
// The service's refusals to start a campaign, headed in this screen's words (the explanation is
// the service's).
const REFUSED_HEADINGS = { ad_balance_too_low: "Your ad balance can't pay for a day of it yet",
  ad_not_ready: "Your ad or your store is not ready yet", ad_currency_differs: "Campaigns are paid in US dollars" };

/**
 * What a campaign really does, from its status and what the ad platform answered of it:
 * {state (a code for the page), words (its tag), tone, gloss (a line of what it means)}.
 */
function standing(campaign, currency) {
  const delivery = campaign.delivery || null;
  const because = campaign.paused_because || (delivery && delivery.paused_because) || null;
  const budget = moneyMinor(campaign.daily_budget_minor, campaign.currency || currency);
  if (delivery && delivery.paused_because === "refused") {
    return { state: "refused", words: "The ad platform refused it", tone: "stop",
      gloss: "It never ran and nothing was spent on it. Check its ad, then remove it and add it again." };
  }
  if (campaign.status === "active") {
    if (delivery && delivery.state === "running") {
      return { state: "running", words: "Running", tone: "ok",
        gloss: `It spends up to ${budget} a day; each day's spend comes out of your ad balance once the day is over.` };
    }
    return { state: "starting", words: "Starting \u2014 it goes live within the hour", tone: "ok",
      gloss: `Then it spends up to ${budget} a day from your ad balance.` };
  }
  if (campaign.status === "paused") {
    if (because === "balance") {
      return { state: "paused-balance", words: "Paused: your ad balance can't pay for another day", tone: "stop",
        gloss: `Top up your ad balance with at least ${budget}, then start it again.` };
    }
    if (because === "bars") {
      return { state: "paused-bars", words: "Paused: it missed its bars", tone: "stop",
        gloss: `As you asked: ${missedWords(delivery)}. Change its ad, then start it again.` };
    }
    return { state: "paused", words: "Paused by you", tone: "",
      gloss: delivery && delivery.state === "running" ? "It stops within the hour; nothing is spent after that."
        : "Nothing is spent until you run it again." };
  }
  if (campaign.status === "draft") {
    return { state: "draft", words: "Draft", tone: "", gloss: "Not running: nothing is spent until you start it." };
  }
  return { state: String(campaign.status || ""), words: plain(campaign.status) || "\u2014", tone: "", gloss: "" };
}

/** Which bar a campaign missed, from its totals: "too few of the people who saw it clicked (1.06%,
 * under 1.59%) and each click cost $1.12, over the $0.70 ceiling". */
function missedWords(delivery) {
  const totals = (delivery && delivery.totals) || {};
  const bars = (delivery && delivery.bars) || {};
  const currency = totals.currency || bars.currency || "USD";
  const pct = (v) => `${Number(v).toLocaleString(undefined, { maximumFractionDigits: 2 })}%`;
  const missed = [];
  if (typeof totals.ctr_pct === "number" && typeof bars.ctr_min_pct === "number" && totals.ctr_pct < bars.ctr_min_pct) {
    missed.push(`too few of the people who saw it clicked (${pct(totals.ctr_pct)}, under ${pct(bars.ctr_min_pct)})`);
  }
  if (typeof totals.cpc_minor === "number" && typeof bars.cpc_max_minor === "number" && totals.cpc_minor > bars.cpc_max_minor) {
    missed.push(`each click cost ${moneyMinor(totals.cpc_minor, currency)}, over the `
      + `${moneyMinor(bars.cpc_max_minor, currency)} ceiling`);
  }
  return missed.length ? missed.join(" and ") : "too few people clicked it, or each click cost too much";
}

/** What the founder can do about a refusal to start: the step beside the service's explanation. */
function nextStep(reason) {
  if (reason === "ad_balance_too_low") {
    return h("p", { class: "actions" }, button("Top up your ad balance", () => {
      // The balance's panel on this screen, its amount field ready to type in.
      const amount = document.querySelector("[data-section=balance] input[name=amount]");
      const panel = document.getElementById("balance-title");
      (panel || amount)?.scrollIntoView({ block: "start" });
      if (amount) amount.focus({ preventScroll: true });
    }, { kind: "secondary", "data-action": "go-to-balance" }));
  }
  if (reason === "ad_not_ready") {
    return h("p", { class: "actions" }, h("a", { class: "btn btn-secondary", href: "#/app/store" }, "Go to your store"));
  }
  return null;
}

const words = (table, value) => table[value] || plain(value) || "—";
// A campaign that has days to show (the ad platform reported at least one).
const delivered = (campaign) => Boolean(campaign.delivery && (campaign.delivery.days || []).length);

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

  /** Saves a change of the book; a refusal is said in `where` (beside the campaign it is about)
   * or under the cards. */
  async function save(body, { done, where = outcome } = {}) {
    const answer = await post("/api/ads-manager", body);
    if (!ctx.alive()) return false;
    const said = refusalOf(answer);
    if (said) {
      fill(outcome);
      fill(where, refusal(said, {}, answer.http, { headings: REFUSED_HEADINGS }), nextStep(said.reason));
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
        h("ul", { class: "campaigns" }, campaigns.map((campaign) => h("li",
          { class: delivered(campaign) ? "campaign-delivered" : null }, campaignCard(campaign, currency))))]
      : h("p", { class: "empty", dataset: { campaigns: "none" } }, "No campaigns yet: add your first below. A new "
        + "campaign starts as a draft, so nothing is spent until you start it."));
    fill(addSlot, addForm(settings));
    fill(settingsSlot, settingsForm(settings));
  }

  function campaignCard(campaign, currency) {
    const stand = standing(campaign, currency);
    const step = NEXT[campaign.status];
    const said = h("div", { class: "campaign-said", "aria-live": "polite" });
    const delivery = campaign.delivery || null;
    const missing = delivery && delivery.flagged && stand.state !== "paused-bars";
    return h("article", { class: "campaign-card", dataset: { campaignId: String(campaign.id), status: campaign.status,
      platform: campaign.platform, standing: stand.state } },
    h("div", { class: "campaign-head" },
      h("h3", { class: "campaign-name" }, campaign.name),
      h("span", { class: `tag${stand.tone ? ` tag-${stand.tone}` : ""}` }, stand.words)),
    stand.gloss ? h("p", { class: "campaign-gloss" }, stand.gloss) : null,
    missing ? h("p", { class: "notice notice-warn campaign-missing", dataset: { flagged: "true" } },
      `It is missing its bars: ${missedWords(delivery)}. `, campaign.pause_when_failing
        ? "It pauses once its next day is counted." : "Tick \u201cPause it when it misses its bars\u201d to stop it "
        + "then, or change its ad.") : null,
    h("dl", { class: "pairs" },
      h("dt", {}, "Runs on"), h("dd", {}, words(PLATFORMS, campaign.platform)),
      h("dt", {}, "Daily budget"), h("dd", { dataset: { budgetMinor: String(campaign.daily_budget_minor) } },
        moneyMinor(campaign.daily_budget_minor, campaign.currency || currency)),
      campaign.objective ? [h("dt", {}, "What for"), h("dd", {}, words(OBJECTIVES, campaign.objective))] : null,
      campaign.audience ? [h("dt", {}, "Who sees it"), h("dd", {}, words(AUDIENCES, campaign.audience))] : null),
    delivered(campaign) ? adDeliveryChart(delivery, campaign.name) : null,
    pauseWhenFailing(campaign, said),
    said,
    h("p", { class: "actions" },
      step ? button(step[1], (event) => busy(event.currentTarget, () => save(
        { campaigns: [{ id: campaign.id, status: step[0] }] },
        { done: `\u201c${campaign.name}\u201d ${step[2]}.`, where: said })),
      { kind: "secondary", class: "btn btn-secondary btn-small", "aria-label": `${step[1]}: ${campaign.name}`,
        "data-action": `campaign-${step[0]}` }) : null,
      button("Remove", (event) => busy(event.currentTarget, () => save({ campaigns: [{ id: campaign.id, delete: true }] },
        { done: `Removed the campaign \u201c${campaign.name}\u201d.`, where: said })),
      { kind: "ghost", "aria-label": `Remove: ${campaign.name}`, "data-action": "campaign-remove" })));
  }

  /** The campaign's "pause it when it misses its bars", saved as it is ticked. */
  function pauseWhenFailing(campaign, said) {
    const id = uid("pause-when-failing");
    const box = h("input", { type: "checkbox", id, name: "pause_when_failing", checked: Boolean(campaign.pause_when_failing),
      "aria-describedby": `${id}-hint` });
    box.addEventListener("change", async () => {
      const wanted = box.checked;
      box.disabled = true;
      const saved = await save({ campaigns: [{ id: campaign.id, pause_when_failing: wanted }] }, {
        done: wanted ? `\u201c${campaign.name}\u201d pauses when it misses its bars.`
          : `\u201c${campaign.name}\u201d keeps running when it misses its bars.`, where: said });
      if (!saved && ctx.alive()) {
        box.checked = !wanted;
        box.disabled = false;
      }
    });
    return h("div", { class: "campaign-option" },
      h("label", { class: "check", for: id }, box, "Pause it when it misses its bars"),
      h("p", { class: "hint", id: `${id}-hint` }, "Once enough people have seen it, a campaign too few click, or "
        + "whose clicks cost too much, stops spending."));
  }

  function addForm(settings) {
    const currency = settings.currency || "USD";
    const addSaid = h("div", { class: "campaign-said", "aria-live": "polite" });
    const form = h("form", { class: "form-grid", novalidate: true, dataset: { form: "campaign" } },
      field("Campaign name", { type: "text", name: "name", maxlength: String(bounds.name_max_chars || 80), required: true, autocomplete: "off" },
        { hint: "Yours to recognise it by, for example: Spring launch." }),
      choice("Runs on", "platform", PLATFORMS, settings.platform || "meta"),
      budgetField("Daily budget", currency, settings.daily_budget_minor, bounds),
      choice("Status", "status", { draft: "Draft: not running yet", active: "Start it now, paid from your ad balance",
        paused: "Paused" }, "draft"),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "pause_when_failing" }),
        "Pause it when it misses its bars"),
      addSaid,
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
      const status = form.status.value;
      await busy(form.querySelector("button[type=submit]"), () => save({
        campaigns: [{ name, platform: form.platform.value, status, daily_budget_minor: budget,
          pause_when_failing: form.pause_when_failing.checked }],
      }, { done: status === "active" ? `Saved the campaign \u201c${name}\u201d: it starts within the hour.`
        : `Saved the campaign \u201c${name}\u201d.`, where: addSaid }));
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
      + "from your ad balance below: each day's spend comes out of it once the day is over, and a campaign starts "
      + "only when the balance holds at least a day of its budget."),
    cards, outcome,
    h("h3", {}, "Add a campaign"), addSlot,
    h("details", { class: "book-settings" },
      h("summary", {}, "Defaults for new campaigns"),
      h("p", { class: "hint" }, "What a new campaign starts with: you can change each one after."),
      settingsSlot));
  return { node, load };
}
