// Asking for an edit in plain words, shared by the store editor (screens/edit.js) and the ad
// editor (growth/ad.js). Both understand one small grammar (services/plain_requests.py), so
// both offer the same kind of help: example requests as chips that fill the request box, and,
// when the words were outside that grammar, the closest requests it does understand as chips.
import { h, button } from "./dom.js";
import { refusal } from "./reasons.js";

/**
 * Example requests as chips. Pressing one puts its words in `box` and leaves them there: an
 * edit costs credits, so the founder reads (and may change) the words and sends them
 * themselves. An example is its words, or {label, words} when the chip only starts a request
 * ("Add a question: …" puts "Add a question: " in the box, for the founder to finish).
 */
export function exampleChips(examples, box, { label = "Example requests" } = {}) {
  return h("ul", { class: "example-chips", "aria-label": label },
    examples.map((example) => {
      const { label: shown, words } = typeof example === "string" ? { label: example, words: example } : example;
      return h("li", {}, button(shown, () => putInBox(box, words),
        { kind: "secondary", class: "btn btn-secondary example-chip", dataset: { example: words } }));
    }));
}

function putInBox(box, words) {
  box.value = words;
  // Anything counting the box's characters hears of the change, as if it had been typed.
  box.dispatchEvent(new Event("input", { bubbles: true }));
  box.focus();
  box.setSelectionRange(words.length, words.length);
}

/**
 * A refusal as reasons.js shows it; words outside the grammar (`editor_unavailable` with
 * `examples`) also get the requests nearest to them, built from the founder's own store, as
 * chips that fill `box` the same way.
 */
export function refusalWithExamples(body, http, box, options = {}) {
  const notice = refusal(body, {}, http, options);
  const examples = body && body.reason === "editor_unavailable" && Array.isArray(body.examples) ? body.examples : [];
  if (examples.length) {
    notice.append(h("p", {}, "Pick one to start from: it goes in the box above for you to check, change if you like, and send."),
      exampleChips(examples, box, { label: "Requests the editor understands" }));
  }
  return notice;
}
