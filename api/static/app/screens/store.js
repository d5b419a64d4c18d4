// Store: build the storefront of your claimed product, follow the build through its stages,
// preview it, publish it, and open the public store.
import { h, fill, title, button, busy, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { progress, poll } from "../poll.js";
import { STORE_STATES, stateWord, whereItStands, momentWords } from "../words.js";
import { ORDERS_FOR_REVENUE, WINDOW_DAYS, funnel, revenueChart } from "../charts.js";
import { storeThumbnail } from "../thumbnail.js";

export const name = "store";
export const label = "Store";

// The build's stages in order (services/store/builds.py), for the bar and its words.
const STAGES = ["queued", "researching", "writing", "rendering", "verifying", "built"];
const STAGE_WORDS = {
  // Not "waiting for a worker": the founder needs to know it starts by itself, not how.
  queued: "In the queue, starting in a moment",
  researching: "Reading the product record, its evidence and the offer",
  writing: "Writing the copy from those facts",
  rendering: "Laying out the pages",
  verifying: "Checking every page",
  built: "Built",
};
const RUNNING = new Set(["building", "publishing"]);
// Why a sentence was left out (integrations/ai/claims.py): what the record could not back.
const UNBACKED = {
  number: "a figure your product's record does not give",
  certification: "a certification your product's record does not show",
  origin: "a place of origin your product's record does not name",
};

/** "a, b and c" */
function listed(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** What building a new version does with the founder's changes, said before they build. */
function rebuildKeeps(data) {
  const changes = (data.your_changes || []).map((c) => c.said);
  return h("p", { class: "hint", dataset: { yourChanges: String(changes.length) } }, changes.length
    ? `Building a new version writes your store afresh from your product's record and keeps your changes: ${listed(changes)}.`
    : "Building a new version writes your store afresh from your product's record.");
}

/** The founder's own sentences a rebuild could not keep, said plainly (never only in a fold). */
function notKept(unbacked) {
  const mine = unbacked.filter((u) => u.yours);
  if (!mine.length) return null;
  return h("div", { class: "notice notice-warn", role: "status", dataset: { notKept: String(mine.length) } },
    h("p", { class: "notice-title" }, `${mine.length === 1 ? "One sentence" : `${mine.length} sentences`} of yours `
      + "could not be kept in this version"),
    h("ul", { class: "list" }, mine.map((u) => h("li", {}, `“${u.sentence}”: ${UNBACKED[u.why] || "not in the record"}, `
      + "so it was left out. The rest of your changes are kept."))));
}

/** The public store's address as text a founder can copy, with a button that copies it. */
function publicAddress(ctx, path) {
  const address = new URL(path, location.origin).href;
  const box = h("input", { type: "text", id: "public-address", value: address, readonly: true,
    class: "copy-text", dataset: { publicAddress: address } });
  const copy = async () => {
    box.select();
    try {
      await navigator.clipboard.writeText(address);
    } catch {
      document.execCommand("copy"); // an older browser, or a page not allowed the clipboard API
    }
    ctx.toast("Copied your store's address.");
  };
  return h("div", { class: "field" },
    h("label", { for: "public-address" }, "Your store's address, to share"),
    h("div", { class: "inline-form" }, box, button("Copy", copy, { kind: "secondary", "data-action": "copy-address" })));
}
const METRIC_DAYS = WINDOW_DAYS;

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Store", "Your storefront, written from your product's record and evidence, checked before "
    + "it is published."), body);

  // Shows the store's state, polling while a build or publish runs (`initial`: an answer in hand).
  const follow = async (initial) => {
    const panel = progress("Building your store…");
    let next = initial;
    const load = async () => {
      const answer = next || await get("/api/store");
      next = null;
      return answer;
    };
    const result = await poll(ctx, load, {
      waiting: ({ data }) => data && RUNNING.has(data.status),
      onWait: ({ data }) => {
        if (!body.contains(panel.node)) fill(body, panel.node);
        const at = STAGES.indexOf(data.stage);
        const words = STAGE_WORDS[data.stage] || data.stage;
        panel.update(data.status === "publishing" ? `Publishing: ${words}…` : `Building: ${words}…`,
          at < 0 ? null : (at + 1) / STAGES.length);
      },
      every: 1000,
    });
    if (result) await show(result);
  };

  const build = (event) => busy(event.currentTarget, async () => follow(await post("/api/store")));

  const publish = (event) => busy(event.currentTarget, async () => {
    const panel = progress("Checking every page before publishing…");
    fill(body, panel.node);
    const result = await post("/api/store/publish");
    if (!ctx.alive()) return;
    if (result.data && RUNNING.has(result.data.status)) {
      await follow(result);
      return;
    }
    if (result.data && result.data.status === "published") ctx.toast("Published: anyone with its address can open your store.");
    await show(result);
  });

  // The public store's visitors over the last METRIC_DAYS days (spec 2.12), for a published store.
  async function visitors(productId) {
    const result = await get(`/api/editor/metrics?product_id=${encodeURIComponent(productId)}&days=${METRIC_DAYS}`);
    const said = refusalOf(result);
    if (said) return h("section", { class: "panel" }, refusal(said, {}, result.http));
    const m = result.data;
    return h("section", { class: "panel", "aria-labelledby": "metrics-title", dataset: { metrics: "ready" } },
      h("h2", { id: "metrics-title" }, `Visitors in the last ${m.days} days`),
      funnel(m),
      h("p", { class: "hint" }, "Paid: unverified browser events. It counts visitors whose browser said they paid; "
        + "anyone can send that. Your orders and revenue, confirmed with the payment provider, are the authority "
        + "on sales."),
      h("p", { class: "hint" }, "Each visitor counts once per step, however often they come back. Your own preview "
        + "never counts."));
  }

  // What the store looks like (drawn from its newest version) and, once it is live, its sales per day.
  async function pictures(published) {
    const [draft, tracking] = await Promise.all([get("/api/editor/draft"),
      published ? get(ORDERS_FOR_REVENUE) : null]);
    const doc = draft.data && draft.data.status === "ok" ? draft.data.document : null;
    return [
      doc ? h("section", { class: "panel", "aria-labelledby": "thumb-title" },
        h("h2", { id: "thumb-title" }, "What your store looks like"),
        storeThumbnail(doc, { version: draft.data.number, sections: draft.data.home_sections })) : null,
      tracking && tracking.data && tracking.data.status === "ok" ? h("section", { class: "panel", "aria-labelledby": "sales-title" },
        h("h2", { id: "sales-title" }, `Sales in the last ${WINDOW_DAYS} days`),
        revenueChart(tracking.data.orders, WINDOW_DAYS)) : null,
    ];
  }

  async function show(result) {
    const said = refusalOf(result);
    const data = result.data || {};
    if (said && !data.stage) {
      const first = data.reason === "not_yet_researched";
      fill(body, first
        ? h("section", { class: "panel", "aria-labelledby": "start-title" },
          h("h2", { id: "start-title" }, "No store yet"),
          h("p", {}, "The service writes your store from your product's record, its dated evidence and the offer: "
            + "a home page leading with what matters, a product page with the price and a buy button, FAQ, shipping "
            + "and returns, contact, privacy and terms."),
          h("p", { class: "actions" }, button("Build my store", build, { "data-action": "build" })))
        : refusal(said, { retry: () => ctx.rerender() }, result.http));
      return;
    }
    const published = data.status === "published";
    // The sentences the AI wrote that the record cannot back (the founder's own are said apart).
    const written = (data.unbacked || []).filter((u) => !u.yours);
    const [metrics, drawn, stands] = await Promise.all([published ? visitors(data.product_id) : null,
      data.version ? pictures(published) : [], whereItStands(data.product_id)]);
    if (!ctx.alive()) return;
    fill(body,
      data.status === "failed" ? refusal(data, {}, 200) : null,
      data.last_publish ? refusal(data.last_publish, {}, 200) : null,
      h("section", { class: "panel", "aria-labelledby": "state-title", dataset: { storeStatus: data.status } },
        h("h2", { id: "state-title" }, published ? "Your store is published" : data.version ? "Your store is built" : "Your store"),
        h("dl", { class: "pairs" },
          h("dt", {}, "Product"), h("dd", {}, stands.name),
          stands.step ? [h("dt", {}, "Sells now"), h("dd", { dataset: { selling: String(stands.step.selling) } },
            stands.step.selling ? "Yes: customers can buy from it." : `No. ${stands.step.says}`)] : null,
          h("dt", {}, "State"), h("dd", { dataset: { storeState: data.status } },
            `${stateWord(STORE_STATES, data.status)}. ${(STORE_STATES[data.status] || [])[1] || ""}`),
          h("dt", {}, "Newest version"), h("dd", {}, data.version ? String(data.version) : "none yet"),
          h("dt", {}, "Published version"), h("dd", {}, data.published_version ? String(data.published_version) : "not published"),
          h("dt", {}, "Updated"), h("dd", {}, momentWords(data.updated_at))),
        data.public_url ? publicAddress(ctx, data.public_url) : null,
        h("p", { class: "actions" },
          data.preview_url ? h("a", { class: "btn btn-secondary", href: data.preview_url, target: "_blank", rel: "noopener" }, "Open the preview") : null,
          data.public_url ? h("a", { class: "btn btn-secondary", href: data.public_url, target: "_blank", rel: "noopener", dataset: { publicUrl: data.public_url } }, "Open the public store") : null,
          data.version && !published ? button("Publish", publish, { "data-action": "publish" }) : null,
          button(data.version ? "Build a new version" : "Build my store", build, { kind: data.version ? "ghost" : "primary", "data-action": "build" })),
        data.version ? rebuildKeeps(data) : null),
      notKept(data.unbacked || []),
      written.length ? h("details", { class: "panel", dataset: { unbacked: String(written.length) } },
        h("summary", {}, `${written.length} sentence${written.length === 1 ? " was" : "s were"} left out: `
          + "your product's record cannot back them"),
        h("ul", { class: "list" }, written.map((u) => h("li", {}, `“${u.sentence}” (${UNBACKED[u.why] || "not in the record"})`)))) : null,
      drawn,
      metrics,
      h("p", { class: "hint" }, "Publishing re-checks every page, the price against your offer and every sentence "
        + "against your product's record; the store is regenerated first when something no longer holds."),
      h("p", { class: "actions" }, linkButton("Launch facts", "#/app/launch")));
  }

  await follow(await get("/api/store"));
}
