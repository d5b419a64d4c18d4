// What the screens that take a payment share: sending the browser to the payment provider's
// page, the notice on coming back from it, and the words and tag for a payment's state.
import { h } from "./dom.js";
import { poll } from "./poll.js";

// The states of an order, a sample or a payment (open | paid | failed | expired).
const STATE_WORDS = { open: "Awaiting payment", paid: "Paid", failed: "Declined", expired: "Expired" };

/**
 * A tag naming a payment state; `data-state` carries the code. An expired one says why it
 * ended when the answer gives `expiredBecause` (the API's `expired_because`) and the screen
 * has words for it in `because` ({cancelled: "Cancelled by you", timed_out: "Expired unpaid"}):
 * someone who cancelled on the payment page did not let it expire, and a bare "Expired" would
 * send them looking for a fault that is not there. `data-expired-because` carries that code.
 */
export function stateTag(state, { expiredBecause = null, because = {} } = {}) {
  const kind = state === "paid" ? " tag-ok" : state === "failed" || state === "expired" ? " tag-stop" : "";
  const why = state === "expired" && expiredBecause && Object.hasOwn(because, expiredBecause) ? expiredBecause : null;
  return h("span", { class: `tag${kind}`, dataset: why ? { state, expiredBecause: why } : { state } },
    why ? because[why] : STATE_WORDS[state] || state);
}

/** Sends the browser to the provider's hosted page for an answer {status: checkout_started, checkout_url}. */
export function goToCheckout(answer) {
  location.assign(answer.checkout_url);
}

/** The payment this screen was sent back to (`?payment=<id>`, `&cancelled=1`), or null. */
export function returnedPayment(params) {
  const id = params.get("payment");
  return id ? { id, cancelled: params.get("cancelled") === "1" } : null;
}

/**
 * After coming back from the provider: re-reads with `load` a few times while `waiting(result)`
 * (the payment not settled yet) and answers the last result, or null when the founder left.
 */
export async function afterPayment(ctx, load, waiting, { tries = 6, every = 1000 } = {}) {
  let left = tries;
  return poll(ctx, load, { waiting: (result) => waiting(result) && (left -= 1) > 0, every });
}

/**
 * The notice on coming back from the provider. `settled`: what the refreshed state says
 * (paid, failed, expired, or open while the provider has not confirmed yet); `what` names
 * what was bought ("Your sample", "The domain").
 */
export function paymentNotice(returned, settled, what) {
  if (!returned) return null;
  const [tone, heading, text] = returned.cancelled || settled === "failed" || settled === "expired"
    ? ["warn", "Not paid", "The payment did not go through (it was declined or you went back), so nothing was charged. "
      + "You can try again."]
    : settled === "paid"
      ? ["success", "Payment confirmed", `${what} is paid: the payment provider confirmed it.`]
      : ["info", "Confirming your payment", "The payment provider has not confirmed it yet. This screen shows the "
        + "answer once it does: open it again in a moment."];
  return h("div", { class: `notice notice-${tone}`, role: tone === "warn" ? "alert" : "status",
    dataset: { payment: returned.id, paymentState: returned.cancelled ? "cancelled" : settled || "open" } },
  h("p", { class: "notice-title" }, heading),
  h("p", {}, text));
}
