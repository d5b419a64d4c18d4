// Find: the feed as cards. The products you claimed come first, then the one held for you
// with its timer, then the other candidates: you claim (after saying yes to what it spends),
// pass on it, or hold another card instead. Every refusal is explained where it happened.
// "#/app/find/yours" shows only what you claimed: reachable whatever the feed shows, and
// it spends no find credit.
import { h, fill, title, button, busy, field, linkButton, uid, plural } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { productCard } from "../cards.js";
import { progress, poll } from "../poll.js";

export const name = "find";
export const label = "Find a product";

// How long a pass can be taken back (services/discovery/holds.py UNDO_PASS_SECONDS).
const UNDO_SECONDS = 60;

/** What one claim spends, from GET /api/claims: "your 1 claim", "your last claim", "1 of your 3 claims". */
function claimCost(allowance) {
  const left = allowance.finds_remaining;
  if (left === 1) return allowance.allowance === 1 ? "your 1 claim" : "your last claim";
  return `1 of your ${left} claims`;
}

/** Whether a share still unlocks one more claim (the allowance has a most, GET /api/claims max_allowance). */
const sharingUnlocks = (allowance) => allowance.allowance < allowance.max_allowance;

/** What is left after this claim, in a founder's words. */
function afterClaim(allowance) {
  const left = allowance.finds_remaining - 1;
  if (left > 0) return `You will have ${plural(left, "claim")} left.`;
  return sharingUnlocks(allowance)
    ? "After it your feed stays empty until you share your link, which unlocks one more claim."
    : `It is your last: ${allowance.max_allowance} claims are the most one founder can make, so no share unlocks another.`;
}

const claimedActions = () => [linkButton("See the offer", "#/app/offer", "primary"), linkButton("Dashboard", "#/app/dashboard")];

/** The founder's claimed products, each a card with the way to its offer. */
function claimedSection(ctx, claimed) {
  if (!claimed.length) return null;
  return h("section", { class: "yours", "aria-labelledby": "claimed-title", dataset: { claimed: String(claimed.length) } },
    h("h2", { id: "claimed-title" }, claimed.length === 1 ? "Your product" : "Your products"),
    h("div", { class: "stack" }, claimed.map((card) => productCard(card, { ctx, actions: claimedActions() }))));
}

