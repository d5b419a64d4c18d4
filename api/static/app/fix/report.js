// A Fix run on screen (screens/fix.js puts the pieces where it likes): its stages as a list
// in words while it runs, and once it is done the report: the score before and after the
// repairs drawn side by side, then what was found on each page, how much it matters, whether
// it was repaired, each repair's snippet with a Copy button and a download of the corrected
// page. Every piece of text, the snippets included, goes in through dom.js (textContent).
// What the visitor does with the report is recorded (POST /api/fix/event), never waited on.
import { h, button, field, fill, linkButton, plural, when } from "../dom.js";
import { post } from "../api.js";
import { progress } from "../poll.js";
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

function findingRow(ctx, run, finding) {
  const [word, tagClass] = SEVERITY[finding.severity] || ["Worth a look", "tag"];
  const fix = finding.fix && finding.fix.snippet ? finding.fix : null;
  let status;
  if (finding.fixed && finding.fix && finding.fix.kind === "store_version") {
    const version = finding.fix.version ? ` version ${finding.fix.version}` : " newest version";
    status = h("p", { class: "fix-status fix-status-repaired" }, h("span", { class: "tag tag-ok" }, "Repaired"),
      ` Written into your store's${version}.`);
  } else if (finding.fixed) {
    // Written, not applied: the repair is on the store only once someone puts it there.
    status = h("p", { class: "fix-status fix-status-ready" }, h("span", { class: "tag tag-ok" }, "Repair ready"),
      fix ? " The repair is below, and already in the corrected page to download." : " The corrected page has the repair.");
  } else if (finding.check === "broken_links") {
    status = h("p", { class: "fix-status" }, h("span", { class: "tag" }, "Not repaired"),
      " Check this link yourself: we never guess where a link should point.");
  } else {
    status = h("p", { class: "fix-status" }, h("span", { class: "tag" }, "Not repaired"),
      fix ? " A repair is below for you to use." : " We could not repair this one for you.");
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

function pageSection(ctx, run, page, index) {
  const headingId = `fix-page-${index}`;
  const inStore = page.findings.filter((f) => f.fixed && f.fix && f.fix.kind === "store_version").length;
  const ready = page.findings.filter((f) => f.fixed && !(f.fix && f.fix.kind === "store_version")).length;
  const done = [inStore ? `${inStore} repaired in your store` : "", ready ? `${ready} with a repair ready` : ""]
    .filter(Boolean).join(", ");
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
    page.findings.length ? h("ul", { class: "fix-findings" }, page.findings.map((f) => findingRow(ctx, run, f))) : null);
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

/** The finished report: the scores, what was done in the run's summary's own words (the same
 * sentences its report mail and follow-up say: services/fix/summary.py, never counted here),
 * then each page. */
export function report(ctx, run) {
  const pages = pagesOf(run);
  const summary = run.summary || {};
  const measured = Boolean(summary.score_after_measured);
  return [
    h("section", { class: "panel", "aria-labelledby": "fix-score-title", dataset: { report: "scores" } },
      h("h2", { id: "fix-score-title" }, "Your score"),
      scoresChart(run.score_before, run.score_after, { measured }),
      h("p", { dataset: { summary: "" } }, summary.sentence || ""),
      summary.score_sentence
        ? h("p", { dataset: { scoreSentence: measured ? "measured" : "expected" } }, summary.score_sentence) : null,
      run.repaired_in_place ? h("div", { class: "notice notice-success", dataset: { repairedInPlace: "" } },
        h("p", {}, run.store_version
          ? `We wrote the repairs into your store as its version ${run.store_version}. Publish it to make them public.`
          : "We wrote the repairs into your store. Publish it to make them public."),
        h("p", { class: "actions" }, linkButton("Go to your store", "#/app/store"))) : null,
      h("p", { class: "hint" }, `Checked ${when(run.finished_at || run.created_at)}.`)),
    h("section", { "aria-labelledby": "fix-pages-title", dataset: { report: "pages" } },
      h("h2", { id: "fix-pages-title" }, "What we found, page by page"),
      pages.map((page, index) => pageSection(ctx, run, page, index))),
    feedbackPanel(ctx, run),
  ];
}
