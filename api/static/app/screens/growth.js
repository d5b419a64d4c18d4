// Growth: how customers find the store. The ad for Meta and Google as each shows it (its
// lengths against the platform's limits, changed in place or in plain words) and the pass bars
// it must beat; the campaign book; the ad balance, topped up through the payment provider; and
// organic research with its approval log. Each part is a module of ../growth/.
import { h, fill, title, linkButton } from "../dom.js";
import { get } from "../api.js";
import { productName } from "../words.js";
import { adPanel } from "../growth/ad.js";
import { bookPanel } from "../growth/book.js";
import { balancePanel, returnedTopup } from "../growth/balance.js";
import { organicPanel } from "../growth/organic.js";

export const name = "growth";
export const label = "Growth";

export async function render(ctx) {
  const returned = returnedTopup(ctx.params);
  const signedIn = Boolean(ctx.state.account && ctx.state.account.account);
  const [store, pageName] = await Promise.all([get("/api/store"), productName()]);
  if (!ctx.alive()) return;
  // The store's address as an ad shows it: its public one once published, else where it will be.
  const data = store.data || {};
  const storeUrl = data.public_url || (data.preview_url ? data.preview_url.replace(/preview\/?$/, "") : null);

  const ad = adPanel(ctx, { pageName, storeUrl, signedIn });
  const book = bookPanel(ctx);
  const balance = balancePanel(ctx);
  const organic = organicPanel(ctx, { signedIn });
  fill(ctx.main,
    title("Growth", "How customers find your store: your ad as Meta and Google would show it and what it must beat, "
      + "your campaigns and the money set aside for them, and posts you can make yourself."),
    // Back from paying for a top-up, the balance comes first.
    returned ? balance.node : null,
    ad.node, book.node, returned ? null : balance.node, organic.node,
    h("p", { class: "actions" }, linkButton("Your store", "#/app/store"), linkButton("Launch facts", "#/app/launch")));
  await Promise.all([ad.load(), book.load(), balance.load(returned), organic.load()]);
}
