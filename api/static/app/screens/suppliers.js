// Suppliers: the offers for your product, one row per offer (a supplier and its own code for
// the goods, the SKU: unit cost, minimum order, lead time, where it ships from, rating), the
// one offer you connect, a sample of that offer paid through the payment provider, and your
// samples with their payment state (one you cancelled on the payment page says so, not
// "Expired"). When no supplier offers your product itself, the rows are similar goods and
// the screen says so before anything else. The connected offer's unit cost is your offer's
// cost: the panel says so from the offer itself, with what the minimum order costs up front.
import { h, fill, title, field, button, busy, when, linkButton, scrollingTable, plural, money } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { stateTag, goToCheckout, returnedPayment, afterPayment, paymentNotice } from "../checkout.js";

export const name = "suppliers";
export const label = "Suppliers";

const MAX_SAMPLES = 10;

/** An amount with its currency's code on every figure ("USD 8.30"): a table may mix currencies. */
function priced(value, currency) {
  if (value === null || value === undefined) return "—";
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency, currencyDisplay: "code" }).format(value);
  } catch {
    return `${currency} ${Number(value).toFixed(2)}`;
  }
}

function pricedMinor(minor, currency) {
  try {
    const digits = new Intl.NumberFormat(undefined, { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
    return priced(minor / 10 ** digits, currency);
  } catch {
    return priced(minor / 100, currency);
  }
}

let regions = null;
/** A country's name from its two-letter code ("CN" -> "China"). */
function country(code) {
  if (!code) return "—";
  try {
    regions = regions || new Intl.DisplayNames(undefined, { type: "region" });
    return regions.of(code) || code;
  } catch {
    return code;
  }
}

const sameLine = (a, b) => Boolean(a && b && a.supplier === b.supplier && a.sku === b.sku);

export async function render(ctx) {
  const returned = returnedPayment(ctx.params);
  const landing = h("div", { "aria-live": "polite" });
  const connectionSlot = h("div", {});
  const offersTitle = h("h2", { id: "offers-title" }, "Offers for your product");
  const offersSlot = h("div", { "aria-live": "polite" });
  const searchSlot = h("div", { "aria-live": "polite" });
  const samplesSlot = h("div", {});
  fill(ctx.main, title("Suppliers", "Who makes and ships your product, at what cost and how fast. Connect one "
    + "supplier's offer and order a sample of it before you sell."),
  landing,
  h("section", { class: "panel", "aria-labelledby": "connection-title" },
    h("h2", { id: "connection-title" }, "Your supplier"), connectionSlot),
  h("section", { class: "panel", "aria-labelledby": "offers-title" }, offersTitle, offersSlot),
  h("section", { class: "panel", "aria-labelledby": "search-title" },
    h("h2", { id: "search-title" }, "Look up other goods"), searchSlot),
  h("section", { class: "panel", "aria-labelledby": "samples-title" },
    h("h2", { id: "samples-title" }, "Your samples"), samplesSlot),
  h("p", { class: "actions" }, linkButton("Launch facts", "#/app/launch")));

  let connected = null; // the connected offer {supplier, sku, name, offers_product_id}, or null
  let productId = null; // the product you have, when you have one
  const shown = new Map(); // slot -> the last answer it shows, to redraw its buttons after a change

  const loadSamples = () => get("/api/samples");
  const showSamples = (result) => {
    const said = refusalOf(result);
    fill(samplesSlot, said ? refusal(said, { retry: () => ctx.rerender() }, result.http) : samplesView(result.data.samples || []));
  };

  const change = (body) => async (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/supplier-connection", body);
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(connectionSlot, refusal(said, { retry: () => ctx.rerender() }, result.http));
      return;
    }
    showConnection(result.data);
    for (const [slot, [answer, searched]] of shown) showOffers(slot, answer, { searched });
    await showOfferCost();
    ctx.toast(result.data.status === "connected"
      ? `Connected: ${result.data.supplier}, SKU ${result.data.sku}.` : "Supplier disconnected.");
  });

  function sampleForm() {
    const form = h("form", { class: "inline-form", novalidate: true, dataset: { form: "sample" } },
      field("Sample quantity", { type: "number", name: "quantity", value: "1", min: "1", max: String(MAX_SAMPLES),
        inputmode: "numeric", required: true }, { hint: `1 to ${MAX_SAMPLES} units, paid on the payment page.` }),
      button("Order a sample", null, { type: "submit", "data-action": "sample" }));
    const outcome = h("div", { "aria-live": "polite" });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(form.querySelector("button[type=submit]"), async () => {
        const quantity = Number(form.quantity.value);
        const result = await post("/api/samples/checkout", { supplier: connected.supplier, sku: connected.sku, quantity });
        if (!ctx.alive()) return;
        const said = refusalOf(result);
        if (!said && result.data.status === "checkout_started") {
          goToCheckout(result.data);
          return;
        }
        fill(outcome, refusal(said || result.data, { retry: () => form.requestSubmit() }, result.http));
      });
    });
    return [form, outcome];
  }

  // The unit cost your offer counts now (GET /api/offer), the same figure the Offer screen shows.
  const offerCostSlot = h("div", { "aria-live": "polite" });
  async function showOfferCost() {
    const result = connected && productId ? await get("/api/offer") : null;
    if (!ctx.alive()) return;
    const offer = result && result.data && result.data.status === "ok" ? result.data : null;
    const line = offer && offer.supplier;
    if (!line) {
      fill(offerCostSlot);
      return;
    }
    fill(offerCostSlot, line.used_as_cost
      ? h("p", { class: "notice notice-success", dataset: { offerCost: String(offer.cost) } },
        `Your offer now counts ${money(offer.cost, offer.currency)} a unit, this supplier's price: each sale leaves `
        + `${money(offer.unit_margin, offer.currency)}. `, h("a", { href: "#/app/offer" }, "See the offer"))
      : h("p", { class: "notice notice-warn", dataset: { offerCost: "not_counted" } }, line.explanation));
  }

  function terms(answer) {
    if (answer.unit_cost === null || answer.unit_cost === undefined) return null;
    return [
      h("dt", {}, "Unit cost"), h("dd", {}, money(answer.unit_cost, answer.currency)),
      h("dt", {}, "Minimum order"), h("dd", { dataset: { minimumOrderTotal: String(answer.minimum_order_total) } },
        `${plural(answer.minimum_order_quantity, "unit")}: ${money(answer.minimum_order_total, answer.currency)} up front`),
    ];
  }

  function showConnection(answer) {
    connected = answer.status === "connected" ? answer : null;
    if (!connected) {
      fill(connectionSlot, h("div", { dataset: { connection: "not_connected" } },
        h("p", {}, "No supplier connected yet. Connect one of the offers below; you can change it any time."),
        h("p", { class: "hint" }, "Ordering a sample needs a connected offer.")));
      return;
    }
    const otherGoods = productId && connected.offers_product_id && connected.offers_product_id !== productId;
    fill(connectionSlot, h("div", { dataset: { connection: "connected", supplier: connected.supplier, sku: connected.sku || "" } },
      h("dl", { class: "pairs" },
        h("dt", {}, "Supplier"), h("dd", {}, connected.supplier),
        h("dt", {}, "Their code (SKU)"), h("dd", {}, connected.sku || "none chosen"),
        h("dt", {}, "Goods"), h("dd", {}, connected.name || "—"),
        terms(connected),
        h("dt", {}, "Connected"), h("dd", {}, when(connected.connected_at))),
      offerCostSlot,
      otherGoods ? h("p", { class: "notice notice-warn", dataset: { otherGoods: "true" } },
        "This offer is for other goods than your product: connect one of your product's offers if a supplier has one.") : null,
      h("p", { class: "actions" },
        button("Disconnect", change({ action: "disconnect" }), { kind: "ghost", "data-action": "disconnect" })),
      h("h3", {}, "Order a sample"),
      connected.sku
        ? [h("p", {}, `See and test ${connected.name || "the goods"} from ${connected.supplier} before your customers do.`),
          sampleForm()]
        : h("p", { class: "hint" }, "This connection names a supplier but none of its offers: connect one of the offers "
          + "below to order a sample.")));
  }

  // `searched`: the answer to words typed in, rather than to the product you have.
  function showOffers(slot, result, { searched = false } = {}) {
    shown.set(slot, [result, searched]);
    const said = refusalOf(result);
    if (said) {
      fill(slot, refusal(said, { retry: () => ctx.rerender() }, result.http));
      return;
    }
    const found = result.data;
    const similar = found.match === "similar_goods";
    fill(slot,
      similar && searched
        ? h("p", { class: "muted", dataset: { match: "similar_goods" } }, `Goods named like “${found.product.name}”, `
          + "closest first. They are not your product: check that one is what you sell before you connect it.")
        : similar
        ? h("div", { class: "notice notice-warn", role: "note", dataset: { match: "similar_goods" } },
          h("p", { class: "notice-title" }, "Similar goods, not your product"),
          h("p", {}, `No supplier lists ${found.product.name} itself. These are other products named like it: check `
            + "that one is what you sell before you connect it or order a sample."))
        : h("p", { class: "muted", dataset: { match: "exact" } },
          `${plural(found.options.length, "offer")} for ${found.product.name}, cheapest first. Each row is one `
          + "supplier's offer, named by the supplier's own code for it (SKU)."),
      offersTable(found.options, { similar, connected, change, caption: similar
        ? `Similar goods named like ${found.product.name}` : `Offers for ${found.product.name}` }));
  }

  const form = h("form", { class: "inline-form", novalidate: true, role: "search", "aria-label": "Look up goods" },
    field("Words describing the goods", { type: "search", name: "product", maxlength: "200", required: true },
      { hint: "For example: bamboo cutting board. Goods named like your words, cheapest first." }),
    button("Search suppliers", null, { type: "submit", "data-action": "search" }));
  const found = h("div", {});
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const words = form.product.value.trim();
    if (!words) return;
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await get(`/api/suppliers?product=${encodeURIComponent(words)}`);
      if (ctx.alive()) showOffers(found, result, { searched: true });
    });
  });
  fill(searchSlot, form, found);

  const [launch, connection, samples] = await Promise.all([get("/api/launch"), get("/api/supplier-connection"), loadSamples()]);
  if (!ctx.alive()) return;
  productId = (launch.data && launch.data.product_id) || null;
  const saidConnection = refusalOf(connection);
  if (saidConnection) fill(connectionSlot, refusal(saidConnection, { retry: () => ctx.rerender() }, connection.http));
  else showConnection(connection.data);
  await showOfferCost();
  if (!ctx.alive()) return;

  if (productId) {
    const result = await get(`/api/suppliers?product=${encodeURIComponent(productId)}`);
    if (!ctx.alive()) return;
    if (result.data && result.data.product) fill(offersTitle, `Offers for ${result.data.product.name}`);
    showOffers(offersSlot, result);
  } else {
    fill(offersSlot, h("p", { class: "empty" }, "No product claimed yet: ",
      h("a", { href: "#/app/find" }, "find a product"), " first, or look up goods by words below."));
  }

  // Back from the payment page: the newest sample's state once the provider has answered.
  let latest = samples;
  if (returned) {
    fill(landing, paymentNotice(returned, null, "Your sample"));
    const newestState = (result) => (result.data && (result.data.samples || [])[0] || {}).state;
    if (!returned.cancelled) {
      latest = await afterPayment(ctx, loadSamples, (result) => newestState(result) === "open");
      if (!latest) return;
    }
    fill(landing, paymentNotice(returned, newestState(latest), "Your sample"));
  }
  showSamples(latest);
}

