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

// The buttons beside each next step (services/next_step.py STEPS), the first the main one.
const STEP_LINKS = {
  claim: [["Go to your feed", "#/app/find"]],
  research: [["Watch the offer arrive", "#/app/offer"]],
  build: [["Read the verdict", "#/app/dashboard"], ["Build the store", "#/app/store"]],
  publish: [["Go to your store", "#/app/store"]],
  launch: [["Launch facts", "#/app/launch"], ["Your store", "#/app/store"]],
  live: [["Your orders", "#/app/orders"], ["Your store", "#/app/store"]],
  paused: [["Resume it", "#/app/launch"], ["Your store", "#/app/store"]],
  retired: [["Find your next product", "#/app/find"]],
};

export async function render(ctx) {
  let stepRoute = null;
  const [result, walkthrough, book] = await Promise.all([get("/api/launch"),
    walkthroughPanel(ctx, { onStep: (step) => { stepRoute = step.route; } }), get("/api/ads-manager")]);
  if (!ctx.alive()) return;
  // The link to another device carries the walkthrough's step while it shows, else Home.
  const handoff = handoffPanel(ctx, () => (walkthrough && walkthrough.isConnected && stepRoute) || "#/app/home");
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Home"), refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  const productId = result.data.product_id;
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
  // Where the product stands and its next step, as every screen says it (GET /api/launch next_step).
  const step = result.data.next_step;
  const next = [h("p", { dataset: { step: step.step, selling: String(step.selling) } }, step.says),
    ...(STEP_LINKS[step.step] || []).map(([words, route], at) => linkButton(words, route, at ? undefined : "primary"))];
  fill(ctx.main,
    title("Home", signedIn ? `Signed in as ${signedIn}.` : "Working without an account: save your progress from Account."),
    h("section", { class: "panel", "aria-labelledby": "next-title", dataset: { product: productId } },
      h("h2", { id: "next-title" }, "Your next step"), next),
    adsStoppedPanel(book.data && book.data.book ? book.data.book.campaigns : []),
    assistantPanel(),
    h("section", { class: "panel", "aria-labelledby": "facts-title" },
      h("h2", { id: "facts-title" }, "Launch facts"),
      h("p", {}, `${step.facts_true} of ${step.facts_total} true today.`),
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

// Why the service stopped a campaign, in a founder's words (services/growth/delivery.py).
const STOPPED = {
  balance: "your ad balance can't pay for another day of it",
  bars: "it missed the click-through rate or the cost per click it should reach, and you asked to pause it then",
  refused: "the ad platform refused it",
};

/** The campaigns the service paused, and what to do: nothing when none is. */
function adsStoppedPanel(campaigns) {
  const stopped = campaigns.filter((c) => c.status === "paused" && STOPPED[c.paused_because]);
  if (!stopped.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "ads-stopped-title", dataset: { adsStopped: String(stopped.length) } },
    h("h2", { id: "ads-stopped-title" }, stopped.length === 1 ? "An ad campaign stopped" : "Ad campaigns stopped"),
    h("ul", { class: "list" }, stopped.map((c) => h("li", { dataset: { because: c.paused_because } },
      h("strong", {}, c.name), `: ${STOPPED[c.paused_because]}.`))),
    h("p", {}, "Nothing more is spent on them until you start them again."),
    linkButton(stopped.some((c) => c.paused_because === "balance") ? "Top up and start again" : "Look at the ad",
      "#/app/growth", "primary"));
}
