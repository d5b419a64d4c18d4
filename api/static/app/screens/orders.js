// Orders: the confirmed revenue of your stores (per store and currency, from the payment
// ledger), then the customers' orders, newest first: an order is one a customer paid for, each
// with the profit it leaves at your offer's unit cost. Checkouts customers opened and did not
// pay are not orders: they are listed apart. Campaigns that ran list what their spend bought:
// the paid orders of customers who came by their ad, what each order cost in ads and what came
// back for every dollar spent.
import { h, fill, title, moneyMinor, linkButton, button, busy, scrollingTable } from "../dom.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { stateTag } from "../checkout.js";
import { ORDERS_FOR_REVENUE, WINDOW_DAYS, funnel, revenueChart } from "../charts.js";
import { momentWords } from "../words.js";

export const name = "orders";
export const label = "Orders";


export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Orders", "What customers bought in your store and what the payment provider confirmed "
    + "they paid."), body);
  const [revenue, tracking, visitors, book] = await Promise.all([get("/api/revenue"), get(ORDERS_FOR_REVENUE),
    get(`/api/editor/metrics?days=${WINDOW_DAYS}`), get("/api/ads-manager")]);
  if (!ctx.alive()) return;
  const refresh = button("Refresh", (event) => busy(event.currentTarget, () => ctx.rerender()),
    { kind: "secondary", "data-action": "refresh" });
  const saidRevenue = refusalOf(revenue);
  const saidOrders = refusalOf(tracking);
  fill(body,
    h("section", { class: "panel", "aria-labelledby": "revenue-title" },
      h("h2", { id: "revenue-title" }, "Confirmed revenue"),
      saidRevenue ? refusal(saidRevenue, { retry: () => ctx.rerender() }, revenue.http) : revenueView(revenue.data.stores || []),
      saidRevenue || saidOrders ? null : revenueChart(tracking.data.orders, WINDOW_DAYS)),
    // The funnel shows once there is a store to visit; before that the answer says why not, and the Store screen says it better.
    visitors.data && visitors.data.status === "ok" ? h("section", { class: "panel", "aria-labelledby": "funnel-title" },
      h("h2", { id: "funnel-title" }, `Your store's visitors in the last ${visitors.data.days} days`),
      funnel(visitors.data)) : null,
    h("section", { class: "panel", "aria-labelledby": "orders-title" },
      h("h2", { id: "orders-title" }, "Orders"),
      saidOrders ? refusal(saidOrders, { retry: () => ctx.rerender() }, tracking.http)
        : [ordersView(tracking.data.orders || []), h("p", { class: "hint" }, tracking.data.profit_basis)]),
    checkoutsView((tracking.data && tracking.data.checkouts) || []),
    adsView(book.data && book.data.book ? book.data.book.campaigns : []),
    h("p", { class: "actions" }, refresh, linkButton("Your store", "#/app/store")));
}

function revenueView(stores) {
  if (!stores.length) {
    return h("p", { class: "empty", dataset: { revenue: "none" } }, "No confirmed revenue yet: it counts once a "
      + "customer's payment is confirmed by the payment provider.");
  }
  return [
    h("div", { class: "stats" }, stores.map((store) => h("div", {
      class: "stat", dataset: { revenueProduct: store.product_id, currency: store.currency, confirmedMinor: String(store.confirmed_minor) },
    },
    h("p", { class: "stat-label" }, `${store.product_name || "Your store"} (${store.currency})`),
    h("p", { class: "stat-value" }, moneyMinor(store.confirmed_minor, store.currency)),
    h("p", { class: "stat-label" }, `${store.orders} paid order${store.orders === 1 ? "" : "s"}`)))),
    h("p", { class: "hint" }, "Only payments the payment provider confirmed count; an order still awaiting payment "
      + "does not."),
  ];
}

function ordersView(orders) {
  return scrollingTable("Orders", h("table", { class: "orders" },
    h("caption", { class: "visually-hidden" }, "Paid orders of your stores, newest first"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Order"), h("th", { scope: "col" }, "State"),
      h("th", { scope: "col" }, "Quantity"), h("th", { scope: "col" }, "Amount"), h("th", { scope: "col" }, "Profit"),
      h("th", { scope: "col" }, "Customer"), h("th", { scope: "col" }, "Ship to"),
      h("th", { scope: "col" }, "Placed"), h("th", { scope: "col" }, "Paid"))),
    h("tbody", {}, orders.map((order) => h("tr", { dataset: { orderId: order.order_id, state: order.state } },
      // The order's number (its id's first characters, as the thank-you page and the mails
      // give it) names the order on screen; the whole id is in data-order-id.
      h("th", { scope: "row" }, h("span", { title: order.order_id }, numberOf(order)), h("br"),
        h("span", { class: "muted" }, `${order.product_name || "Your product"}, store version ${order.store_version}`)),
      h("td", {}, stateTag(order.state)),
      h("td", { class: "num" }, String(order.quantity)),
      h("td", { class: "num" }, moneyMinor(order.amount_minor, order.currency), h("br"),
        h("span", { class: "muted" }, `${moneyMinor(order.unit_price_minor, order.currency)} each`)),
      h("td", { class: "num", dataset: { profitMinor: order.profit_minor === null ? "" : String(order.profit_minor) } },
        order.profit_minor === null ? "—" : moneyMinor(order.profit_minor, order.currency)),
      h("td", {}, order.email, h("br"),
        h("span", { class: "muted", dataset: { receipt: order.receipt } }, RECEIPT[order.receipt] || "")),
      h("td", { dataset: { shipping: order.shipping ? "given" : "none" } }, shippingView(order)),
      h("td", {}, momentWords(order.created_at)),
      h("td", {}, order.paid_at ? momentWords(order.paid_at) : "—"))))));
}

