"""Plain requests: the small grammar of edits both editors understand without a model.

A founder types what they want ("make the headline shorter and mention free returns within
30 days"); `parse` reads it once into Requests, each a verb, the part it acts on (named by the
founder's words for it) and its words. The store editor (services/store/offline_edit.py) and
the ad editor (services/growth/ad_copy.py) apply the same Requests to their own parts, so a
request means one thing in both; with a model configured, the parse goes to the model as
context (integrations/ai: the task's `current["requests"]`).

The grammar (README "Editing"):

- shorten: "make the headline shorter", "shorten the text", "the description is too long"
- lengthen: "make the about text longer", "say more in the text", "expand the subheadline"
- mention: "mention free returns within 30 days", "add that it ships in 3-5 days",
  "highlight the price", "mention the guarantee in the headline"
- remove: "remove the question about shipping", "don't mention magnets",
  "remove 'solid' from the headline"
- replace: "replace 'knives' with 'blades'", "say blades instead of knives"
- set: "change the headline to Keep knives off the counter", "headline: ...",
  "use a Buy Now button"
- lead with: "lead with the price", "start with the questions", "move the reviews to the top"
- tone: "change the tone to friendly" (or plain, premium), "make it sound more premium"
- price: "set the price to 24.99", "charge $24.99"
- add a question: "add a question: Is it dishwasher safe? No, wipe it clean."

Requests joined by "and", "then", ";" or a full stop are applied together, as one edit. A
part outside the grammar is not guessed at: `closest` names the requests it does understand
that are nearest to the founder's words, as examples built from their own store.

Pure: no database, no clock. A Request's words are the founder's, trimmed of quotes.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

SHORTEN, LENGTHEN, MENTION, REMOVE, REPLACE, SET = "shorten", "lengthen", "mention", "remove", "replace", "set"
LEAD, TONE, PRICE, ADD_QUESTION = "lead", "tone", "price", "add_question"
VERBS = (SHORTEN, LENGTHEN, MENTION, REMOVE, REPLACE, SET, LEAD, TONE, PRICE, ADD_QUESTION)

FRIENDLY, PLAIN, PREMIUM = "friendly", "plain", "premium"
TONES = (FRIENDLY, PLAIN, PREMIUM)
_TONE_WORDS = {
    FRIENDLY: "friendly friendlier warm warmer casual relaxed chatty fun fun-loving welcoming personal",
    PLAIN: "plain plainer simple simpler clear clearer direct straightforward neutral factual",
    PREMIUM: "premium luxurious luxury upscale elegant classy high-end fancy refined sophisticated",
}
TONE_OF = {word: tone for tone, words in _TONE_WORDS.items() for word in words.split()}

# The parts a founder may name, surface-neutral, and the words they name them by. Each
# editor maps these to its own fields (a store's "description" is its About text, an ad's
# is its description line) and says so when it has no such part.
PART_WORDS = {
    "headline": "headline|headlines|title|heading|main heading|name line",
    "subheadline": "subheadline|sub headline|sub-headline|subtitle|tagline|line under the headline|strapline",
    "call_to_action": "call to action|call-to-action|cta|button|buy button|button text|button words",
    "text": "text|main text|primary text|body|body text|ad text|copy|wording|words|intro",
    "description": "description|product description|link description|description line",
    "about": "about|about text|about section|about us|story|our story",
    "guarantee": "guarantee|warranty|guarantee text",
    "shipping": "shipping|shipping text|delivery|delivery text|shipping section",
    "returns": "returns|returns text|return policy|returns policy|refunds|refund policy",
    "seo_title": "seo title|page title|search title|title search engines show",
    "seo_description": "seo description|meta description|search description",
    "benefits": "benefits|benefit|features|feature list",
    "faq": "faq|faqs|questions|question|q&a|questions and answers",
    "price": "price|pricing|the cost",
}
_PART_OF = {word: part for part, words in PART_WORDS.items() for word in words.split("|")}
_ALL_PART_WORDS = sorted(_PART_OF, key=len, reverse=True)
_THE = r"(?:(?:the|our|my|its|this|that|your|the\s+ad'?s|the\s+store'?s|the\s+page'?s|the\s+ad|the\s+store)\s+)?"
_PART = _THE + r"(?P<{name}>" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in _ALL_PART_WORDS) + r")"
_IT = r"(?P<{name}>it|this|that|everything|the\s+(?:copy|ad|store|page|whole\s+thing))"

# An ad's platform, named "on Google", "for Facebook", or before the part ("the Google headline").
_PLATFORM = r"(?P<platform>meta|facebook|instagram|fb|ig|google)"
_ON_PLATFORM = (re.compile(r"\s*\b(?:on|for|in)\s+(?:the\s+)?" + _PLATFORM + r"(?:\s+(?:ad|ads|version|one))?\b\s*",
                           re.IGNORECASE),
                re.compile(r"(?<=\s)" + _PLATFORM + r"(?:'s)?(?=\s+(?:ad|ads|headline|text|description|button|copy|"
                           r"primary\s+text|call\s+to\s+action)\b)\s*", re.IGNORECASE))

_ONLY_PLATFORM = re.compile(r"^(?:on|for|in)\s+(?:the\s+)?" + _PLATFORM + r"(?:\s+(?:ad|ads|version|one))?$",
                            re.IGNORECASE)

_QUOTES = "\"'“”‘’«»"


@dataclass(frozen=True)
class Request:
    """One thing the founder asked for. `part` is a key of PART_WORDS or None (the surface's
    default part for the verb); `text` the new words, what to mention or remove, the tone, the
    price or the question; `old` the words a replace takes out, or a question's answer."""

    verb: str
    part: str | None = None
    text: str = ""
    old: str = ""
    platform: str | None = None  # an ad's platform the founder named ("on Google"), else both
    said: str = ""  # the founder's own words for this request

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


