// The ad on the Growth screen: the ad for each platform as the platform would show it, every
// field's length against that platform's limit, a field changed in place or the written copy
// put back, a change asked for in plain words (with an account), and the pass bars the ad must
// beat, drawn as gauges beside their figures and the benchmark they come from.
import { h, fill, button, busy, uid, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { progress, poll } from "../poll.js";
import { displayAddress, googleFrame, metaFrame } from "./frames.js";
import { passBars } from "./pass-bars.js";
import { exampleChips, refusalWithExamples } from "../plain-edit.js";

// The platforms an ad is written for: [code, name, where it shows].
const PLATFORMS = [["meta", "Meta", "Facebook and Instagram feeds"], ["google", "Google", "Google search results"]];
const PLATFORM_NAME = Object.fromEntries(PLATFORMS.map(([code, name]) => [code, name]));

// The fields a founder can change, per platform, in the order the platform shows them.
const FIELDS = {
  meta: [["primary_text", "Main text"], ["headline", "Headline"], ["description", "Description"],
    ["call_to_action", "Button"]],
  google: [["headline", "Headline"], ["primary_text", "First description line"],
    ["description", "Second description line"], ["call_to_action", "Call to action"]],
};
const fieldName = (platform, key) => (FIELDS[platform] || FIELDS.meta).find(([k]) => k === key)?.[1] || "That part";

// Requests the ad editor understands (services/plain_requests.py), offered as chips that start
// the founder's own. An ad holds no questions and shows the store's price, so neither is offered.
const STARTERS = ["Make the headline shorter", "Mention free returns within 30 days", "Lead with the price",
  "Use a Buy Now button"];

// The headings of refusals as this screen means them (reasons.js says them of the store).
const HEADINGS = {
  too_long: "Too long for this platform",
  no_diff: "Nothing in your ad would change",
  unbacked_claim: "Your product's record cannot back that",
  not_found: "No ad yet",
};

// Why a change asked in plain words left a field as it was.
const SKIPPED = {
  too_long: "the new words were longer than the platform allows",
  unbacked_claim: "your product's record cannot back the new words",
  invalid_editor_response: "the new words could not be used",
};

/** Characters as the platforms count them (an emoji is one, not two). */
const length = (text) => [...String(text || "")].length;

/** "28 of 40", marked when over. */
function count(text, limit) {
  const n = length(text);
  const over = typeof limit === "number" && n > limit;
  return h("span", { class: `ad-count${over ? " ad-count-over" : ""}`, dataset: { length: String(n), limit: String(limit ?? "") } },
    typeof limit === "number" ? `${n} of ${limit}` : `${n} characters`);
}

/**
 * The ad panel. `signedIn`: a change asked in plain words needs an account. Answers
 * {node, load}: `load()` fetches the ad of the platform shown (polling while it is written).
 */
export function adPanel(ctx, { pageName, storeUrl, signedIn }) {
  let platform = "meta";
  let current = null; // the ad shown
  const address = displayAddress(storeUrl);
  const view = h("div", { class: "ad-view" });
  const outcome = h("div", { "aria-live": "polite" });
  const switches = PLATFORMS.map(([code, name, where]) => button(`${name}`, async (event) => {
    if (code === platform) return;
    platform = code;
    markSwitch();
    await busy(event.currentTarget, () => load());
  }, { kind: "secondary", class: "btn btn-secondary platform-switch", "aria-pressed": String(code === platform),
    "aria-describedby": `platform-${code}-where`, dataset: { platform: code } }));
  const markSwitch = () => switches.forEach((node) => node.setAttribute("aria-pressed", String(node.dataset.platform === platform)));
  const switchGroup = h("div", { class: "platform-switches", role: "group", "aria-label": "Platform" },
    switches,
    PLATFORMS.map(([code, , where]) => h("span", { class: "visually-hidden", id: `platform-${code}-where` }, where)));

  async function load() {
    const panel = progress("Writing your ad…");
    const result = await poll(ctx, () => get(`/api/ad?platform=${platform}`), {
      waiting: ({ http, data }) => http === 404 && Boolean(data && data.building),
      onWait: () => {
        if (!view.contains(panel.node)) fill(view, panel.node);
        panel.update("Writing your ad from your store's words and photo. It shows here as soon as it is ready.");
      },
      every: 1500,
    });
    if (!result || !ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      current = null;
      fill(view, said.reason === "not_found"
        ? h("div", { class: "notice notice-info", role: "status", dataset: { reason: "not_found", ad: "none" } },
          h("p", { class: "notice-title" }, "No ad yet"),
          h("p", {}, said.explanation || "Your ad is written from your store once it is built: build your store and come back."),
          h("p", { class: "actions" }, linkButton("Go to your store", "#/app/store"),
            button("Look again", (event) => busy(event.currentTarget, () => load()), { kind: "ghost", "data-action": "reload-ad" })))
        : refusal(said, { retry: () => load() }, result.http, { headings: HEADINGS }));
      return;
    }
    show(result.data);
  }

  function show(ad) {
    current = ad;
    fill(outcome);
    const limits = ad.limits || {};
    const overridden = new Set(ad.overridden || []);
    const fields = h("ul", { class: "ad-fields" }, (FIELDS[ad.platform] || FIELDS.meta).map(([key, label]) =>
      fieldRow(ad, key, label, limits[key], overridden.has(key))));
    const reset = overridden.size
      ? button("Put the written copy back", (event) => busy(event.currentTarget, async () => {
        const answer = await post("/api/ad/edit", { platform: ad.platform, reset: true });
        if (!ctx.alive()) return;
        const said = refusalOf(answer);
        if (said) {
          fill(outcome, refusal(said, {}, answer.http, { headings: HEADINGS }));
          return;
        }
        show(answer.data);
        ctx.toast(`Your ${PLATFORM_NAME[ad.platform]} ad has its written copy back.`);
      }), { kind: "secondary", "data-action": "reset-ad" })
      : null;
    fill(view,
      h("div", { class: "ad-layout", dataset: { adPlatform: ad.platform, adVersion: String(ad.version ?? "") } },
        h("div", { class: "ad-preview" },
          ad.platform === "google" ? googleFrame(ad, { pageName, address }) : metaFrame(ad, { pageName, address }),
          picturesLine(ad)),
        h("div", { class: "ad-editing" },
          h("h3", {}, "The words, against the platform's limits"),
          fields,
          reset ? h("p", { class: "hint" }, `You changed ${plainList([...overridden].map((k) => `the ${fieldName(ad.platform, k).toLowerCase()}`))}; `
            + "the rest is as it was written.") : null,
          reset ? h("p", { class: "actions" }, reset) : null)),
      passBars(ad));
  }

  function picturesLine(ad) {
    const images = ad.images || [];
    if (!images.length) return null;
    return h("p", { class: "hint ad-sizes" }, "Pictures made for this ad: ",
      images.map((image, i) => [i ? ", " : "", h("a", { href: image.url, target: "_blank", rel: "noopener" },
        `${image.width} × ${image.height}`)]), ".");
  }

  function fieldRow(ad, key, label, limit, changed) {
    const row = h("li", { class: "ad-field", dataset: { field: key } });
    const edit = () => fill(row, editor(ad, key, label, limit, row, () => fill(row, ...readRow())));
    const readRow = () => [
      h("div", { class: "ad-field-head" },
        h("span", { class: "ad-field-name" }, label),
        count(ad[key], limit),
        changed ? h("span", { class: "tag", dataset: { changed: "true" } }, "Your words") : null),
      h("p", { class: "ad-field-value" }, ad[key] || "—"),
      button(`Change the ${label.toLowerCase()}`, edit, { kind: "ghost", "data-action": "edit-field" }),
    ];
    return fill(row, ...readRow());
  }

  function editor(ad, key, label, limit, row, cancel) {
    const id = uid("ad-edit");
    const said = h("div", { "aria-live": "polite" });
    const options = key === "call_to_action" ? ad.call_to_action_options || [] : null;
    const control = options && options.length
      ? h("select", { id, name: "value" }, options.map((option) => h("option", { value: option, selected: option === ad[key] }, option)))
      : h(key === "headline" || key === "call_to_action" ? "input" : "textarea",
        { id, name: "value", ...(key === "headline" || key === "call_to_action" ? { type: "text", value: ad[key] || "" } : { rows: "3" }),
          autocomplete: "off", "aria-describedby": `${id}-count` });
    if (control.tagName === "TEXTAREA") control.value = ad[key] || "";
    const live = h("span", { id: `${id}-count`, class: "hint" }, count(ad[key], limit), " characters");
    control.addEventListener("input", () => fill(live, count(control.value, limit), " characters"));
    const form = h("form", { class: "ad-field-form", novalidate: true, dataset: { editing: key } },
      h("div", { class: "field" }, h("label", { for: id }, label), control, options ? null : live),
      h("div", { class: "form-actions" },
        button(`Save the ${label.toLowerCase()}`, null, { type: "submit", "data-action": "save-field" }),
        button("Cancel", cancel, { kind: "ghost" })),
      said);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(form.querySelector("button[type=submit]"), async () => {
        const answer = await post("/api/ad/edit", { platform: ad.platform, field: key, value: control.value });
        if (!ctx.alive()) return;
        const refused = refusalOf(answer);
        if (refused) {
          fill(said, refusal(refused, {}, answer.http, { headings: HEADINGS }));
          return;
        }
        show(answer.data);
        ctx.toast(`Saved: the ${label.toLowerCase()} of your ${PLATFORM_NAME[ad.platform]} ad.`);
      });
    });
    queueMicrotask(() => control.focus());
    return form;
  }

  // A change in plain words: an account's, counted against its plan.
  const change = signedIn ? changeForm() : h("div", { class: "notice notice-info", role: "status", dataset: { change: "needs-account" } },
    h("p", { class: "notice-title" }, "Ask for a change in your own words"),
    h("p", {}, "Telling the service what to change (\"shorter\", \"mention free shipping\") needs an account, because "
      + "it counts against your plan's allowance. Save your address to get one: your work comes along."),
    h("p", { class: "actions" }, linkButton("Save your address", "#/app/account", "primary")));

  function changeForm() {
    const id = uid("ad-change");
    const said = h("div", { "aria-live": "polite" });
    const box = h("textarea", { id, name: "message", rows: "2", maxlength: "2000", "aria-describedby": `${id}-hint`, required: true });
    const form = h("form", { class: "ad-change", novalidate: true, dataset: { change: "ready" } },
      h("div", { class: "field" },
        h("label", { for: id }, "Ask for a change in your own words"),
        h("p", { class: "hint", id: `${id}-hint` }, "It understands: make a part shorter or longer, mention something, "
          + "remove or replace words, lead with the price, change the tone (friendly, plain or premium) and choose the "
          + "button's words. Ask for several at once by joining them with “and”. Only what your product's record "
          + "backs is written; each platform's limits still hold."),
        h("p", { class: "hint" }, "Start from an example: it goes in the box, and nothing changes until you press "
          + "Change my ad."),
        exampleChips(STARTERS, box, { label: "Example changes" }),
        box),
      h("div", { class: "form-actions" }, button("Change my ad", null, { type: "submit", "data-action": "change-ad" })),
      said);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const message = form.message.value.trim();
      if (!message) {
        fill(said, h("p", { class: "notice notice-warn", role: "alert" }, "Say what to change first."));
        return;
      }
      await busy(form.querySelector("button[type=submit]"), async () => {
        const answer = await post("/api/growth/edit", { message, platform });
        if (!ctx.alive()) return;
        const refused = refusalOf(answer);
        if (refused) {
          fill(said, refusalWithExamples(refused, answer.http, box, { headings: HEADINGS }));
          return;
        }
        const before = current ? current.version : null;
        if (answer.data.status === "editing") {
          // Still being written: the ad is read again until its version moves (a few tries).
          const panel = progress("Making your change…");
          fill(said, panel.node);
          let tries = 20;
          await poll(ctx, () => get(`/api/ad?platform=${platform}`), {
            waiting: ({ data }) => (tries -= 1) > 0 && data && data.version === before, every: 1000 });
          if (!ctx.alive()) return;
        }
        const diff = answer.data.diff || [];
        const skipped = answer.data.skipped || [];
        await load();
        fill(said, h("div", { class: "notice notice-success", role: "status", dataset: { edited: String(answer.data.version ?? "") } },
          h("p", { class: "notice-title" }, diff.length ? "Your ad is changed" : "Your change is being made"),
          diff.length ? h("ul", { class: "list" }, diff.map((d) => h("li", { dataset: { changedField: d.field, platform: d.platform } },
            `${PLATFORM_NAME[d.platform] || "Your"} ${fieldName(d.platform, d.field).toLowerCase()}: “${d.before}” became “${d.after}”`)))
            : h("p", {}, "It shows in your ad above once it is written."),
          skipped.length ? [h("p", {}, "Left as they were:"), h("ul", { class: "list" }, skipped.map((d) => h("li", {},
            `${PLATFORM_NAME[d.platform] || "Your"} ${fieldName(d.platform, d.field).toLowerCase()} (${SKIPPED[d.why] || "it could not be used"})`)))]
            : null));
        form.message.value = "";
      });
    });
    return form;
  }

  const node = h("section", { class: "panel", "aria-labelledby": "ad-title", dataset: { section: "ad" } },
    h("h2", { id: "ad-title" }, "Your ad"),
    h("p", { class: "hint" }, "Written from your store's words and your product's photo, for each platform within its "
      + "own length limits. What you see is what people scrolling or searching would see."),
    switchGroup, view, outcome, change);
  return { node, load, current: () => current };
}

/** "the headline and the button". */
function plainList(words) {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}
