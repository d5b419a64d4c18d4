// The walkthrough on the home screen: the launch steps one at a time in the founder's words,
// each done when its launch fact is true, with Back, Next and Dismiss. The position and the
// dismissal are the server's (GET /api/walkthrough), so a reload shows the same step.
import { h, fill, button, busy, linkButton } from "./dom.js";
import { get, post, refusalOf } from "./api.js";

/** The walkthrough's panel, or null when it was dismissed (or cannot be read). `onStep` is
 * told the step shown, each time it changes. */
export async function walkthroughPanel(ctx, { onStep = () => {} } = {}) {
  const result = await get("/api/walkthrough");
  if (refusalOf(result) || result.data.dismissed) return null;
  const section = h("section", { class: "panel walkthrough", id: "walkthrough", "aria-labelledby": "walkthrough-title" });
  const said = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  show(result.data);
  return section;

  async function act(control, path, body) {
    await busy(control, async () => {
      const answer = await post(path, body);
      if (!ctx.alive()) return;
      const refused = refusalOf(answer);
      if (refused) ctx.toast(refused.explanation);
      else show(answer.data);
    });
  }

  function show(data) {
    if (data.dismissed) {
      section.remove();
      ctx.toast("Walkthrough closed. Your launch facts and tasks still show every step.");
      return;
    }
    const count = data.steps.length;
    const at = data.position;
    const step = data.steps[at];
    onStep(step);
    said.textContent = `Step ${at + 1} of ${count}: ${step.title}`;
    fill(section,
      h("h2", { id: "walkthrough-title" }, "Your way to launch"),
      h("p", { class: "muted walkthrough-count", dataset: { position: String(at), step: step.id } },
        `Step ${at + 1} of ${count}`, step.done ? " · done" : ""),
      h("p", { class: "walkthrough-step" }, h("strong", {}, step.title)),
      h("p", {}, step.detail),
      h("p", { class: "actions" },
        step.done ? null : linkButton("Do this step", step.route, "primary"),
        button("Back", (event) => act(event.currentTarget, "/api/walkthrough/advance", { direction: "back" }),
          { kind: "secondary", disabled: at === 0 ? true : undefined }),
        button("Next", (event) => act(event.currentTarget, "/api/walkthrough/advance", { direction: "forward" }),
          { kind: "secondary", disabled: at === count - 1 ? true : undefined }),
        button("Dismiss", (event) => act(event.currentTarget, "/api/walkthrough/dismiss", {}), { kind: "secondary" })),
      said);
  }
}