// Checkouts a customer opened and did not pay: not orders, so listed apart and never counted.
function checkoutsView(checkouts) {
  if (!checkouts.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "checkouts-title", dataset: { checkouts: String(checkouts.length) } },
    h("h2", { id: "checkouts-title" }, "Checkouts not paid"),
    h("p", { class: "hint" }, "A customer opened these checkouts and has not paid, or gave up or was declined. They are "
      + "not orders and count in no revenue."),
    scrollingTable("Checkouts not paid", h("table", { class: "checkouts" },
      h("caption", { class: "visually-hidden" }, "Checkouts not paid, newest first"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Checkout"), h("th", { scope: "col" }, "State"),
        h("th", { scope: "col" }, "Quantity"), h("th", { scope: "col" }, "Amount"),
        h("th", { scope: "col" }, "Customer"), h("th", { scope: "col" }, "Opened"))),
      h("tbody", {}, checkouts.map((checkout) => h("tr", { dataset: { orderId: checkout.order_id, state: checkout.state } },
        h("th", { scope: "row" }, h("span", { title: checkout.order_id }, numberOf(checkout)), h("br"),
          h("span", { class: "muted" }, checkout.product_name || "Your product")),
        h("td", {}, checkoutTag(checkout)),
        h("td", { class: "num" }, String(checkout.quantity)),
        h("td", { class: "num" }, moneyMinor(checkout.amount_minor, checkout.currency)),
        h("td", {}, checkout.email),
        h("td", {}, momentWords(checkout.created_at))))))));
}

/** What each campaign that ran bought with its spend; nothing before one has run. */
function adsView(campaigns) {
  const ran = campaigns.filter((c) => c.delivery && c.delivery.orders && c.delivery.totals);
  if (!ran.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "ads-orders-title" },
    h("h2", { id: "ads-orders-title" }, "From your ads"),
    h("p", { class: "hint" }, "Orders count to a campaign when the customer came by its ad's link; only paid "
      + "orders count."),
    scrollingTable("What your ads bought",
      h("table", { class: "orders" },
        h("thead", {}, h("tr", {}, ["Campaign", "Spent", "Paid orders", "Ads cost per order", "Back for each $1 spent"]
          .map((head) => h("th", { scope: "col" }, head)))),
        h("tbody", {}, ran.map((c) => {
          const { orders, totals } = c.delivery;
          return h("tr", { dataset: { campaign: c.name, paidOrders: String(orders.paid) } },
            h("th", { scope: "row" }, c.name),
            h("td", { class: "num" }, moneyMinor(totals.spend_minor, totals.currency)),
            h("td", { class: "num" }, String(orders.paid)),
            h("td", { class: "num" }, orders.cost_per_order_minor === null ? "No order yet"
              : moneyMinor(orders.cost_per_order_minor, orders.currency)),
            h("td", { class: "num" }, orders.return_on_ad_spend === null ? "Nothing spent yet"
              : moneyMinor(Math.round(orders.return_on_ad_spend * 100), orders.currency)));
        })))));
}

/** The order's number as the customer's receipt gives it (the server's `order_number`). */
function numberOf(order) {
  return order.order_number || order.order_id.slice(0, 8);
}

// Why an expired checkout ended (`expired_because`): a customer who cancelled did not let it
// expire, and a founder reading "Expired" would look for a fault that is not there.
const EXPIRED_WORDS = {
  cancelled: "Cancelled by the customer",
  not_on_sale: "Closed: not on sale",
  timed_out: "Expired unpaid",
};

function checkoutTag(checkout) {
  return stateTag(checkout.state, { expiredBecause: checkout.expired_because, because: EXPIRED_WORDS });
}

// What became of the customer's receipt (the mail after a sale).
const RECEIPT = {
  not_paid: "No receipt: not paid",
  sending: "Receipt being sent",
  sent: "Receipt sent",
  refused: "Receipt refused by their mail server",
};

// The address as the lines of a label, one per line; an order whose checkout collected
// none (or not paid yet) says so.
function shippingView(order) {
  const lines = order.shipping_lines || [];
  if (!lines.length) return h("span", { class: "muted" }, order.state === "paid" ? "No address given" : "—");
  return h("address", { class: "ship-to" }, lines.flatMap((line, i) => (i ? [h("br"), line] : [line])));
}
