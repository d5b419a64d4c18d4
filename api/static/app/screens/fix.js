// Fix: any store checked and repaired, with no account and no product needed. The visitor
// gives their store's address (and an email, if they like); the check runs in the background
// and the screen follows it stage by stage, then shows the report (fix/report.js). The run's
// token stays in the address (#/app/fix?token=…), so a reload or a bookmark shows the same
// run; the visitor's earlier checks are listed under the form. The owner of a store built here
// applies its repairs from the report, and the screen follows the fresh check of the new
// version until its measured score is in.
import { h, fill, title, field, button, busy, when, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { poll } from "../poll.js";
import { FINISHED, following, record, recordViewedOnce, report, stageList, stageWord } from "../fix/report.js";

export const name = "fix";
export const label = "Fix your store";

const LEDE = "Give us your store's address: we read its pages, check what trips up shoppers and search engines, "
  + "and write the repairs for you to copy or download. No account needed.";

// How often a running check is asked about (ms).
const EVERY = 1500;

const runHref = (token) => `#/app/fix?token=${encodeURIComponent(token)}`;

/** An address as typed ("mystore.com") made one the service takes ("https://mystore.com"). */
function asAddress(typed) {
  const text = typed.trim();
  if (!text || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  return `https://${text}`;
}

/** Starts a check of `url` and opens it: its token goes into the address, which renders it. */
async function start(ctx, url, email, outcome) {
  const body = email ? { url, email } : { url };
  const result = await post("/api/fix", body);
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(outcome, refusal(said, {}, result.http));
    return;
  }
  location.hash = runHref(result.data.token);
}

function form(ctx, { url = "" } = {}) {
  const outcome = h("div", { "aria-live": "polite" });
  const node = h("form", { class: "stack fix-form", novalidate: true, dataset: { form: "fix" } },
    field("Your store's address", { type: "url", name: "url", required: true, value: url, autocomplete: "url",
      inputmode: "url", spellcheck: "false", placeholder: "https://yourstore.com" },
    { hint: "The page your customers land on. We read it and up to 20 more pages of the same site." }),
    field("Your email (if you like)", { type: "email", name: "email", autocomplete: "email" },
      { hint: "For the report by mail. Leave it empty to see it here only." }),
    h("p", { class: "actions" }, button("Check and repair my store", null, { type: "submit" })),
    outcome);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    const url = asAddress(node.url.value);
    if (!url) {
      fill(outcome, h("p", { class: "notice notice-warn", role: "alert" }, "Type your store's address first."));
      node.url.focus();
      return;
    }
    fill(outcome);
    await busy(node.querySelector("button[type=submit]"), () => start(ctx, url, node.email.value.trim(), outcome));
  });
  return node;
}

/** The visitor's earlier checks (this browser's, or their account's) and who gets mail. */
async function earlier(ctx) {
  const result = await get("/api/fix/mine");
  if (!ctx.alive() || refusalOf(result)) return null; // the form works without the list
  const runs = result.data.runs || [];
  const subscriptions = (result.data.subscriptions || []).filter((sub) => sub.follow_up);
  if (!runs.length && !subscriptions.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "fix-earlier-title", dataset: { runs: String(runs.length) } },
    h("h2", { id: "fix-earlier-title" }, "Your earlier checks"),
    runs.length ? h("ul", { class: "fix-runs" }, runs.map((run) => h("li", { dataset: { token: run.token, stage: run.stage } },
      h("a", { href: runHref(run.token), class: "fix-run-address" }, run.url),
      h("span", { class: "muted" }, `${when(run.created_at)} · ${stageWord(run.stage)}`, scoresBrief(run.summary))))) : null,
    subscriptions.length ? h("p", { class: "hint" }, "We will write to you about ",
      subscriptions.map((sub, i) => [i ? "; " : "", `${sub.url} at ${sub.email}`]), ".") : null);
}

/** A finished run's scores, short, for the list of earlier checks: from its summary (the
 * same numbers the report and its mail give), the one after called expected unless measured. */
function scoresBrief(summary) {
  if (!summary || summary.score_before === null || summary.score_after === null) return "";
  if (summary.score_after_measured) return ` · score ${summary.score_before} before, ${summary.score_after} after`;
  if (summary.score_after === summary.score_before) return ` · score ${summary.score_before}`;
  return ` · score ${summary.score_before}, ${summary.score_after} expected with the repairs`;
}

/** What a confirmation link that no longer works says (#/app/fix?link=used). */
function usedLink() {
  return h("div", { class: "notice notice-warn", role: "status", dataset: { link: "used" } },
    h("p", { class: "notice-title" }, "This link no longer works"),
    h("p", {}, "It was already opened, or it is more than two days old. Nothing more will be mailed from it; "
      + "check your store again below to have a new report."));
}

/** Whether the report will be mailed, in the service's words (nothing when no email was given). */
function mailNote(run) {
  if (!run.mail || run.mail === "none") return null;
  return h("p", { class: "hint", dataset: { mail: run.mail } }, run.mail_explanation);
}

async function startScreen(ctx) {
  fill(ctx.main, title("Fix your store", LEDE),
    ctx.params.get("link") === "used" ? usedLink() : null,
    h("section", { class: "panel narrow" }, form(ctx)));
  const list = await earlier(ctx);
  if (list && ctx.alive()) ctx.main.append(list);
}

