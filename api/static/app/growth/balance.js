// The ad balance on the Growth screen: what is there to spend on ads, every movement of it,
// the top-ups still waiting for the payment provider, and a new top-up paid on the provider's
// page (the balance moves only once the provider confirms; coming back shows it credited), and
// each day a running campaign spent, taken from it once the day is over.
import { h, fill, field, button, busy, moneyMinor, when, scrollingTable } from "../dom.js";
import { shortDay } from "../charts.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { goToCheckout, afterPayment, paymentNotice } from "../checkout.js";
import { toMinor, toMajor } from "./money.js";

// What a line of the ledger records.
const KINDS = { topup: "Top-up", spend: "Ad spend", refund: "Refund", adjustment: "Correction" };

/** The top-up this screen was sent back to (`?topup=<id>`, `&cancelled=1`), or null. */
export function returnedTopup(params) {
  const id = params.get("topup") || params.get("payment");
  return id ? { id, cancelled: params.get("cancelled") === "1" } : null;
}

/** Where a returned top-up stands in the balance's answer: paid (in the ledger), open, or failed. */
function topupState(balance, id) {
  if ((balance.ledger || []).some((line) => line.topup_id === id)) return "paid";
  if ((balance.pending || []).some((line) => line.topup_id === id)) return "open";
  return "failed";
}

export function balancePanel(ctx) {
  const landing = h("div", { "aria-live": "polite" });
  const body = h("div", {});
  const loadBalance = () => get("/api/adbalance");

  /** Reads the balance and draws it; back from the payment page, waits for the provider first. */
  async function load(returned = null) {
    let result = await loadBalance();
    if (!ctx.alive()) return;
    if (returned && !refusalOf(result)) {
      fill(landing, paymentNotice(returned, null, "Your top-up"));
      if (!returned.cancelled) {
        result = await afterPayment(ctx, loadBalance, (r) => r.data && r.data.status === "ok"
          && topupState(r.data, returned.id) === "open");
        if (!result) return;
      }
    }
    const said = refusalOf(result);
    if (said) {
      fill(body, refusal(said, { retry: () => load() }, result.http));
      return;
    }
    const balance = result.data;
    if (returned) {
      const settled = returned.cancelled ? "failed" : topupState(balance, returned.id);
      const line = (balance.ledger || []).find((l) => l.topup_id === returned.id);
      fill(landing, paymentNotice(returned, settled,
        line ? `Your top-up of ${moneyMinor(line.amount_minor, balance.currency)}` : "Your top-up"),
      settled === "paid" ? h("p", { class: "notice notice-success", role: "status", dataset: { credited: returned.id } },
        `It is in your ad balance, which is now ${moneyMinor(balance.balance_minor, balance.currency)}.`) : null);
    }
    show(balance);
  }

  function show(balance) {
    const currency = balance.currency || "USD";
    const ledger = balance.ledger || [];
    const pending = balance.pending || [];
    fill(body,
      h("div", { class: "stats" },
        h("div", { class: "stat", dataset: { balanceMinor: String(balance.balance_minor), currency } },
          h("p", { class: "stat-label" }, "Your ad balance"),
          h("p", { class: "stat-value" }, moneyMinor(balance.balance_minor, currency)),
          h("p", { class: "stat-label" }, !ledger.length ? "Nothing added yet"
            : ledger.some((line) => line.kind === "spend") ? "The top-ups the payment provider confirmed, less what "
              + "your campaigns spent" : "From the top-ups the payment provider confirmed"))),
      pending.length ? h("div", { class: "pending-topups", dataset: { pending: String(pending.length) } },
        h("h3", {}, "Waiting for the payment provider"),
        h("ul", { class: "list" }, pending.map((line) => h("li", { dataset: { topupId: line.topup_id } },
          `${moneyMinor(line.amount_minor, line.currency || currency)}, started ${when(line.created_at)}. `,
          line.checkout_url ? h("a", { href: line.checkout_url }, "Finish paying") : null))),
        h("p", { class: "hint" }, "A top-up counts once the payment provider confirms it; one you did not finish "
          + "never does.")) : null,
      h("h3", {}, "Add money"),
      balance.topups_available === false
        ? h("p", { class: "notice notice-info", role: "status", dataset: { topups: "off" } }, "Payments are switched off on "
          + "this service, so your ad balance cannot be topped up here.")
        : topupForm(balance),
      h("h3", {}, "Every movement"),
      ledger.length ? ledgerTable(ledger, currency)
        : h("p", { class: "empty", dataset: { ledger: "empty" } }, "No movements yet: a confirmed top-up shows here."));
  }

  function topupForm(balance) {
    const currency = balance.currency || "USD";
    const low = moneyMinor(balance.min_minor, currency);
    const high = moneyMinor(balance.max_minor, currency);
    const said = h("div", { "aria-live": "polite" });
    const form = h("form", { class: "inline-form", novalidate: true, dataset: { form: "topup" } },
      field("Amount to add", { type: "number", name: "amount", inputmode: "decimal", step: "0.01",
        min: String(toMajor(balance.min_minor, currency)), max: String(toMajor(balance.max_minor, currency)), required: true },
      { hint: `Between ${low} and ${high}, paid on the payment page.` }),
      button("Top up", null, { type: "submit", "data-action": "topup" }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const amount = toMinor(form.amount.value, currency);
      if (amount === null || amount < balance.min_minor || amount > balance.max_minor) {
        fill(said, h("p", { class: "notice notice-warn", role: "alert", dataset: { reason: "amount_out_of_bounds" } },
          `Choose an amount between ${low} and ${high}.`));
        return;
      }
      await busy(form.querySelector("button[type=submit]"), async () => {
        const answer = await post("/api/adbalance", { amount_minor: amount });
        if (!ctx.alive()) return;
        const refused = refusalOf(answer);
        if (!refused && answer.data.checkout_url) {
          goToCheckout(answer.data);
          return;
        }
        fill(said, refusal(refused || answer.data, {}, answer.http));
      });
    });
    return [form, said];
  }

  const node = h("section", { class: "panel", "aria-labelledby": "balance-title", dataset: { section: "balance" } },
    h("h2", { id: "balance-title" }, "Ad balance"),
    h("p", { class: "hint" }, "Money set aside for your ads, added through the payment page. Each day a campaign "
      + "runs, what it spent that day comes out of it; when it holds less than a day of your running campaigns' "
      + "budgets, they pause."),
    landing, body);
  return { node, load };
}

/** What a line of the ledger records: "Spent on “Knife strip launch”, 22 Nov" for a day's spend. */
function what(line) {
  if (line.kind === "spend") {
    const on = line.campaign ? `\u201c${line.campaign}\u201d` : "a campaign you removed";
    return `Spent on ${on}${line.day ? `, ${shortDay(line.day)}` : ""}`;
  }
  return KINDS[line.kind] || line.kind;
}

function ledgerTable(ledger, currency) {
  return scrollingTable("Movements of your ad balance", h("table", { class: "ledger" },
    h("caption", { class: "visually-hidden" }, "Movements of your ad balance, newest first"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "What"),
      h("th", { scope: "col" }, "Amount"), h("th", { scope: "col" }, "Balance after"))),
    h("tbody", {}, ledger.map((line) => h("tr", { dataset: { kind: line.kind, topupId: line.topup_id || "" } },
      h("th", { scope: "row" }, when(line.created_at)),
      h("td", {}, what(line)),
      h("td", { class: "num" }, moneyMinor(line.amount_minor, currency)),
      h("td", { class: "num" }, moneyMinor(line.balance_minor, currency)))))));
}
