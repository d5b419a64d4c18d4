// The words every screen says the same way. A store is built and published (spec 3: not
// built, building, built, published); a product is launched (draft, ready, live, paused,
// retired). "Live" is the product's word alone: a published store whose product is still a
// draft is published, not live. One rule says when a store sells, on every screen: a
// published store sells until its founder pauses or retires the product (the service
// enforces it: services/commerce/orders.py). A founder's product is named by its name.
import { get } from "./api.js";

// A store's state (GET /api/store `status`): [word, what it means for the founder].
export const STORE_STATES = {
  not_started: ["Not built yet", "Build it to see your storefront."],
  building: ["Being built", "The service is writing your store."],
  built: ["Built", "Its newest version shows only in your preview until you publish it."],
  publishing: ["Being published", "Every page is being checked before it is public."],
  published: ["Published", "Anyone with its address can open it and buy, until you pause or retire your product."],
  failed: ["Not built", "The last build did not finish."],
};

// A product's launch state (GET /api/launch `launch_state.state`): [word, what it means].
export const LAUNCH_STATES = {
  draft: ["Draft", "Not launched yet. Its store sells once published, until you pause or retire it."],
  ready: ["Ready", "Ready to launch. Its store sells once published, until you pause or retire it."],
  live: ["Live", "Launched: customers can buy from its published store."],
  paused: ["Paused", "Customers cannot order until you resume; checkouts they had open were closed."],
  retired: ["Retired", "Retired for good: customers cannot order it, and nothing follows."],
};

/** A state's word, or the state itself when the app does not know it (enumerations are open). */
export function stateWord(states, state) {
  return (states[state] || [state])[0];
}

/** The founder's product's name (GET /api/launch, which always answers: no refusal to log),
 * or "Your product" when it cannot be read or names another product. */
export async function productName(productId) {
  return (await whereItStands(productId)).name;
}

/** The founder's product's name and where it stands (GET /api/launch: its `next_step`, which
 * says whether the store sells now), or "Your product" and null when it cannot be read or
 * names another product. */
export async function whereItStands(productId) {
  const { data } = await get("/api/launch");
  const ours = data && (!productId || data.product_id === productId);
  return { name: ours && data.product_name ? data.product_name : "Your product",
    step: ours && data.next_step ? data.next_step : null };
}

// --- Days and moments -------------------------------------------------------------------------
// One style on every screen, the one the server writes in mails, store pages and explanations
// (services/day_words.py): a day is "5 December 2026", a moment "5 December 2026, 12:00 UTC".
// The server writes moments in UTC, since it does not know the founder's zone; here the moment
// is the founder's own time, and names its zone so the two never read alike by accident. Spelt
// by hand rather than by toLocaleString, whose words follow the browser's language and region
// ("Dec 5, 2026, 12:00 PM" in one, "05/12/2026" in another).

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
  "October", "November", "December"];
const CALENDAR_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A Date from an ISO timestamp or an epoch second; null when it is neither. */
function instant(value) {
  if (value === null || value === undefined || value === "") return null;
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "5 December 2026": a calendar day ("2026-12-05") as it is, wherever the founder is; a
 * timestamp (ISO or epoch seconds) as the founder's own day. "—" for nothing. */
export function dayWords(value) {
  const calendar = typeof value === "string" && CALENDAR_DAY.exec(value);
  if (calendar) return `${Number(calendar[3])} ${MONTHS[Number(calendar[2]) - 1]} ${calendar[1]}`;
  const date = instant(value);
  if (!date) return value === null || value === undefined || value === "" ? "—" : String(value);
  return `${date.getDate()} ${MONTHS[date.getMonth()]} ${date.getFullYear()}`;
}

/** "5 December 2026, 13:00 CET": a moment (ISO timestamp or epoch seconds) in the founder's
 * own time, with its zone's short name. "—" for nothing. */
export function momentWords(value) {
  const date = instant(value);
  if (!date) return value === null || value === undefined || value === "" ? "—" : String(value);
  const pad = (n) => String(n).padStart(2, "0");
  const zone = new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" }).formatToParts(date)
    .find((part) => part.type === "timeZoneName");
  return `${dayWords(date.getTime() / 1000)}, ${pad(date.getHours())}:${pad(date.getMinutes())}${zone ? ` ${zone.value}` : ""}`;
}
