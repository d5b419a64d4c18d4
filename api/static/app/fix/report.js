// A Fix run on screen (screens/fix.js puts the pieces where it likes): its stages as a list
// in words while it runs, and once it is done the report: the score before and after the
// repairs drawn side by side, then what was found on each page, how much it matters, whether
// it was repaired, each repair's snippet with a Copy button and a download of the corrected
// page. Every piece of text, the snippets included, goes in through dom.js (textContent).
// What the visitor does with the report is recorded (POST /api/fix/event), never waited on.
// A store built here takes no snippet: its owner reads what applying the repairs would change
// (each before and after), what stays apart and why, and applies them in one step (POST
// /api/fix/apply), which writes one new version of the store; the screen then follows the
// fresh check of that version until its measured score is in.
import { h, busy, button, field, fill, linkButton, plural, when } from "../dom.js";
import { post, refusalOf } from "../api.js";
import { progress } from "../poll.js";
import { refusal } from "../reasons.js";
import { scoresChart } from "../charts.js";

// The run's stages in order (services/fix/runs.py), in a founder's words.
export const STAGES = [
  ["queued", "Waiting for its turn"],
  ["fetching", "Reading your pages"],
  ["auditing", "Checking them"],
  ["repairing", "Writing repairs"],
  ["done", "Done"],
];
const STAGE_WORDS = Object.fromEntries(STAGES);
export const FINISHED = new Set(["done", "failed"]);

/** A stage in words; a run that failed says so. */
export function stageWord(stage) {
  if (stage === "failed") return "Could not finish";
  return STAGE_WORDS[stage] || "Working on it";
}

// How much a finding matters: [word, tag class]. The order is the order a page lists them in.
const SEVERITY = {
  high: ["Serious", "tag tag-stop"],
  medium: ["Worth fixing", "tag tag-warn"],
  low: ["Minor", "tag"],
};
const SEVERITY_ORDER = ["high", "medium", "low"];

// Where a snippet goes, said for someone who edits their page rather than writes HTML.
const WHERE = {
  head: "Paste it into your page's head section, just before the line that closes it (</head>).",
  replace: "Use it in place of the part of your page it corrects.",
};

/** Records what the visitor did with a report. Sent without waiting: a record that fails
 * never stands between the visitor and the report. */
export function record(token, event, detail) {
  const body = detail === undefined ? { token, event } : { token, event, detail };
  post("/api/fix/event", body).catch(() => {});
}

// The reports already recorded as viewed, this tab (a reload keeps them: sessionStorage).
const VIEWED_KEY = "fix-viewed";
function viewedTokens() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(VIEWED_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

/** Records `report_viewed` the first time a finished report is shown in this tab. */
export function recordViewedOnce(token) {
  const seen = viewedTokens();
  if (seen.has(token)) return;
  seen.add(token);
  try {
    sessionStorage.setItem(VIEWED_KEY, JSON.stringify([...seen].slice(-50)));
  } catch {
    // Storage refused (a private window, say): the report is recorded as viewed all the same.
  }
  record(token, "report_viewed");
}

/** The stages as a list, the current one marked, with a bar and a sentence that screen
 * readers hear (poll.js's progress panel). `update(stage)` moves it on. */
export function stageList() {
  const panel = progress("Checking your store…");
  const items = STAGES.map(([stage, words]) => {
    const state = h("span", { class: "visually-hidden" });
    const li = h("li", { class: "fix-stage", dataset: { stage, state: "waiting" } },
      h("span", { class: "fix-stage-mark", "aria-hidden": "true" }), h("span", {}, words), state);
    return { stage, li, state };
  });
  const node = h("div", { class: "fix-progress", dataset: { progress: "fix" } },
    h("ol", { class: "fix-stages", "aria-label": "The steps of the check" }, items.map((item) => item.li)),
    panel.node);
  return {
    node,
    update(stage) {
      const at = STAGES.findIndex(([name]) => name === stage);
      items.forEach((item, index) => {
        const state = at < 0 ? "waiting" : index < at || stage === "done" ? "done" : index === at ? "current" : "waiting";
        item.li.dataset.state = state;
        if (state === "current") item.li.setAttribute("aria-current", "step");
        else item.li.removeAttribute("aria-current");
        item.state.textContent = state === "done" ? " (done)" : state === "current" ? " (now)" : "";
      });
      node.dataset.stage = stage;
      panel.update(stage === "done" ? "Done." : `${stageWord(stage)}…`,
        at < 0 ? null : (at + 1) / STAGES.length);
    },
  };
}

/** Copies text to the clipboard; answers whether it was copied. The snippet's own box is
 * selected first, so an older browser copies it by its own command. */
async function copyText(text, box) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(box);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return document.execCommand("copy");
  }
}

