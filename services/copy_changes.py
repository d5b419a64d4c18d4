"""What a plain request does to one piece of copy, the same in the store and in an ad.

The editors (services/store/offline_edit.py, services/growth/ad_copy.py) choose the fields a
request acts on (services/plain_requests.py reads the request); these change one field's
text, within its bound, keeping whole words and whole sentences:

- shorter: a name-like field (a headline, a button) as a shorter name that still names the
  product, a text without its last sentence (integrations/copy_text.shorter);
- longer: a name-like field as the product's whole name, a text with the next sentence the
  facts hold that fits whole;
- mentioned: the text with a sentence added (a name-like field: after a dash), earlier
  sentences giving way when it would not fit, never the new one cut;
- removed: the sentences that mention the words taken out (in a name-like field, the words);
- replaced: the words, as whole words, in any case, with the new ones;
- toned: a small table of word swaps per tone (friendly, plain, premium).

Each answers the text unchanged when the request changes nothing in it; the editor decides
whether that is a refusal. Nothing here invents a fact: new sentences come from the caller
(the facts, the founder's words), and the editors check every answer for unbacked claims.
"""
from __future__ import annotations

import re

from integrations.ai.claims import sentences
from integrations.copy_text import name_core, price_text, short_name, shorter, whole_sentence
from services.errors import Refused
from services.plain_requests import FRIENDLY, PLAIN, PREMIUM

DASH = " – "


def shortened(text: str, *, is_name: bool) -> str:
    return shorter(text, is_name=is_name)


def lengthened(text: str, *, is_name: bool, limit: int, name: str = "", more: tuple[str, ...] = ()) -> str:
    """A name-like field as the product's whole name (or the longest name of it that fits)
    when that says more; a text with the first of `more` it does not hold yet that fits."""
    if is_name:
        whole = short_name(name, limit) if name else ""
        return whole if len(whole) > len(text) and whole.lower() != text.lower() else text
    have = _said(text)
    for sentence in more:
        sentence = " ".join(sentence.split())
        if not sentence or _key(sentence) in have or sentence.rstrip(".").lower() in text.lower():
            continue
        # The sentence whole, or ended early at a clause so it still reads whole.
        fitting = whole_sentence(sentence, limit - len(text) - 1)
        if fitting and fitting.rstrip(".").lower() not in text.lower():
            return f"{text.rstrip()} {fitting}".strip()
    return text


def mentioned(text: str, sentence: str, *, is_name: bool, limit: int) -> str | None:
    """The text saying `sentence` too; the text itself when it already does; None when it
    cannot be said within `limit` without cutting it."""
    sentence = " ".join(sentence.split())
    if not sentence or _key(sentence) in _said(text) or sentence.rstrip(".").lower() in text.lower():
        return text
    if is_name:
        phrase = sentence.rstrip(".")
        joined = f"{text.rstrip(' .')}{DASH}{phrase}"
        return joined if len(joined) <= limit else None
    parts = [s.strip() for s, _ in sentences(text) if s.strip()]
    # Earlier sentences give way from the end, the first kept: the new one reads whole.
    while parts:
        joined = " ".join([*parts, sentence])
        if len(joined) <= limit:
            return joined
        if len(parts) == 1:
            break
        parts.pop()
    return sentence if len(sentence) <= limit and not parts else None


def removed(text: str, words: str, *, is_name: bool) -> str:
    """The text without what mentions `words`: the sentences, or in a name-like field the words themselves."""
    if not words.strip():
        return text
    if is_name:
        out = _whole_words(words).sub("", text)
        return " ".join(out.replace(" ,", ",").split()).strip(" ,;:-–—")
    kept = [s.strip() for s, _ in sentences(text) if s.strip() and not _whole_words(words).search(s)]
    return " ".join(kept)


def replaced(text: str, old: str, new: str) -> str:
    """The text with `old` (whole words, any case) replaced by `new`, a capital kept where one stood."""
    def swap(match: re.Match) -> str:
        found = match.group(0)
        return new[:1].upper() + new[1:] if found[:1].isupper() and not new[:1].isupper() else new
    return _whole_words(old).sub(swap, text)


# Word swaps per tone: (words, in their place). Whole words, any case; applied in order.
_TONE_SWAPS = {
    FRIENDLY: (("do not", "don't"), ("does not", "doesn't"), ("is not", "isn't"), ("are not", "aren't"),
               ("cannot", "can't"), ("you will", "you'll"), ("we are", "we're"),
               ("you are", "you're"), ("we will", "we'll"), ("purchase", "buy"), ("purchases", "buys"),
               ("receive", "get"), ("assist", "help"), ("utilize", "use"), ("additionally", "plus"),
               ("however", "but")),
    PLAIN: (("utilize", "use"), ("purchase", "buy"), ("additionally", "also"), ("in order to", "to"),
            ("really ", ""), ("very ", ""), ("truly ", ""), ("incredibly ", ""), ("absolutely ", ""),
            ("amazing", "good"), ("stunning", "good-looking"), ("ultimate", "complete"), ("luxurious ", ""),
            ("premium ", ""), ("!", ".")),
    PREMIUM: (("don't", "do not"), ("doesn't", "does not"), ("can't", "cannot"), ("it's", "it is"),
              ("you'll", "you will"), ("cheap", "affordable"), ("cheaper", "more affordable"), ("deal", "offer"),
              ("stuff", "essentials"), ("nice", "refined"), ("great", "exceptional"), ("Just write", "Write"),
              ("!", ".")),
}


