// Organic research on the Growth screen: a question, the platforms the founder posts on, and
// the researched campaigns with their post ideas, each saying what it rests on (a fact of the
// product's record or a dated evidence row). Nothing is posted anywhere: the founder approves
// a post or a whole campaign to use, and the approvals are kept in a log, newest first.
import { h, fill, button, busy, uid, when, linkButton, plural } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { citeChip, citeText, plain } from "../sources.js";

// The platforms research can aim at, as their users call them, and which are ticked at first.
const PLATFORMS = [["tiktok", "TikTok"], ["instagram", "Instagram"], ["youtube", "YouTube"], ["pinterest", "Pinterest"],
  ["reddit", "Reddit"], ["x", "X"]];
const PLATFORM_NAME = Object.fromEntries(PLATFORMS);
const FIRST_TICKED = new Set(["tiktok", "instagram"]);
// A post idea's format in words.
const FORMATS = { short_video: "Short video", video: "Video", carousel: "Carousel", image: "Picture", photo: "Photo",
  pin: "Pin", thread: "Thread", text: "Text post", story: "Story", reel: "Reel", short: "Short", post: "Post",
  idea_pin: "Idea pin", discussion: "Discussion" };
const platformName = (code) => PLATFORM_NAME[code] || plain(code);
const capital = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);
const formatWords = (format) => FORMATS[format] || capital(plain(format)) || "Post";

/** One thing a campaign draws on: the product's record (which of its facts) or an evidence
 * source (on which days). */
