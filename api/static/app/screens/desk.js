// Desk: your customers' mail as tickets. The list by status with counts; one ticket's
// conversation with a reply (mailed to the customer), a note for yourself, a draft by the
// assistant, and closing with how it was resolved; and the keyword rules that sort new mail.
// New mail is filed by the service's own polls of the mailbox. #/app/desk/<id> opens one ticket. It also says
// how the assistant did with visitors' questions on the founder's store this past week.
import { h, fill, title, field, button, busy, when, linkButton, plural, uid } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { satisfactionChart } from "../desk/satisfaction.js";
import { stateTag } from "../checkout.js";
import { dayWords } from "../words.js";

export const name = "desk";
export const label = "Desk";

const STATUS = { open: "Open", pending: "Waiting on the customer", solved: "Solved", closed: "Closed" };
const PRIORITY = { low: "Low", normal: "Normal", high: "High", urgent: "Urgent" };
const CATEGORY = { question: "Question", order: "Order", shipping: "Shipping", return: "Return", billing: "Billing",
  other: "Other" };
const WHO = { customer: "Customer", founder: "You", agent: "Assistant" };

const options = (words, chosen, blank) => [blank ? h("option", { value: "" }, blank) : null,
  ...Object.entries(words).map(([value, text]) => h("option", { value, selected: value === chosen }, text))];

function select(labelText, fieldName, words, chosen, blank) {
  const id = uid(`desk-${fieldName}`);
  return h("div", { class: "field" }, h("label", { for: id }, labelText),
    h("select", { id, name: fieldName }, options(words, chosen, blank)));
}

export async function render(ctx) {
  const showing = ctx.params.get("status") || "open";
  const ticketId = Number(ctx.rest[0]) || null;
  const [answer, rated] = await Promise.all([get("/api/helpdesk"), ticketId ? null : get("/api/satisfaction")]);
  if (!ctx.alive()) return;
  const said = refusalOf(answer);
  if (said && said.reason !== "no_tickets_yet") {
    fill(ctx.main, title("Desk"), refusal(said, { retry: () => ctx.rerender() }, answer.http));
    return;
  }
  const desk = answer.data;
  const ticket = ticketId ? (desk.tickets || []).find((t) => t.id === ticketId) : null;
  fill(ctx.main, title("Desk", "Your customers' mail, one ticket per conversation: answer it, keep notes, and close "
    + "it with how it was resolved."),
  whereCustomersWrite(desk),
  ticketId ? null : visitorQuestions(desk.public_questions),
  ticketId ? ticketView(ctx, ticket) : listView(desk, showing),
  // No ratings yet is an answer too: the picture says so in its place.
  rated && rated.http === 200 && rated.data && typeof rated.data.count === "number" ? h("section", { class: "panel", "aria-labelledby": "rated-title" },
    h("h2", { id: "rated-title" }, "How customers rate your answers"), satisfactionChart(rated.data)) : null,
  rulesView(ctx, desk.rules || []));
}

function whereCustomersWrite(desk) {
  // An empty desk's own sentence already says where customers write: said once.
  if (desk.support_email && desk.status === "no_tickets_yet") return null;
  if (desk.support_email) {
    return h("p", { class: "hint", dataset: { supportEmail: desk.support_email } },
      `Customers write to ${desk.support_email}. ${mailChecked(desk.mail)}`);
  }
  return h("div", { class: "notice notice-info", role: "status" },
    h("p", { class: "notice-title" }, "Customers cannot write to you yet"),
    h("p", {}, "Your support address is the name you choose in your business settings at your store's own domain. "
      + "Connect a domain to your store and choose the name (support, say)."),
    h("p", { class: "actions" }, linkButton("Domains", "#/app/domains"), linkButton("Settings", "#/app/settings")));
}

// The mailbox is read every every_seconds by the service's own polls, not when the desk opens.
function mailChecked(mail) {
  if (!mail || !mail.every_seconds) return "";
  const minutes = Math.round(mail.every_seconds / 60);
  const period = mail.every_seconds < 60 ? plural(mail.every_seconds, "second")
    : minutes === 1 ? "a minute" : plural(minutes, "minute");
  return mail.checked ? `New mail shows here within ${period} of arriving.`
    : `Your mailbox has not been read lately; it is read every ${period.replace(/^a /, "")}.`;
}

