// "Continue on another device": a single-use link (POST /api/journey, 15 minutes) to a screen
// of the app, shown as text to copy; opening it on the other device lands on that screen
// (screens/continue.js).
import { h, fill, field, button, busy, when } from "./dom.js";
import { post, refusalOf } from "./api.js";

/** The hand-off panel; `routeNow()` names the screen the link carries when it is made. */
export function handoffPanel(ctx, routeNow) {
  const slot = h("div", { "aria-live": "polite" });
  const section = h("section", { class: "panel handoff", id: "handoff", "aria-labelledby": "handoff-title" },
    h("h2", { id: "handoff-title" }, "Continue on another device"),
    h("p", {}, "Make a link, then open it on your phone or another computer to pick up where you are. "
      + "It works once, for 15 minutes."),
    h("p", { class: "actions" }, button("Make a link", make, { kind: "secondary" })),
    slot);
  return section;

  async function make(event) {
    await busy(event.currentTarget, async () => {
      const answer = await post("/api/journey", { route: routeNow() });
      if (!ctx.alive()) return;
      const refused = refusalOf(answer);
      if (refused) {
        ctx.toast(refused.explanation);
        return;
      }
      // The day too, in the one style of every screen: a link made before midnight works into the next day.
      const until = when(answer.data.expires_at);
      const box = field("Your link to continue", { type: "text", readonly: true, id: "handoff-link",
        value: answer.data.url }, { hint: `It works once, until ${until}. Open it on your other device.` });
      const link = box.querySelector("input");
      fill(slot, box, h("p", { class: "actions" }, button("Copy link", () => copy(link), { kind: "secondary" })));
      link.select();
    });
  }

  async function copy(link) {
    try {
      await navigator.clipboard.writeText(link.value);
    } catch {
      link.select();
      document.execCommand("copy");
    }
    ctx.toast("Link copied. Open it on your other device.");
  }
}