@dataclass(frozen=True)
class Parsed:
    requests: tuple[Request, ...]
    not_understood: tuple[str, ...]  # the founder's words for each part outside the grammar

    @property
    def understood(self) -> bool:
        return bool(self.requests) and not self.not_understood


# What a model is told of the parse it is given (the editors' `current["requests"]`).
AS_CONTEXT = ("`current.requests`, when given, is the service's reading of the instructions, one object per request "
              "({verb, part, text, old, platform}; verbs: " + ", ".join(VERBS) + "): carry out each of them, and "
              "keep every field whole (no name cut mid-name, no sentence ending in \"…\") and within its limit.")


# --- Reading a message ----------------------------------------------------------------------------

_POLITE_START = re.compile(r"^(?:(?:please|pls|kindly|ok(?:ay)?|so|hey|hi|now|also|then|and)[,\s]+|"
                           r"(?:can|could|would|will)\s+you\s+(?:please\s+)?|i(?:'d|\s+would)\s+like\s+(?:you\s+)?to\s+|"
                           r"i\s+want\s+(?:you\s+)?to\s+|let'?s\s+|we\s+should\s+|try\s+to\s+)+", re.IGNORECASE)
_POLITE_END = re.compile(r"(?:[,\s]+(?:please|thanks|thank\s+you|pls))+\s*[.!?]*$", re.IGNORECASE)
# Where one request ends and the next begins: "and", "then", ";" or a sentence's end, when
# the words after it begin another request (so "fast and easy" stays one phrase).
_JOINS = re.compile(r"\s*(?:,?\s+(?:and|&)\s+(?:then\s+|also\s+)?|,?\s+then\s+|;\s*|(?<=[.!])\s+|,\s+(?=\w))",
                    re.IGNORECASE)
