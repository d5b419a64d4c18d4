"""The unbacked-claim filter: a sentence the facts cannot back is removed and reported.

Every string of an answer is split into sentences (at . ! ? or … followed by a space and
not by a lowercase letter, and at line breaks). A sentence is dropped, with the first
of these reasons that applies (`why`):

- `number`: it holds a number that the facts do not. Numbers are digit runs with an
  optional decimal part and thousands commas ("2,000" is 2000, "16.990" is 16.99), so a
  price, "15%", "30-day" and "#1" all count. An ISO date (2026-08-16) must be one of the
  facts' dates. Spelled-out amounts (two to ninety, hundred, thousand, million, dozen,
  and their plurals; "one" is left alone, it is mostly a pronoun) count too, backed
  when the facts use the same word or its value. The facts' numbers are every number
  value in the shareable facts (product record, evidence rows, offer price, business),
  every number written in their text, and the year of each of their dates; nothing is
  computed from them (a count of evidence rows, a rounded price or a difference is not
  backed).
  The seller's private figures back nothing (see shareable()): of the offer only the
  price and its currency count, and the product record's cost, rank and supplier_*
  fields do not; private evidence readings (a supplier quote, any money) are never in
  the facts at all (the services leave them out: services/ai_facts.py). So a sentence
  quoting a margin is dropped, and the offer's settings (a 30 % target margin, the 100
  of its formulas) cannot make "30-day returns" or "100% satisfaction" look backed.
- `certification`: it names a certification, quality mark or regulated claim from
  CERTIFICATIONS below (certified, FDA, CE mark, ISO, organic, BPA-free, vegan, ...)
  that the facts' text does not name the same way.
- `origin`: it claims where the product comes from: "made/designed/manufactured/
  produced/assembled/crafted/grown/printed/sewn/engineered/developed in <Place>" (a
  capitalised place), "sourced/imported/shipped/ships/dispatched from <anything>",
  "<Demonym>-made" (German-made), "origin: X", or handmade, handcrafted, homemade,
  artisan, locally made. It is backed only when the facts' text makes the same claim
  about the same place ("made in Portugal" backs "Made in Portugal", not "Made in Spain"
  nor "Designed in Portugal").

The founder's statements of their own policy (Facts.statements: "Free returns within 30
days of delivery.") are theirs to state, so their numbers and spelled-out numbers back a
sentence as the facts' own do ("30-day returns" is backed once the founder states a
30-day window). Their words back nothing else: a statement is not a certification, an
origin or a product's record, so what it says is left out of the facts' text below, and a
claim about how the product sells ("10,000 sold") still needs a number the facts hold.

The facts' text is every string in them except identifiers and addresses (product_id,
images, image, url, urls), matched without regard to case. Deliberately not caught:
origin adjectives ("Italian leather"), superlatives ("the best") and vague praise; the
prompt asks the model not to write them, and the filter keeps to what it can decide. A
number is matched as a value, not in its context: "holds 12 knives" is backed by a 12
anywhere in the facts.

A string that is empty or shorter than its schema minimum once its unbacked sentences
are gone takes the offline copywriter's text instead; in an array of records (benefits,
faq) the whole record is replaced by the offline record at its place, so a question never
gets another question's answer, or left out when the offline copy has none there (the
offline copy always has the array's minimum). Either way every removed sentence is
reported in `dropped` as {field, sentence, why}.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

NUMBER, CERTIFICATION, ORIGIN = "number", "certification", "origin"

# What a model writing public copy (a store page, an ad, a generated page) is asked of the evidence.
SPEAK_TO_THE_BUYER = ("Speak to the buyer: the evidence rows are the seller's research, so state none of their "
                      "figures, ranks or sources (no search or view counts, best-seller ranks, review counts of other "
                      "listings); at most say that shoppers are looking for the product.")

# Identifiers and addresses: a digit in an image file name backs nothing.
NOT_FACT_TEXT = frozenset({"product_id", "images", "image", "url", "urls"})
# The seller's own figures: copy must never show them, so they back nothing, and a model
# is never shown them (a hosted one would learn the founder's costs and margins).
PRIVATE_PRODUCT_FIELDS = frozenset({"cost", "rank"})
PUBLIC_OFFER_FIELDS = ("price", "currency")

ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1000000,
    "billion": 1000000000, "dozen": 12,
}
NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")(?:s)?\b", re.IGNORECASE)
WORD = re.compile(r"[a-z]+")

# (what it is, pattern). Separators inside a term may be a space, a hyphen or nothing.
# Acronyms are matched in capitals only, so "ce" or "iso" inside ordinary words never count.
_I = re.IGNORECASE
CERTIFICATIONS = [(name, re.compile(pattern, flags)) for name, pattern, flags in [
    ("certified", r"\bcertifi(?:ed|cation|cations)\b", _I),
    ("FDA", r"\bFDA\b", _I),
    ("CE mark", r"\bCE\b", 0),
    ("ISO", r"\bISO\b", 0),
    ("UL listed", r"\bUL[\s-]?(?:listed|certified)\b", 0),
    ("FCC", r"\bFCC\b", 0),
    ("RoHS", r"\bRoHS\b", _I),
    ("organic", r"\borganic\b", _I),
    ("BPA-free", r"\bBPA\b", _I),
    ("non-toxic", r"\bnon[\s-]?toxic\b", _I),
    ("hypoallergenic", r"\bhypo[\s-]?allergenic\b", _I),
    ("dermatologist-tested", r"\bdermatologist", _I),
    ("clinically proven", r"\bclinical(?:ly)?\b", _I),
    ("lab-tested", r"\blab(?:oratory)?[\s-]?tested\b", _I),
    ("professional endorsement", r"\b(?:vet|veterinarian|doctor|dentist|pa?ediatrician)[\s-]?(?:approved|recommended)\b", _I),
    ("medical-grade", r"\bmedical[\s-]?grade\b", _I),
    ("food-grade", r"\bfood[\s-]?grade\b", _I),
    ("FSC", r"\bFSC\b", 0),
    ("OEKO-TEX", r"\boeko[\s-]?tex\b", _I),
    ("GOTS", r"\bGOTS\b", 0),
    ("vegan", r"\bvegan\b", _I),
    ("cruelty-free", r"\bcruelty[\s-]?free\b", _I),
    ("fair trade", r"\bfair[\s-]?trade\b", _I),
    ("gluten-free", r"\bgluten[\s-]?free\b", _I),
    ("non-GMO", r"\bnon[\s-]?GMO\b", _I),
    ("energy star", r"\benergy[\s-]?star\b", _I),
    ("patented", r"\bpatent(?:ed|s)?\b", _I),
    ("award-winning", r"\baward", _I),
    ("eco-friendly", r"\beco[\s-]?friendly\b", _I),
    ("sustainable", r"\bsustainabl[ey]\b", _I),
    ("biodegradable", r"\bbiodegradable\b", _I),
    ("compostable", r"\bcompostable\b", _I),
    ("recyclable", r"\brecyclable\b", _I),
]]

_IN_VERBS = r"made|designed|manufactured|produced|assembled|crafted|grown|printed|sewn|engineered|developed"
_FROM_VERBS = r"sourced|imported|shipped|ships|dispatched"
_DEMONYM = r"[A-Z][a-z]+(?:an|ese|ish|ch|ss|ic|i)"
_CRAFT = r"hand[\s-]?made|hand[\s-]?crafted|home[\s-]?made|artisan(?:al)?|locally[\s-]?(?:made|sourced|produced)"


def _origin_patterns(place: str) -> list[re.Pattern]:
    """The origin claims; `place` is how a place name looks (capitalised in copy, anything in facts)."""
    return [
        re.compile(rf"\b(?i:({_IN_VERBS})\s+in)\s+(?i:the\s+)?({place})"),
        re.compile(rf"\b(?i:({_FROM_VERBS})\s+from)\s+(?i:the\s+)?([\w'.-]+)"),
        re.compile(r"\b(?i:(origin))\s*:\s*(?i:the\s+)?([\w'.-]+)"),
        re.compile(rf"\b({_DEMONYM})[\s-](?i:(made|built|crafted|designed|engineered))\b"),
        re.compile(rf"\b(?i:({_CRAFT}))\b"),
    ]


ORIGIN_IN_COPY = _origin_patterns(r"[A-Z][\w'.-]*")
ORIGIN_IN_FACTS = [re.compile(p.pattern, re.IGNORECASE) for p in _origin_patterns(r"[\w'.-]+")]

# Abbreviations that never end a sentence ("No." and "etc." often do, so they are not here).
ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "approx", "incl", "mr", "mrs", "ms", "dr"})
SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*\s+(?![\sa-z])|\n+")


@dataclass(frozen=True)
class FactIndex:
    """What the facts can back: their numbers, dates, spelled-out numbers, text and origin claims."""

    numbers: frozenset
    dates: frozenset
    words: frozenset
    text: str
    origins: frozenset


def public_backing(facts):
    """The facts a public sentence (a store page, an ad, a generated page) may lean on: all
    but the evidence, the seller's research. A figure found only in the evidence rows is
    then a number the facts do not hold, so the filter drops the sentence that would show
    it to shoppers. What the evidence backs in a shopper's words (`demand`) stays."""
    return dataclasses.replace(facts, evidence=[])


