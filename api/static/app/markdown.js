// A small Markdown reader for the curriculum's lessons: headings, paragraphs, lists, code
// blocks, **bold**, *emphasis*, `code` and [links](https://...). It builds DOM nodes from
// text (nothing is parsed as HTML), and links only to http(s) addresses or this app.
import { h } from "./dom.js";

const INLINE = /(\*\*[^*]+\*\*|`[^`]+`|\*[^*\s][^*]*\*|\[[^\]]+\]\([^)\s]+\))/g;

function inline(text) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    const token = match[0];
    if (token.startsWith("**")) out.push(h("strong", {}, token.slice(2, -2)));
    else if (token.startsWith("`")) out.push(h("code", {}, token.slice(1, -1)));
    else if (token.startsWith("[")) {
      const [, label, href] = token.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/);
      out.push(/^(https?:\/\/|#|\/)/.test(href) ? h("a", { href, rel: "noopener" }, label) : label);
    } else out.push(h("em", {}, token.slice(1, -1)));
    last = match.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The Markdown as an array of block elements; headings start at `level`. */
export function markdown(source, level = 3) {
  const blocks = [];
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i += 1; continue; }
    if (line.startsWith("```")) {
      const code = [];
      i += 1;
      while (i < lines.length && !lines[i].startsWith("```")) code.push(lines[i++]);
      i += 1;
      blocks.push(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    const heading = line.match(/^(#{1,4})\s+(.*)$/);
    if (heading) {
      blocks.push(h(`h${Math.min(6, level + heading[1].length - 1)}`, {}, inline(heading[2])));
      i += 1;
      continue;
    }
    const bullet = /^\s*[-*]\s+/;
    const numbered = /^\s*\d+[.)]\s+/;
    if (bullet.test(line) || numbered.test(line)) {
      const marker = bullet.test(line) ? bullet : numbered;
      const items = [];
      while (i < lines.length && marker.test(lines[i])) {
        let text = lines[i].replace(marker, "");
        i += 1;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !marker.test(lines[i])) text += ` ${lines[i++].trim()}`;
        items.push(h("li", {}, inline(text)));
      }
      blocks.push(h(marker === bullet ? "ul" : "ol", {}, items));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(#{1,4}\s|```|\s*[-*]\s+|\s*\d+[.)]\s+)/.test(lines[i])) para.push(lines[i++].trim());
    blocks.push(h("p", {}, inline(para.join(" "))));
  }
  return blocks;
}