/** A change of a store built here as a before/after pair: the old text struck through, the new
 * one beside it, each named in words too (a struck line is not read out as struck). */
function beforeAfter(change) {
  return h("div", { class: "fix-change", dataset: { change: "" } },
    change.what ? h("p", { class: "fix-change-what" }, change.what) : null,
    h("p", { class: "fix-change-before" }, h("span", { class: "fix-change-label" }, "Before"), " ",
      h("del", {}, change.before)),
    h("p", { class: "fix-change-after" }, h("span", { class: "fix-change-label" }, "After"), " ",
      h("ins", {}, change.after)));
}

/** Why each finding of a store built here stays apart (its owner's `apply.apart`), by finding. */
function apartWhy(run) {
  return new Map(((run.apply && run.apply.apart) || []).map((apart) => [apart.finding, apart.why]));
}

function findingRow(ctx, run, finding, why) {
  const [word, tagClass] = SEVERITY[finding.severity] || ["Worth a look", "tag"];
  const fix = finding.fix && finding.fix.snippet ? finding.fix : null;
  // A store built here: a change of its content, waiting to be applied or applied.
  const change = finding.fix && (finding.fix.kind === "store_change" || finding.fix.kind === "store_version")
    && finding.fix.before && finding.fix.after ? finding.fix : null;
  let status;
  if (finding.fixed && finding.fix && finding.fix.kind === "store_version") {
    status = h("p", { class: "fix-status fix-status-repaired", dataset: { status: "repaired" } },
      h("span", { class: "tag tag-ok" }, "Repaired in your store"),
      finding.fix.version ? ` In version ${finding.fix.version} of your store.` : "");
  } else if (finding.fix && finding.fix.kind === "store_change") {
    // Planned, not written: it is on the store once its owner applies the repairs.
    status = h("p", { class: "fix-status fix-status-ready", dataset: { status: "ready_to_apply" } },
      h("span", { class: "tag tag-ok" }, "Ready to apply"),
      run.apply && run.apply.state === "offered" ? " It is among the repairs to apply above." : "");
  } else if (finding.fixed) {
    // Written, not applied: the repair is on the store only once someone puts it there.
    status = h("p", { class: "fix-status fix-status-ready" }, h("span", { class: "tag tag-ok" }, "Repair ready"),
      fix ? " The repair is below, and already in the corrected page to download." : " The corrected page has the repair.");
  } else if (why) {
    // A store built here: why its content cannot hold this repair, and what its owner can do.
    status = h("p", { class: "fix-status" }, h("span", { class: "tag" }, "Not repaired"), ` ${why}`);
  } else if (finding.check === "broken_links") {
    status = h("p", { class: "fix-status" }, h("span", { class: "tag" }, "Not repaired"),
      " Check this link yourself: we never guess where a link should point.");
  } else {
    status = h("p", { class: "fix-status" }, h("span", { class: "tag" }, "Not repaired"),
      fix ? " A repair is below for you to use." : " We could not repair this one for you.");
  }
  if (change) {
    return h("li", { class: "fix-finding", dataset: { findingId: finding.id, check: finding.check,
      severity: finding.severity, fixed: String(Boolean(finding.fixed)) } },
    h("p", { class: "fix-finding-head" }, h("span", { class: tagClass }, word), " ",
      h("strong", { class: "fix-finding-label" }, finding.check_label)),
    h("p", { class: "fix-detail" }, finding.detail),
    status,
    beforeAfter(change));
  }
  let snippet = null;
  if (fix) {
    const code = h("code", {}, fix.snippet);
    // A long repair scrolls sideways in its box on a phone: the box takes the keyboard's focus,
    // so it can be scrolled without a pointer too.
    const box = h("pre", { class: "fix-snippet", tabindex: "0" }, code);
    const copy = button("Copy", (event) => {
      const control = event.currentTarget;
      copyText(fix.snippet, box).then((copied) => {
        if (!ctx.alive()) return;
        if (copied) {
          record(run.token, "fix_copied", finding.id);
          control.dataset.copied = "true";
          ctx.toast("Copied. Paste it into your page.");
        } else {
          ctx.toast("Your browser would not copy it: select the text and copy it yourself.");
        }
      });
    }, { kind: "secondary", "aria-label": `Copy the repair: ${finding.check_label}`, "data-action": "copy" });
    snippet = h("div", { class: "fix-repair" },
      // Where it goes on the platform the page was made with (Shopify, WordPress, ...), in words.
      h("p", { class: "hint", dataset: { how: "" } }, fix.how || WHERE[fix.where] || "Add it to your page.",
        fix.draft ? " We drafted these words from your page: read them before you use them." : ""),
      box,
      h("p", { class: "actions" }, copy));
  }
  return h("li", { class: "fix-finding", dataset: { findingId: finding.id, check: finding.check, severity: finding.severity,
    fixed: String(Boolean(finding.fixed)) } },
  h("p", { class: "fix-finding-head" }, h("span", { class: tagClass }, word), " ",
    h("strong", { class: "fix-finding-label" }, finding.check_label)),
  h("p", { class: "fix-detail" }, finding.detail),
  status,
  snippet);
}