def toned(text: str, tone: str, *, is_name: bool) -> str:
    """The text with its tone's word swaps; a name-like field keeps its words (a name is no tone)."""
    if is_name and tone != FRIENDLY:
        return text
    for words, instead in _TONE_SWAPS.get(tone, ()):
        if words == "!":
            text = re.sub(r"!+", ".", text)
        elif words.endswith(" "):
            text = re.sub(rf"\b{re.escape(words.strip())}\s+", instead, text, flags=re.IGNORECASE)
        else:
            text = replaced(text, words, instead)
    return " ".join(text.split())


def as_sentence(words: str) -> str:
    """A founder's phrase as a sentence of copy: "free returns within 30 days" -> "Free returns within 30 days."."""
    words = " ".join(words.split()).strip(" ,;:")
    if not words:
        return ""
    words = re.sub(r"^(?:that\s+)?(?:it\s+)(?=(?:ships|has|comes|is|arrives|holds|fits|works)\b)", "It ", words,
                   flags=re.IGNORECASE)
    words = re.sub(r"^that\s+", "", words, flags=re.IGNORECASE)
    words = words[0].upper() + words[1:]
    return words if words.endswith((".", "!", "?")) else words + "."


_NAMED_POLICY = re.compile(r"^(?:the\s+|our\s+|your\s+|its\s+)?(?P<topic>guarantee|warranty|return\s+policy|returns"
                           r"(?:\s+policy)?|shipping(?:\s+times?)?|delivery(?:\s+times?)?|where\s+(?:we|it)\s+ships?)$",
                           re.IGNORECASE)
_NAMED_PRICE = re.compile(r"^(?:the\s+|our\s+|its\s+|your\s+)?(?:price|cost|pricing|low\s+price)$", re.IGNORECASE)
# A policy named by its topic, and the words its stated sentence says it with.
_TOPIC_WORDS = {"guarantee": ("guarantee", "warranty"), "warranty": ("guarantee", "warranty"), "return": ("return",),
                "shipping": ("arrive", "dispatch"), "delivery": ("arrive", "dispatch"),
                "where": ("ship to",)}


def mention_sentence(words: str, *, price: str, statements: tuple[str, ...] = ()) -> str:
    """The sentence a "mention ..." adds: the price as a shopper reads it for "the price", the
    founder's stated policy for "the guarantee" / "returns" / "shipping times" ("" when they
    have stated none), else the founder's own words as a sentence."""
    if _NAMED_PRICE.match(words.strip()):
        return f"Yours for {price}." if price else ""
    if named := _NAMED_POLICY.match(words.strip()):
        first = named["topic"].split()[0].lower()
        said = _TOPIC_WORDS.get(first) or _TOPIC_WORDS.get(first.rstrip("s"), (first,))
        return next((s for s in statements if any(w in s.lower() for w in said)), "")
    return as_sentence(words)


def sentence_to_mention(words: str, facts) -> str:
    """The sentence a "mention ..." adds for the facts' product (mention_sentence); Refused
    `editor_unavailable` when it names a policy the founder has not stated (nothing to say)."""
    sentence = mention_sentence(words, price=price_text(facts), statements=tuple(facts.statements))
    if not sentence:
        raise Refused("editor_unavailable", f"You have not stated {words} yet, so there is nothing to mention: say "
                                            "it in your own words (“mention a 30-day money-back guarantee”) or "
                                            "state it in your business settings.")
    return sentence


def more_sentences(facts) -> tuple[str, ...]:
    """The sentences a longer text may add: the product's own description, then what its evidence backs."""
    described = " ".join(str(facts.product.get("description") or "").split())
    return (*(s.strip() for s, _ in sentences(described) if s.strip()), *facts.demand)


def cut_off(before: str, after: str, name: str) -> str | None:
    """Why `after` (a field as a model rewrote it) does not read whole, or None: it ends with
    an ellipsis `before` did not, it ends mid-word, or it ends with the product's name cut to
    its first words ("Acacia Wood Magnetic" of "Acacia Wood Magnetic Knife Strip")."""
    text = " ".join(after.split())
    if text.endswith(("…", "...")) and not before.rstrip().endswith(("…", "...")):
        return f"“{text[-60:]}” ends cut off with an ellipsis"
    words = re.findall(r"[^\W_]+", text)
    known = {w.lower() for w in re.findall(r"[^\W_]+", f"{before} {name}")}
    if words and words[-1].lower() not in known and any(k.startswith(words[-1].lower()) for k in known):
        return f"“{text[-60:]}” ends mid-word"
    core = name_core(name).split()
    tail = text.rstrip(" .,;:!?–—-").lower()
    for count in range(len(core) - 1, 1, -1):
        head = " ".join(core[:count]).lower()
        if tail.endswith(head):
            return f"“{text[-60:]}” cuts the product's name “{' '.join(core)}” after “{' '.join(core[:count])}”"
    return None


def _whole_words(words: str) -> re.Pattern:
    return re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words.split()) + r"(?!\w)", re.IGNORECASE)


def _key(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence.lower()))


def _said(text: str) -> set[str]:
    return {_key(s) for s, _ in sentences(text) if s.strip()}


def not_whole(before: dict, after: dict, name: str) -> list[str]:
    """Each text field of `after` (a flat {field: text}) that a rewrite left not reading whole,
    in words a model can act on when it is asked again."""
    return [f"{field}: {why}" for field, text in after.items()
            if isinstance(text, str) and text != before.get(field)
            and (why := cut_off(str(before.get(field) or ""), text, name))]