// Visitors to the founder's store ask the assistant questions, paid from the founder's own
// allowance: how many it answered and turned away, and the share they may use.
function visitorQuestions(asked) {
  if (!asked) return null;
  const earlier = asked.from_earlier ? ` (${asked.from_earlier} of them from an answer it had written before, at no `
    + "cost)" : "";
  const away = asked.turned_away ? `; it turned away ${asked.turned_away} more, as visitors had used their share of `
    + "your allowance." : ", and turned none away.";
  const said = asked.answered || asked.turned_away
    ? `In the last ${asked.days} days the assistant answered ${plural(asked.answered, "question")} from visitors to `
      + `your store${earlier}${away}`
    : `No visitor asked the assistant a question in the last ${asked.days} days.`;
  return h("section", { class: "panel", "aria-labelledby": "visitors-title", dataset: {
    answered: String(asked.answered), turnedAway: String(asked.turned_away) } },
  h("h2", { id: "visitors-title" }, "Questions from visitors to your store"),
  h("p", {}, said),
  h("p", {}, `Visitors may use up to ${asked.share}% of your assistant allowance; the rest is kept for your own `
    + "drafts and answers."),
  h("p", { class: "actions" }, linkButton("Change the share in Settings", "#/app/settings")));
}

function listView(desk, showing) {
  const counts = desk.counts || {};
  const tabs = h("p", { class: "actions desk-tabs", role: "group", "aria-label": "Show tickets that are" },
    Object.entries(STATUS).map(([status, words]) => h("a", {
      class: `btn btn-${status === showing ? "primary" : "secondary"}`, href: `#/app/desk?status=${status}`,
      "aria-current": status === showing ? "true" : null, dataset: { status, count: String(counts[status] || 0) },
    }, `${words} (${counts[status] || 0})`)));
  const rows = (desk.tickets || []).filter((t) => t.status === showing);
  let list;
  if (desk.status === "no_tickets_yet") {
    list = refusal(desk, {}, 200);
  } else if (!rows.length) {
    list = h("p", { class: "empty" }, `No tickets are ${STATUS[showing].toLowerCase()} now.`);
  } else {
    list = h("ul", { class: "desk-list" }, rows.map((t) => h("li", { dataset: { ticketId: String(t.id), status: t.status } },
      h("a", { href: `#/app/desk/${t.id}`, class: "desk-subject" }, t.subject),
      h("p", { class: "muted" }, `${t.customer_name || t.customer_email} · ${when(t.updated_at)} · `
        + `${plural(t.messages.filter((m) => m.direction === "in").length, "message")} from them`),
      h("p", {}, h("span", { class: `tag${t.priority === "urgent" || t.priority === "high" ? " tag-stop" : ""}` },
        `${PRIORITY[t.priority]} priority`), " ", h("span", { class: "tag" }, CATEGORY[t.category])))));
  }
  return h("section", { class: "panel", "aria-labelledby": "tickets-title" },
    h("h2", { id: "tickets-title" }, "Tickets"), tabs, list);
}

