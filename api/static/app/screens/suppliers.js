// Suppliers: sourcing options for your product from the supplier feed (unit cost, minimum
// order, shipping time, rating, where it ships from), the one supplier you connect, a sample
// ordered from it through the payment provider, and your samples with their payment state.
import { h, fill, title, field, button, busy, when, money, moneyMinor, linkButton, scrollingTable } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { stateTag, goToCheckout, returnedPayment, afterPayment, paymentNotice } from "../checkout.js";

export const name = "suppliers";
export const label = "Suppliers";

const MAX_SAMPLES = 10;

export async function render(ctx) {
  const returned = returnedPayment(ctx.params);
  const landing = h("div", { "aria-live": "polite" });
  const connectionSlot = h("div", {});
  const searchSlot = h("div", { "aria-live": "polite" });
  const samplesSlot = h("div", {});
  fill(ctx.main, title("Suppliers", "Who can make and ship your product, at what cost and how fast; connect one "
    + "and order a sample before you sell."),
  landing,
  h("section", { class: "panel", "aria-labelledby": "connection-title" },
    h("h2", { id: "connection-title" }, "Your supplier"), connectionSlot),
  h("section", { class: "panel", "aria-labelledby": "options-title" },
    h("h2", { id: "options-title" }, "Sourcing options"), searchSlot),
  h("section", { class: "panel", "aria-labelledby": "samples-title" },
    h("h2", { id: "samples-title" }, "Your samples"), samplesSlot),
  h("p", { class: "actions" }, linkButton("Launch facts", "#/app/launch")));

  let connected = null; // the connected supplier's name, or null
  let lastOptions = null; // the last answer of GET /api/suppliers, to redraw its buttons

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
    if (lastOptions) showOptions(lastOptions);
    ctx.toast(result.data.status === "connected" ? `Connected to ${result.data.supplier}.` : "Supplier disconnected.");
  });

  function showConnection(answer) {
    connected = answer.status === "connected" ? answer.supplier : null;
    if (!connected) {
      fill(connectionSlot, h("div", { dataset: { connection: "not_connected" } },
        h("p", {}, "No supplier connected yet. Connect one of the options below; you can change it any time."),
        h("p", { class: "hint" }, "Ordering a sample needs a connected supplier.")));
      return;
    }
    const sample = h("form", { class: "inline-form", novalidate: true, dataset: { form: "sample" } },
      field("Sample quantity", { type: "number", name: "quantity", value: "1", min: "1", max: String(MAX_SAMPLES),
        inputmode: "numeric", required: true }, { hint: `1 to ${MAX_SAMPLES} units, paid on the payment page.` }),
      button("Order a sample", null, { type: "submit", "data-action": "sample" }));
    const outcome = h("div", { "aria-live": "polite" });
    sample.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(sample.querySelector("button[type=submit]"), async () => {
        const quantity = Number(sample.quantity.value);
        const result = await post("/api/samples/checkout", { supplier: connected, quantity });
        if (!ctx.alive()) return;
        const said = refusalOf(result);
        if (!said && result.data.status === "checkout_started") {
          goToCheckout(result.data);
          return;
        }
        fill(outcome, refusal(said || result.data, { retry: () => sample.requestSubmit() }, result.http));
      });
    });
    fill(connectionSlot, h("div", { dataset: { connection: "connected", supplier: connected } },
      h("dl", { class: "pairs" },
        h("dt", {}, "Supplier"), h("dd", {}, connected),
        h("dt", {}, "For product"), h("dd", {}, answer.product_id || "none claimed when connecting"),
        h("dt", {}, "Connected"), h("dd", {}, when(answer.connected_at))),
      h("p", { class: "actions" },
        button("Disconnect", change({ action: "disconnect" }), { kind: "ghost", "data-action": "disconnect" })),
      h("h3", {}, "Order a sample"),
      h("p", {}, `See and test what ${connected} ships before your customers do.`),
      sample, outcome));
  }

  function showOptions(result) {
    lastOptions = result;
    const said = refusalOf(result);
    const found = said ? null : result.data;
    fill(optionsSlot, said
      ? refusal(said, { retry: () => form.requestSubmit() }, result.http)
      : [h("p", { class: "muted" }, `Options for ${found.product.name}${found.product.product_id ? ` (${found.product.product_id})` : ""}, `
        + "best match first."), optionsTable(found.options, connected, change)]);
  }

  const form = h("form", { class: "inline-form", novalidate: true, role: "search", "aria-label": "Sourcing options" },
    field("Product id or words", { type: "search", name: "product", maxlength: "200", required: true },
      { hint: "Your product's id finds its own feed line first, then products named like it." }),
    button("Search suppliers", null, { type: "submit", "data-action": "search" }));
  const optionsSlot = h("div", {});
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await get(`/api/suppliers?product=${encodeURIComponent(form.product.value.trim())}`);
      if (ctx.alive()) showOptions(result);
    });
  });
  fill(searchSlot, form, optionsSlot);

  const [launch, connection, samples] = await Promise.all([get("/api/launch"), get("/api/supplier-connection"), loadSamples()]);
  if (!ctx.alive()) return;
  const saidConnection = refusalOf(connection);
  if (saidConnection) fill(connectionSlot, refusal(saidConnection, { retry: () => ctx.rerender() }, connection.http));
  else showConnection(connection.data);

  // The claimed product's id, when there is one, is what to search for first.
  const productId = launch.data && launch.data.product_id;
  if (productId) {
    form.product.value = productId;
    const result = await get(`/api/suppliers?product=${encodeURIComponent(productId)}`);
    if (!ctx.alive()) return;
    showOptions(result);
  } else {
    fill(optionsSlot, h("p", { class: "empty" }, "No product claimed yet: search by words, or ",
      h("a", { href: "#/app/find" }, "find a product"), " first."));
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

function optionsTable(options, connected, change) {
  return scrollingTable("Sourcing options", h("table", { class: "options" },
    h("caption", { class: "visually-hidden" }, "Supplier options, best match first"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Supplier"), h("th", { scope: "col" }, "Unit cost"),
      h("th", { scope: "col" }, "Minimum order"), h("th", { scope: "col" }, "Shipping"),
      h("th", { scope: "col" }, "Rating"), h("th", { scope: "col" }, "Ships from"),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Connect")))),
    h("tbody", {}, options.map((option) => {
      const yours = connected && connected === option.supplier;
      return h("tr", { dataset: { supplier: option.supplier, sku: option.sku || "" } },
        h("th", { scope: "row" }, option.supplier, option.sku ? [h("br"), h("span", { class: "muted" }, option.sku)] : null),
        h("td", { class: "num" }, money(option.unit_cost, option.currency)),
        h("td", { class: "num" }, option.moq === null ? "—" : `${option.moq} unit${option.moq === 1 ? "" : "s"}`),
        h("td", { class: "num" }, option.shipping_days === null ? "—" : `${option.shipping_days} days`),
        h("td", { class: "num" }, option.rating === null ? "—" : `${option.rating} of 5`),
        h("td", {}, option.ships_from || "—"),
        h("td", {}, yours
          ? h("span", { class: "tag tag-ok" }, "Connected")
          : button("Connect", change({ action: "connect", supplier: option.supplier }), {
            kind: "secondary", class: "btn btn-secondary btn-small", "aria-label": `Connect ${option.supplier}${option.sku ? ` (${option.sku})` : ""}`,
            "data-action": "connect",
          })));
    }))));
}

function samplesView(samples) {
  if (!samples.length) return h("p", { class: "empty" }, "No samples ordered yet.");
  return [
    scrollingTable("Your samples", h("table", { class: "samples" },
      h("caption", { class: "visually-hidden" }, "Your sample orders, newest first"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Supplier"), h("th", { scope: "col" }, "State"),
        h("th", { scope: "col" }, "Quantity"), h("th", { scope: "col" }, "Amount"),
        h("th", { scope: "col" }, "Ordered"), h("th", { scope: "col" }, "Paid"))),
      h("tbody", {}, samples.map((sample) => h("tr", { dataset: { sampleId: sample.sample_id, state: sample.state } },
        h("th", { scope: "row" }, sample.supplier, sample.sku ? [h("br"), h("span", { class: "muted" }, sample.sku)] : null),
        h("td", {}, stateTag(sample.state)),
        h("td", { class: "num" }, String(sample.quantity)),
        h("td", { class: "num" }, moneyMinor(sample.amount_minor, sample.currency)),
        h("td", {}, when(sample.created_at)),
        h("td", {}, sample.paid_at ? when(sample.paid_at) : "—")))))),
    h("p", { class: "hint" }, "A paid sample counts as ordered for your launch facts."),
  ];
}
