// Your pages: the pages the assistant (or POST /api/pages) wrote for your store, each a link
// to its public address /store/p/<id>.
import { h, fill, title, linkButton } from "../dom.js";
import { dayWords } from "../words.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "pages";
export const label = "Your pages";

const KINDS = { landing: "Landing page", returns: "Returns policy", shipping: "Shipping", privacy: "Privacy policy",
  faq: "FAQ" };

export async function render(ctx) {
  const result = await get("/api/pages");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Your pages"), refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const pages = result.data.pages || [];
  fill(ctx.main,
    title("Your pages", "Pages written for your store. Anyone with a page's link can open it."),
    pages.length
      ? h("ul", { class: "list pages-list" }, pages.map((page) => h("li", { dataset: { page: page.page_id } },
        h("a", { href: page.url, target: "_blank", rel: "noopener" }, page.title),
        h("span", { class: "muted" }, ` · ${KINDS[page.kind] || page.kind} · ${dayWords(page.created_at)}`),
        // A draft was written with nothing held: it says so on the page and waits for the founder's facts.
        page.draft ? h("span", { class: "chip", dataset: { draft: "" } }, "Draft, to fill in") : null)))
      : h("p", {}, "No pages yet. Ask the assistant on Home, for example “make a returns policy page”."),
    h("p", { class: "actions" }, linkButton("Back to Home", "#/app/home")));
}
