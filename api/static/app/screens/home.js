// Home: where the founder stands and the one next step.
import { h, fill, title, linkButton } from "../dom.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { walkthroughPanel } from "../walkthrough.js";
import { handoffPanel } from "../handoff.js";
import { assistantPanel } from "../assistant.js";

export const name = "home";
export const label = "Home";

const STEPS = [
  ["Find", "Candidates from the catalog, each with its price, cost, margin and dated evidence."],
  ["Claim", "Hold one while you look, then claim it: a claim is yours alone."],
  ["Read the offer and the verdict", "What it should sell for, what each sale leaves you, and whether to go."],
  ["Launch", "Check the launch facts one by one, then record how it went."],
];

export async function render(ctx) {
  let stepRoute = null;
  const [result, walkthrough] = await Promise.all([get("/api/launch"),
    walkthroughPanel(ctx, { onStep: (step) => { stepRoute = step.route; } })]);
  if (!ctx.alive()) return;
  // The link to another device carries the walkthrough's step while it shows, else Home.
  const handoff = handoffPanel(ctx, () => (walkthrough && walkthrough.isConnected && stepRoute) || "#/app/home");
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Home"), refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const facts = Object.fromEntries((result.data.facts || []).map((fact) => [fact.id, fact]));
  const productId = result.data.product_id;
  const named = result.data.product_name || "your product";
  const signedIn = ctx.state.account && ctx.state.account.account;
  if (!productId) {
    fill(ctx.main,
      title("Pick a product to sell", "Then price it, judge it and launch it, with every figure's source in view."),
      h("ol", { class: "steps" }, STEPS.map(([step, text]) => h("li", {}, h("strong", {}, step), h("span", {}, text)))),
      h("p", { class: "actions" }, linkButton("Show me products", "#/app/find", "primary"),
        signedIn ? null : linkButton("I have an account: sign in", "#login")),
      h("p", { class: "muted" }, "No account needed to start. Save your progress any time from Account."),
      assistantPanel(), walkthrough, handoff);
    return;
  }
  const claimed = facts.product_claimed && facts.product_claimed.true_today;
  const researched = facts.offer_researched && facts.offer_researched.true_today;
  const trueCount = (result.data.facts || []).filter((fact) => fact.true_today).length;
  let next;
  if (!claimed) {
    next = [h("p", {}, `You hold ${named}. Claim it before your hold lapses, or pass and see the next one.`),
      linkButton("Go to your feed", "#/app/find", "primary")];
  } else if (!researched) {
    next = [h("p", {}, `You claimed ${named}. Its offer is being researched.`),
      linkButton("Watch the offer arrive", "#/app/offer", "primary")];
  } else if (!(facts.store_built && facts.store_built.true_today)) {
    next = [h("p", {}, `You claimed ${named} and its offer is researched. Read the verdict, then build its store.`),
      linkButton("Read the verdict", "#/app/dashboard", "primary"), linkButton("Build the store", "#/app/store")];
  } else if (!(facts.store_published && facts.store_published.true_today)) {
    next = [h("p", {}, "Your store is built. Look at the preview, then publish it."),
      linkButton("Go to your store", "#/app/store", "primary")];
  } else {
    next = [h("p", {}, "Your store is published. Launch your product once the launch facts that are still open "
      + "are true."),
      linkButton("Launch facts", "#/app/launch", "primary"), linkButton("Your store", "#/app/store")];
  }
  fill(ctx.main,
    title("Home", signedIn ? `Signed in as ${signedIn}.` : "Working without an account: save your progress from Account."),
    h("section", { class: "panel", "aria-labelledby": "next-title", dataset: { product: productId } },
      h("h2", { id: "next-title" }, "Your next step"), next),
    assistantPanel(),
    h("section", { class: "panel", "aria-labelledby": "facts-title" },
      h("h2", { id: "facts-title" }, "Launch facts"),
      h("p", {}, `${trueCount} of ${(result.data.facts || []).length} true today.`),
      linkButton("See them all", "#/app/launch")),
    walkthrough,
    h("section", { class: "panel", "aria-labelledby": "more-title" },
      h("h2", { id: "more-title" }, "Also here"),
      h("ul", { class: "list" },
        h("li", {}, h("a", { href: "#/app/research" }, "Research"), ": the analysis of your product, any product idea, and questions to the catalog."),
        h("li", {}, h("a", { href: "#/app/insights" }, "Insights"), ": the nightly research brief and the public track record."),
        h("li", {}, h("a", { href: "#/app/learn" }, "Learn"), ": short lessons from finding a product to support."))),
    handoff);
}
