// What the app does with each reason code it knows. The server's explanation is always
// shown; a known code adds a short heading and the next step. A code the app does not know
// (spec 9.4: enumerations are open) gets the explanation alone.
import { h, linkButton, button } from "./dom.js";

// heading, tone (info: a state, not a failure; warn: try something else; error) and the
// next step: a route, or an action the screen supplies (share, refresh, discover, watch).
const KNOWN = {
  all_held: ["Everything is held right now", "info", { action: "refresh", label: "Try again" }],
  passed_out: ["You have passed on everything", "info", { action: "discover", label: "Look for new products" }],
  catalog_exhausted: ["Nothing left in the catalog", "info", { action: "discover", label: "Look for new products" }],
  not_servable: ["No product clears the evidence gate now", "info", { action: "discover", label: "Look for new products" }],
  claim_limit_reached: ["You are at your claim allowance", "info", { action: "share", label: "Share to unlock one more" }],
  claimed_by_another_founder: ["Another founder claimed it", "warn", { action: "watch", label: "Email me if it comes back" }],
  held_by_another_founder: ["Another founder holds it", "warn", { action: "watch", label: "Email me when it is free" }],
  not_shown: ["That product was not shown to you", "warn", { action: "refresh", label: "Get a fresh feed" }],
  passed_by_you: ["You passed on it", "warn", { action: "refresh", label: "Back to the feed" }],
  claimed_by_you: ["It is yours", "info", { href: "#/app/offer", label: "See the offer" }],
  not_presearch_qualified: ["It no longer clears the evidence gate", "warn", { action: "refresh", label: "Get a fresh feed" }],
  no_product: ["You have no product yet", "info", { href: "#/app/find", label: "Find a product" }],
  not_claimed: ["Pick a product first", "info", { href: "#/app/find", label: "Find a product" }],
  claim_required: ["Claim it first", "info", { href: "#/app/find", label: "Claim it from your feed" }],
  no_claim: ["Claim the product first", "info", { href: "#/app/find", label: "Go to your feed" }],
  no_claim_record: ["Nothing claimed yet", "info", { href: "#/app/find", label: "Find a product" }],
  not_yet_researched: ["Researching your product", "info", null],
  nothing_to_watch: ["Nothing to watch", "info", null],
  no_account: ["Sign in first", "info", { href: "#login", label: "Sign in" }],
  account_required: ["That address already has an account", "info", null],
  invalid_confirmation: ["This sign-in is no longer waiting", "warn", { href: "#login", label: "Ask for a new link" }],
  usage_limit_reached: ["Limit reached for this five-hour window", "warn", { href: "#/app/meter", label: "See your meter" }],
  weekly_limit_reached: ["Weekly limit reached", "warn", { href: "#/app/meter", label: "See your meter" }],
  no_query_terms: ["Nothing to search for", "info", null],
  generation_failed: ["The store could not be generated", "error", { action: "retry", label: "Try again" }],
  verify_failed: ["The store could not be checked, so it was not published", "error", { action: "retry", label: "Try again" }],
  not_started: ["Build your store first", "info", { href: "#/app/store", label: "Go to your store" }],
  build_in_progress: ["Your store is being built", "info", null],
  not_an_intent: ["Say what for, not how", "info", null],
  no_row_justifies_this: ["No evidence supports that change", "info", null],
  unknown_section: ["No such section", "warn", null],
  unknown_surface: ["No such area", "warn", null],
  no_section: ["Name a section", "warn", null],
  no_proposal_echoed: ["Apply it from the proposal you were shown", "warn", null],
  stale_proposal: ["The evidence changed: ask again", "warn", null],
  nothing_to_apply: ["Nothing to apply", "info", null],
  nothing_to_revert: ["Nothing to undo", "info", null],
  irreversible_without_confirmation: ["This change needs your confirmation", "warn", null],
  apply_build_raised: ["The change could not be written", "error", null],
  revert_build_raised: ["The undo could not be written", "error", null],
  order_build_raised: ["The new order could not be written", "error", null],
  intents_book_unreadable: ["The record of changes could not be read", "error", null],
  editor_unavailable: ["The editor cannot do that", "info", null],
  no_diff: ["Nothing would change", "info", null],
  too_long: ["Too long for that part of the store", "warn", null],
  unbacked_claim: ["Your product's record cannot back that", "warn", null],
  no_message: ["Say what to change", "warn", null],
  message_too_long: ["That request is too long", "warn", null],
  unknown_field: ["No such field", "warn", null],
  unknown_version: ["No such version", "warn", null],
  nothing_to_undo: ["Nothing to step back to", "info", null],
  nothing_to_redo: ["Nothing to step forward to", "info", null],
  no_history: ["One version only", "info", null],
  cli_unavailable: ["The editing model is not reachable", "warn", null],
  cli_failed: ["The editing model did not finish", "warn", null],
  launch_blocked: ["Not yet: some launch facts are not true today", "warn", null],
  invalid_transition: ["That step is not possible from here", "warn", { action: "retry", label: "Show where it stands" }],
  invalid_action: ["That is not a step the service knows", "error", null],
  no_worker: ["The 3D preview is not available", "info", null],
  nothing_to_change: ["Nothing to save", "info", null],
  invalid_name: ["Check the name", "warn", null],
  invalid_description: ["Check the description", "warn", null],
  invalid_price: ["Check the price", "warn", null],
  invalid_images: ["A photo cannot be used", "warn", null],
  images_too_large: ["A photo is too large", "warn", null],
  payload_too_large: ["Too much to send at once", "warn", null],
  workspace_full: ["Your workspace is full", "warn", null],
  no_orders_yet: ["No orders yet", "info", { href: "#/app/store", label: "Go to your store" }],
  no_ratings_yet: ["No ratings yet", "info", null],
  not_in_store_facts: ["Your store's facts do not answer this", "info", null],
  order_not_found: ["No such order", "warn", null],
  store_not_published: ["Your store is not published", "info", { href: "#/app/store", label: "Go to your store" }],
  no_product_id: ["Name a product to search for", "warn", null],
  no_suppliers: ["No supplier offers that product", "info", null],
  suppliers_unavailable: ["Supplier options cannot be read right now", "warn", null],
  unknown_supplier: ["No supplier by that name", "warn", null],
  unknown_offer: ["That supplier has no such offer", "warn", null],
  no_samples_yet: ["No samples ordered yet", "info", null],
  invalid_quantity: ["Check the quantity", "warn", null],
  payment_unavailable: ["The payment could not be started", "warn", { action: "retry", label: "Try again" }],
  billing_unconfigured: ["Payments are not set up on this service", "info", null],
  unknown_tier: ["No such plan", "warn", null],
  not_available: ["That domain cannot be bought", "warn", null],
  invalid_domain: ["Check the domain name", "warn", null],
  database_unavailable: ["The service is having trouble", "error", { action: "retry", label: "Try again" }],
  internal_error: ["Something went wrong on our side", "error", { action: "retry", label: "Try again" }],
  cross_site_request: ["Refused: the request did not come from this site", "error", null],
  // Growth (the ad, its editors, the campaign book, the ad balance, organic research).
  invalid_platform: ["Choose one of the platforms offered", "warn", null],
  invalid_editor_response: ["Nothing could be changed safely", "warn", null],
  invalid_campaign: ["Check the campaign", "warn", null],
  invalid_setting: ["Check the setting", "warn", null],
  invalid_amount: ["Check the amount", "warn", null],
  amount_out_of_bounds: ["That amount is outside what a top-up can be", "warn", null],
  legacy_checkout_retired: ["That payment link is no longer used", "info", null],
  no_question: ["Ask a question first", "info", null],
  query_too_long: ["That question is too long", "warn", null],
  invalid_scope: ["Approve a post or a whole campaign", "warn", null],
  campaign_book_full: ["Your campaign book is full", "warn", null],
  unknown_campaign: ["No such campaign", "warn", null],
  ad_balance_too_low: ["Your ad balance can't pay for a day of it yet", "warn", { href: "#/app/growth", label: "Top up your ad balance" }],
  ad_not_ready: ["Your ad or your store is not ready yet", "warn", { href: "#/app/store", label: "Go to your store" }],
  ad_currency_differs: ["Campaigns are paid in US dollars", "warn", null],
  ad_platform_refused: ["The ad platform refused it", "error", null],
  // Fix (a store checked and repaired).
  invalid_url: ["Check the address", "warn", null],
  address_not_public: ["That address cannot be checked", "warn", null],
  invalid_email: ["Check the email address", "warn", null],
  fix_runs_busy: ["Your checks are still running", "warn", null],
  not_a_web_page: ["That address is not a web page", "warn", null],
  page_too_large: ["That page is too large to check", "warn", null],
  store_unreachable: ["Your store could not be read", "warn", { action: "retry", label: "Try again" }],
  unknown_event: ["That was not recorded", "warn", null],
  fix_run_not_done: ["That check has not finished yet", "warn", null],
  nothing_to_apply: ["Nothing to apply to your store", "warn", null],
  // Signing in, saving your work, continuing on another device.
  invalid_link: ["This sign-in link does not work", "warn", { href: "#login", label: "Ask for a new link" }],
  bound_to_another_account: ["Signed in to another account", "warn", { href: "#/app/account", label: "Go to your account" }],
  already_consumed: ["This link was used already", "warn", null],
  invalid_route: ["That link cannot be carried over", "warn", null],
  invalid_journey_data: ["Too much to carry to the other device", "warn", null],
  no_account_yet: ["Nothing here yet", "info", { href: "#/app/find", label: "Find a product" }],
  // Discovery, research, the verdict and its outcome.
  no_pass_to_undo: ["Nothing to undo", "info", null],
  undo_window_over: ["Too late to undo", "info", null],
  unknown_product: ["No such product", "warn", null],
  nothing_to_analyze: ["Describe a product first", "info", null],
  empty_question: ["Type a question first", "info", null],
  question_too_long: ["That question is too long", "warn", null],
  never_run: ["No nightly brief yet", "info", null],
  nothing_to_record: ["Add a figure first", "info", null],
  invalid_outcome: ["Check the figures", "warn", null],
  invalid_cost: ["Check what one unit costs", "warn", null],
  unknown_subject: ["No such lesson subject", "warn", { href: "#/app/learn", label: "See the subjects" }],
  // The store: pages, versions, selling.
  no_page_intent: ["Say which page to write", "info", null],
  unknown_page: ["That page cannot be written", "info", null],
  no_direction: ["Back or forward?", "warn", null],
  unknown_diff: ["No record of that change", "warn", null],
  product_not_on_sale: ["Not on sale right now", "info", null],
  invalid_days: ["That period cannot be shown", "warn", null],
  invalid_page: ["No such page of the list", "warn", null],
  // Research workspace, tasks, settings.
  empty_note: ["Write the note first", "warn", null],
  note_too_long: ["That note is too long", "warn", null],
  invalid_query: ["Check the saved query", "warn", null],
  unknown_workspace_op: ["The workspace cannot do that", "warn", null],
  invalid_todo: ["Check the task", "warn", null],
  todo_limit_reached: ["Your task list is full", "warn", null],
  invalid_direction: ["Back or forward only", "warn", null],
  invalid_payout: ["Check where you are paid", "warn", null],
  // The support desk.
  no_tickets_yet: ["No support tickets yet", "info", null],
  ticket_not_found: ["No such ticket", "warn", null],
  bad_field: ["That part of a ticket cannot be changed", "warn", null],
  invalid_ticket_value: ["Check the value", "warn", null],
  resolution_required: ["Add a resolution first", "warn", null],
  empty_reply: ["Write the reply first", "warn", null],
  text_too_long: ["That text is too long", "warn", null],
  unknown_action: ["The desk cannot do that", "warn", null],
  invalid_rule: ["Check the rule", "warn", null],
  unknown_op: ["Rules can only be added or deleted", "warn", null],
  // The service itself.
  not_found: ["Not found", "warn", null],
  invalid_request: ["Something in the request was missing", "warn", null],
  invalid_json: ["The request could not be read", "error", { action: "retry", label: "Try again" }],
  too_many_open_requests: ["Too many requests at once", "warn", { action: "retry", label: "Try again" }],
  queue_unavailable: ["The service is busy", "error", { action: "retry", label: "Try again" }],
  service_restarting: ["The service is restarting", "error", { action: "retry", label: "Try again" }],
};

