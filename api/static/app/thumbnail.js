// A small picture of the built store's home page, drawn from its store document (GET
// /api/editor/draft): its palette, business name, headline, photo, button and sections in the
// order the page shows them. Drawn rather than framed: the app's policy allows no frame and the
// store's pages refuse to be framed (X-Frame-Options: DENY), and a drawing needs no second
// page load. Text goes in through textContent (charts.js's `s`).
import { h, money } from "./dom.js";
import { s, picture } from "./charts.js";

// The storefront's palettes (api/static/storefront/store.css, .palette-*): brand, tint.
// tests/test_pictures_palette.py keeps the two in step.
export const PALETTES = {
  ocean: ["#0a5c85", "#e8f3f9"],
  forest: ["#2b6a3d", "#ecf5ee"],
  sunset: ["#b03c17", "#fdf0e8"],
  slate: ["#334155", "#eff2f6"],
  berry: ["#9b1c56", "#fbedf3"],
};
const WIDTH = 200;
const INK = "#1b2430";
const MUTED = "#4a5363";

// A section as its block and the caption name it: the founder's words the API gives
// ("the questions"), capitalised, and said when only the founder's preview shows it.
const named = (section) => `${section.said.charAt(0).toUpperCase()}${section.said.slice(1)}`
  + (section.shoppers_see ? "" : " (only you see it)");

/** Cuts text into at most `lines` lines of about `chars` characters, "…" when it is longer. */
function wrap(text, chars, lines) {
  const out = [];
  let line = "";
  for (const word of String(text || "").split(/\s+/).filter(Boolean)) {
    if (line && `${line} ${word}`.length > chars) {
      out.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) out.push(line);
  if (out.length > lines) return [...out.slice(0, lines - 1), `${out[lines - 1].slice(0, chars - 1)}…`];
  return out.map((l) => (l.length > chars ? `${l.slice(0, chars - 1)}…` : l));
}

function textLines(lines, { x, y, size, fill, weight = 400, gap = 1.25 }) {
  return lines.map((line, i) => s("text", { x, y: y + i * size * gap, "font-size": size, "font-weight": weight, fill }, line));
}

function greyLines(x, y, widths) {
  return widths.map((w, i) => s("rect", { x, y: y + i * 6, width: w, height: 3, rx: 1.5, fill: "#c9ced6" }));
}

// Each section as a block at height y; answers [elements, its height].
function block(section, y, doc, [brand, tint]) {
  const type = section.section;
  const copy = doc.copy || {};
  const heading = (words) => s("text", { x: 10, y: y + 13, "font-size": 8, "font-weight": 700, fill: INK }, words);
  if (type === "hero") {
    const image = ((doc.product || {}).images || [])[0];
    const headline = wrap(copy.headline, 19, 3);
    return [[
      s("rect", { x: 0, y, width: WIDTH, height: 92, fill: tint }),
      textLines(headline, { x: 10, y: y + 18, size: 10, fill: INK, weight: 800 }),
      greyLines(10, y + 22 + headline.length * 12, [100, 80]),
      s("rect", { x: 10, y: y + 66, width: 72, height: 16, rx: 4, fill: brand }),
      s("text", { x: 46, y: y + 77, "font-size": 7, "font-weight": 700, fill: "#ffffff", "text-anchor": "middle" },
        wrap(copy.call_to_action || "Buy now", 16, 1)[0]),
      image ? s("image", { href: image, x: 132, y: y + 14, width: 58, height: 58, preserveAspectRatio: "xMidYMid slice" }) : null,
    ], 92];
  }
  if (type === "price") {
    return [[
      heading(named(section)),
      s("text", { x: 10, y: y + 30, "font-size": 11, "font-weight": 800, fill: brand }, money(doc.price, doc.currency)),
      s("rect", { x: 120, y: y + 19, width: 70, height: 15, rx: 4, fill: brand }),
    ], 42];
  }
  const rows = { benefits: [150, 130, 140], evidence: [120, 90, 60], faq: [160, 120, 150] }[type] || [150, 110];
  const marks = type === "evidence"
    ? rows.map((w, i) => s("rect", { x: 10, y: y + 19 + i * 7, width: w, height: 4, rx: 2, fill: brand }))
    : greyLines(10, y + 20, rows);
  return [[heading(named(section)), marks], 22 + rows.length * 7];
}

/** The thumbnail as a figure: the drawing, and the sections in words under it. `sections` is
 * the home page as its preview shows it, top to bottom (GET /api/editor/draft `home_sections`:
 * the server's one rule for what a page shows, services/store/render.py SHOWS). */
export function storeThumbnail(doc, { version, sections = [] } = {}) {
  const palette = (doc.theme || {}).palette;
  const colours = PALETTES[palette] || PALETTES.ocean;
  const name = (doc.business || {}).name || (doc.product || {}).name || "";
  const parts = [s("rect", { x: 0, y: 0, width: WIDTH, height: 22, fill: "#ffffff" }),
    s("text", { x: 10, y: 14, "font-size": 8, "font-weight": 700, fill: colours[0] }, wrap(name, 38, 1)[0] || ""),
    s("line", { x1: 0, x2: WIDTH, y1: 22, y2: 22, stroke: "#dde2e9" })];
  let y = 22;
  for (const section of sections) {
    const [elements, height] = block(section, y, doc, colours);
    parts.push(s("rect", { x: 0, y, width: WIDTH, height, fill: "#ffffff" }), ...elements.flat(),
      s("line", { x1: 0, x2: WIDTH, y1: y + height, y2: y + height, stroke: "#eef0f3" }));
    y += height;
  }
  const listed = sections.map((section) => named(section).toLowerCase());
  const words = `A picture of your store's home page${palette ? ` in its ${palette} colours` : ""}: the headline `
    + `“${(doc.copy || {}).headline || ""}”, then, from top to bottom, ${listed.join(", ")}`;
  return h("figure", { class: "chart-figure store-thumb",
    dataset: { picture: "store-thumbnail", sections: sections.map((section) => section.section).join(" ") } },
    picture(words, { width: WIDTH, height: y, kind: "thumb" }, parts,
      s("rect", { x: 0.5, y: 0.5, width: WIDTH - 1, height: y - 1, fill: "none", stroke: MUTED, rx: 6 })),
    h("figcaption", { class: "hint" }, version ? `Home page of version ${version}, top to bottom: ` : "Home page, top to bottom: ",
      sections.map(named).join(", "), "."));
}
