// Your product: publish your own name, description, price and photos in place of the
// catalog's. Photos are read in the browser into data: URLs (FileReader) and checked by the
// server by their content; a saved change becomes a new version of a built store at once.
import { h, fill, title, button, busy, field, money, linkButton } from "../dom.js";
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
  if (said) {
    fill(body, refusal(said, { retry: () => ctx.rerender() }, result.http));
    return;
  }
  showForm(ctx, body, result.data);
}

function showForm(ctx, body, answer) {
  const product = answer.product;
  // Each photo: {src (what the preview shows), value (what is sent: a URL kept or a data: URL), label}.
  let photos = product.images.map((url, i) => ({ src: url, value: url, label: `Photo ${i + 1}` }));
  const message = h("div", { "aria-live": "polite", dataset: { role: "message" } });
  const gallery = h("ul", { class: "photo-list", "aria-label": "Your photos" });
  const fileInput = h("input", { type: "file", id: "product-photos", accept: TYPES.join(","), multiple: true,
    "aria-describedby": "product-photos-hint" });

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
    field(`Price (${product.currency})`, { type: "number", name: "price", value: Number(product.price).toFixed(2), min: "0.01",
      max: "100000", step: "0.01", inputmode: "decimal", required: true },
      { hint: `From 0.01 to 100,000 ${product.currency}, in whole cents.` }),
    h("fieldset", { class: "field" },
      h("legend", {}, "Photos"),
      h("p", { class: "hint", id: "product-photos-hint" },
        `PNG, JPEG or WebP, at most ${MAX_IMAGES} photos of at most 5 MiB each. They are checked and saved `
        + "again without their hidden details (camera, location)."),
      gallery,
      h("label", { for: "product-photos" }, "Add photos"),
      fileInput),
    h("div", { class: "form-actions" }, button("Save my product", null, { type: "submit" })),
    message);
  form.description.value = product.description;
  drawPhotos();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const payload = {};
    if (form.name.value !== product.name) payload.name = form.name.value;
    if (form.description.value !== product.description) payload.description = form.description.value;
    const price = form.price.value.trim();
    if (price === "" || Number(price) !== product.price) payload.price = price === "" ? "" : Number(price);
    const images = photos.map((photo) => photo.value);
    if (images.length !== product.images.length || images.some((url, i) => url !== product.images[i])) {
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

  fill(body,
    h("section", { class: "panel", "aria-labelledby": "own-title" },
      h("h2", { id: "own-title" }, answer.own.length ? "Your own details" : "The catalog's details, yours to change"),
      h("p", { class: "hint" }, answer.version
        ? `Your store is at version ${answer.version}. Saving writes the next one.`
        : "No store built yet: your store will be built with these."),
      form));
}
