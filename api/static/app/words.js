// The words every screen says the same way. A store is built and published (spec 3: not
// built, building, built, published); a product is launched (draft, ready, live, paused,
// retired). "Live" is the product's word alone: a published store whose product is still a
// draft is published, not live. And a founder's product is named by its name, never its id.
import { get } from "./api.js";

// A store's state (GET /api/store `status`): [word, what it means for the founder].
export const STORE_STATES = {
  not_started: ["Not built yet", "Build it to see your storefront."],
  building: ["Being built", "The service is writing your store."],
  built: ["Built", "Its newest version shows only in your preview until you publish it."],
  publishing: ["Being published", "Every page is being checked before it is public."],
  published: ["Published", "Anyone with its address can open it; customers can buy once your product is live."],
  failed: ["Not built", "The last build did not finish."],
};

// A product's launch state (GET /api/launch `launch_state.state`): [word, what it means].
export const LAUNCH_STATES = {
  draft: ["Draft", "Not ready yet: get ready once your store is built."],
  ready: ["Ready", "Ready to launch once customers can reach your store and pay."],
  live: ["Live", "Customers can reach your store and pay."],
  paused: ["Paused", "Customers cannot order until you resume."],
  retired: ["Retired", "This product is retired for good; nothing follows."],
};

/** A state's word, or the state itself when the app does not know it (enumerations are open). */
export function stateWord(states, state) {
  return (states[state] || [state])[0];
}

/** The founder's product's name (GET /api/launch, which always answers: no refusal to log),
 * or "Your product" when it cannot be read or names another product. */
export async function productName(productId) {
  const { data } = await get("/api/launch");
  const named = data && data.product_name && (!productId || data.product_id === productId);
  return named ? data.product_name : "Your product";
}