// Registered reasons (GET /api/reasons) that never reach a screen of this app, so they need no
// heading here: tests/test_words_and_numbers.py holds every other registered reason to one.
export const NOT_ON_SCREENS = [
  // The operator pages (/admin, /metrics), behind HTTP Basic rather than the app.
  "admin_credentials_required", "admin_not_configured", "operator_password_throttled", "invalid_search",
  "metrics_credentials_required", "metrics_not_public",
  // Calls the payment provider and the billing service make, not a founder.
  "bad_signature", "unsigned_callback", "unknown_account", "unknown_event_type", "unknown_payment",
  // What a shopper meets on the store's own pages, the hosted payment page and the rating page.
  "invalid_event", "invalid_session_id", "not_published", "invalid_rating", "invalid_shipping_address",
  "support_busy", "invalid_campaign_tag",
  // The app's own mistakes in a background call, never a founder's to mend.
  "invalid_presence", "method_not_allowed",
];

export function knows(reason) {
  return Object.prototype.hasOwnProperty.call(KNOWN, reason);
}

/**
 * A panel saying why the server said no (or what state it is in) and what to do next.
 * `actions` maps action names (share, refresh, discover, watch, retry) to handlers; a step
 * whose handler the screen did not give is left out. `headings` maps a reason to the screen's
 * own heading for it.
 */
export function refusal(body, actions = {}, http = 200, { headings = {} } = {}) {
  const reason = body && body.reason;
  const [known, tone, step] = KNOWN[reason] || [http === 401 ? "Sign in first" : "Not possible right now",
    http >= 500 || http === 0 ? "error" : "warn",
    http === 401 ? { href: "#login", label: "Sign in" } : null];
  // A screen may name a known reason its own way ("too long for the ad" rather than "for the store").
  const heading = headings[reason] || known;
  const role = tone === "info" ? "status" : "alert";
  let next = null;
  if (step && step.href) next = linkButton(step.label, step.href);
  else if (step && actions[step.action]) next = button(step.label, actions[step.action], { kind: "secondary" });
  return h("div", { class: `notice notice-${tone}`, role, dataset: { reason: reason || "" } },
    h("p", { class: "notice-title" }, heading),
    h("p", {}, (body && body.explanation) || "The service refused the request."),
    next ? h("p", { class: "actions" }, next) : null);
}
