// Account: save this browser's journey to an email address (a sign-in link is mailed), see
// the plan, and sign out. Signing out keeps the account, claims and revenue.
import { h, fill, title, field, button, busy, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "account";
export const label = "Account";

export async function render(ctx) {
  await ctx.refreshWho();
  const info = ctx.state.account || {};
  const message = h("div", { "aria-live": "polite" });
  if (!info.account) {
    const form = h("form", { class: "panel narrow", novalidate: true },
      h("h2", {}, "Save your progress"),
      h("p", {}, "We email you a link. Once you open it in this browser, everything this browser did (holds, "
        + "claims, research) becomes your account's, and you can sign in from any device."),
      field("Email address", { type: "email", name: "email", required: true, autocomplete: "email" }),
      h("div", { class: "form-actions" }, button("Save and email me a link", null, { type: "submit" })),
      message);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(form.querySelector("button[type=submit]"), async () => {
        const result = await post("/api/account", { email: form.email.value.trim() });
        const data = result.data || {};
        if (data.status === "account_saved") {
          await ctx.refreshWho();
          fill(message, h("div", { class: "notice notice-success", role: "status" },
            h("p", { class: "notice-title" }, data.verified ? "Saved" : "Check your inbox"),
            h("p", {}, data.verified
              ? `Saved to ${data.email}`
                + `${data.adopted_claims.length ? `; your claims (${data.adopted_claims.join(", ")}) came along` : ""}.`
              : `Open the link we mailed to ${data.email} in this browser. Until then your work stays with this `
                + "browser only, and nobody else who types that address can see it.")));
          return;
        }
        if (data.reason === "account_required" && result.http === 409) {
          fill(message, h("div", { class: "notice notice-info", role: "status", dataset: { reason: data.reason } },
            h("p", { class: "notice-title" }, "You already have an account"),
            h("p", {}, data.explanation),
            h("p", {}, data.email_sent ? "We emailed you a sign-in link: open it to continue there."
              : "The mailer is not accepting mail right now; try again in a while.")));
          return;
        }
        fill(message, refusal(refusalOf(result), {}, result.http));
      });
    });
    fill(ctx.main, title("Account", "You are using the service without an account."), form,
      h("p", { class: "narrow" }, "Already have an account? ", h("a", { href: "#login" }, "Sign in by link"), "."));
    return;
  }
  const usage = (await get("/api/usage")).data || {};
  if (!ctx.alive()) return;
  const signOut = button("Sign out", (event) => busy(event.currentTarget, async () => {
    await post("/api/logout");
    await ctx.refreshWho();
    ctx.toast("Signed out. Your account, claims and revenue are kept.");
    location.hash = "#/app/home";
  }), { kind: "secondary", "data-action": "sign-out" });
  fill(ctx.main, title("Account"),
    h("section", { class: "panel narrow" },
      h("dl", { class: "pairs" },
        h("dt", {}, "Email"), h("dd", { dataset: { account: info.account } }, info.account),
        h("dt", {}, "Confirmed"), h("dd", {}, info.verified ? "Yes"
          : "Not yet: open the link we mailed you in this browser. Until then your work stays with this browser."),
        h("dt", {}, "Plan"), h("dd", {}, info.tier_label || info.tier || "Free"),
        h("dt", {}, "Limits multiplier"), h("dd", {}, usage.multiplier !== undefined
          ? `${usage.multiplier}× (of which referrals ${usage.referral_multiplier}×)` : "—")),
      h("p", { class: "actions" }, linkButton("Your meter", "#/app/meter"), signOut)),
    message);
}
