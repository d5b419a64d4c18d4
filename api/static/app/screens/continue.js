// Continue: opens a link made on another device (#/app/continue?c=<id>): the carrier is spent
// (POST /api/journey/<id>/consume) and the app goes to the screen it carries.
import { h, fill, title, linkButton } from "../dom.js";
import { post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "continue";
export const label = "Continue";

const HEADINGS = { already_consumed: "This link was used already", not_found: "This link has run out" };

/** When the link cannot be opened: the ways to continue anyway, not only a way home. Signing in
 * brings everything saved to the founder's address onto this device; a new link comes from the
 * device they came from. */
function waysOn(ctx) {
  const signedIn = ctx.state.account && ctx.state.account.account;
  return h("section", { class: "panel", "aria-labelledby": "ways-title", dataset: { ways: "continue" } },
    h("h2", { id: "ways-title" }, "How to continue here"),
    signedIn
      ? h("p", {}, `You are signed in as ${signedIn} on this device, so your work is here already: go home and pick up where you were.`)
      : h("p", {}, "If you saved your work to your email address, sign in with it on this device: everything you "
        + "did comes with you. Or make a new link on the device you came from, and open it here within 15 minutes."),
    h("p", { class: "actions" },
      signedIn ? null : linkButton("Sign in to continue", "#login", "primary"),
      linkButton("Go home", "#/app/home", signedIn ? "primary" : "secondary")));
}

export async function render(ctx) {
  const id = ctx.params.get("c") || "";
  if (!/^[0-9a-f]{32}$/.test(id)) {
    fill(ctx.main, title("Continue"), refusal({ reason: "not_found", explanation: "This link is not complete: "
      + "copy the whole link from your other device, or make a new one there." }, {}, 404, { headings: HEADINGS }),
    waysOn(ctx));
    return;
  }
  const result = await post(`/api/journey/${id}/consume`, {});
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Continue"), refusal(said, {}, result.http, { headings: HEADINGS }), waysOn(ctx));
    return;
  }
  // Only a screen of this app (the server checks the same): never leave the site.
  const route = /^#\/app\/[a-z0-9-]/.test(result.data.route) ? result.data.route : "#/app/home";
  fill(ctx.main, title("Continue"), h("p", {}, "Taking you where you were…"));
  location.replace(route);
}