function ticketView(ctx, ticket) {
  if (!ticket) {
    return h("section", { class: "panel" }, h("p", {}, "That ticket is not on your desk."),
      h("p", { class: "actions" }, linkButton("All tickets", "#/app/desk")));
  }
  const outcome = h("div", { "aria-live": "polite" });
  // Every action answers the ticket as it now is: the screen is drawn again from the desk.
  const acted = (result, done) => {
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(outcome, refusal(said, { retry: () => ctx.rerender() }, result.http));
      return;
    }
    ctx.toast(done);
    ctx.rerender();
  };
  const replyBox = field("Your reply", { name: "reply", rows: "6", required: true }, { multiline: true,
    hint: `Mailed to ${ticket.customer_email}; their answer comes back to this ticket.` });
  const replyForm = h("form", { class: "stack", novalidate: true, dataset: { form: "reply" } }, replyBox,
    h("p", { class: "actions" }, button("Send reply", null, { type: "submit", "data-action": "reply" }),
      button("Write a draft with the assistant", (event) => busy(event.currentTarget, async () => {
        acted(await post("/api/helpdesk", { action: "draft", ticket_id: ticket.id }), "The assistant wrote a draft.");
      }), { kind: "secondary", "data-action": "draft" })));
  replyForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(replyForm.querySelector("button[type=submit]"), async () => {
      const text = replyForm.reply.value;
      acted(await post("/api/helpdesk", { action: "reply", ticket_id: ticket.id, text }), "Reply sent.");
    });
  });
  const noteForm = h("form", { class: "stack", novalidate: true, dataset: { form: "note" } },
    field("A note for yourself", { name: "note", rows: "3" }, { multiline: true, hint: "Only you see notes." }),
    h("p", { class: "actions" }, button("Save note", null, { type: "submit", kind: "secondary", "data-action": "note" })));
  noteForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(noteForm.querySelector("button[type=submit]"), async () => {
      acted(await post("/api/helpdesk", { action: "note", ticket_id: ticket.id, text: noteForm.note.value }),
        "Note saved.");
    });
  });
  const sortForm = h("form", { class: "inline-form", novalidate: true, dataset: { form: "sort" } },
    select("Priority", "priority", PRIORITY, ticket.priority), select("Kind of question", "category", CATEGORY, ticket.category),
    select("Status", "status", { open: STATUS.open, pending: STATUS.pending }, ["open", "pending"].includes(ticket.status)
      ? ticket.status : "", ["open", "pending"].includes(ticket.status) ? null : STATUS[ticket.status]),
    button("Save", null, { type: "submit", kind: "secondary", "data-action": "sort" }));
  sortForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(sortForm.querySelector("button[type=submit]"), async () => {
      for (const fieldName of ["priority", "category", "status"]) {
        const value = sortForm[fieldName].value;
        if (!value || value === ticket[fieldName]) continue;
        const result = await post("/api/helpdesk", { action: "set", ticket_id: ticket.id, field: fieldName, value });
        if (refusalOf(result)) return acted(result, "");
      }
      return acted({ http: 200, data: {} }, "Saved.");
    });
  });
  const closeForm = h("form", { class: "stack", novalidate: true, dataset: { form: "close" } },
    field("How was it resolved?", { name: "resolution", rows: "2" }, { multiline: true,
      hint: "A sentence for your records, such as “Sent a replacement”. Needed to close a ticket." }),
    h("p", { class: "actions" },
      button("Mark solved", null, { type: "submit", kind: "secondary", value: "solved", "data-action": "solve" }),
      button("Close ticket", null, { type: "submit", value: "closed", "data-action": "close" })));
  if (ticket.resolution) closeForm.resolution.value = ticket.resolution;
  closeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = (event.submitter && event.submitter.value) || "closed";
    await busy(event.submitter || closeForm, async () => {
      acted(await post("/api/helpdesk", { action: "set", ticket_id: ticket.id, field: "status", value,
        resolution: closeForm.resolution.value }), value === "closed" ? "Ticket closed." : "Ticket solved.");
    });
  });
  return h("section", { class: "panel", "aria-labelledby": "ticket-title", dataset: { ticketId: String(ticket.id),
    status: ticket.status } },
  h("p", {}, h("a", { href: "#/app/desk" }, "← All tickets")),
  h("h2", { id: "ticket-title" }, ticket.subject),
  h("dl", { class: "pairs" },
    h("dt", {}, "Customer"), h("dd", {}, ticket.customer_name ? `${ticket.customer_name} (${ticket.customer_email})` : ticket.customer_email),
    h("dt", {}, "Status"), h("dd", { dataset: { status: ticket.status } }, STATUS[ticket.status]),
    h("dt", {}, "Priority"), h("dd", {}, PRIORITY[ticket.priority]),
    h("dt", {}, "Kind"), h("dd", {}, CATEGORY[ticket.category]),
    ticket.resolution ? [h("dt", {}, "Resolution"), h("dd", { dataset: { resolution: "" } }, ticket.resolution)] : null,
    ticket.order ? [h("dt", {}, "Their order"), orderView(ticket.order)] : null),
  h("ol", { class: "thread" }, ticket.messages.map((m) => messageView(m, replyForm))),
  outcome, replyForm, noteForm,
  h("h3", { class: "desk-step" }, "Sort it"), sortForm,
  h("h3", { class: "desk-step" }, "Close it"), closeForm);
}

