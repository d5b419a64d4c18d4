// The commerce assistant's box (POST /api/intent {message}): the founder types a sentence and
// the app goes to the screen it names, shows the answer with what it read, or links the page
// it wrote. Everything shown goes through textContent (dom.js).
import { h, fill, field, button, busy, linkButton } from "./dom.js";
import { post, refusalOf } from "./api.js";
import { refusal } from "./reasons.js";

// What each cite read, in the founder's words: a product by its name, never by its id.
const CITED = {
  orders: (c) => `Your orders: ${c.count} paid`
    + (c.open_checkouts ? `, ${c.open_checkouts} checkout${c.open_checkouts === 1 ? "" : "s"} not paid` : ""),
  revenue: (c) => (c.product_id ? `Confirmed revenue: ${c.orders} paid order${c.orders === 1 ? "" : "s"}` : "Confirmed revenue: none yet"),
  // `own`: the price is the founder's own (their own product, or a price they set), never the
  // catalog's nor an offer's.
  offer: (c) => (c.own ? "The price you set" : "Your offer"),
  catalog: (c) => (c.own ? "The price you set" : "The catalog's price"),
  product: (c) => (c.product_id ? `Your product ${c.name || c.product_id}` : "Your products: none yet"),
  screens: () => "The screens of this app",
};

/** The assistant panel; `navigate(route)` moves the app (location.hash by default). */
export function assistantPanel({ navigate = (route) => { location.hash = route; } } = {}) {
  const out = h("div", { class: "assistant-answer", "aria-live": "polite" });
  const form = h("form", { class: "inline-form assistant-form", novalidate: true },
    field("Ask or tell the assistant", { type: "text", name: "message", maxlength: "2000", autocomplete: "off",
      placeholder: "Show my orders · How many orders do I have? · Make a returns policy page" }),
    button("Ask", null, { type: "submit" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const message = form.message.value;
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/intent", { message });
      const said = refusalOf(result);
      if (said) {
        fill(out, refusal(said, {}, result.http));
        return;
      }
      show(result.data);
    });
  });

  function show(data) {
    if (data.kind === "navigate") {
      fill(out, h("p", { class: "muted" }, `Going to ${data.route.replace(/^#\/app\//, "")}…`));
      navigate(data.route);
    } else if (data.kind === "page") {
      fill(out, h("p", { dataset: { kind: "page" } }, data.answer || "Your page is ready."),
        h("p", { class: "actions" }, h("a", { class: "btn btn-primary", href: data.url, target: "_blank", rel: "noopener" },
          `Open “${data.title || "your page"}”`)));
    } else {
      fill(out, h("p", { dataset: { kind: "answer" } }, data.answer),
        (data.cites || []).length ? h("div", { class: "cites" },
          h("p", { class: "muted" }, "From:"),
          h("ul", { class: "list" }, data.cites.map((cite) => h("li", {},
            cite.route ? h("a", { href: cite.route }, (CITED[cite.kind] || (() => cite.kind))(cite))
              : (CITED[cite.kind] || (() => cite.kind))(cite))))) : null);
    }
  }

  return h("section", { class: "panel assistant", "aria-labelledby": "assistant-title" },
    h("h2", { id: "assistant-title" }, "Assistant"),
    h("p", { class: "muted" }, "Go to a screen, ask about your orders, revenue or price, or have a page written."),
    form, out, h("p", { class: "actions" }, linkButton("Your pages", "#/app/pages")));
}