/** The pages of a run in its order, each with its findings (most serious first) and its
 * download; a finding on a page the run does not list still shows, under its own page. */
function pagesOf(run) {
  const pages = new Map();
  for (const detail of run.pages_detail || []) pages.set(detail.url, { url: detail.url, download: detail.download, findings: [] });
  for (const url of run.pages || []) if (!pages.has(url)) pages.set(url, { url, download: null, findings: [] });
  for (const finding of run.findings || []) {
    if (!pages.has(finding.page)) pages.set(finding.page, { url: finding.page, download: null, findings: [] });
    pages.get(finding.page).findings.push(finding);
  }
  const rank = (f) => {
    const at = SEVERITY_ORDER.indexOf(f.severity);
    return at < 0 ? SEVERITY_ORDER.length : at;
  };
  for (const page of pages.values()) page.findings.sort((a, b) => rank(a) - rank(b));
  return [...pages.values()];
}

function pageSection(ctx, run, page, index, why) {
  const headingId = `fix-page-${index}`;
  const inStore = page.findings.filter((f) => f.fixed && f.fix && f.fix.kind === "store_version").length;
  const ready = page.findings.filter((f) => f.fixed && !(f.fix && f.fix.kind === "store_version")).length;
  const toApply = page.findings.filter((f) => !f.fixed && f.fix && f.fix.kind === "store_change").length;
  const done = [inStore ? `${inStore} repaired in your store` : "", ready ? `${ready} with a repair ready` : "",
    toApply ? `${toApply} ready to apply` : ""].filter(Boolean).join(", ");
  const download = page.download ? h("a", {
    class: "btn btn-secondary", href: page.download, download: "", dataset: { action: "download", page: String(index) },
    "aria-describedby": headingId,
    onclick: () => record(run.token, "page_downloaded", String(index)),
  }, "Download the corrected page") : null;
  return h("section", { class: "panel fix-page", "aria-labelledby": headingId, dataset: { page: page.url } },
    h("h3", { id: headingId, class: "fix-page-address" }, page.url),
    h("p", { class: "muted" }, page.findings.length
      ? `${plural(page.findings.length, "thing")} to fix on this page${done ? `; ${done}` : ""}.`
      : "Nothing to fix on this page."),
    download ? h("p", { class: "actions" }, download) : null,
    page.findings.length ? h("ul", { class: "fix-findings" }, page.findings.map((f) => findingRow(ctx, run, f, why.get(f.id)))) : null);
}

