// Confirm a sign-in: a sign-in link was opened in this browser, but this browser did not ask
// for it and has work of its own (or another account). Nothing has changed yet: the founder
// sees which account the link is for and what becomes of the work here, and only the button
// below signs in. Someone can mail you a link to their own account; this screen is why
// opening it cannot quietly take your work.
import { h, fill, title, button, busy, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "confirm-sign-in";
export const label = "Confirm sign-in";

// Each kind of work is described by the service in a founder's words ("your ad balance of
// $500.00", "your payout destination"); every kind a sign-in would move is listed.
function consequences(data) {
  const lines = [];
  if (data.signed_in_as) {
    lines.push(`You are signed in to ${data.signed_in_as} now. Signing in to ${data.account} leaves that account and `
      + "everything in it as it is; sign in to it again whenever you like.");
  }
  if (data.saved_as) {
    lines.push(`This browser saved the address ${data.saved_as}, which nobody has confirmed yet; it will be forgotten here.`);
  }
  return lines;
}

function moving(data) {
  const items = data.work.flatMap((kind) => kind.items);
  if (!items.length) return [];
  return [h("p", {}, `What you did in this browser moves into ${data.account}:`),
    h("ul", { class: "plain-list", dataset: { moves: "" } },
      ...data.work.map((kind) => h("li", { dataset: { kind: kind.kind } }, kind.items.join("; ")))),
    ...data.kept.map((line) => h("p", { class: "muted", dataset: { kept: "" } }, line))];
}

export async function render(ctx) {
  const code = ctx.params.get("code") || "";
  const { http, data } = await get(`/api/login/confirm?code=${encodeURIComponent(code)}`);
  if (!ctx.alive()) return;
  if (!data || data.status !== "confirm") {
    fill(ctx.main, title("Confirm sign-in"), refusal(refusalOf({ http, data }), {}, http),
      h("p", { class: "actions" }, linkButton("Keep working", "#/app/home")));
    return;
  }
  const message = h("div", { "aria-live": "polite" });
  const confirm = button(`Sign in as ${data.account}`, (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/login/confirm", { code });
    if (result.data && result.data.status === "signed_in") {
      await ctx.refreshWho();
      ctx.toast(`Signed in as ${result.data.account}.`);
      const next = result.data.location;
      if (next.includes("#")) location.assign(next); else location.href = next;
      return;
    }
    fill(message, refusal(refusalOf(result), {}, result.http));
  }), { "data-action": "confirm-sign-in" });
  fill(ctx.main,
    title("Is this your sign-in?", "A sign-in link was opened in this browser, but this browser did not ask for it. "
      + "Nothing has changed yet."),
    h("section", { class: "panel narrow" },
      h("p", {}, "The link signs in to ", h("strong", { dataset: { account: data.account } }, data.account), "."),
      h("ul", { class: "plain-list" }, ...consequences(data).map((line) => h("li", {}, line))),
      ...moving(data),
      h("p", { class: "muted" }, "Only continue if you asked for this link and recognise the address. Someone can "
        + "send you a link to their own account to collect your work."),
      h("p", { class: "actions" }, confirm, linkButton("No, keep working as I am", "#/app/home"))),
    message);
}