function offersTable(options, { similar, connected, change, caption }) {
  const head = ["Supplier", similar ? "Goods" : null, "Unit cost", "Minimum order", "Lead time", "Ships from", "Rating"]
    .filter(Boolean);
  return scrollingTable(caption, h("table", { class: "options offers", dataset: { match: similar ? "similar_goods" : "exact" } },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", {}, h("tr", {},
      head.map((text) => h("th", { scope: "col" }, text)),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Connect")))),
    h("tbody", {}, options.map((option) => {
      const yours = sameLine(connected, option);
      return h("tr", { dataset: { supplier: option.supplier, sku: option.sku, productId: option.product_id,
        connected: yours ? "true" : "false" } },
      h("th", { scope: "row" }, option.supplier, h("br"),
        h("span", { class: "muted" }, `SKU ${option.sku}`)),
      similar ? h("td", {}, option.name) : null,
      h("td", { class: "num" }, priced(option.unit_cost, option.currency)),
      h("td", { class: "num" }, option.moq === null ? "—" : plural(option.moq, "unit")),
      h("td", { class: "num" }, option.shipping_days === null ? "—" : plural(option.shipping_days, "day")),
      h("td", {}, country(option.ships_from)),
      h("td", { class: "num" }, option.rating === null ? "—" : `${option.rating} of 5`),
      h("td", {}, yours
        ? h("span", { class: "tag tag-ok" }, "Connected")
        : button("Connect", change({ action: "connect", supplier: option.supplier, sku: option.sku }), {
          kind: "secondary", class: "btn btn-secondary btn-small",
          "aria-label": `Connect ${option.supplier}, SKU ${option.sku}`, "data-action": "connect",
        })));
    }))));
}

