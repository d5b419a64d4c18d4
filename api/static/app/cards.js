// A product card (spec 2.4 and the card decision): what a founder needs to judge a
// candidate at a glance, with the hold timer on their own product.
import { h, money, percent, clock } from "./dom.js";
import { day, trendList } from "./charts.js";

/** The card element; `actions` (elements) go at its foot, `slot` receives notices. */
export function productCard(card, { actions = [], ctx, headingLevel = "h3" } = {}) {
  const slot = h("div", { class: "card-notices", "aria-live": "polite" });
  const noPhoto = () => h("div", { class: "card-noimage", "aria-hidden": "true" }, "No photo");
  // A photo that cannot be fetched (a supplier's host is down, say) leaves the placeholder.
  const image = card.image
    ? h("img", { src: card.image, alt: "", width: 320, height: 240, decoding: "async",
      onerror: (event) => event.currentTarget.replaceWith(noPhoto()) })
    : noPhoto();
  const node = h("article", { class: `card${card.yours ? " card-yours" : ""}`, dataset: { productId: card.product_id } },
    h("div", { class: "card-media" }, image),
    h("div", { class: "card-body" },
      h("p", { class: "card-category" }, card.category),
      h(headingLevel, { class: "card-name" }, card.name),
      yoursLine(card, ctx),
      h("p", { class: "card-desc" }, card.description),
      h("dl", { class: "figures" },
        figure("Price", money(card.price, card.currency)),
        figure("Cost", money(card.cost, card.currency)),
        // Price less cost only: the offer's margin also pays shipping and fees, so it is lower.
        figure("Margin before shipping and fees", `${money(card.margin, card.currency)} (${percent(card.margin_pct)})`),
        figure("Evidence", evidenceText(card))),
      trendList(card.trends, { title: "Evidence over time" }),
      slot,
      actions.length ? h("div", { class: "actions" }, actions) : null));
  node.notices = slot;
  return node;
}

function figure(label, value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, value));
}

function evidenceText(card) {
  const rows = `${card.evidence_count} dated row${card.evidence_count === 1 ? "" : "s"}`;
  return card.evidence_latest ? `${rows}, latest ${day(card.evidence_latest)}` : rows;
}

function yoursLine(card, ctx) {
  if (!card.yours) return null;
  if (card.claimed) return h("p", { class: "badge badge-claimed" }, "Claimed by you");
  if (!card.held_until) return h("p", { class: "badge" }, "Held for you");
  const timer = h("span", { role: "timer", "aria-live": "off" });
  const line = h("p", { class: "badge badge-held" }, "Held for you: ", timer);
  const until = new Date(card.held_until).getTime();
  const tick = () => {
    const left = (until - Date.now()) / 1000;
    if (left <= 0) {
      line.classList.add("badge-lapsed");
      line.textContent = "Your hold has lapsed: anyone may take it now, but you can still claim it while no one has.";
      return false;
    }
    timer.textContent = `${clock(left)} left`;
    timer.setAttribute("aria-label", `${Math.ceil(left / 60)} minutes left on your hold`);
    return true;
  };
  if (tick()) {
    const interval = setInterval(() => {
      if (!(ctx && ctx.alive()) || !tick()) clearInterval(interval);
    }, 1000);
  }
  return line;
}
