// Your product: sell something of your own (any founder, whatever they hold or claim, makes one
// here), or publish your own name, description, price and photos in place of the catalog's.
// Photos are read in the browser into data: URLs (FileReader) and checked by the server by their
// content; a saved change becomes a new version of a built store at once.
import { h, fill, title, button, busy, field, money, linkButton, uid } from "../dom.js";
import { get, post, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";

export const name = "product";
export const label = "Your product";

// The bounds the server holds (decisions.md, Store); the server is the judge, these only guide.
const MAX_IMAGES = 8;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const TYPES = ["image/png", "image/jpeg", "image/webp"];

function readAsDataUrl(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export async function render(ctx) {
  const body = h("div", { class: "stack" });
  fill(ctx.main, title("Your product", "Sell it under your own name, words, price and photos. Your store uses "
    + "them from now on: a built store gets a new version at once."), body);
  const result = await get("/api/product");
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said && said.reason === "not_claimed") {
    // Nothing held or claimed: the founder may bring a product of their own.
    showForm(ctx, body, null);
    return;
  }
  if (said) {
    // A hold only (or another refusal): nothing of theirs to change here, but a product of
    // their own is still theirs to start.
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http),
      ownOffer(ctx, body, { held: said.reason === "claim_required" }));
    return;
  }
  showForm(ctx, body, result.data);
}

// What starting a product of your own means, said before the form: it spends no claim, and the
// app's screens then work on it (the session's product is its most recent claim).
const OWN_WORDS = "Already have a product to sell? Describe it here and it becomes yours alone, ready for its "
  + "store. Nobody else is ever shown it, and it does not use up one of your claims.";

/** The offer to sell something of your own to a founder who already has a product: its words,
 * and the form behind a button (two forms at once would be two of every field). */
function ownOffer(ctx, body, { current = null, held = false } = {}) {
  const slot = h("div", { class: "stack" });
  const now = current || (held ? "the product you hold" : "your current product");
  const stays = held
    ? "The product you hold is let go when its hold runs out."
    : `${current || "Your current product"} stays yours: nobody else is shown it, and its store stays as it is. `
      + "The app has no way yet to switch back to it.";
  fill(slot, button("Describe your own product", () => {
    fill(slot, productForm(ctx, body, null));
    slot.querySelector("input[name=name]").focus();
  }, { kind: "secondary", "data-action": "start-own" }));
  return h("section", { class: "panel", "aria-labelledby": "own-new-title", dataset: { panel: "own-new" } },
    h("h2", { id: "own-new-title" }, "Sell something of your own"),
    h("p", { class: "hint" }, OWN_WORDS),
    h("p", { class: "hint" }, `Once you start selling it, your screens (Offer, Dashboard, Store and the rest) work on `
      + `it instead of ${now}. ${stays}`),
    slot);
}

const NEW_PRODUCT = { name: "", description: "", price: "", currency: "USD", images: [] };

function showForm(ctx, body, answer) {
  const form = productForm(ctx, body, answer);
  if (answer === null) {
    fill(body,
      h("section", { class: "panel", "aria-labelledby": "own-title" },
        h("h2", { id: "own-title" }, "Sell something of your own"),
        h("p", { class: "hint" }, OWN_WORDS),
        form),
      h("p", {}, "Or ", h("a", { href: "#/app/find" }, "find a product from the catalog"), "."));
    return;
  }
  fill(body,
    h("section", { class: "panel", "aria-labelledby": "own-title" },
      h("h2", { id: "own-title" }, answer.own_product ? "Your product"
        : answer.own.length ? "Your own details" : "The catalog's details, yours to change"),
      h("p", { class: "hint" }, answer.version
        ? `Your store is at version ${answer.version}. Saving writes the next one.`
        : "No store built yet: your store will be built with these."),
      form),
    ownOffer(ctx, body, { current: answer.product.name }));
}

