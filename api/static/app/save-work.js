// Saving this browser's work to an email address (POST /api/account): one form, shared by the
// Account and Sign in screens, so a new founder can save from either and both say the same.
// A new address gets a link to confirm it; until it is opened the work stays with this browser.
import { h, fill, field, button, busy, uid } from "./dom.js";
import { post, refusalOf } from "./api.js";
import { refusal } from "./reasons.js";

/** What a founder reads once the address is saved (the answer of POST /api/account). */
export function savedNotice(data) {
  const came = data.adopted_claims && data.adopted_claims.length
    ? `; your claims (${data.adopted_claims.join(", ")}) came along` : "";
  return h("div", { class: "notice notice-success", role: "status", dataset: { saved: data.email } },
    h("p", { class: "notice-title" }, data.verified ? "Saved" : "Check your inbox"),
    h("p", {}, data.verified ? `Saved to ${data.email}${came}.`
      : `Open the link we mailed to ${data.email} in this browser. Until then your work stays with this `
        + "browser only, and nobody else who types that address can see it."));
}

/**
 * The save form. Once saved, the top bar is redrawn (ctx.refreshWho) before `onSaved(data)`
 * runs, so the screen and the top bar show the saved address together. An address that
 * already has a confirmed account, and every refusal, are answered inside the form.
 */
export function saveWorkForm(ctx, { heading, intro, onSaved }) {
  const headingId = uid("save");
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "panel narrow", novalidate: true, "aria-labelledby": headingId },
    h("h2", { id: headingId }, heading),
    intro ? h("p", {}, intro) : null,
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
        if (ctx.alive()) onSaved(data);
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
  return form;
}
