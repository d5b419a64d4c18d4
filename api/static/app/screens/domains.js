// Domains: names for your store suggested from your product's name (or your own words), a
// quote for a name you type, buying one through the payment provider, and the domain
// connected to your store once its payment is confirmed.
import { h, fill, title, field, button, busy, moneyMinor, linkButton, scrollingTable } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { goToCheckout, returnedPayment, afterPayment, paymentNotice } from "../checkout.js";

export const name = "domains";
export const label = "Domains";

export async function render(ctx) {
  const returned = returnedPayment(ctx.params);
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Domains", "A name of your own for your store: suggestions from your product's name, a "
    + "price for any name you have in mind, bought for a year through the payment page."), body);

  const loadDomains = () => get("/api/domains");
  let first = await loadDomains();
  if (!ctx.alive()) return;
  const said = refusalOf(first);
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, first.http));
    return;
  }

  // Back from the payment page: the connected domain once the provider has answered.
  const landing = h("div", { "aria-live": "polite" });
  if (returned) {
    fill(body, landing);
    fill(landing, paymentNotice(returned, null, "The domain"));
    if (!returned.cancelled) {
      first = await afterPayment(ctx, loadDomains, (result) => result.data && result.data.status === "ok" && !result.data.connected);
      if (!first) return;
    }
    const connected = first.data && first.data.connected;
    fill(landing, paymentNotice(returned, returned.cancelled ? "failed" : connected ? "paid" : "open",
      connected ? `The domain ${connected}` : "The domain"));
  }

  const connectedSlot = h("div", {});
  const showConnected = (domain) => fill(connectedSlot, domain
    ? h("div", { dataset: { connected: domain } },
      h("p", {}, "Your store's domain is ", h("strong", {}, domain), "."),
      h("p", { class: "hint" }, "It was connected when its payment was confirmed."))
    : h("p", { dataset: { connected: "" } }, "No domain connected yet: buy one below."));
  showConnected(first.data.connected);

  const buy = (domain, outcome) => (event) => busy(event.currentTarget, async () => {
    const result = await post("/api/domains/checkout", { domain });
    if (!ctx.alive()) return;
    const refused = refusalOf(result);
    if (!refused && result.data.status === "checkout_started") {
      goToCheckout(result.data);
      return;
    }
    fill(outcome, refusal(refused || result.data, { retry: () => ctx.rerender() }, result.http));
  });

  // Suggestions, from the product's name or the words typed.
  const suggestOutcome = h("div", { "aria-live": "polite" });
  const suggestions = h("div", {});
  const showSuggestions = (result) => {
    const refused = refusalOf(result);
    fill(suggestOutcome);
    fill(suggestions, refused
      ? refusal(refused, { retry: () => ctx.rerender() }, result.http)
      : suggestionsTable(result.data, (domain) => buy(domain, suggestOutcome)));
  };
  const search = h("form", { class: "inline-form", novalidate: true, role: "search", "aria-label": "Domain suggestions" },
    field("Words about your business", { type: "search", name: "q", maxlength: "200", value: first.data.query || "" },
      { hint: "Leave it empty to use your product's name." }),
    button("Suggest names", null, { type: "submit", "data-action": "suggest" }));
  search.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(search.querySelector("button[type=submit]"), async () => {
      const words = search.q.value.trim();
      const result = await get(words ? `/api/domains?q=${encodeURIComponent(words)}` : "/api/domains");
      if (ctx.alive()) showSuggestions(result);
    });
  });
  showSuggestions(first);

  // A quote for one name.
  const quoted = h("div", { "aria-live": "polite" });
  const quote = h("form", { class: "inline-form", novalidate: true, dataset: { form: "quote" } },
    field("A domain you have in mind", { type: "text", name: "domain", maxlength: "300", autocomplete: "off",
      spellcheck: "false", inputmode: "url", placeholder: "yourbrand.com", required: true }),
    button("Get a price", null, { type: "submit", "data-action": "quote" }));
  quote.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(quote.querySelector("button[type=submit]"), async () => {
      const result = await get(`/api/domains?domain=${encodeURIComponent(quote.domain.value.trim())}`);
      if (!ctx.alive()) return;
      const refused = refusalOf(result);
      if (refused) {
        fill(quoted, refusal(refused, {}, result.http));
        return;
      }
      const answer = result.data;
      const outcome = h("div", { "aria-live": "polite" });
      fill(quoted, h("div", { class: "notice notice-info", role: "status", dataset: { quote: answer.domain } },
        h("p", { class: "notice-title" }, `${answer.domain} is available`),
        h("p", {}, `${moneyMinor(answer.price_minor, answer.currency)} for a year. A price is not a hold: the name is `
          + "yours once its payment is confirmed."),
        h("p", { class: "actions" }, button(`Buy ${answer.domain}`, buy(answer.domain, outcome), { "data-action": "buy" }))),
      outcome);
    });
  });

  fill(body,
    returned ? landing : null,
    h("section", { class: "panel", "aria-labelledby": "connected-title" },
      h("h2", { id: "connected-title" }, "Your store's domain"), connectedSlot),
    h("section", { class: "panel", "aria-labelledby": "suggest-title" },
      h("h2", { id: "suggest-title" }, "Suggested names"), search, suggestOutcome, suggestions),
    h("section", { class: "panel", "aria-labelledby": "quote-title" },
      h("h2", { id: "quote-title" }, "Price a name"), quote, quoted),
    h("p", { class: "actions" }, linkButton("Launch facts", "#/app/launch")));
}

function suggestionsTable(answer, buy) {
  const names = answer.suggestions || [];
  if (!names.length) return h("p", { class: "empty" }, "No names to suggest for those words: try others.");
  return [
    h("p", { class: "muted" }, `Made from “${answer.query}”, available names first. Prices are for one year.`),
    scrollingTable("Suggested names", h("table", { class: "domains" },
      h("caption", { class: "visually-hidden" }, "Suggested domain names"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Domain"), h("th", { scope: "col" }, "Available"),
        h("th", { scope: "col" }, "Price per year"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Buy")))),
      h("tbody", {}, names.map((name) => h("tr", { dataset: { domain: name.domain, available: String(name.available) } },
        h("th", { scope: "row" }, name.domain),
        h("td", {}, name.domain === answer.connected ? h("span", { class: "tag tag-ok" }, "Yours")
          : name.available ? h("span", { class: "tag tag-ok" }, "Available") : h("span", { class: "tag tag-stop" }, "Taken")),
        h("td", { class: "num" }, name.available ? moneyMinor(name.price_minor, name.currency) : "—"),
        h("td", {}, name.available
          ? button("Buy", buy(name.domain), { kind: "secondary", class: "btn btn-secondary btn-small",
            "aria-label": `Buy ${name.domain}`, "data-action": "buy" })
          : null)))))),
  ];
}