def shareable(facts) -> dict:
    """The facts without the seller's private figures: what a model is shown and what may back a sentence."""
    return {
        "product": {k: v for k, v in facts.product.items()
                    if k not in PRIVATE_PRODUCT_FIELDS and not str(k).startswith("supplier")},
        # Already without the seller's private readings (a unit cost, a supplier quote, any
        # price): which readings those are is a domain rule, decided where the facts are built
        # (services/ai_facts.py).
        "evidence": list(facts.evidence),
        "offer": None if facts.offer is None else {k: facts.offer.get(k) for k in PUBLIC_OFFER_FIELDS},
        "business": dict(facts.business),
        # The founder's policy, as they stated it (services/founder_statements.py).
        "statements": list(facts.statements),
    }


def index(facts) -> FactIndex:
    """Collects from the facts everything a sentence may lean on."""
    numbers: set[Decimal] = set()
    dates: set[str] = set()
    strings: list[str] = []
    shared = shareable(facts)
    policy = shared.pop("statements")
    _walk(shared, numbers, dates, strings)
    text = "\n".join(strings)
    origins = {_origin_key(m) for pattern in ORIGIN_IN_FACTS for m in pattern.finditer(text)}
    # The founder's policy backs its own figures ("30 days", "three to five"), never a
    # certification or an origin: its words stay out of `text`.
    stated: list[str] = []
    _walk(policy, numbers, dates, stated)
    words = WORD.findall("\n".join([text, *stated]).lower())
    return FactIndex(frozenset(numbers), frozenset(dates), frozenset(words), text, frozenset(origins))


