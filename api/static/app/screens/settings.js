// Settings: the business as customers see it (its name, the address they write to, the
// reply a person starts from, how the support agent answers mail, and the policy the founder
// states: returns, shipping time, where they ship, their guarantee) with a preview of a reply
// as it reaches a customer, and where the founder is paid (shown masked once saved).
import { h, fill, title, field, button, busy, when, linkButton } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "settings";
export const label = "Settings";

// How the support agent answers mail, in a founder's words.
const AGENT_MODES = [
  ["off", "Never", "Every email waits for you."],
  ["draft", "Draft replies for me", "The agent writes a draft from your store's facts; you read it and send it."],
  ["auto", "Answer what it can", "The agent answers questions your store's facts back and leaves the rest to you."],
];
// What the service calls each business field, in words (a refusal names the field).
const FIELD_WORDS = {
  business_name: "Business name", support_email_local: "Support address",
  default_canned_subject: "Subject of your standard reply", default_canned_body: "Your standard reply",
  ai_email_mode: "How the support agent answers",
  public_support_share: "Visitors' share of your assistant allowance",
  return_days: "How many days customers have to return", free_returns: "Free returns",
  shipping_days_min: "Shipping takes at least", shipping_days_max: "Shipping takes at most",
  guarantee: "Your guarantee", ships_to: "Where you ship",
};
// The policy figures typed as whole numbers of days (blank: not stated).
const POLICY_DAYS = ["return_days", "shipping_days_min", "shipping_days_max"];

/** The founder's stated policy in their words ("Returns: free, within 30 days"), one line a topic. */
function policyLines(s) {
  const days = (n) => `${n} ${n === 1 ? "day" : "days"}`;
  const returns = s.return_days ? (s.free_returns ? `free, within ${days(s.return_days)}` : `within ${days(s.return_days)}`)
    : s.free_returns ? "free" : null;
  const low = s.shipping_days_min, high = s.shipping_days_max;
  const shipping = low && high ? (low === high ? `${low} business ${low === 1 ? "day" : "days"}`
    : `${low} to ${high} business days`) : null;
  return [["Returns", returns], ["Shipping", shipping], ["Ships to", s.ships_to], ["Guarantee", s.guarantee]];
}

/** What the founder stated, read back: each topic, or "not stated yet". */
function policySummary(s) {
  return h("dl", { class: "pairs", dataset: { policy: "" } },
    policyLines(s).flatMap(([topic, said]) => [h("dt", {}, topic),
      h("dd", { class: said ? null : "muted" }, said || "Not stated yet")]));
}

export async function render(ctx) {
  const businessSlot = h("div", {});
  const payoutSlot = h("div", {});
  fill(ctx.main, title("Settings", "Your business as customers see it, and where you are paid."),
    h("section", { class: "panel", "aria-labelledby": "business-title" },
      h("h2", { id: "business-title" }, "Your business"), businessSlot),
    h("section", { class: "panel", "aria-labelledby": "payout-title" },
      h("h2", { id: "payout-title" }, "Where you are paid"), payoutSlot),
    // The keyword rules are kept beside the tickets they sort, on the Desk.
    h("section", { class: "panel", "aria-labelledby": "sorting-title" },
      h("h2", { id: "sorting-title" }, "Sorting customer mail"),
      h("p", {}, "Rules that give new mail a kind, a priority or a status when it mentions a word live on the Desk, "
        + "beside the tickets they sort."),
      h("p", { class: "actions" }, linkButton("Open the Desk", "#/app/desk"))));

  const [business, payout] = await Promise.all([get("/api/settings/business"), get("/api/settings/payout")]);
  if (!ctx.alive()) return;
  showBusiness(ctx, businessSlot, business);
  showPayout(ctx, payoutSlot, payout);
}

