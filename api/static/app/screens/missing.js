// A route the app does not have.
import { h, fill, title, linkButton } from "../dom.js";

export const name = "missing";
export const label = "Not found";

export async function render(ctx) {
  fill(ctx.main, title("There is no such screen"),
    h("p", {}, "The address does not name a screen of this app."),
    h("p", { class: "actions" }, linkButton("Go home", "#/app/home", "primary")));
}