/** A box for what the visitor thinks of the report. Asking for no more mail in it ("please
 * don't email me") stops the follow-up, and the answer says so in the service's own words. */
function feedbackPanel(ctx, run) {
  const box = field("Anything we should know?", { name: "feedback", rows: "3", maxlength: "2000" },
    { multiline: true, hint: run.follow_up
      ? "We will mail you once more to suggest checking again. Say so here if you would rather we did not."
      : "Tell us what helped, or what did not." });
  const said = h("p", { class: "hint", role: "status", dataset: { feedbackAnswer: "" } });
  const form = h("form", { class: "fix-feedback", dataset: { form: "feedback" } }, box,
    h("p", { class: "actions" }, button("Send", null, { type: "submit", kind: "secondary" })), said);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = form.elements.feedback.value.trim();
    if (!text) {
      fill(said, "Write a few words first.");
      return;
    }
    post("/api/fix/feedback", { token: run.token, event: "feedback", detail: text }).then(({ data }) => {
      if (!ctx.alive()) return;
      const taken = data && data.status === "recorded";
      fill(said, taken ? data.explanation || "Thank you: we read every note."
        : "We could not take your note just now. Try again in a moment.");
      if (taken) form.elements.feedback.value = "";
    });
  });
  return h("section", { class: "panel", "aria-labelledby": "fix-feedback-title", dataset: { report: "feedback" } },
    h("h2", { id: "fix-feedback-title" }, "Tell us what you think"), form);
}

// The screen's own headings for what POST /api/fix/apply may refuse (its explanation says the rest).
const APPLY_HEADINGS = {
  not_found: "Only your store's owner can apply these repairs",
  fix_run_not_done: "This check has not finished yet",
};

/** The repairs of a store built here, for its owner: while offered, each change as before and
 * after, how to undo it, and the button that applies them all (one new version of the store);
 * once applied, where the new version stands (live or saved), the fresh check of it while it
 * runs, and what was changed. `onApplied(run)` shows the run the apply answered. */
function applyPanel(ctx, run, onApplied) {
  const apply = run.apply;
  if (!apply || !(apply.repairs || []).length || !["offered", "applied"].includes(apply.state)) return null;
  const changes = h("ul", { class: "fix-changes" }, apply.repairs.map((repair) =>
    h("li", { dataset: { repair: repair.finding } }, beforeAfter(repair))));
  const undo = h("p", { class: "hint", dataset: { undo: "" } }, apply.undo);
  if (apply.state === "offered") {
    const outcome = h("div", { "aria-live": "polite", dataset: { applyOutcome: "" } });
    const press = button("Apply these repairs", (event) => busy(event.currentTarget, async () => {
      fill(outcome);
      const result = await post("/api/fix/apply", { token: run.token });
      if (!ctx.alive()) return;
      const said = refusalOf(result);
      if (said || !result.data.run) {
        fill(outcome, refusal(said || result.data, {}, result.http, { headings: APPLY_HEADINGS }));
        return;
      }
      onApplied(result.data.run);
    }), { "data-action": "apply" });
    return h("section", { class: "panel fix-apply", "aria-labelledby": "fix-apply-title",
      dataset: { report: "apply", apply: "offered" } },
    h("h2", { id: "fix-apply-title" }, "Apply these repairs"),
    h("p", {}, apply.repairs.length === 1 ? "We can make this change in your store for you:"
      : `We can make these ${apply.repairs.length} changes in your store for you:`),
    changes, undo,
    h("p", { class: "actions" }, press),
    outcome);
  }
  const where = apply.version ? `version ${apply.version} of your store` : "a new version of your store";
  let standing;
  if (apply.published) {
    standing = h("p", { dataset: { published: "true" } }, `The repairs are in ${where}, and it is live: shoppers see them now.`);
  } else if (apply.publishing) {
    standing = h("p", { dataset: { published: "publishing" } }, `The repairs are in ${where}, which is being published now.`);
  } else {
    standing = [h("p", { dataset: { published: "false" } },
      `The repairs are saved in ${where}. Publish it from the Store screen to put it live.`),
    h("p", { class: "actions" }, linkButton("Go to your store", "#/app/store"))];
  }
  const measured = Boolean(run.summary && run.summary.score_after_measured);
  let check = null;
  if (apply.checking) {
    check = progress("Checking your new version…").node;
    check.dataset.checking = "true";
  } else if (measured) {
    check = h("p", { dataset: { checking: "false" } },
      `We checked your new version: it scores ${run.score_after} out of 100.`);
  } else {
    check = h("p", { dataset: { checking: "false" } },
      "We could not check your new version. Check your store again to see its score.");
  }
  return h("section", { class: "panel fix-apply", "aria-labelledby": "fix-apply-title",
    dataset: { report: "apply", apply: "applied" } },
  h("h2", { id: "fix-apply-title", tabindex: "-1" }, "Your repairs are in your store"),
  h("div", { class: "notice notice-success" }, standing),
  check,
  h("h3", {}, "What we changed"),
  changes, undo);
}