// Why a sample's payment expired (`expired_because`), in the words of the founder who ordered
// it: cancelling on the payment page is their own choice, not an expiry.
const SAMPLE_ENDED = { cancelled: "Cancelled by you", timed_out: "Expired unpaid" };

function samplesView(samples) {
  if (!samples.length) return h("p", { class: "empty" }, "No samples ordered yet.");
  return [
    scrollingTable("Your samples", h("table", { class: "samples" },
      h("caption", { class: "visually-hidden" }, "Your sample orders, newest first"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Supplier"), h("th", { scope: "col" }, "Goods"), h("th", { scope: "col" }, "State"),
        h("th", { scope: "col" }, "Quantity"), h("th", { scope: "col" }, "Amount"),
        h("th", { scope: "col" }, "Ordered"), h("th", { scope: "col" }, "Paid"))),
      h("tbody", {}, samples.map((sample) => h("tr", { dataset: { sampleId: sample.sample_id, state: sample.state,
        supplier: sample.supplier, sku: sample.sku || "" } },
      h("th", { scope: "row" }, sample.supplier,
        sample.sku ? [h("br"), h("span", { class: "muted" }, `SKU ${sample.sku}`)] : null),
      h("td", {}, sample.name || "—"),
      h("td", {}, stateTag(sample.state, { expiredBecause: sample.expired_because, because: SAMPLE_ENDED })),
      h("td", { class: "num" }, String(sample.quantity)),
      h("td", { class: "num" }, pricedMinor(sample.amount_minor, sample.currency)),
      h("td", {}, when(sample.created_at)),
      h("td", {}, sample.paid_at ? when(sample.paid_at) : "—")))))),
    h("p", { class: "hint" }, "A paid sample counts as ordered for your launch facts."),
  ];
}
