// Find: the feed as cards. Your own product comes first with its hold timer; you claim it,
// pass on it, or hold another card instead. Every refusal is explained where it happened.
import { h, fill, title, button, busy, field, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { productCard } from "../cards.js";
import { progress, poll } from "../poll.js";

export const name = "find";
export const label = "Find a product";

export async function render(ctx) {
  const status = h("div", { class: "stack", "aria-live": "polite" });
  const feedArea = h("div", {});
  const watchesArea = h("section", { class: "panel", "aria-labelledby": "watches-title" });
  fill(ctx.main,
    title("Find a product", "Candidates from the catalog, best first. Hold one, claim it to make it yours, "
      + "or pass for good. A claim is exclusive: no other founder will ever be shown it."),
    status, feedArea, watchesArea);

  const actions = {
    refresh: () => loadFeed(),
    retry: () => loadFeed(),
    share: () => share(ctx, status, loadFeed),
    discover: () => discover(ctx, status, loadFeed),
  };

  async function loadFeed() {
    const result = await get("/api/feed");
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(feedArea, refusal(said, actions, result.http));
      return;
    }
    const cards = result.data;
    if (cards.length === 0) {
      await showAtAllowance(ctx, feedArea, actions);
      return;
    }
    const [yours, ...others] = cards;
    fill(feedArea,
      h("section", { class: "yours", "aria-labelledby": "yours-title" },
        h("h2", { id: "yours-title" }, yours.claimed ? "Your product" : "Held for you"),
        yourCard(yours)),
      h("section", { "aria-labelledby": "others-title" },
        h("div", { class: "section-head" },
          h("h2", { id: "others-title" }, "More candidates"),
          button("Refresh the feed", (event) => busy(event.currentTarget, loadFeed), { kind: "secondary", "data-action": "refresh" })),
        others.length
          ? h("div", { class: "cards" }, others.map(otherCard))
          : h("p", { class: "empty" }, "No other candidate is free right now. Refresh in a while, or look for new products.")));
  }

  function yourCard(card) {
    const acts = [];
    if (card.claimed) {
      acts.push(linkButton("See the offer", "#/app/offer", "primary"), linkButton("Dashboard", "#/app/dashboard"));
    } else {
      acts.push(
        button("Claim it", (event) => busy(event.currentTarget, () => claim(node)), { "data-action": "claim" }),
        button("Pass for good", (event) => busy(event.currentTarget, () => pass(node)), { kind: "secondary", "data-action": "pass" }));
    }
    const node = productCard(card, { actions: acts, ctx, headingLevel: "h3" });
    return node;
  }

  function otherCard(card) {
    const acts = [
      button("Hold this one", (event) => busy(event.currentTarget, () => select(node)), { kind: "secondary", "data-action": "select" }),
      button("Claim", (event) => busy(event.currentTarget, () => claim(node, card.product_id)), { kind: "primary", "data-action": "claim" }),
    ];
    if (ctx.state.account && ctx.state.account.account) {
      acts.push(button("Shortlist", (event) => busy(event.currentTarget, () => shortlist(node, card.product_id)), { kind: "ghost" }));
    }
    const node = productCard(card, { actions: acts, ctx });
    return node;
  }

  function refuseIn(node, result, productId) {
    const said = refusalOf(result);
    fill(node.notices, refusal(said, {
      ...actions,
      watch: () => fill(node.notices, watchForm(ctx, productId || node.dataset.productId, () => loadWatches())),
    }, result.http));
  }

  async function claim(node, productId) {
    const result = await post("/api/pass", productId ? { action: "claim", product_id: productId } : { action: "claim" });
    if (result.data && result.data.status === "claimed") {
      ctx.toast("Claimed. It is yours alone now; its offer is being researched.");
      fill(status, h("div", { class: "notice notice-success", role: "status" },
        h("p", { class: "notice-title" }, "Claimed"),
        h("p", {}, `You have made ${result.data.claims_made} of ${result.data.allowance} claims `
          + `(${result.data.finds_remaining} left). Its offer and verdict are on their way.`),
        h("p", { class: "actions" }, linkButton("See the offer", "#/app/offer", "primary"))));
      await loadFeed();
      return;
    }
    refuseIn(node, result, productId);
  }

  async function pass(node) {
    const result = await post("/api/pass", { action: "pass" });
    if (result.data && result.data.status === "passed") {
      fill(status); // with no next card, the feed below says why
      await loadFeed();
      return;
    }
    refuseIn(node, result);
  }

  async function select(node) {
    const result = await post("/api/select", { product_id: node.dataset.productId });
    if (result.data && result.data.status === "selected") {
      ctx.toast("Held for you. Your previous hold was released.");
      await loadFeed();
      window.scrollTo({ top: 0 });
      return;
    }
    refuseIn(node, result);
  }

  async function shortlist(node, productId) {
    const result = await post("/api/research-workspace", { op: "shortlist", product_id: productId });
    if (result.data && result.data.status === "ok") {
      fill(node.notices, h("p", { class: "hint" }, "On your shortlist (Workspace)."));
      return;
    }
    refuseIn(node, result);
  }

  async function loadWatches() {
    const result = await get("/api/notify_me");
    if (!ctx.alive()) return;
    const watches = (result.data && result.data.watches) || [];
    fill(watchesArea,
      h("h2", { id: "watches-title" }, "Your watches"),
      watches.length
        ? h("ul", { class: "list" }, watches.map((w) => h("li", {},
          h("strong", {}, w.product_id), ` · ${w.state === "available" ? "available again, we mailed you" : "watching"}`,
          h("span", { class: "muted" }, ` · ${w.email}`))))
        : h("p", { class: "empty" }, "You are not watching any product. When a card you want is held or claimed "
          + "by another founder, ask to be emailed when it is free."));
  }

  await Promise.all([loadFeed(), loadWatches()]);
}