_VERB_START = re.compile(
    r"^(?:please\s+)?(?:make|keep|shorten|trim|tighten|cut|condense|lengthen|expand|extend|say|mention|add|include|"
    r"highlight|note|tell|talk|point|emphasi[sz]e|show|remove|delete|drop|take|don'?t|do\s+not|stop|replace|swap|"
    r"change|set|update|rewrite|use|switch|lead|start|open|begin|move|put|charge|sell|price|sound|give|"
    r"write|the\s+[\w\s'-]{2,30}\s+(?:is|are)\s+too|" + "|".join(re.escape(w) for w in _ALL_PART_WORDS) + r"\s*:)\b",
    re.IGNORECASE)


def parse(message: str) -> Parsed:
    """The message's requests, in the order written, and the parts outside the grammar."""
    message = " ".join(str(message or "").split())
    requests, unknown = [], []
    for part in _parts(message):
        request = _request(part)
        if request is None:
            unknown.append(part)
        else:
            requests.append(request)
    return Parsed(tuple(requests), tuple(unknown))


def _parts(message: str) -> list[str]:
    """The message cut at its joins (outside quotes) where a new request begins."""
    masked = _masked(message)
    parts, start = [], 0
    for join in _JOINS.finditer(masked):
        if join.start() <= start:
            continue
        if _VERB_START.match(_polite(message[join.end():])):
            parts.append(message[start:join.start()])
            start = join.end()
    parts.append(message[start:])
    parts = [p for p in (_polite(p) for p in parts) if p]
    # "On Facebook, make the description say ...": a platform said first belongs to what follows.
    for i in range(len(parts) - 2, -1, -1):
        if _ONLY_PLATFORM.match(parts[i]):
            parts[i:i + 2] = [f"{parts[i + 1]} {parts[i]}"]
    return parts


def _masked(text: str) -> str:
    """The text with its quoted words blanked out (same length), so no join is found in them.
    An apostrophe inside a word ("don't", "ad's") is no quote."""
    out, quote = list(text), None
    for i, ch in enumerate(text):
        inside_word = ch in "'’" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        if quote is None and ch in _QUOTES and not inside_word:
            quote = {"“": "”", "‘": "’", "«": "»"}.get(ch, ch)
        elif quote is not None and ch == quote and not inside_word:
            quote = None
        elif quote is not None:
            out[i] = "x"
    return "".join(out)


def _polite(text: str) -> str:
    text = _POLITE_START.sub("", text.strip(" ,;"))
    text = _POLITE_END.sub("", text)
    return text.strip(" ,;")


