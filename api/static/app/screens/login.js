// Sign in by link: the service mails a link that works once, for 15 minutes. Opening it
// binds this browser to the account and lands on the home screen.
import { h, fill, title, field, button, busy } from "../dom.js";
import { post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "login";
export const label = "Sign in";

const LINK_ERRORS = {
  invalid_link: "That sign-in link has expired, was already used, or is not one we sent. Ask for a new one below.",
};

export async function render(ctx) {
  const error = ctx.params.get("e");
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "panel narrow", novalidate: true },
    field("Email address", { type: "email", name: "email", required: true, autocomplete: "email" },
      { hint: "We email you a link. There is no password." }),
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
          result.data.email_sent ? null : h("p", {}, "The mailer is not accepting mail right now; try again in a while.")));
      } else {
        fill(message, refusal(refusalOf(result), {}, result.http));
      }
    });
  });
  fill(ctx.main,
    title("Sign in", "Keep your products, research and meter across browsers and devices."),
    error ? h("div", { class: "notice notice-warn", role: "alert", dataset: { reason: error } },
      h("p", { class: "notice-title" }, "That link did not work"),
      h("p", {}, LINK_ERRORS[error] || "That sign-in link did not work. Ask for a new one below.")) : null,
    form,
    h("p", { class: "muted narrow" }, "New here? You do not need an account to start: ",
      h("a", { href: "#/app/find" }, "find a product"), " first and save your progress from ",
      h("a", { href: "#/app/account" }, "your account"), " when you are ready."));
}
