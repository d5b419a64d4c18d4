// The store's funnel events (POST /api/track): page_view on every page load, add_to_cart when
// a buy form is first used, checkout when it is submitted, and paid on the thank-you page of
// an order the payment provider confirmed (data-paid on this script tag; the server decides). No dependencies, no cookies: the
// visitor is a random id kept in this tab's sessionStorage, with the utm_campaign of the link
// they arrived by (an ad campaign's, say), which every event and the buy form carry on, so an
// order is counted to the campaign that brought it (services/growth/delivery.py). The owner's preview pages do not
// load this script, so a preview never counts. Every failure is silent: a store page works
// the same whether or not its events arrive.
(function () {
  "use strict";
  var script = document.currentScript || document.querySelector("script[data-product-id]");
  var productId = script && script.getAttribute("data-product-id");
  if (!productId || !window.fetch) return;

  var KEY = "ff_visitor";
  var SHAPE = /^[A-Za-z0-9_-]{8,64}$/;
  var CAMPAIGN_KEY = "ff_campaign";
  var CAMPAIGN_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;
  var campaignMemory = null;
  var memory = null; // when sessionStorage is refused (some private modes), this page's id

  function newId() {
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    var id = "";
    for (var i = 0; i < bytes.length; i++) id += ("0" + bytes[i].toString(16)).slice(-2);
    return id;
  }

  function visitor() {
    try {
      var id = window.sessionStorage.getItem(KEY);
      if (!id || !SHAPE.test(id)) {
        id = newId();
        window.sessionStorage.setItem(KEY, id);
      }
      return id;
    } catch (e) {
      return memory || (memory = newId());
    }
  }

  // The utm_campaign of this tab's arrival: read from the address when it has one (a later
  // link's replaces it), else the one kept from an earlier page of this visit.
  function campaign() {
    var tag = null;
    try {
      tag = new URLSearchParams(window.location.search).get("utm_campaign");
    } catch (e) {
      tag = null;
    }
    try {
      if (tag && CAMPAIGN_SHAPE.test(tag)) window.sessionStorage.setItem(CAMPAIGN_KEY, tag);
      else tag = window.sessionStorage.getItem(CAMPAIGN_KEY);
    } catch (e) {
      if (tag && CAMPAIGN_SHAPE.test(tag)) campaignMemory = tag;
      else tag = campaignMemory;
    }
    return tag && CAMPAIGN_SHAPE.test(tag) ? tag : null;
  }

  function send(event) {
    try {
      // A relative URL: on a store's connected domain this is that domain's own origin,
      // which reaches the service through the proxy (api/hosts.py serves /api/track there).
      fetch("/api/track", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(withCampaign({ product_id: productId, event: event, session_id: visitor() })),
        credentials: "omit", // the visitor's cookies (if any) are no business of the store's metrics
        keepalive: true, // the checkout event must survive the form's navigation
      }).catch(function () {});
    } catch (e) {
      // fetch itself refused (an old browser, a full keepalive quota): nothing to do
    }
  }

  function withCampaign(body) {
    var tag = campaign();
    if (tag) body.campaign = tag;
    return body;
  }

  // The buy form carries the campaign to the order it opens (a hidden field, added once).
  function carryCampaign(form) {
    var tag = campaign();
    if (!tag || form.querySelector("input[name=campaign]")) return;
    var field = document.createElement("input");
    field.type = "hidden";
    field.name = "campaign";
    field.value = tag;
    form.appendChild(field);
  }

  function watch(form) {
    var carted = false;
    function cart() {
      if (carted) return;
      carted = true;
      send("add_to_cart");
    }
    form.addEventListener("input", cart);
    form.addEventListener("change", cart);
    form.addEventListener("click", function (e) {
      if (e.target && e.target.closest && e.target.closest("button")) cart();
    });
    form.addEventListener("submit", function () {
      cart();
      carryCampaign(form);
      send("checkout");
    });
  }

  function start() {
    send("page_view");
    if (script.getAttribute("data-paid") === "1") send("paid");
    var forms = document.querySelectorAll("form.buy-form");
    for (var i = 0; i < forms.length; i++) watch(forms[i]);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
