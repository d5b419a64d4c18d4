// The browser app: a hash router over the screens, the signed-in state shown in the top bar,
// and what every screen shares (polling that stops when the founder moves on, a toast, the
// last credit-meter refusal). Plain modules, served as they are: no build step.
import { h, fill } from "./dom.js";
import { get, post } from "./api.js";
// Route -> screen module, loaded when first opened (the first load fetches only its own
// screen).
const ROUTES = {
  "/app/home": { load: () => import("./screens/home.js") },
  "/app/find": { load: () => import("./screens/find.js") },
  "/app/offer": { load: () => import("./screens/offer.js") },
  "/app/dashboard": { load: () => import("./screens/dashboard.js") },
  "/app/store": { load: () => import("./screens/store.js") },
  "/app/edit": { load: () => import("./screens/edit.js") },
  "/app/product": { load: () => import("./screens/product.js") },
  "/app/launch": { load: () => import("./screens/launch.js") },
  "/app/orders": { load: () => import("./screens/orders.js") },
  "/app/suppliers": { load: () => import("./screens/suppliers.js") },
  "/app/desk": { load: () => import("./screens/desk.js") },
  "/app/domains": { load: () => import("./screens/domains.js") },
  "/app/growth": { load: () => import("./screens/growth.js") },
  "/app/research": { load: () => import("./screens/research.js") },
  "/app/insights": { load: () => import("./screens/insights.js") },
  "/app/workspace": { load: () => import("./screens/workspace.js") },
  "/app/learn": { load: () => import("./screens/learn.js") },
  "/app/tasks": { load: () => import("./screens/tasks.js") },
  "/app/settings": { load: () => import("./screens/settings.js") },
  "/app/fix": { load: () => import("./screens/fix.js") },
  "/app/pages": { load: () => import("./screens/pages.js") },
  "/app/meter": { load: () => import("./screens/meter.js") },
  "/app/account": { load: () => import("./screens/account.js") },
  "/app/confirm-sign-in": { load: () => import("./screens/confirm-sign-in.js") },
  "/app/continue": { load: () => import("./screens/continue.js") },
  login: { load: () => import("./screens/login.js") },
};
// The main navigation, in order: [label, path]. "Your products" is the Find screen's view of
// what the founder claimed, so a claim stays one tap away whatever the feed shows.
const NAV = [
  ["Home", "/app/home"], ["Your products", "/app/find/yours"], ["Find", "/app/find"], ["Offer", "/app/offer"],
  ["Dashboard", "/app/dashboard"], ["Store", "/app/store"], ["Edit", "/app/edit"], ["Product", "/app/product"],
  ["Launch", "/app/launch"], ["Tasks", "/app/tasks"], ["Orders", "/app/orders"], ["Desk", "/app/desk"],
  ["Suppliers", "/app/suppliers"], ["Domains", "/app/domains"], ["Fix", "/app/fix"], ["Growth", "/app/growth"], ["Research", "/app/research"],
  ["Insights", "/app/insights"], ["Workspace", "/app/workspace"], ["Learn", "/app/learn"], ["Meter", "/app/meter"],
  ["Settings", "/app/settings"], ["Account", "/app/account"],
];
const MISSING = { load: () => import("./screens/missing.js") };
// What shows when a screen's module cannot be fetched (the network dropped, say).
const UNLOADABLE = {
  name: "unloadable",
  label: "Not loaded",
  render: ({ main }) => fill(main, h("div", { class: "notice notice-error", role: "alert" },
    h("p", { class: "notice-title" }, "This screen could not be loaded"),
    h("p", {}, "Check your connection and reload the page."))),
};

const state = { account: null, lastLimit: null };
let renderToken = 0;

/** Splits "#/app/learn/ads?x=1" into the route key, the whole path, extra path parts and the query. */
function parseHash() {
  const raw = decodeURIComponent(location.hash.replace(/^#/, "")) || "/app/home";
  const [path, query = ""] = raw.split("?");
  const params = new URLSearchParams(query);
  if (path === "login") return { key: "login", path, rest: [], params };
  const parts = path.split("/").filter(Boolean);
  const key = `/${parts.slice(0, 2).join("/")}`;
  return { key, path: `/${parts.join("/")}`, rest: parts.slice(2), params };
}

/** The navigation: a list on the desktop; on a phone a menu behind a disclosure button (the
 * stylesheet hides the list while the button says it is collapsed). Built once, so focus
 * stays on the button while it opens and closes. */
function buildNav() {
  const nav = document.getElementById("nav");
  const list = h("ul", { id: "nav-list" }, NAV.map(([label, path]) => h("li", {},
    h("a", { href: `#${path}`, dataset: { path } }, label))));
  const toggle = h("button", { type: "button", class: "nav-toggle", "aria-expanded": "false", "aria-controls": "nav-list" },
    h("span", { class: "nav-toggle-bars", "aria-hidden": "true" }), "Menu");
  const setOpen = (open) => toggle.setAttribute("aria-expanded", String(open));
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  // Choosing an entry closes the menu, the current one too (its hash does not change).
  list.addEventListener("click", (event) => { if (event.target.closest("a")) setOpen(false); });
  nav.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") return;
    setOpen(false);
    toggle.focus();
  });
  document.addEventListener("click", (event) => { if (!nav.contains(event.target)) setOpen(false); });
  fill(nav, toggle, list);
  return setOpen;
}
const setNavOpen = buildNav();