export async function render(ctx) {
  if (ctx.rest[0] === "yours") {
    await renderYours(ctx);
    return;
  }
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
  let allowance = null; // GET /api/claims: what a claim spends
  let held = null; // the card held for you now, to name it when another takes its place

  async function loadFeed() {
    const [result, claims] = await Promise.all([get("/api/feed"), get("/api/claims")]);
    if (!ctx.alive()) return;
    allowance = claims.data && claims.data.status === "ok" ? claims.data : null;
    const claimed = allowance ? allowance.claimed : [];
    const said = refusalOf(result);
    if (said) {
      held = null;
      fill(feedArea, refusal(said, actions, result.http), claimedSection(ctx, claimed));
      return;
    }
    const cards = result.data;
    if (cards.length === 0) {
      held = null;
      fill(feedArea, atAllowance(actions, allowance), claimedSection(ctx, claimed));
      return;
    }
    const [first, ...others] = cards;
    held = first.claimed ? null : first;
    fill(feedArea,
      claimedSection(ctx, claimed),
      held ? h("section", { class: "yours", "aria-labelledby": "yours-title" },
        h("h2", { id: "yours-title" }, "Held for you"), yourCard(held)) : null,
      h("section", { "aria-labelledby": "others-title" },
        h("div", { class: "section-head" },
          h("h2", { id: "others-title" }, "More candidates"),
          button("Refresh the feed", (event) => busy(event.currentTarget, loadFeed), { kind: "secondary", "data-action": "refresh" })),
        others.length
          ? h("div", { class: "cards" }, others.map(otherCard))
          : h("p", { class: "empty" }, "No other candidate is free right now. Refresh in a while, or look for new products.")));
  }

  /** The claim button: it says what a claim spends, and asks before spending it. */
  function claimButton(card, node, productId) {
    const cost = allowance ? `: uses ${claimCost(allowance)}` : "";
    return button(`Claim it${cost}`, (event) => askToClaim(node(), card, productId, event.currentTarget),
      { "data-action": "claim" });
  }

  function yourCard(card) {
    const acts = [claimButton(card, () => node),
      button("Pass for good", (event) => busy(event.currentTarget, () => pass(node, card)), { kind: "secondary", "data-action": "pass" })];
    const node = productCard(card, { actions: acts, ctx, headingLevel: "h3" });
    return node;
  }

  function otherCard(card) {
    const acts = [
      button("Hold this one", (event) => busy(event.currentTarget, () => select(node, card)), { kind: "secondary", "data-action": "select" }),
      claimButton(card, () => node, card.product_id),
    ];
    if (ctx.state.account && ctx.state.account.account) {
      acts.push(button("Shortlist", (event) => busy(event.currentTarget, () => shortlist(node, card.product_id)), { kind: "ghost" }));
    }
    const node = productCard(card, { actions: acts, ctx });
    return node;
  }

  // A claim cannot be undone and may use the founder's whole allowance: the card asks once,
  // in the page, naming what it spends. Focus goes to the question, not to the yes, so a
  // second press of Enter or a double tap does not answer it.
  function askToClaim(node, card, productId, claimControl) {
    const question = h("p", { class: "notice-title", tabindex: "-1", id: uid("confirm") },
      `Claim ${card.name} for good?`);
    const cancel = () => {
      fill(node.notices);
      claimControl.focus();
    };
    fill(node.notices, h("div", { class: "notice notice-warn confirm", role: "group", "aria-labelledby": question.id,
      dataset: { confirm: "claim" } },
    question,
    h("p", {}, `It becomes yours alone: no other founder will be shown it again, and a claim cannot be undone. `
      + `It uses ${allowance ? claimCost(allowance) : "one of your claims"}. ${allowance ? afterClaim(allowance) : ""}`),
    h("p", { class: "actions" },
      button("Yes, claim it", (event) => busy(event.currentTarget, () => claim(node, productId)), { "data-action": "confirm-claim" }),
      button("Not now", cancel, { kind: "secondary", "data-action": "cancel-claim" }))));
    question.focus();
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
      const { claims_made: made, allowance: of, finds_remaining: left } = result.data;
      ctx.toast("Claimed. It is yours alone now; its offer is being researched.");
      fill(status, h("div", { class: "notice notice-success", role: "status" },
        h("p", { class: "notice-title" }, "Claimed"),
        // At the allowance the feed below says what that means; here it is said once, briefly.
        h("p", {}, `${left ? `You have used ${made} of your ${plural(of, "claim")} (${left} left). ` : "That was your last claim for now. "}`
          + "Its offer and verdict are on their way, and you will always find it under Your products."),
        h("p", { class: "actions" }, linkButton("See the offer", "#/app/offer", "primary"))));
      await loadFeed();
      return;
    }
    refuseIn(node, result, productId);
  }

  async function pass(node, card) {
    const result = await post("/api/pass", { action: "pass" });
    if (result.data && result.data.status === "passed") {
      // Said above the feed (with no next card, the feed below says why), with the way back.
      fill(status, passedNotice(card));
      await loadFeed();
      return;
    }
    refuseIn(node, result);
  }

  /** What a pass did, and an Undo for the minute the service keeps it open; then it says the pass is final. */
  function passedNotice(card) {
    const timer = h("span", { role: "timer", "aria-live": "off" });
    const line = h("p", {}, "It will not be shown to you again. Changed your mind? ", timer);
    const undo = h("p", { class: "actions" }, button(`Undo: show ${card.name} again`,
      (event) => busy(event.currentTarget, () => undoPass(card)), { kind: "secondary", "data-action": "undo-pass" }));
    const notice = h("div", { class: "notice notice-info", role: "status", dataset: { passed: card.product_id } },
      h("p", { class: "notice-title" }, `You passed on ${card.name}`), line, undo);
    const until = Date.now() + UNDO_SECONDS * 1000;
    const tick = () => {
      const left = (until - Date.now()) / 1000;
      if (left <= 0) {
        line.textContent = `Passing on ${card.name} is final now: it will not be shown to you again.`;
        undo.remove();
        return false;
      }
      timer.textContent = `You can undo it for ${Math.ceil(left)} more second${Math.ceil(left) === 1 ? "" : "s"}.`;
      return true;
    };
    if (tick()) {
      const interval = setInterval(() => {
        if (!ctx.alive() || !notice.isConnected || !tick()) clearInterval(interval);
      }, 1000);
    }
    return notice;
  }

  async function undoPass(card) {
    const result = await post("/api/pass", { action: "undo", product_id: card.product_id });
    if (result.data && result.data.status === "restored") {
      fill(status, h("div", { class: "notice notice-success", role: "status", dataset: { restored: card.product_id } },
        h("p", { class: "notice-title" }, `${card.name} is back`),
        h("p", {}, result.data.explanation)));
      await loadFeed();
      return;
    }
    fill(status, refusal(refusalOf(result), actions, result.http));
  }

  // Holding another card releases the one held now: the founder is told which.
  async function select(node, card) {
    const released = held && held.product_id !== card.product_id ? held : null;
    const result = await post("/api/select", { product_id: node.dataset.productId });
    if (result.data && result.data.status === "selected") {
      const said = released ? `${released.name} is no longer held for you: anyone may take it now.` : "";
      ctx.toast(`Held for you: ${card.name}. ${said}`.trim());
      fill(status, released ? h("div", { class: "notice notice-info", role: "status", dataset: { released: released.product_id } },
        h("p", { class: "notice-title" }, `You now hold ${card.name}`),
        h("p", {}, said)) : null);
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

/** At the claim allowance the feed is empty: say so, and what unlocks the next claim (a share, until
 * the allowance is at its most; then that nothing does, rather than offer a share that unlocks nothing). */
function atAllowance(actions, allowance) {
  const of = allowance && allowance.allowance;
  const used = of ? `You have used ${of === 1 ? "your one claim" : `all ${of} of your claims`}` : "You have used your claim allowance";
  const canUnlock = !allowance || sharingUnlocks(allowance);
  const next = allowance ? allowance.next_claim : "Share your link: each share unlocks one more claim.";
  return h("div", { class: "notice notice-info", role: "status",
    dataset: { reason: "claim_limit_reached", unlock: canUnlock ? "share" : "none" } },
  h("p", { class: "notice-title" }, used),
  h("p", {}, `${next} What you claimed stays below, and under Your products.`),
  canUnlock ? h("p", { class: "actions" }, button("Share to unlock one more", actions.share, { kind: "secondary" })) : null);
}

/** "#/app/find/yours": the products the founder claimed, and what a claim has left. */
async function renderYours(ctx) {
  const result = await get("/api/claims");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Your products"), refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const { claimed, claims_made: made, allowance, finds_remaining: left } = result.data;
  fill(ctx.main,
    title("Your products", "What you claimed: yours alone, for good, whatever your feed shows."),
    claimed.length
      ? [h("p", { class: "muted" }, `You have used ${made} of your ${plural(allowance, "claim")}`
        + `${left ? `: ${left} left to use on Find.` : `. ${result.data.next_claim}`}`),
      h("div", { class: "stack", dataset: { claimed: String(claimed.length) } },
        claimed.map((card) => productCard(card, { ctx, actions: claimedActions(), headingLevel: "h2" })))]
      : [h("p", { class: "empty" }, "You have not claimed a product yet."),
        h("p", { class: "actions" }, linkButton("Find a product", "#/app/find", "primary"))]);
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
