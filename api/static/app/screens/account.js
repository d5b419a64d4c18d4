// Account: save this browser's journey to an email address (a sign-in link is mailed), see
// the plan, and sign out. Signing out keeps the account, claims and revenue.
import { h, fill, title, button, busy, linkButton } from "../dom.js";
import { get, post } from "../api.js";
import { saveWorkForm, savedNotice } from "../save-work.js";

export const name = "account";
export const label = "Account";

export async function render(ctx) {
  await ctx.refreshWho();
  const info = ctx.state.account || {};
  if (!info.account) {
    fill(ctx.main, title("Account", "Your work is kept in this browser only. Save it to your email to keep it "
      + "on any device."),
    saveWorkForm(ctx, {
      heading: "Save your work",
      intro: "We email you a link. Once you open it in this browser, everything this browser did (holds, "
        + "claims, research) becomes your account's, and you can sign in from any device.",
      // The saved state replaces the form at once: the address, "not confirmed yet", what to do.
      onSaved: (data) => showAccount(ctx, savedNotice(data)),
    }),
    h("p", { class: "narrow" }, "Already saved your work? ", h("a", { href: "#login" }, "Sign in by link"), "."));
    return;
  }
  await showAccount(ctx);
}

async function showAccount(ctx, notice = null) {
  const info = ctx.state.account || {};
  const usage = (await get("/api/usage")).data || {};
  if (!ctx.alive()) return;
  const signOut = button("Sign out", (event) => busy(event.currentTarget, async () => {
    await post("/api/logout");
    await ctx.refreshWho();
    ctx.toast("Signed out. Your account, claims and revenue are kept.");
    location.hash = "#/app/home";
  }), { kind: "secondary", "data-action": "sign-out" });
  fill(ctx.main, title("Account", info.verified ? null : "Your work is saved to this address, waiting for you to "
    + "confirm it."),
  notice,
  h("section", { class: "panel narrow" },
    h("dl", { class: "pairs" },
      h("dt", {}, "Email"), h("dd", { dataset: { account: info.account } }, info.account),
      h("dt", {}, "Confirmed"), h("dd", { dataset: { verified: String(Boolean(info.verified)) } }, info.verified ? "Yes"
        : "Not yet: open the link we mailed you in this browser. Until then your work stays with this browser."),
      h("dt", {}, "Plan"), h("dd", {}, info.tier_label || info.tier || "Free"),
      h("dt", {}, "Limits multiplier"), h("dd", {}, usage.multiplier !== undefined
        ? `${usage.multiplier}× (of which referrals ${usage.referral_multiplier}×)` : "—")),
    h("p", { class: "actions" }, linkButton("Your meter", "#/app/meter"), signOut)));
}