/** What a store built here cannot hold of the repairs, each with why and what its owner can do. */
function apartPanel(run) {
  const apart = (run.apply && run.apply.apart) || [];
  if (!apart.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "fix-apart-title", dataset: { report: "apart" } },
    h("h2", { id: "fix-apart-title" }, "What we can't repair in your store for you"),
    h("ul", { class: "fix-apart" }, apart.map((item) => h("li", { dataset: { findingId: item.finding } },
      h("p", { class: "fix-apart-what" }, item.what),
      h("p", { class: "fix-apart-why" }, item.why)))));
}

/** The finished report: the scores, what was done in the run's summary's own words (the same
 * sentences its report mail and follow-up say: services/fix/summary.py, never counted here),
 * for a store built here its repairs to apply and what stays apart, then each page.
 * `onApplied(run)` is called with the run once its repairs are applied (the screen shows it and
 * follows the fresh check). */
export function report(ctx, run, { onApplied = () => {} } = {}) {
  const pages = pagesOf(run);
  const why = apartWhy(run);
  const summary = run.summary || {};
  const measured = Boolean(summary.score_after_measured);
  return [
    h("section", { class: "panel", "aria-labelledby": "fix-score-title", dataset: { report: "scores" } },
      h("h2", { id: "fix-score-title" }, "Your score"),
      scoresChart(run.score_before, run.score_after, { measured }),
      h("p", { dataset: { summary: "" } }, summary.sentence || ""),
      summary.score_sentence
        ? h("p", { dataset: { scoreSentence: measured ? "measured" : "expected" } }, summary.score_sentence) : null,
      // Someone else's view of a store built here that its owner repaired: the owner's own view
      // says it in the repairs' panel below.
      run.repaired_in_place && !run.apply ? h("div", { class: "notice notice-success", dataset: { repairedInPlace: "" } },
        h("p", {}, run.store_version
          ? `The repairs were written into version ${run.store_version} of the store.`
          : "The repairs were written into the store.")) : null,
      h("p", { class: "hint" }, `Checked ${when(run.finished_at || run.created_at)}.`)),
    applyPanel(ctx, run, onApplied),
    apartPanel(run),
    h("section", { "aria-labelledby": "fix-pages-title", dataset: { report: "pages" } },
      h("h2", { id: "fix-pages-title" }, "What we found, page by page"),
      pages.map((page, index) => pageSection(ctx, run, page, index, why))),
    feedbackPanel(ctx, run),
  ];
}

/** Whether a finished run is still moving: its applied repairs' new version is being checked
 * afresh, or published. The screen follows it until neither is. */
export function following(run) {
  return Boolean(run && run.apply && (run.apply.checking || run.apply.publishing));
}