/** Marks the entry of the screen shown: the longest path the route starts with (Learn for a
 * lesson, Your products rather than Find for the claimed view). */
function markNav(path) {
  let best = null;
  for (const link of document.querySelectorAll("#nav-list a")) {
    const own = link.dataset.path;
    link.removeAttribute("aria-current");
    if ((path === own || path.startsWith(`${own}/`)) && (!best || own.length > best.dataset.path.length)) best = link;
  }
  if (best) best.setAttribute("aria-current", "page");
  setNavOpen(false);
}

async function refreshWho() {
  const { data } = await get("/api/account");
  state.account = data && data.status === "ok" ? data : null;
  const who = document.getElementById("who");
  if (state.account && state.account.account && state.account.verified) {
    fill(who, h("a", { href: "#/app/account", class: "who-link" },
      h("span", { class: "visually-hidden" }, "Signed in as "), state.account.account));
  } else if (state.account && state.account.account) {
    // Saved but not confirmed: the address is shown, and this browser still works alone.
    fill(who, h("a", { href: "#/app/account", class: "who-link" },
      h("span", { class: "visually-hidden" }, "Saved, not confirmed: "), state.account.account,
      h("span", { class: "who-note" }, " · not confirmed")));
  } else {
    fill(who, h("a", { href: "#login", class: "btn btn-secondary btn-small" }, "Sign in"));
  }
}

let toastTimer = null;
function toast(message) {
  const node = document.getElementById("toast");
  node.textContent = message;
  node.classList.add("shown");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => node.classList.remove("shown"), 5000);
}

// Where the founder is (POST /api/presence), for support and the walkthrough: sent without
// waiting, and only with a name the route accepts, so it never delays or breaks a screen.
const PRESENCE_NAME = /^[a-z0-9_-]{1,40}$/;
function tellPresence(screenName) {
  if (!PRESENCE_NAME.test(screenName || "")) return;
  post("/api/presence", { area: "app", screen: screenName }).catch(() => {});
}

async function render() {
  const token = ++renderToken;
  const { key, path, rest, params } = parseHash();
  const route = ROUTES[key] || MISSING;
  const main = document.getElementById("main");
  markNav(path);
  document.getElementById("toast").classList.remove("shown"); // a toast speaks of the screen it was raised on
  const screen = await route.load().catch(() => UNLOADABLE);
  if (token !== renderToken) return;
  main.dataset.screen = screen.name;
  tellPresence(screen.name);
  main.dataset.state = "loading";
  main.setAttribute("aria-busy", "true");
  fill(main, h("p", { class: "loading" }, "Loading…"));
  const ctx = {
    main,
    rest,
    params,
    state,
    toast,
    refreshWho,
    rerender: render,
    alive: () => token === renderToken,
    /** Waits, and says whether the founder is still on this screen afterwards. */
    wait: (ms) => new Promise((resolve) => setTimeout(() => resolve(token === renderToken), ms)),
  };
  try {
    await screen.render(ctx);
  } catch (error) {
    console.error(error); // a screen that throws is a bug: the browser tests fail on it
    if (token !== renderToken) return;
    fill(main, h("div", { class: "notice notice-error", role: "alert" },
      h("p", { class: "notice-title" }, "This screen could not be shown"),
      h("p", {}, String(error && error.message ? error.message : error))));
  }
  if (token !== renderToken) return;
  document.title = `${screen.label} · Sourcing and Storefront`;
  main.dataset.state = "ready";
  main.removeAttribute("aria-busy");
  const heading = main.querySelector("h1");
  if (heading && document.documentElement.dataset.ready === "true") heading.focus({ preventScroll: false });
  if (document.documentElement.dataset.ready !== "true") {
    performance.mark("app-ready");
    document.documentElement.dataset.ready = "true";
  }
}

window.addEventListener("app:limit", (event) => {
  state.lastLimit = { ...event.detail, seen_at: Date.now() };
  toast(`${event.detail.feature || "A feature"} has reached its limit. Your meter says what still works.`);
});

window.addEventListener("hashchange", () => {
  if (location.hash === "#main") return; // the skip link, not a route
  render();
});

document.addEventListener("click", (event) => {
  const skip = event.target.closest("[data-skip]");
  if (!skip) return;
  event.preventDefault();
  document.getElementById("main").focus();
});

await refreshWho();
await render();
