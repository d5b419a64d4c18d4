// Polling a job the server runs in the background, with its progress on screen. Polling
// stops as soon as the founder leaves the screen.
import { h } from "./dom.js";

/** A progress panel: a sentence and a bar (indeterminate until a fraction is known). */
export function progress(label) {
  const text = h("p", { class: "progress-text" }, label);
  const bar = h("progress", { max: "100", "aria-label": label });
  const node = h("div", { class: "progress", role: "status" }, text, bar);
  return {
    node,
    update(message, fraction) {
      text.textContent = message;
      if (fraction === undefined || fraction === null) bar.removeAttribute("value");
      else bar.value = Math.round(Math.max(0, Math.min(1, fraction)) * 100);
    },
  };
}

/**
 * Calls `load` until `waiting(result)` is false, calling `onWait(result)` in between.
 * Answers the final result, or null when the founder left the screen first.
 */
export async function poll(ctx, load, { waiting, onWait = () => {}, every = 1200 }) {
  for (;;) {
    const result = await load();
    if (!ctx.alive()) return null;
    if (!waiting(result)) return result;
    onWait(result);
    if (!(await ctx.wait(every))) return null;
  }
}

// The research job's stages in order (services/research/records.py), for the bar.
const RESEARCH_STAGES = ["queued", "reading_evidence", "computing", "writing"];
const STAGE_WORDS = {
  // Not "waiting for a worker": the founder needs to know it starts by itself, not how.
  queued: "In the queue, starting in a moment",
  reading_evidence: "Reading the dated evidence",
  computing: "Computing the figures",
  writing: "Saving the research",
};

/** Polls a research-backed read (offer, dashboard, analysis) while it says not_yet_researched. */
export async function whileResearching(ctx, load, slot) {
  const panel = progress("Researching your product…");
  let shown = false;
  return poll(ctx, load, {
    waiting: ({ data }) => data && data.reason === "not_yet_researched",
    onWait: ({ data }) => {
      if (!shown) {
        slot.replaceChildren(panel.node);
        shown = true;
      }
      const at = RESEARCH_STAGES.indexOf(data.stage);
      panel.update(`Researching your product: ${STAGE_WORDS[data.stage] || data.stage || "starting"}…`,
        at < 0 ? null : (at + 1) / (RESEARCH_STAGES.length + 1));
    },
  });
}