/** At the claim allowance the feed is empty: show the claimed product and how to get more. */
async function showAtAllowance(ctx, area, actions) {
  const result = await get("/api/find"); // at the allowance it answers the claimed card, unmetered
  const card = result.data && result.data.product_id ? result.data : null;
  fill(area,
    h("div", { class: "notice notice-info", role: "status", dataset: { reason: "claim_limit_reached" } },
      h("p", { class: "notice-title" }, "You have used your claim allowance"),
      h("p", {}, "Your feed is empty while you are at your allowance. Sharing your link unlocks one more claim."),
      h("p", { class: "actions" }, button("Share to unlock one more", actions.share, { kind: "secondary" }))),
    card ? h("section", { class: "yours", "aria-labelledby": "yours-title" },
      h("h2", { id: "yours-title" }, "Your product"),
      productCard(card, {
        ctx,
        actions: [linkButton("See the offer", "#/app/offer", "primary"), linkButton("Dashboard", "#/app/dashboard")],
      })) : null);
}

/** The share control: records the share, lifts the allowance, shows the coded link. */
export async function share(ctx, slot, after) {
  const result = await post("/api/share");
  const said = refusalOf(result);
  if (said) {
    fill(slot, refusal(said, {}, result.http));
    return;
  }
  const answer = result.data;
  const linkId = "share-link";
  const copy = button("Copy link", async () => {
    try {
      await navigator.clipboard.writeText(answer.url);
      ctx.toast("Link copied.");
    } catch {
      document.getElementById(linkId).select();
      ctx.toast("Select the link and copy it.");
    }
  }, { kind: "secondary" });
  fill(slot, h("div", { class: "notice notice-success", role: "status" },
    h("p", { class: "notice-title" }, "Your link is ready"),
    h("p", {}, answer.explanation),
    h("div", { class: "field inline" },
      h("label", { for: linkId }, "Your coded link"),
      h("input", { id: linkId, value: answer.url, readonly: true }), copy),
    h("p", { class: "hint" }, answer.observed)));
  if (after) await after();
}

/** Runs discovery over the supplier feed (POST /api/discover), showing its progress. */
async function discover(ctx, slot, after) {
  const panel = progress("Looking for new products in the supplier feed…");
  fill(slot, panel.node);
  let result = await post("/api/discover", {});
  if (result.data && result.data.status === "running") {
    const jobId = result.data.job_id;
    result = await poll(ctx, () => get(`/api/discover?job_id=${encodeURIComponent(jobId)}`), {
      waiting: ({ data }) => data && data.status === "running",
    });
    if (!result) return;
  }
  const said = refusalOf(result);
  const data = result.data || {};
  if (said && !data.log) {
    fill(slot, refusal(said, {}, result.http));
    return;
  }
  const summary = (data.log || []).slice(-1)[0] || "The run finished.";
  fill(slot, h("div", { class: `notice ${data.status === "ok" ? "notice-success" : "notice-warn"}`, role: "status" },
    h("p", { class: "notice-title" }, data.status === "ok" ? "Discovery finished" : "Discovery did not finish cleanly"),
    h("p", {}, summary),
    (data.stderr || []).length ? h("p", { class: "hint" }, data.stderr.join(" ")) : null));
  if (after) await after();
}

/** Asks to be mailed when a product held or claimed by someone else is free again. */
export function watchForm(ctx, productId, after) {
  const saved = ctx.state.account && ctx.state.account.account;
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "inline-form", novalidate: true },
    field("Email me when it is free", { type: "email", name: "email", required: true, autocomplete: "email", value: saved || "" }),
    button("Watch it", null, { type: "submit" }),
    message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const submit = form.querySelector("button[type=submit]");
    await busy(submit, async () => {
      const result = await post("/api/notify_me", { email: form.email.value.trim(), product_id: productId });
      if (result.data && result.data.status === "watching") {
        fill(message, h("p", { class: "hint" }, `Watching. We will email ${result.data.email} once when it is free.`));
        if (after) await after();
      } else {
        fill(message, refusal(refusalOf(result) || result.data, {}, result.http));
      }
    });
  });
  return form;
}
