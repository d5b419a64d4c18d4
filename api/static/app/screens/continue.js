// Continue: opens a link made on another device (#/app/continue?c=<id>): the carrier is spent
// (POST /api/journey/<id>/consume) and the app goes to the screen it carries.
import { h, fill, title, linkButton } from "../dom.js";
import { post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "continue";
export const label = "Continue";

const HEADINGS = { already_consumed: "This link was used already", not_found: "This link has run out" };

export async function render(ctx) {
  const id = ctx.params.get("c") || "";
  if (!/^[0-9a-f]{32}$/.test(id)) {
    fill(ctx.main, title("Continue"), refusal({ reason: "not_found", explanation: "This link is not complete: "
      + "copy the whole link from your other device, or make a new one there." }, {}, 404, { headings: HEADINGS }),
    h("p", { class: "actions" }, linkButton("Go home", "#/app/home")));
    return;
  }
  const result = await post(`/api/journey/${id}/consume`, {});
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Continue"), refusal(said, {}, result.http, { headings: HEADINGS }),
      h("p", { class: "actions" }, linkButton("Go home", "#/app/home")));
    return;
  }
  // Only a screen of this app (the server checks the same): never leave the site.
  const route = /^#\/app\/[a-z0-9-]/.test(result.data.route) ? result.data.route : "#/app/home";
  fill(ctx.main, title("Continue"), h("p", {}, "Taking you where you were…"));
  location.replace(route);
}