def _unquoted(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        return text[1:-1].strip()
    return text.strip(_QUOTES).strip()


def part_named(words: str | None) -> str | None:
    """The part a founder's words name ("tagline": subheadline), or None."""
    if not words:
        return None
    return _PART_OF.get(" ".join(words.lower().replace("-", " ").split())) or _PART_OF.get(words.lower())


def _p(pattern: str, **names: str) -> re.Pattern:
    for name, kind in names.items():
        pattern = pattern.replace("{" + name + "}", (_PART if kind == "part" else _IT).format(name=name))
    # A request's own full stop ends it; new words keep theirs ("set the guarantee to We replace it.").
    return re.compile(r"^" + pattern + r"\s*[.!]*$", re.IGNORECASE | re.DOTALL)


_AMOUNT = r"[$€£]?\s*(?P<amount>\d{1,9}(?:[.,]\d{1,2})?)\s*(?:usd|eur|gbp|dollars?|euros?|pounds?|\$|€|£)?"
_TONE = r"(?P<tone>" + "|".join(sorted(TONE_OF, key=len, reverse=True)) + r")"
_SHORTER = r"(?:shorter|more\s+concise|tighter|briefer|less\s+wordy)"
_LONGER = r"(?:longer|more\s+detailed|fuller)"

_REMOVE_QUESTION = _p(r"(?:remove|delete|drop|take\s+out)\s+(?:the\s+)?(?:faq|question)\s+(?:about|on|that\s+"
                      r"mentions|mentioning|asking\s+about)\s+(?P<what>.+)")

# (verb, pattern): tried in order on each request; the first that matches reads it.
_GRAMMAR: tuple[tuple[str, re.Pattern], ...] = (
    (ADD_QUESTION, _p(r"add\s+(?:a|an|another|one\s+more|the)?\s*(?:new\s+)?(?:faq|question|q&a|q\s*&\s*a)\s*"
                      r"(?:to\s+the\s+(?:faq|questions)\s*)?:?\s*(?P<q>[^?]{3,}\?)\s*(?P<a>.+)")),
    (REMOVE, _REMOVE_QUESTION),
    (PRICE, _p(r"(?:set|change|make|put|update|lower|raise|drop|cut)\s+(?:the\s+|our\s+|my\s+)?price\s+(?:to|at)\s+"
               + _AMOUNT)),
    (PRICE, _p(r"(?:charge|sell\s+(?:it\s+)?(?:for|at)|price\s+it\s+at)\s+" + _AMOUNT)),
    (TONE, _p(r"(?:change|set|switch|make|turn)\s+(?:the\s+)?tone\s+(?:to|into)\s+(?:a\s+|more\s+)?" + _TONE
              + r"(?:\s+(?:one|tone))?(?:\s+(?:in|for)\s+{part})?", part="part")),
    (TONE, _p(r"(?:use|give\s+it|write\s+(?:it\s+)?(?:in|with))\s+(?:a\s+|an\s+)?(?:more\s+)?" + _TONE
              + r"\s+(?:tone|voice|style)(?:\s+(?:in|for)\s+{part})?", part="part")),
    (TONE, _p(r"(?:make\s+(?:{it}|{part})\s+|(?:it\s+should\s+)?)(?:sound|feel|read|be)?\s*(?:a\s+(?:bit|little)\s+)?"
              r"(?:more\s+)?" + _TONE, it="it", part="part")),
    (SHORTEN, _p(r"(?:make|keep|get)\s+(?:{part}|{it})\s+(?:a\s+(?:bit|little|lot)\s+|much\s+|even\s+)?" + _SHORTER,
                 part="part", it="it")),
    (SHORTEN, _p(r"(?:shorten|trim|tighten|condense|cut\s+down|shrink)\s+(?:{part}|{it})(?:\s+down)?(?:\s+a\s+bit)?",
                 part="part", it="it")),
    (SHORTEN, _p(r"(?:{part}|{it})\s+(?:is|are|looks|reads|feels)\s+(?:a\s+bit\s+|way\s+|much\s+)?too\s+long",
                 part="part", it="it")),
    (LENGTHEN, _p(r"(?:make|get)\s+(?:{part}|{it})\s+(?:a\s+(?:bit|little|lot)\s+|much\s+)?" + _LONGER,
                  part="part", it="it")),
    (LENGTHEN, _p(r"(?:lengthen|expand|extend|flesh\s+out)\s+(?:{part}|{it})(?:\s+a\s+bit)?", part="part", it="it")),
    (LENGTHEN, _p(r"(?:say|tell|write)\s+(?:a\s+(?:bit|little)\s+)?more\s+(?:in|about)\s+{part}", part="part")),
    (LENGTHEN, _p(r"(?:{part}|{it})\s+(?:is|are|looks|reads|feels)\s+(?:a\s+bit\s+)?too\s+short", part="part",
                  it="it")),
    (LEAD, _p(r"(?:lead|start|open|begin)\s+(?:it\s+|the\s+(?:ad|store|page)\s+)?with\s+(?:the\s+|our\s+|its\s+)?"
              r"(?P<what>[\w\s'-]{2,40})")),
    (LEAD, _p(r"(?:move|put|bring)\s+(?:the\s+|our\s+)?(?P<what>[\w\s'-]{2,40}?)\s+(?:section\s+)?"
              r"(?:to\s+the\s+(?:top|start|front|beginning)|first|on\s+top|up\s+front)")),
    (SET, _p(r"(?:change|set|make|update|rewrite|replace)\s+{part}\s+(?:text\s+)?(?:to\s+say|to\s+read|to|with|as|"
             r"into|:|=)\s*(?P<text>.+)", part="part")),
    (SET, _p(r"make\s+{part}\s+(?:say|read)\s+(?P<text>.+)", part="part")),
    (SET, _p(r"{part}\s*(?::|=|should\s+(?:say|read|be))\s*(?P<text>.+)", part="part")),
    (SET, _p(r"(?:use|switch\s+to|change\s+to)\s+(?:a\s+|an\s+|the\s+)?(?P<text>shop\s+now|buy\s+now|order\s+now|"
             r"learn\s+more|get\s+offer)(?:\s+button)?")),
    (REPLACE, _p(r"(?:replace|swap)\s+(?P<old>.+?)\s+(?:with|for|by)\s+(?P<text>.+?)(?:\s+(?:in|on)\s+{part})?",
                 part="part")),
    (REPLACE, _p(r"(?:say|use|write)\s+(?P<text>.+?)\s+instead\s+of\s+(?P<old>.+?)(?:\s+(?:in|on)\s+{part})?",
                 part="part")),
    (REPLACE, _p(r"change\s+(?P<old>[\"'“‘].+?[\"'”’])\s+(?:to|into)\s+(?P<text>.+?)(?:\s+(?:in|on)\s+{part})?",
                 part="part")),
    (REMOVE, _p(r"(?:remove|delete|drop|take\s+out|cut|strip)\s+(?P<what>.+?)\s+(?:from|in|out\s+of)\s+{part}",
                part="part")),
    (REMOVE, _p(r"(?:don'?t|do\s+not|stop|no\s+longer|never)\s+(?:mention|say|talk\s+about|use)(?:ing)?\s+"
                r"(?P<what>.+?)(?:\s+(?:in|on)\s+{part})?(?:\s+anymore)?", part="part")),
    (REMOVE, _p(r"(?:remove|delete|drop|take\s+out|get\s+rid\s+of)\s+(?P<what>.+)")),
    (MENTION, _p(r"(?:mention|add|include|highlight|note|emphasi[sz]e|point\s+out|show|say|tell\s+(?:shoppers|"
                 r"customers|people|buyers|them)|talk\s+about|let\s+(?:shoppers|customers|people)\s+know)\s+"
                 r"(?:that\s+)?(?P<what>.+?)(?:\s+(?:in|on|to|into)\s+{part})?", part="part")),
)


def _request(words: str) -> Request | None:
    """One request read from its words, or None when the grammar does not reach it."""
    platform, words = _platform_of(words)
    for verb, pattern in _GRAMMAR:
        match = pattern.match(words)
        if match:
            got = match.groupdict()
            if pattern is _REMOVE_QUESTION:
                return Request(verb, "faq", _unquoted(got["what"]), platform=platform, said=words)
            return _READERS[verb](verb, got, part_named(got.get("part")), platform, words)
    return None


def _platform_of(words: str) -> tuple[str | None, str]:
    """The ad platform the words name ("on Google"), and the words without it."""
    for pattern in _ON_PLATFORM:
        found = pattern.search(words)
        if found and not _inside_quotes(words, found.start("platform")):
            platform = "google" if found["platform"].lower() == "google" else "meta"
            return platform, _polite(" ".join((words[:found.start()] + " " + words[found.end():]).split()))
    return None, words


def _read_question(verb, got, part, platform, said) -> Request:
    answer = _unquoted(got["a"])  # a sentence: its full stop was read as the request's end
    answer = answer if answer.endswith((".", "!", "?")) else f"{answer}."
    return Request(verb, "faq", " ".join(got["q"].split()), answer, platform, said)


def _read_price(verb, got, part, platform, said) -> Request:
    return Request(verb, "price", got["amount"].replace(",", "."), platform=platform, said=said)


def _read_tone(verb, got, part, platform, said) -> Request:
    return Request(verb, part, TONE_OF[got["tone"].lower()], platform=platform, said=said)


def _read_size(verb, got, part, platform, said) -> Request:
    return Request(verb, part, platform=platform, said=said)


def _read_lead(verb, got, part, platform, said) -> Request:
    return Request(verb, part_named(got["what"]) or None, _unquoted(got["what"]).lower(), platform=platform,
                   said=said)


def _read_set(verb, got, part, platform, said) -> Request | None:
    text = _unquoted(got["text"])
    # With no part named, the words are a button's ("use a Buy Now button").
    return Request(verb, part or "call_to_action", text, platform=platform, said=said) if text else None


def _read_replace(verb, got, part, platform, said) -> Request | None:
    old, new = _unquoted(got["old"]), _unquoted(got["text"])
    return Request(verb, part, new, old, platform, said) if old and new else None


def _read_remove(verb, got, part, platform, said) -> Request | None:
    what = _unquoted(got["what"])
    named = part_named(re.sub(r"^(?:the|our|my|its)\s+", "", what, flags=re.IGNORECASE))
    if named and part is None and named != "price":
        return None  # "remove the guarantee": a whole part goes only in the editors' own controls
    return Request(verb, part, what, platform=platform, said=said) if what else None


def _read_mention(verb, got, part, platform, said) -> Request | None:
    what = _unquoted(got["what"])
    return Request(verb, part, what, platform=platform, said=said) if what else None


_READERS = {ADD_QUESTION: _read_question, PRICE: _read_price, TONE: _read_tone, SHORTEN: _read_size,
            LENGTHEN: _read_size, LEAD: _read_lead, SET: _read_set, REPLACE: _read_replace, REMOVE: _read_remove,
            MENTION: _read_mention}


def _inside_quotes(text: str, index: int) -> bool:
    return _masked(text)[index] == "x" and text[index] != "x"


# --- What it does understand ----------------------------------------------------------------------

# (verb, the words that make a founder's request near it, how an example reads): examples are
# filled with the founder's own store in closest().
_NEAR = (
    (SHORTEN, "short shorter shorten trim tight long concise brief cut smaller less wordy", "Make the headline shorter"),
    (LENGTHEN, "long longer lengthen expand more detail add say fuller short", "Make the {text_part} longer"),
    (MENTION, "mention add include say tell highlight free returns shipping delivery guarantee ships",
     "Mention free returns within 30 days"),
    (MENTION, "price cost cheap deal mention show highlight", "Mention the price"),
    (LEAD, "lead start open first top begin front move order", "Lead with the price"),
    (TONE, "tone voice style sound feel friendly warm plain simple premium fancy luxury casual formal fun",
     "Change the tone to friendly"),
    (REPLACE, "replace swap instead change word words rename call", "Replace “{word}” with …"),
    (REMOVE, "remove delete drop cut take out rid stop mention", "Don't mention “{word}”"),
    (SET, "change set rewrite headline title new say read", "Change the headline to “{name}”"),
    (PRICE, "price cost charge sell dollars cheaper expensive set", "Set the price to {price}"),
    (ADD_QUESTION, "question faq ask answer q&a add", "Add a question: Is it easy to clean? Yes, wipe it with a damp "
                                                      "cloth."),
)
_WORD = re.compile(r"[a-z&']+")


def closest(words: str, *, name: str = "", price: str = "", word: str = "", text_part: str = "text",
            verbs: tuple[str, ...] = VERBS, most: int = 3) -> list[str]:
    """The requests nearest to words the grammar did not reach, as examples filled from the
    founder's own store (its product's name, a price, a word of its copy), best first; the
    editor's `verbs` only (an ad has no questions to add). Always `most` examples."""
    said = set(_WORD.findall(words.lower()))
    scored = []
    for order, (verb, near, example) in enumerate(_NEAR):
        if verb not in verbs:
            continue
        if verb == PRICE and not price:
            continue
        score = len(said & set(near.split()))
        filled = example.format(name=name or "Your product's name", price=price, word=word or "a word",
                                text_part=text_part)
        scored.append((-score, order, filled))
    return [example for _, _, example in sorted(scored)[:most]]


def said_list(examples: list[str]) -> str:
    """Examples as one sentence a founder reads: “A”; “B”; “C”."""
    return "; ".join(f"“{e}”" for e in examples)