function sourceLine(source) {
  if (typeof source === "string") return source;
  if (source && source.kind === "product") {
    const fields = (source.fields || []).map((f) => citeText({ kind: "product", field: f }).replace(/^Your product's /, ""));
    return `Your product's record${fields.length ? `: its ${fields.join(", ")}` : ""}`;
  }
  if (source && source.kind === "evidence") {
    const dates = source.dates || [];
    return `${source.name || plain(source.source) || "Evidence"}${dates.length ? `, evidence of ${dates.join(", ")}` : ""}`;
  }
  return citeText(source);
}

/** The organic panel. `signedIn`: research needs an account. `load()` reads the approval log. */
export function organicPanel(ctx, { signedIn }) {
  const results = h("div", { "aria-live": "polite" });
  const logSlot = h("div", {});
  const known = new Map(); // post id -> its text, campaign id -> its angle: for the log's lines

  async function loadLog() {
    const result = await get("/api/organic/log");
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(logSlot, refusal(said, { retry: () => loadLog() }, result.http));
      return;
    }
    const approvals = result.data.approvals || [];
    fill(logSlot, approvals.length
      ? h("ol", { class: "approval-log", dataset: { approvals: String(approvals.length) } },
        approvals.map((a) => h("li", { dataset: { scope: a.scope, platform: a.platform, campaignId: String(a.campaign_id ?? ""),
          postId: String(a.post_id ?? "") } },
        h("span", { class: "muted" }, when(a.approved_at || a.created_at)), " ", logLine(a))))
      : h("p", { class: "empty", dataset: { approvals: "0" } }, "Nothing approved yet."));
  }

  function logLine(approval) {
    const where = platformName(approval.platform);
    if (approval.scope === "post") {
      const text = approval.text || approval.post_text || known.get(`post:${approval.post_id}`);
      return `A post for ${where}${text ? `: “${clip(text)}”` : ""}`;
    }
    const angle = approval.angle || known.get(`campaign:${approval.campaign_id}`);
    return `The whole ${where} campaign${angle ? `: ${angle}` : ""}`;
  }

  const approve = (campaign, scope, postItem, holder) => (event) => busy(event.currentTarget, async () => {
    const body = { campaign_id: campaign.id, platform: campaign.platform, scope };
    if (postItem) body.post_id = postItem.id;
    const answer = await post("/api/organic/approve", body);
    if (!ctx.alive()) return;
    const said = refusalOf(answer);
    if (said) {
      fill(holder, refusal(said, {}, answer.http));
      return;
    }
    fill(holder, h("span", { class: "tag tag-ok", dataset: { approved: scope } }, scope === "post" ? "Approved" : "Campaign approved"));
    ctx.toast(scope === "post" ? "Approved: the post is in your log." : "Approved: the campaign is in your log.");
    await loadLog();
  });

  function campaignView(campaign) {
    known.set(`campaign:${campaign.id}`, campaign.angle);
    const whole = h("p", { class: "actions" });
    fill(whole, button("Approve the whole campaign", approve(campaign, "campaign", null, whole), { kind: "secondary",
      "data-action": "approve-campaign", "aria-label": `Approve the whole campaign: ${platformName(campaign.platform)}, ${campaign.angle}` }));
    const sources = campaign.sources || [];
    return h("article", { class: "organic-campaign", dataset: { campaignId: String(campaign.id), platform: campaign.platform } },
      h("h3", { class: "organic-angle" }, `${platformName(campaign.platform)}: ${campaign.angle}`),
      h("ol", { class: "organic-posts" }, (campaign.posts || []).map((item, i) => {
        known.set(`post:${item.id}`, item.text);
        const holder = h("p", { class: "actions" });
        fill(holder, button("Approve this post", approve(campaign, "post", item, holder), { kind: "secondary",
          class: "btn btn-secondary btn-small", "data-action": "approve-post",
          "aria-label": `Approve this post: ${platformName(campaign.platform)}, idea ${i + 1}` }));
        return h("li", { class: "organic-post", dataset: { postId: String(item.id) } },
          h("p", { class: "organic-format" }, h("span", { class: "tag" }, formatWords(item.format))),
          h("p", { class: "organic-text" }, item.text),
          (item.cites || []).length
            ? h("div", { class: "organic-cites" }, h("p", { class: "hint" }, "Rests on:"),
              h("ul", { class: "chips" }, item.cites.map((cite) => h("li", {}, citeChip(cite)))))
            : h("p", { class: "hint" }, "Rests on nothing in your records: check it before you post."),
          holder);
      })),
      sources.length ? h("details", {}, h("summary", {}, `What it draws on (${sources.length})`),
        h("ul", { class: "list" }, sources.map((source) => h("li", {}, sourceLine(source)))))
        : null,
      whole);
  }

  function researchForm() {
    const id = uid("organic-q");
    const said = h("div", { "aria-live": "polite" });
    const form = h("form", { class: "organic-form", novalidate: true, dataset: { form: "organic" } },
      h("div", { class: "field" },
        h("label", { for: id }, "What do you want to find out?"),
        h("p", { class: "hint", id: `${id}-hint` }, "For example: what would make people stop scrolling for this? "
          + "Ideas are drawn from your product's record and its dated evidence."),
        h("textarea", { id, name: "query", rows: "2", maxlength: "500", "aria-describedby": `${id}-hint`, required: true })),
      h("fieldset", { class: "field platform-choices" },
        h("legend", {}, "Where you post"),
        h("div", { class: "checks" }, PLATFORMS.map(([code, name]) => {
          const box = uid("organic-platform");
          return h("span", { class: "check" },
            h("input", { type: "checkbox", id: box, name: "platforms", value: code, checked: FIRST_TICKED.has(code) }),
            h("label", { for: box }, name));
        }))),
      h("div", { class: "form-actions" }, button("Research post ideas", null, { type: "submit", "data-action": "research" })),
      said);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const platforms = [...form.querySelectorAll("input[name=platforms]:checked")].map((box) => box.value);
      if (!platforms.length) {
        fill(said, h("p", { class: "notice notice-warn", role: "alert" }, "Tick at least one place you post."));
        return;
      }
      await busy(form.querySelector("button[type=submit]"), async () => {
        fill(said);
        const answer = await post("/api/organic/research", { query: form.query.value.trim(), platforms });
        if (!ctx.alive()) return;
        const refused = refusalOf(answer);
        if (refused) {
          fill(said, refusal(refused, {}, answer.http));
          fill(results);
          return;
        }
        const campaigns = answer.data.campaigns || [];
        fill(results, h("div", { dataset: { research: String(answer.data.research_id ?? "") } },
          h("p", { class: "notice notice-info", role: "status" }, `${plural(campaigns.length, "campaign")} for “${answer.data.query}”. `
            + "Nothing is posted anywhere: these are ideas for you to post yourself. Approve the ones you will use."),
          campaigns.map(campaignView)));
      });
    });
    return form;
  }

  const ask = signedIn ? researchForm()
    : h("div", { class: "notice notice-info", role: "status", dataset: { organic: "needs-account" } },
      h("p", { class: "notice-title" }, "Research needs an account"),
      h("p", {}, "Post ideas are researched for an account and kept with it, so you can approve them later. Save your "
        + "address to get one: your work comes along."),
      h("p", { class: "actions" }, linkButton("Save your address", "#/app/account", "primary")));

  const node = h("section", { class: "panel", "aria-labelledby": "organic-title", dataset: { section: "organic" } },
    h("h2", { id: "organic-title" }, "Posts to make yourself"),
    h("p", { class: "hint" }, "Free reach: post ideas for the platforms you use, each resting on your product's facts "
      + "or evidence. The service never posts for you."),
    ask, results,
    h("h3", {}, "What you approved"), logSlot);
  return { node, load: loadLog };
}

function clip(text, most = 90) {
  const chars = [...String(text)];
  return chars.length > most ? `${chars.slice(0, most - 1).join("")}…` : String(text);
}