/** Asks for the same address to be checked again. */
function again(ctx, run) {
  return button("Check it again", (event) => {
    const control = event.currentTarget;
    const outcome = control.closest("section").querySelector("[data-outcome]");
    record(run.token, "rerun_requested");
    return busy(control, () => start(ctx, run.url, "", outcome));
  }, { kind: "secondary", "data-action": "rerun" });
}

async function runScreen(ctx, token) {
  // No live region around it: the stages speak through their own status line (poll.js).
  const body = h("div", { class: "stack" });
  // The subtitle says what happened, once it has: checked, and repaired only when the run
  // wrote repairs into the store (the summary's headline).
  const heading = title("Fix your store", "Checking your store.");
  const subtitle = heading[1];
  fill(ctx.main, heading, body,
    h("p", { class: "actions" }, linkButton("Check another address", "#/app/fix")));
  const stages = stageList();
  const result = await poll(ctx, () => get(`/api/fix/mine?token=${encodeURIComponent(token)}`), {
    waiting: ({ data }) => Boolean(data && data.run && !FINISHED.has(data.run.stage)),
    onWait: ({ data }) => {
      if (!body.contains(stages.node)) {
        fill(body, h("section", { class: "panel", "aria-labelledby": "fix-run-title", dataset: { runStage: data.run.stage } },
          h("h2", { id: "fix-run-title", class: "fix-page-address" }, `Checking ${data.run.url}`), mailNote(data.run),
          stages.node));
      }
      body.querySelector("[data-run-stage]").dataset.runStage = data.run.stage;
      stages.update(data.run.stage);
    },
    every: EVERY,
  });
  if (!result) return; // the visitor moved on
  const said = refusalOf(result);
  if (said) {
    subtitle.textContent = "Give us your store's address to check it.";
    fill(body, refusal(said, {}, result.http, { headings: { not_found: "We have no check at this address" } }),
      h("section", { class: "panel narrow" }, form(ctx)));
    return;
  }
  const { run } = result.data;
  const outcome = h("div", { "aria-live": "polite", dataset: { outcome: "" } });
  if (run.stage === "failed") {
    subtitle.textContent = "Your store could not be checked.";
    fill(body, h("section", { class: "panel", "aria-labelledby": "fix-run-title", dataset: { runStage: "failed" } },
      h("h2", { id: "fix-run-title", class: "fix-page-address" }, run.url),
      h("div", { class: "notice notice-error", role: "alert", dataset: { reason: run.reason || "" } },
        h("p", { class: "notice-title" }, "We could not check this store"),
        h("p", {}, run.explanation || "The check stopped before it finished.")),
      h("p", { class: "actions" }, again(ctx, run)), outcome));
    return;
  }
  stages.update("done");
  const done = h("section", { class: "panel", "aria-labelledby": "fix-run-title", dataset: { runStage: "done", token: run.token } },
    h("h2", { id: "fix-run-title", class: "fix-page-address" }, run.url), mailNote(run),
    h("details", { class: "fix-done-stages" }, h("summary", {}, "Every step done"), stages.node),
    h("p", { class: "actions" }, again(ctx, run)), outcome);
  let shown = "";
  // The report as the run now stands. Shown again (the repairs applied, the fresh check done),
  // it replaces its own sections and keeps the feedback box, and whatever was typed there.
  const show = (current) => {
    shown = JSON.stringify(current);
    subtitle.textContent = current.summary ? current.summary.headline : "Your store, checked.";
    subtitle.dataset.headline = current.summary && current.summary.repaired ? "repaired" : "checked";
    const sections = report(ctx, current, { onApplied: applied }).filter(Boolean);
    const feedback = body.querySelector(":scope > [data-report=feedback]");
    if (!feedback) {
      fill(body, done, sections);
      return;
    }
    // Focus on a heading of a section shown again (the repairs' one, after Apply) stays on it.
    const focused = document.activeElement;
    const refocus = focused && focused.id && !feedback.contains(focused) && body.contains(focused) ? focused.id : "";
    body.querySelectorAll(":scope > [data-report]:not([data-report=feedback])").forEach((node) => node.remove());
    for (const node of sections) if (node.dataset.report !== "feedback") body.insertBefore(node, feedback);
    const back = refocus ? document.getElementById(refocus) : null;
    if (back && body.contains(back)) back.focus();
  };
  // While the fresh check of the applied repairs runs (or their new version is being published),
  // the run is asked about again until its measured score is in; each change is shown as it comes.
  const follow = async () => {
    const result = await poll(ctx, () => get(`/api/fix/mine?token=${encodeURIComponent(token)}`), {
      waiting: ({ data }) => Boolean(data && data.run && following(data.run)),
      onWait: ({ data }) => {
        if (JSON.stringify(data.run) !== shown) show(data.run);
      },
      every: EVERY,
    });
    if (!result || refusalOf(result) || !result.data.run) return; // moved on, or the next visit shows it
    if (JSON.stringify(result.data.run) !== shown) show(result.data.run);
  };
  function applied(current) {
    show(current);
    const heading = body.querySelector("#fix-apply-title");
    if (heading) heading.focus();
    if (following(current)) follow();
  }
  show(run);
  recordViewedOnce(run.token);
  // A reload meanwhile follows it too, without holding the screen back.
  if (following(run)) follow();
}

export async function render(ctx) {
  const token = ctx.params.get("token");
  if (token) await runScreen(ctx, token);
  else await startScreen(ctx);
}