// The order the customer wrote about: the one their mail names, else their latest one from
// the address they wrote from. The founder reads it as the Orders screen shows it.
function orderView(order) {
  const how = order.matched_by === "number" ? "Their mail names this order."
    : "Their latest order from the address they wrote from.";
  return h("dd", { dataset: { orderNumber: order.number, orderState: order.status } },
    `Order ${order.number}: ${order.quantity} × ${order.product_name || "item"}, ${order.total}, `
    + `${dayWords(order.created_at)} `, stateTag(order.status),
    h("br"), h("span", { class: "muted" }, `${how} `), h("a", { href: "#/app/orders" }, "See it in Orders"));
}

function messageView(message, replyForm) {
  const kind = { in: "From the customer", out: "Your reply", note: "Your note", draft: "Draft by the assistant" }[message.direction];
  const who = message.direction === "out" && message.author === "agent" ? "Sent by the assistant"
    // The assistant's note lists the parts of the customer's mail it left for the founder to answer.
    : message.direction === "note" && message.author === "agent" ? "Left for you by the assistant" : kind;
  const unsent = message.direction === "out" && message.sent === false;
  return h("li", { class: `message message-${message.direction}`, dataset: { direction: message.direction, author: message.author } },
    h("p", { class: "message-head" }, h("strong", {}, who), " · ", when(message.created_at),
      message.direction === "in" ? ` · ${message.from}` : null, unsent ? " · not sent: the mail service did not take it" : null),
    h("p", { class: "message-text" }, message.text),
    message.direction === "draft" ? h("p", { class: "actions" }, button("Use this draft", () => {
      replyForm.reply.value = message.text;
      replyForm.reply.focus();
    }, { kind: "secondary", "data-action": "use-draft" })) : null);
}

function rulesView(ctx, rules) {
  const outcome = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "inline-form", novalidate: true, dataset: { form: "rule" } },
    field("When a new message mentions", { name: "keyword", maxlength: "100", required: true }),
    select("set the kind to", "category", CATEGORY, "", "leave as it is"),
    select("the priority to", "priority", PRIORITY, "", "leave as it is"),
    select("and the status to", "status", { open: STATUS.open, pending: STATUS.pending }, "", "leave as it is"),
    button("Add rule", null, { type: "submit", kind: "secondary", "data-action": "add-rule" }));
  const change = async (body, done) => {
    const result = await post("/api/settings/rules", body);
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(outcome, refusal(said, {}, result.http));
      return;
    }
    ctx.toast(done);
    ctx.rerender();
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const set = {};
    for (const name of ["category", "priority", "status"]) if (form[name].value) set[name] = form[name].value;
    await busy(form.querySelector("button[type=submit]"), () => change({ op: "add", keyword: form.keyword.value, set },
      "Rule added."));
  });
  const said = (rule) => Object.entries(rule.set).map(([k, v]) => `${{ category: "kind", priority: "priority",
    status: "status" }[k]} ${({ category: CATEGORY, priority: PRIORITY, status: STATUS }[k])[v].toLowerCase()}`).join(", ");
  return h("section", { class: "panel", "aria-labelledby": "rules-title" },
    h("h2", { id: "rules-title" }, "Sorting new mail"),
    h("p", { class: "hint" }, "Each rule sorts a new ticket once, when it arrives; you can change anything after."),
    rules.length ? h("ul", { class: "desk-rules" }, rules.map((rule) => h("li", { dataset: { ruleId: String(rule.id) } },
      h("span", {}, `Mentions “${rule.keyword}”: ${said(rule)}`), " ",
      button("Delete", (event) => busy(event.currentTarget, () => change({ op: "delete", id: rule.id }, "Rule deleted.")),
        { kind: "ghost", "aria-label": `Delete the rule for “${rule.keyword}”`, "data-action": "delete-rule" }))))
      : h("p", { class: "empty" }, "No rules yet."),
    form, outcome);
}