def _walk(value, numbers: set, dates: set, strings: list) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in NOT_FACT_TEXT:
                _walk(item, numbers, dates, strings)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, numbers, dates, strings)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float, Decimal)):
        number = _decimal(str(value))
        if number is not None:
            numbers.add(number)
    elif isinstance(value, (date, datetime)):
        _walk(value.isoformat(), numbers, dates, strings)
    else:
        text = str(value)
        strings.append(text)
        found_dates, numbers_in_text = _numbers(text)
        dates.update(found_dates)
        numbers.update(numbers_in_text)
        numbers.update(Decimal(day[:4]) for day in found_dates)


def _decimal(raw: str) -> Decimal | None:
    try:
        number = Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _numbers(text: str) -> tuple[list[str], list[Decimal]]:
    """The ISO dates in a text, and its other numbers."""
    found_dates = [m.group(0) for m in ISO_DATE.finditer(text)]
    rest = ISO_DATE.sub(" ", text)
    return found_dates, [n for n in (_decimal(m.group(0)) for m in DIGITS.finditer(rest)) if n is not None]


def _origin_key(match: re.Match) -> tuple[str, str]:
    groups = [g for g in match.groups() if g]
    # "Portugal." at a sentence's end is the same place as "Portugal" inside one.
    squashed = [re.sub(r"[\s-]", "", g.lower()).strip(".'") for g in groups]
    return (squashed[0], squashed[1] if len(squashed) > 1 else "")


