// The ad as each platform shows it: a Meta feed post (page, "Sponsored", main text, picture,
// headline, description, button) and a Google search result (Sponsored, the site and its
// address, headline, description). Text only through dom.js; the look is growth.css's.
import { h } from "../dom.js";

/** The store's address as an ad shows it: its host and path, no scheme. */
export function displayAddress(storeUrl) {
  if (!storeUrl) return location.host;
  const url = new URL(storeUrl, location.origin);
  return `${url.host}${url.pathname}`.replace(/\/$/, "");
}

function pictureFor(ad, platform) {
  const images = ad.images || [];
  const wanted = platform === "google"
    ? images.find((i) => i.width > i.height)
    : images.find((i) => i.width === i.height);
  return wanted || images[0] || (ad.image ? { url: ad.image } : null);
}

/** The ad in a Facebook or Instagram feed: page, "Sponsored", main text, picture, headline, button. */
export function metaFrame(ad, { pageName, address }) {
  const image = pictureFor(ad, "meta");
  return h("article", { class: "ad-frame ad-meta", "aria-label": "Your ad as a Facebook or Instagram feed shows it",
    dataset: { frame: "meta" } },
  h("header", { class: "ad-meta-head" },
    h("span", { class: "ad-avatar", "aria-hidden": "true" }, (pageName || "?").trim().charAt(0).toUpperCase()),
    h("span", { class: "ad-meta-page" }, h("strong", {}, pageName), h("span", { class: "ad-sponsored" }, "Sponsored"))),
  h("p", { class: "ad-meta-text", dataset: { adField: "primary_text" } }, ad.primary_text),
  image ? h("img", { class: "ad-image", src: image.url, alt: `Your ad's picture: ${ad.headline}`,
    width: image.width || 1080, height: image.height || 1080, decoding: "async" }) : null,
  h("div", { class: "ad-meta-foot" },
    h("div", { class: "ad-meta-words" },
      h("p", { class: "ad-meta-domain" }, address.split("/")[0]),
      h("p", { class: "ad-meta-headline", dataset: { adField: "headline" } }, ad.headline),
      h("p", { class: "ad-meta-desc", dataset: { adField: "description" } }, ad.description)),
    h("span", { class: "ad-cta", dataset: { adField: "call_to_action" } }, ad.call_to_action)));
}

/** The ad in Google's search results: "Sponsored", the site, the address, headline, description. */
export function googleFrame(ad, { pageName, address }) {
  const image = pictureFor(ad, "google");
  return h("article", { class: "ad-frame ad-google", "aria-label": "Your ad as Google search results show it",
    dataset: { frame: "google" } },
  h("p", { class: "ad-google-sponsored" }, "Sponsored"),
  h("div", { class: "ad-google-body" },
    h("div", { class: "ad-google-words" },
      h("div", { class: "ad-google-site" },
        h("span", { class: "ad-avatar ad-avatar-small", "aria-hidden": "true" }, (pageName || "?").trim().charAt(0).toUpperCase()),
        h("span", {}, h("span", { class: "ad-google-name" }, pageName),
          h("span", { class: "ad-google-url" }, address))),
      h("p", { class: "ad-google-headline", dataset: { adField: "headline" } }, ad.headline),
      h("p", { class: "ad-google-desc" },
        h("span", { dataset: { adField: "primary_text" } }, ad.primary_text), " ",
        h("span", { dataset: { adField: "description" } }, ad.description)),
      h("p", { class: "ad-google-cta" }, h("span", { dataset: { adField: "call_to_action" } }, ad.call_to_action), " ›")),
    image ? h("img", { class: "ad-image ad-google-image", src: image.url, alt: `Your ad's picture: ${ad.headline}`,
      width: image.width || 1200, height: image.height || 628, decoding: "async" }) : null));
}
