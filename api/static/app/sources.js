// How a figure's source reads: a catalog field, a dated evidence row, a setting, or another
// figure of the offer. Every figure the app shows carries one.
import { h } from "./dom.js";

export function sourceText(source) {
  if (!source || typeof source !== "object") return "Unknown source";
  switch (source.type) {
    case "catalog":
      return `Catalog record: ${source.field}`;
    case "evidence": {
      const value = source.value !== undefined && source.value !== null ? ` = ${source.value}` : "";
      return `Evidence ${source.date}: ${source.source}, ${source.metric}${value}`;
    }
    case "setting":
      return `Setting ${source.name}`;
    case "offer":
      return `Offer figure: ${source.figure}`;
    default:
      return Object.entries(source).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
  }
}

/** A small labelled chip naming a source. */
export function sourceChip(source) {
  return h("span", { class: `chip chip-${(source && source.type) || "other"}` }, sourceText(source));
}
