// Sign in by link: the service mails a link that works once, for 15 minutes. Opening it
// binds this browser to the account and lands on the home screen. Links go only to addresses
// that saved their work here (the answer is the same for any address, so it tells nobody who
// has an account): a new founder saves first, with the form on this screen, and the link
// that comes back signs them in.
import { h, fill, title, field, button, busy, uid, linkButton } from "../dom.js";
import { post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { saveWorkForm, savedNotice } from "../save-work.js";

export const name = "login";
export const label = "Sign in";

const LINK_ERRORS = {
  invalid_link: "That sign-in link has expired, was already used, or is not one we sent. Ask for a new one below.",
};

// How signing in works, as three steps a founder can take in at a glance.
const HOW = [
  ["Save your work", "Type your email once, under New here."],
  ["Open the link we mail you", "In this browser, within 15 minutes: your address is confirmed."],
  ["Sign in anywhere", "On another device, ask for a link here and open it there."],
];

function signInForm() {
  const headingId = uid("sign-in");
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "panel narrow", novalidate: true, "aria-labelledby": headingId },
    h("h2", { id: headingId }, "Saved your work before?"),
    field("Email address", { type: "email", name: "email", required: true, autocomplete: "email" },
      { hint: "We email a sign-in link to the address you saved your work to." }),
    h("div", { class: "form-actions" }, button("Email me a sign-in link", null, { type: "submit" })),
    message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = form.email.value.trim();
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/login/request", { email });
      if (result.data && result.data.status === "link_requested") {
        fill(message, h("div", { class: "notice notice-success", role: "status" },
          h("p", { class: "notice-title" }, "Check your inbox"),
          h("p", {}, result.data.explanation),
          h("p", {}, "No mail? If you have not saved your work with this address yet, save it first: "
            + "that mails you a link too."),
          result.data.email_sent ? null : h("p", {}, "The mailer is not accepting mail right now; try again in a while.")));
      } else {
        fill(message, refusal(refusalOf(result), {}, result.http));
      }
    });
  });
  return form;
}

/** The newcomer's side: the save form, or, once this browser has saved an address, where it stands. */
function newcomerPanel(ctx, notice) {
  const info = ctx.state.account || {};
  if (!info.account) {
    return saveWorkForm(ctx, {
      heading: "New here?",
      intro: "Save your work with your email first: we send you a link to confirm it. Open it in this browser "
        + "and you are signed in.",
      onSaved: (data) => show(ctx, savedNotice(data)),
    });
  }
  const headingId = uid("saved");
  // Right after saving, the notice says it all; on a later visit, one line says where it stands.
  const where = notice || (info.verified
    ? h("p", {}, "You are signed in as ", h("strong", {}, info.account), ".")
    : h("p", {}, "Your work is saved to ", h("strong", {}, info.account),
      ", not confirmed yet: open the link we mailed you in this browser."));
  return h("section", { class: "panel narrow", "aria-labelledby": headingId, dataset: { account: info.account } },
    h("h2", { id: headingId }, info.verified ? "You are signed in" : "Your work is saved"),
    where, h("p", { class: "actions" }, linkButton("Your account", "#/app/account")));
}

function show(ctx, notice = null) {
  const error = ctx.params.get("e");
  fill(ctx.main,
    title("Sign in", "Keep your products, research and meter on any device. No password: we email you a link."),
    error ? h("div", { class: "notice notice-warn", role: "alert", dataset: { reason: error } },
      h("p", { class: "notice-title" }, "That link did not work"),
      h("p", {}, LINK_ERRORS[error] || "That sign-in link did not work. Ask for a new one below.")) : null,
    // The forms first, so that on a phone the one a founder needs is in view without scrolling.
    h("div", { class: "sign-in-choices" }, newcomerPanel(ctx, notice), signInForm()),
    h("h2", {}, "How signing in works"),
    h("ol", { class: "steps", "aria-label": "How signing in works" },
      HOW.map(([step, text]) => h("li", {}, h("strong", {}, step), h("span", {}, text)))),
    h("p", { class: "muted narrow" }, "You do not need an account to start: ",
      h("a", { href: "#/app/find" }, "find a product"), " first and save your work when you are ready."));
}

export async function render(ctx) {
  await ctx.refreshWho();
  if (!ctx.alive()) return;
  show(ctx);
}