function showBusiness(ctx, slot, result) {
  const said = refusalOf(result);
  if (said) {
    fill(slot, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const data = result.data;
  const s = data.settings;
  const domain = data.domain;
  const message = h("div", { "aria-live": "polite" });
  const preview = h("div", {});
  const form = h("form", { novalidate: true, dataset: { form: "business" } },
    field("Business name", { type: "text", name: "business_name", maxlength: "80", value: s.business_name || "" },
      { hint: "How your emails and receipts are signed." }),
    field("Support address", { type: "text", name: "support_email_local", maxlength: "64", autocomplete: "off",
      value: s.support_email_local || "", spellcheck: "false" },
    { hint: domain ? `The part before @${domain}: customers write to it, and replies come from it.`
      : "The part before the @. It works once your store has its own domain." }),
    domain ? null : h("p", { class: "hint" }, "Your store has no domain yet. ", linkButton("Choose a domain", "#/app/domains")),
    field("Subject of your standard reply", { type: "text", name: "default_canned_subject", maxlength: "150",
      value: s.default_canned_subject || "" }),
    field("Your standard reply", { name: "default_canned_body", maxlength: "5000", rows: "6" },
      { multiline: true, hint: "What a reply starts from when you answer a customer." }),
    h("fieldset", { class: "field" }, h("legend", {}, "When a customer emails"),
      AGENT_MODES.map(([value, words, hint]) => h("label", { class: "choice" },
        h("input", { type: "radio", name: "ai_email_mode", value, checked: s.ai_email_mode === value }),
        h("span", {}, h("strong", {}, words), h("span", { class: "hint" }, hint))))),
    field("Visitors' share of your assistant allowance (percent)", { type: "number", name: "public_support_share",
      min: "0", max: "90", step: "1", inputmode: "numeric", value: String(s.public_support_share) },
    { hint: "Questions visitors ask on your store are answered from your support assistant's allowance. They may "
      + "use at most this much of it, so your own drafts always have room. A question answered before is answered "
      + "again at no cost." }),
    // The founder's own policy: theirs to state, said by the store, the desk and the assistant
    // as the business's policy (never as research).
    h("fieldset", { class: "field", dataset: { part: "policy" } }, h("legend", {}, "Your policy"),
      h("p", { class: "hint" }, "Your store's shipping and returns page, your support desk and the assistant say "
        + "these as your policy, in your words. Leave a box empty to state nothing."),
      policySummary(s),
      field("How many days customers have to return", { type: "number", name: "return_days", min: "1", max: "365",
        step: "1", inputmode: "numeric", value: s.return_days ? String(s.return_days) : "" }),
      h("label", { class: "choice" }, h("input", { type: "checkbox", name: "free_returns", checked: !!s.free_returns }),
        h("span", {}, "Returns are free")),
      h("p", { class: "hint" }, "Shipping takes … to … business days"),
      field("Shipping takes at least (business days)", { type: "number", name: "shipping_days_min", min: "1",
        max: "90", step: "1", inputmode: "numeric", value: s.shipping_days_min ? String(s.shipping_days_min) : "" }),
      field("Shipping takes at most (business days)", { type: "number", name: "shipping_days_max", min: "1",
        max: "90", step: "1", inputmode: "numeric", value: s.shipping_days_max ? String(s.shipping_days_max) : "" },
      { hint: "One figure alone is both." }),
      field("Where you ship", { type: "text", name: "ships_to", maxlength: "200", value: s.ships_to || "" },
        { hint: "For example: the United States and Canada." }),
      field("Your guarantee", { type: "text", name: "guarantee", maxlength: "200", value: s.guarantee || "" },
        { hint: "In your words, for example: 30-day money-back guarantee." })),
    h("div", { class: "form-actions" }, button("Save", null, { type: "submit" })),
    message);
  form.default_canned_body.value = s.default_canned_body || "";

  const drawPreview = () => fill(preview, replyPreview({
    business: form.business_name.value.trim(), local: form.support_email_local.value.trim().toLowerCase(),
    domain, subject: form.default_canned_subject.value, body: form.default_canned_body.value,
  }));
  form.addEventListener("input", drawPreview);
  drawPreview();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {
      business_name: form.business_name.value, support_email_local: form.support_email_local.value,
      default_canned_subject: form.default_canned_subject.value, default_canned_body: form.default_canned_body.value,
      ai_email_mode: form.querySelector("input[name=ai_email_mode]:checked").value,
      public_support_share: Number(form.public_support_share.value.trim()),
      free_returns: form.free_returns.checked, ships_to: form.ships_to.value, guarantee: form.guarantee.value,
    };
    // A policy figure is a whole number of days, or blank for none: anything else is said here.
    for (const name of POLICY_DAYS) {
      const typed = form[name].value.trim();
      if (typed && !/^[0-9]+$/.test(typed)) {
        fill(message, h("p", { class: "notice notice-error", role: "alert" }, `${FIELD_WORDS[name]}: `
          + "type a whole number of days, or leave it empty; nothing was saved."));
        return;
      }
      values[name] = typed ? Number(typed) : null;
    }
    // The share is a whole percent: anything else is said here, in the founder's words.
    if (!/^[0-9]+$/.test(form.public_support_share.value.trim())) {
      fill(message, h("p", { class: "notice notice-error", role: "alert" }, `${FIELD_WORDS.public_support_share}: `
        + "type a whole percent from 0 to 90; nothing was saved."));
      return;
    }
    await busy(form.querySelector("button[type=submit]"), async () => {
      const saved = await post("/api/settings/business", values);
      if (!ctx.alive()) return;
      const refused = refusalOf(saved);
      if (refused) {
        const which = refused.field ? `${FIELD_WORDS[refused.field] || "One of the fields"}: ` : "";
        fill(message, h("p", { class: "notice notice-error", role: "alert" }, `${which}${refused.explanation}`));
        return;
      }
      ctx.toast("Saved.");
      showBusiness(ctx, slot, saved);
    });
  });
  fill(slot, form,
    h("h3", {}, "A reply as your customer sees it"), preview,
    data.updated_at ? h("p", { class: "muted" }, `Last saved ${when(data.updated_at)}.`) : null);
}

