// Building the page. Every piece of text goes in through textContent (never innerHTML), so
// product names, notes and server sentences can never become markup or script.
// words.js holds the one style of days and moments; it imports only api.js, which imports
// nothing, so there is no import circle.
import { momentWords } from "./words.js";

/** Makes an element: h("p", {class: "x", onclick: fn}, "text", child, [more children]). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.className = value;
    } else if (name === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(name, "");
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces what a node holds. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

let idCounter = 0;
/** A unique id for label/aria pairs. */
export function uid(prefix = "id") {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled form field; `input` attrs go to the control. */
export function field(label, attrs = {}, { hint, multiline = false } = {}) {
  const id = attrs.id || uid("field");
  const hintId = hint ? `${id}-hint` : undefined;
  const control = h(multiline ? "textarea" : "input", { ...attrs, id, "aria-describedby": hintId });
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    control);
}

/** Money as the server sent it (major units), with its currency. */
export function money(value, currency) {
  if (value === null || value === undefined) return "—";
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency || "USD" }).format(value);
  } catch {
    return `${Number(value).toFixed(2)} ${currency || ""}`.trim();
  }
}

/** Money the server sent in minor units (cents; yen as they are), with its currency. */
export function moneyMinor(minor, currency) {
  if (minor === null || minor === undefined) return "—";
  try {
    const format = new Intl.NumberFormat(undefined, { style: "currency", currency: currency || "USD" });
    return format.format(minor / 10 ** format.resolvedOptions().maximumFractionDigits);
  } catch {
    return `${(Number(minor) / 100).toFixed(2)} ${currency || ""}`.trim();
  }
}

/** "1 claim", "3 claims". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function percent(value) {
  return value === null || value === undefined ? "—" : `${Number(value).toFixed(value % 1 ? 2 : 0)}%`;
}

/** A moment (ISO timestamp or epoch seconds) in the one style of every screen, in the founder's
 * own time zone: "5 December 2026, 13:00 CET" (words.js). "—" for nothing. */
export function when(value) {
  return momentWords(value);
}

/** "12:03" for a number of seconds. */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A heading that screen readers land on when a screen opens. */
export function title(text, sub) {
  return [h("h1", { tabindex: "-1", class: "screen-title" }, text), sub ? h("p", { class: "lede" }, sub) : null];
}

export function button(label, onclick, { kind = "primary", type = "button", ...attrs } = {}) {
  return h("button", { type, class: `btn btn-${kind}`, onclick, ...attrs }, label);
}

/** A link styled as a button, for moving between screens. */
export function linkButton(label, href, kind = "secondary") {
  return h("a", { class: `btn btn-${kind}`, href }, label);
}

/** Runs an async action with its button disabled and marked busy meanwhile. */
export async function busy(control, action) {
  control.disabled = true;
  control.setAttribute("aria-busy", "true");
  try {
    return await action();
  } finally {
    control.disabled = false;
    control.removeAttribute("aria-busy");
  }
}

/** A table in a region reachable by keyboard. On a phone each row reads as a card whose lines
 * are labelled by their column's header (app.css), so every cell gets its header's words as
 * data-label here; a header hidden from sight (a Buy or Connect column) labels nothing. */
export function scrollingTable(label, table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => (th.querySelector(".visually-hidden") ? "" : th.textContent.trim()));
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, index) => {
      if (heads[index] && cell.tagName === "TD" && !cell.dataset.label) cell.dataset.label = heads[index];
    });
  }
  return h("div", { class: "table-wrap", role: "region", "aria-label": label, tabindex: "0" }, table);
}
