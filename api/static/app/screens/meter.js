// The credit meter: per feature, what was used in the five-hour window and the week, the
// limits, when each resets, after a refusal what still works and how to raise limits, and
// an upgrade to each paid plan through the payment provider (signed in only).
import { h, fill, title, linkButton, button, busy, scrollingTable } from "../dom.js";
import { momentWords } from "../words.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { share } from "./find.js";
import { goToCheckout, returnedPayment, afterPayment, paymentNotice } from "../checkout.js";

// The paid plans POST /pay/upgrade starts, lowest first, with their names (services/plans.py).
const PAID_TIERS = [["pro", "Pro"], ["max5", "Max 5x"], ["max20", "Max 20x"]];

export const name = "meter";
export const label = "Credit meter";

export async function render(ctx) {
  const shareSlot = h("div", { "aria-live": "polite" });
  const returned = returnedPayment(ctx.params);
  let result = await get("/api/usage");
  if (!ctx.alive()) return;
  // Back from paying for a plan: the plan once the provider has answered (a free plan until then).
  const startTier = result.data && result.data.tier;
  if (returned && !returned.cancelled && startTier === "free") {
    result = await afterPayment(ctx, () => get("/api/usage"), ({ data }) => data && data.tier === startTier);
    if (!result) return;
  }
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Credit meter"), refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const usage = result.data;
  if (!usage.account) {
    fill(ctx.main, title("Credit meter", "AI-backed features spend credits from an allowance per feature."),
      h("div", { class: "notice notice-info", role: "status" },
        h("p", { class: "notice-title" }, "Nothing to meter yet"),
        h("p", {}, "The meter counts per account. Without an account there is no subject to meter, so this browser "
          + "has no meter of its own. Save your progress to get one."),
        h("p", { dataset: { upgrade: "sign-in" } }, "Upgrading to a paid plan needs an account too: sign in (or save "
          + "your progress) first, then upgrade here."),
        h("p", { class: "actions" }, linkButton("Save your progress", "#/app/account", "primary"),
          linkButton("Sign in", "#login"))));
    return;
  }
  const limit = ctx.state.lastLimit;
  fill(ctx.main,
    title("Credit meter", `${usage.tier_label} plan. Limits are scaled by ${usage.multiplier}× `
      + `(your referrals count for ${usage.referral_multiplier}×).`),
    returned ? paymentNotice(returned, returned.cancelled ? "failed" : usage.tier !== "free" ? "paid" : "open",
      `Your ${usage.tier_label} plan`) : null,
    limit ? limitNotice(limit, () => share(ctx, shareSlot)) : null,
    shareSlot,
    scrollingTable("Credits per feature", h("table", { class: "meter" },
      h("caption", { class: "visually-hidden" }, "Credits per feature"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Feature"), h("th", { scope: "col" }, "Cost"),
        h("th", { scope: "col" }, "Five-hour window"), h("th", { scope: "col" }, "This week"),
        h("th", { scope: "col" }, "Status"))),
      h("tbody", {}, usage.features.map(featureRow)))),
    h("p", { class: "hint" }, "Checking never spends. Reads of the dashboard, offer and research draw nothing."),
    upgrades(ctx, usage));
}

/** An Upgrade button per paid plan above the founder's own; each starts its payment. */
function upgrades(ctx, usage) {
  const signedIn = Boolean(ctx.state.account && ctx.state.account.account);
  const outcome = h("div", { "aria-live": "polite" });
  const at = PAID_TIERS.findIndex(([tier]) => tier === usage.tier);
  const higher = PAID_TIERS.slice(at + 1);
  const upgrade = (tier) => (event) => busy(event.currentTarget, async () => {
    const answer = await post("/pay/upgrade", { tier });
    if (!ctx.alive()) return;
    const said = refusalOf(answer);
    if (!said && answer.data.status === "checkout_started") {
      goToCheckout(answer.data);
      return;
    }
    fill(outcome, refusal(said || answer.data, { retry: () => ctx.rerender() }, answer.http));
  });
  return h("section", { class: "panel", "aria-labelledby": "upgrade-title", dataset: { upgrade: signedIn ? "ready" : "sign-in" } },
    h("h2", { id: "upgrade-title" }, "Raise your limits"),
    !signedIn
      ? [h("p", {}, "Upgrading needs a signed-in account: the plan belongs to it."),
        h("p", { class: "actions" }, linkButton("Sign in", "#login", "primary"))]
      : higher.length
        ? [h("p", {}, "A paid plan multiplies every limit for a month. You see the price and pay on the payment "
          + "page; your plan changes once the payment is confirmed."),
        h("ul", { class: "launch-steps" }, higher.map(([tier, label]) => h("li", { dataset: { tier } },
          button(`Upgrade to ${label}`, upgrade(tier), { kind: tier === higher[0][0] ? "primary" : "secondary",
            "data-action": "upgrade" })))),
        outcome]
        : h("p", {}, "You are on the highest plan."));
}

function featureRow(feature) {
  const status = feature.allowed
    ? h("span", { class: "tag tag-ok" }, "Available")
    : h("span", { class: "tag tag-stop" }, feature.exhausted_window === "week" ? "Weekly limit reached" : "Limit reached");
  return h("tr", { dataset: { feature: feature.feature } },
    h("th", { scope: "row" }, feature.name),
    h("td", { class: "num" }, `${feature.cost} credits`),
    h("td", {}, gauge(feature.used_5h, feature.limit_5h, `${feature.name}, five-hour window`),
      h("span", { class: "muted" }, `resets ${momentWords(feature.resets_at_5h)}`)),
    h("td", {}, gauge(feature.used_week, feature.limit_week, `${feature.name}, this week`),
      h("span", { class: "muted" }, `resets ${momentWords(feature.resets_at_week)}`)),
    h("td", {}, status));
}

function gauge(used, limit, label) {
  return h("span", { class: "gauge" },
    // optimum 0 with low/high marks: the bar turns from green to amber to red as it fills.
    h("meter", { min: "0", max: String(limit || 1), low: String(limit * 0.5), high: String(limit * 0.9), optimum: "0",
      value: String(Math.min(used, limit)), "aria-label": label }),
    h("span", {}, `${used} of ${limit}`));
}

/** What the last 429 said: the feature, until when, what still works, the ways up. */
function limitNotice(limit, onShare) {
  const ways = limit.ways_up || [];
  return h("section", { class: "notice notice-warn", role: "alert", "aria-labelledby": "limit-title", dataset: { reason: limit.reason } },
    h("h2", { id: "limit-title", class: "notice-title" },
      `${limit.feature || "A feature"}: ${limit.reason === "weekly_limit_reached" ? "weekly limit reached" : "limit reached"}`),
    h("p", {}, limit.explanation),
    h("p", {}, `Used ${limit.used} of ${limit.limit}. Back on ${momentWords(limit.resets_at)}.`),
    (limit.unaffected || []).length
      ? [h("p", {}, "Still usable now:"), h("ul", { class: "list", dataset: { unaffected: "" } }, limit.unaffected.map((name) => h("li", {}, name)))]
      : h("p", {}, "No other feature has credits left right now."),
    ways.length ? [h("p", {}, "Ways up:"), h("ul", { class: "list" }, ways.map((way) => h("li", { dataset: { way: way.how } },
      way.detail,
      way.how === "referral" ? [" ", button("Share your link", onShare, { kind: "secondary", class: "btn btn-secondary btn-small" })] : null)))] : null);
}
