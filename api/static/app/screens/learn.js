// Learn: the curriculum's subjects and their lessons (Markdown from the repository).
import { h, fill, title, linkButton } from "../dom.js";
import { get, refusalOf } from "../api.js";
import { refusal } from "../reasons.js";
import { markdown } from "../markdown.js";

export const name = "learn";
export const label = "Learn";

export async function render(ctx) {
  const subject = ctx.rest[0];
  if (!subject) {
    const result = await get("/api/curriculum");
    if (!ctx.alive()) return;
    const said = refusalOf(result);
    if (said) {
      fill(ctx.main, title("Learn"), refusal(said, { retry: () => ctx.rerender() }, result.http));
      return;
    }
    fill(ctx.main, title("Learn", "Short lessons, from finding a product to running support."),
      h("ul", { class: "subjects" }, result.data.subjects.map((s) => h("li", {},
        h("a", { class: "subject", href: `#/app/learn/${encodeURIComponent(s.id)}` },
          h("span", { class: "subject-title" }, s.title), h("span", { class: "muted" }, s.summary),
          h("span", { class: "hint" }, `${s.lessons.length} lessons`))))));
    return;
  }
  const result = await get(`/api/curriculum?subject=${encodeURIComponent(subject)}`);
  if (!ctx.alive()) return;
  const said = refusalOf(result);
  if (said) {
    fill(ctx.main, title("Learn"), refusal(said, {}, result.http), h("p", {}, linkButton("All subjects", "#/app/learn")));
    return;
  }
  const data = result.data;
  fill(ctx.main, title(data.title, data.summary),
    h("nav", { "aria-label": "Lessons", class: "toc" }, h("ol", {}, data.lessons.map((lesson) => h("li", {},
      h("a", { href: `#/app/learn/${encodeURIComponent(subject)}`, dataset: { lesson: lesson.id },
        onclick: (event) => { event.preventDefault(); document.getElementById(`lesson-${lesson.id}`).scrollIntoView(); } }, lesson.title))))),
    data.lessons.map((lesson) => h("article", { class: "panel lesson", id: `lesson-${lesson.id}` },
      h("h2", {}, lesson.title), markdown(lesson.body_markdown, 3))),
    h("p", {}, linkButton("All subjects", "#/app/learn")));
}