/** The product's form: a new product of the founder's own (`answer` null), or their claimed one's details. */
function productForm(ctx, body, answer) {
  const creating = answer === null;
  const product = creating ? NEW_PRODUCT : answer.product;
  // Each photo: {src (what the preview shows), value (what is sent: a URL kept or a data: URL), label}.
  let photos = product.images.map((url, i) => ({ src: url, value: url, label: `Photo ${i + 1}` }));
  const message = h("div", { "aria-live": "polite", dataset: { role: "message" } });
  const gallery = h("ul", { class: "photo-list", "aria-label": "Your photos" });
  const photosId = uid("product-photos"); // the page may hold both forms: ids of their own
  const fileInput = h("input", { type: "file", id: photosId, accept: TYPES.join(","), multiple: true,
    "aria-describedby": `${photosId}-hint` });

  const drawPhotos = () => {
    fill(gallery, photos.length ? photos.map((photo, index) => h("li", { class: "photo" },
      h("img", { src: photo.src, alt: photo.label, width: "120", height: "90" }),
      button(`Remove ${photo.label.toLowerCase()}`, () => { photos.splice(index, 1); drawPhotos(); },
        { kind: "ghost" })))
      : h("li", { class: "empty" }, "No photos: your store shows none."));
  };

  fileInput.addEventListener("change", async () => {
    const files = [...fileInput.files];
    fileInput.value = "";
    for (const file of files) {
      // The server decides by content; a note here only saves a long upload that would be refused.
      const dataUrl = await readAsDataUrl(file).catch(() => null);
      if (dataUrl === null) {
        fill(message, h("p", { class: "notice notice-warn", role: "alert" }, `${file.name} could not be read.`));
        continue;
      }
      photos.push({ src: dataUrl, value: dataUrl, label: `New photo ${file.name}`, size: file.size });
    }
    drawPhotos();
  });

  const form = h("form", { class: "form-grid", novalidate: true },
    field("Name", { type: "text", name: "name", value: product.name, maxlength: "120", required: true },
      { hint: "1 to 120 characters." }),
    field("Description", { name: "description", maxlength: "5000", rows: "6", required: true },
      { hint: "1 to 5,000 characters.", multiline: true }),
    field(`Price (${product.currency})`, { type: "number", name: "price",
      value: creating ? "" : Number(product.price).toFixed(2), min: "0.01",
      max: "100000", step: "0.01", inputmode: "decimal", required: true },
      { hint: `What a customer pays: from 0.01 to 100,000 ${product.currency}, in whole cents.` }),
    creating ? field(`What one costs you (${product.currency}, optional)`, { type: "number", name: "cost", min: "0",
      max: "100000", step: "0.01", inputmode: "decimal" },
      { hint: "Used to work out what each sale leaves you. Leave it empty if you do not know yet." }) : null,
    h("fieldset", { class: "field" },
      h("legend", {}, "Photos"),
      h("p", { class: "hint", id: `${photosId}-hint` },
        `PNG, JPEG or WebP, at most ${MAX_IMAGES} photos of at most 5 MiB each. They are checked and saved `
        + "again without their hidden details (camera, location)."),
      gallery,
      h("label", { for: photosId }, "Add photos"),
      fileInput),
    h("div", { class: "form-actions" }, button(creating ? "Start selling it" : "Save my product", null,
      { type: "submit" })),
    message);
  form.description.value = product.description;
  drawPhotos();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const payload = {};
    if (creating) {
      // Said outright: the same fields from a founder with a claim would otherwise change that product.
      payload.create = true;
      payload.name = form.name.value;
      payload.description = form.description.value;
      payload.price = form.price.value.trim() === "" ? null : Number(form.price.value);
      if (form.cost.value.trim() !== "") payload.cost = Number(form.cost.value);
      payload.images = photos.map((photo) => photo.value);
    }
    if (!creating && form.name.value !== product.name) payload.name = form.name.value;
    if (!creating && form.description.value !== product.description) payload.description = form.description.value;
    const price = form.price.value.trim();
    if (!creating && (price === "" || Number(price) !== product.price)) {
      payload.price = price === "" ? "" : Number(price);
    }
    const images = photos.map((photo) => photo.value);
    if (!creating && (images.length !== product.images.length || images.some((url, i) => url !== product.images[i]))) {
      payload.images = images;
    }
    const tooBig = photos.find((photo) => photo.size > MAX_IMAGE_BYTES);
    if (tooBig) {
      // Sent anyway: the server's answer (413 images_too_large) is the one the founder reads.
      fill(message, h("p", { class: "hint" }, `${tooBig.label} is over 5 MiB; checking with the service…`));
    }
    await busy(form.querySelector("button[type=submit]"), async () => {
      const result = await post("/api/product", payload);
      if (!ctx.alive()) return;
      if (result.data && result.data.status === "created") {
        const made = result.data;
        showForm(ctx, body, made);
        const done = body.querySelector("[data-role=message]");
        fill(done, h("div", { class: "notice notice-success", role: "status", dataset: { created: "true" } },
          h("p", { class: "notice-title" }, `${made.product.name} is yours`),
          h("p", {}, "It is yours alone: nobody else is shown it. Next, build its store."),
          h("p", { class: "actions" }, linkButton("Build its store", "#/app/store"),
            linkButton("See what each sale leaves", "#/app/offer"))));
        await ctx.refreshWho();
        return;
      }
      if (result.data && result.data.status === "saved") {
        const saved = result.data;
        showForm(ctx, body, saved);
        const done = body.querySelector("[data-role=message]");
        fill(done, h("div", { class: "notice notice-success", role: "status", dataset: { saved: "true" } },
          h("p", { class: "notice-title" }, "Saved"),
          h("p", {}, saved.version
            ? `Your store now shows ${saved.product.name} at ${money(saved.product.price, saved.product.currency)}: `
              + `version ${saved.version}.`
            : "Your store will use these when you build it."),
          h("p", { class: "actions" }, linkButton("Go to your store", "#/app/store"))));
        return;
      }
      fill(message, refusal(refusalOf(result), {}, result.http));
    });
  });
  return form;
}