# A tag of the About text's markup (render.ABOUT_TAGS): its attributes (a link's address) are
# not words a shopper reads, so a digit in an address claims nothing.
MARKUP_TAG = re.compile(r"<[^<>]*>")


def why_unbacked(sentence: str, facts: FactIndex) -> str | None:
    """Why the facts cannot back this sentence (number, certification or origin), or None."""
    sentence = MARKUP_TAG.sub(" ", sentence)
    found_dates, numbers = _numbers(sentence)
    if any(day not in facts.dates for day in found_dates) or any(n not in facts.numbers for n in numbers):
        return NUMBER
    for match in NUMBER_WORD.finditer(sentence):
        word = match.group(1).lower()
        if word not in facts.words and Decimal(NUMBER_WORDS[word]) not in facts.numbers:
            return NUMBER
    for _, pattern in CERTIFICATIONS:
        if pattern.search(sentence) and not pattern.search(facts.text):
            return CERTIFICATION
    for pattern in ORIGIN_IN_COPY:
        for match in pattern.finditer(sentence):
            if _origin_key(match) not in facts.origins:
                return ORIGIN
    return None


def sentences(text: str) -> list[tuple[str, str]]:
    """Splits a text into (sentence, the whitespace after it); joined back they give the text."""
    parts: list[tuple[str, str]] = []
    start = 0
    for match in SENTENCE_END.finditer(text):
        end = match.start() + len(match.group(0).rstrip())
        before = text[start:end].rsplit(None, 1)[-1].rstrip(".").lower() if text[start:end].strip() else ""
        if match.group(0).strip() and before in ABBREVIATIONS:
            continue
        parts.append((text[start:end], text[end:match.end()]))
        start = match.end()
    if start < len(text):
        parts.append((text[start:], ""))
    return parts


def without_unbacked(text: str, field: str, facts: FactIndex, dropped: list[dict]) -> str:
    """The text without its unbacked sentences (unchanged when all are backed); records each one removed."""
    parts = sentences(text)
    kept = []
    for sentence, gap in parts:
        why = why_unbacked(sentence, facts) if sentence.strip() else None
        if why:
            dropped.append({"field": field, "sentence": sentence.strip(), "why": why})
        else:
            kept.append((sentence, gap))
    if len(kept) == len(parts):
        return text
    return "".join(sentence + gap for sentence, gap in kept).strip()


def filter_copy(copy: dict, facts, fallback: dict, schema: dict) -> tuple[dict, list[dict]]:
    """Returns the copy without unbacked sentences (falling back to the offline copy where a field
    would no longer validate) and the list of sentences dropped."""
    backed = index(facts)
    dropped: list[dict] = []
    result: dict = {}
    for key, rule in schema["properties"].items():
        if rule["type"] == "string":
            text = without_unbacked(copy[key], key, backed, dropped)
            result[key] = text if text == copy[key] or _fits(text, rule) else fallback[key]
        elif rule["type"] == "array" and rule["items"]["type"] == "object":
            result[key] = _filter_records(copy[key], key, rule["items"], fallback[key], backed, dropped)
        else:
            raise ValueError(f"the claim filter does not know how to read {key!r}")
    return result, dropped


def _filter_records(records: list, key: str, rule: dict, fallback: list, backed: FactIndex,
                    dropped: list[dict]) -> list:
    kept = []
    for position, record in enumerate(records):
        cleaned, whole = {}, True
        for name, field_rule in rule["properties"].items():
            cleaned[name] = without_unbacked(record[name], f"{key}[{position}].{name}", backed, dropped)
            whole = whole and (cleaned[name] == record[name] or _fits(cleaned[name], field_rule))
        if whole:
            kept.append(cleaned)
        elif position < len(fallback):
            kept.append(fallback[position])
    return kept


def _fits(text: str, rule: dict) -> bool:
    return bool(text.strip()) and rule.get("minLength", 0) <= len(text) <= rule.get("maxLength", len(text))