/** A reply drawn as it lands in a customer's inbox: who it is from, its subject and text. */
function replyPreview({ business, local, domain, subject, body }) {
  const address = local && domain ? `${local}@${domain}` : local ? `${local}@ your domain` : "your support address";
  return h("figure", { class: "mail-preview", dataset: { picture: "reply" } },
    h("div", { class: "mail-head" },
      h("span", { class: "mail-avatar", "aria-hidden": "true" }, (business || "?").slice(0, 1).toUpperCase()),
      h("div", {}, h("strong", {}, business || "Your business"), h("span", { class: "muted" }, ` <${address}>`),
        h("div", { class: "mail-subject" }, subject || "(no subject)"))),
    h("p", { class: "mail-body" }, body),
    h("figcaption", { class: "visually-hidden" }, `A reply from ${business || "your business"} at ${address}`));
}

function showPayout(ctx, slot, result) {
  const said = refusalOf(result);
  if (said) {
    fill(slot, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const saved = result.data.payout;
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { novalidate: true, dataset: { form: "payout" } },
    h("fieldset", { class: "field" }, h("legend", {}, "Paid by"),
      [["bank", "Bank transfer"], ["paypal", "PayPal"]].map(([value, words]) => h("label", { class: "choice" },
        h("input", { type: "radio", name: "method", value, checked: (saved ? saved.method : "bank") === value }),
        h("span", {}, words)))),
    field("Account holder", { type: "text", name: "holder", maxlength: "120", autocomplete: "name",
      value: saved ? saved.holder : "" }),
    field("Account", { type: "text", name: "account", maxlength: "320", autocomplete: "off", spellcheck: "false" },
      { hint: `Your IBAN or account number for a bank transfer, or your PayPal email address${saved ? ", again "
        + "to change it" : ""}. We keep only its last four characters: the payment provider pays you.` }),
    h("div", { class: "form-actions" }, button("Save", null, { type: "submit" })),
    message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { method: form.querySelector("input[name=method]:checked").value, holder: form.holder.value,
      account: form.account.value };
    await busy(form.querySelector("button[type=submit]"), async () => {
      const answer = await post("/api/settings/payout", body);
      if (!ctx.alive()) return;
      const refused = refusalOf(answer);
      if (refused) {
        fill(message, h("p", { class: "notice notice-error", role: "alert" }, refused.explanation));
        return;
      }
      ctx.toast("Saved. Only the last four characters are kept.");
      showPayout(ctx, slot, answer);
    });
  });
  fill(slot,
    saved ? h("dl", { class: "pairs", dataset: { payout: saved.method } },
      h("dt", {}, "Paid by"), h("dd", {}, saved.method === "paypal" ? "PayPal" : "Bank transfer"),
      h("dt", {}, "Holder"), h("dd", {}, saved.holder),
      h("dt", {}, "Account"), h("dd", { dataset: { masked: "" } }, saved.account_masked),
      h("dt", {}, "Saved"), h("dd", {}, when(saved.updated_at)))
      : h("p", { class: "empty" }, "You have not said where to be paid yet."),
    form);
}
