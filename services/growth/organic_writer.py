"""The `organic_research` kind of AI task: its schema, its offline writer and its finish.

An answer is one campaign per platform asked for, each with an angle that fits the
platform's format and a few post ideas; every post idea cites the product facts or the
dated evidence rows behind it. The task's instructions carry the platforms and the
founder's question (`instructions_for`), so a model and the offline writer read the same
request.

The offline writer is deterministic (no clock, no network, no random source): the
question picks the angle (`THEMES`: a gift, a routine, a small space, a budget, a how-to,
else the question's own words), the platform picks the formats, and every sentence is
written from the facts: the product's name, category, description and price, and what the
evidence backs in a shopper's words (Facts.demand: "More and more shoppers are looking for
<product>.", services/ai_facts.py). A post is written for shoppers to see, so it tells none
of the founder's research (no search counts, ranks, view or review counts, no research
source); the research shows in its cites instead (the newest reading of each demand series
that backs the line), where the founder reads it. It writes no number word and no claim the
facts do not hold, so the claim filter drops none of its sentences.

The finish (what the seam does with any answer, a model's or the offline writer's) keeps
one campaign per platform asked for, removes every sentence the facts cannot back
(integrations/ai/claims.py), resolves each cite against the facts (its value, date and
source are the facts', never the answer's; a cite of nothing in the facts is removed),
keeps only post ideas that still have text and a cite, and puts the offline writer's
campaign in place of one left with no post idea.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from integrations.ai import claims
from integrations.ai.schemas import record
from integrations.ai.task import Facts, Task
from integrations.copy_text import cut, price_text
from services import evidence_kinds as kinds
from services.ai_facts import product_name
from services.store.proof import backing_readings

KIND = "organic_research"
PLATFORMS = ("tiktok", "instagram", "youtube", "pinterest", "reddit", "x")
# Where shoppers come across products they did not search for; YouTube Shorts takes the
# same videos as TikTok, and Reddit and X reward conversation more than a product shown.
DEFAULT_PLATFORMS = ("tiktok", "instagram", "pinterest")
PLATFORM_NAMES = {"tiktok": "TikTok", "instagram": "Instagram", "youtube": "YouTube", "pinterest": "Pinterest",
                  "reddit": "Reddit", "x": "X"}
# The product record's fields a post may cite: what a shopper may be told (never cost or rank).
CITABLE_FIELDS = ("name", "description", "category", "price", "currency")
MAX_POSTS = 5
# Research rows a post cites for its shopper line: with the name, description, category and
# price it stays within the schema's 8 cites.
MOST_PROOF_CITES = 3


def _text(low: int, high: int, description: str) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high, "description": description}


CITE = record({
    "kind": {"enum": ["product", "evidence"], "description": "a field of the product record or a dated evidence row"},
    "field": _text(1, 40, "for kind product: the record's field (name, description, category, price)"),
    "metric": _text(1, 120, "for kind evidence: the row's metric"),
    "date": _text(10, 10, "for kind evidence: the row's date (YYYY-MM-DD)"),
    "source": _text(0, 120, "for kind evidence: the row's source"),
    "value": {"type": ["string", "number"], "description": "the cited value, as the facts hold it"},
}, optional=("field", "metric", "date", "source", "value"))

ORGANIC_RESEARCH = record({
    "campaigns": {"type": "array", "minItems": 1, "maxItems": len(PLATFORMS),
                  "description": "one campaign per platform asked for",
                  "items": record({
                      "platform": {"enum": list(PLATFORMS)},
                      "angle": _text(10, 300, "the campaign's angle, fitting the platform's format and the question"),
                      "posts": {"type": "array", "minItems": 1, "maxItems": MAX_POSTS, "items": record({
                          "format": _text(2, 40, "the post's format on the platform (short video, carousel, pin...)"),
                          "text": _text(10, 1500, "the post idea, ready to adapt: hook, what to show, caption"),
                          "cites": {"type": "array", "minItems": 1, "maxItems": 8, "items": CITE,
                                    "description": "the facts the post rests on"},
                      })},
                  })},
})

ASKS = ("Research unpaid social media campaigns for this product: for each platform named in the instructions, one "
        "campaign with an angle that fits the platform's format (TikTok and YouTube: short video hooks; Instagram: "
        "reels and carousels; Pinterest: pins; Reddit: discussion posts that follow the community's rules, say you "
        "sell it and never hard-sell; X: threads) and the founder's question leading the angle, and a few post "
        "ideas, each citing the product fields or dated evidence rows it rests on. Nothing will be posted. The "
        "angle and the posts are read by shoppers: " + claims.SPEAK_TO_THE_BUYER + " The cites are the founder's.")


def instructions_for(query: str, platforms: list[str]) -> str:
    """The task's instructions: the platforms on the first line, then the founder's question."""
    return f"Platforms: {', '.join(platforms)}\nQuestion: {query}"


def request_of(task: Task) -> tuple[list[str], str]:
    """The platforms and the question of a task's instructions."""
    first, _, rest = task.instructions.partition("\n")
    named = [p.strip() for p in first.removeprefix("Platforms:").split(",")]
    platforms = [p for p in named if p in PLATFORMS] or list(DEFAULT_PLATFORMS)
    return platforms, rest.removeprefix("Question:").strip()


# --- What the question is about ------------------------------------------------------------

THEMES = (  # (key, words of a question that pick it, the lead of the angle, the opening hook)
    ("gift", ("gift", "gifts", "present", "presents", "christmas", "xmas", "holiday", "holidays", "birthday",
              "valentine", "valentines", "mother", "father", "secret", "santa", "stocking"),
     "A gift idea", "Still looking for a gift that gets used every day?"),
    ("routine", ("routine", "routines", "morning", "mornings", "daily", "habit", "habits", "evening", "night",
                 "everyday", "ritual", "day"),
     "Part of a daily routine", "This is the part of my routine I did not know I needed."),
    ("space", ("space", "small", "apartment", "apartments", "organize", "organise", "organizing", "organising",
               "declutter", "decluttering", "storage", "tidy", "clutter", "dorm", "rental", "renters"),
     "Small spaces, tidied", "Short on space? Watch this."),
    ("budget", ("budget", "cheap", "affordable", "deal", "deals", "save", "saving", "price", "cost", "value"),
     "An upgrade on a budget", "A small upgrade that does not cost much."),
    ("howto", ("how", "tutorial", "tutorials", "use", "using", "setup", "install", "tips", "guide", "hack", "hacks"),
     "How to use it", "Here is how to get the most out of it."),
)
STOP = frozenset("a about an and are as at be best by can do does for from get how i in is it me my of on or our should "
                 "so that the this to we what when where which who why will with you your post posts content ideas "
                 "idea organic social media campaign campaigns".split())


def theme_of(query: str) -> tuple[str, str, str]:
    """The question's theme: (key, lead of the angle, hook). A question of no known theme leads
    with its own words (letters only: a number or a claim in it is not the facts')."""
    words = re.findall(r"[a-z]+", query.lower())
    for key, triggers, lead, hook in THEMES:
        if set(words) & set(triggers):
            return key, lead, hook
    # The question's own words in its order, without the filler around them ("posts about ... for me").
    while words and words[0] in STOP:
        words.pop(0)
    while words and words[-1] in STOP:
        words.pop()
    topic = cut(" ".join(words), 60, "")
    if topic:
        return "topic", topic[:1].upper() + topic[1:], f"Thinking about {topic}? Here is where this comes in."
    return "product", "Meet the product", "You have probably never seen one of these up close."


# --- What the facts let a post say ---------------------------------------------------------

def _proof(facts: Facts) -> tuple[str, list[dict]]:
    """(line, cites): what the evidence backs in a shopper's words (Facts.demand) and the rows
    behind it, the newest reading of each demand series that backs the line on its own
    (services/store/proof.py decides which do), newest first; ("", []) when nothing backs it."""
    name = product_name(facts.product)
    if not facts.demand or not name:
        return "", []
    shown = claims.shareable(facts)["evidence"]
    cites = [{"kind": "evidence", **r.cite()} for r in backing_readings(shown)[:MOST_PROOF_CITES]]
    return (facts.demand[0], cites) if cites else ("", [])


def _product_cite(facts: Facts, field: str) -> dict:
    return {"kind": "product", "field": field, "value": facts.product.get(field)}


def _tag(text: str) -> str:
    return "#" + re.sub(r"[^a-z]", "", text.lower())


def write(task: Task) -> dict:
    """The offline writer: one campaign per platform asked for, each with post ideas citing the facts."""
    platforms, query = request_of(task)
    return {"campaigns": [campaign(task.facts, platform, query) for platform in platforms]}


def campaign(facts: Facts, platform: str, query: str) -> dict:
    """The offline writer's campaign for one platform."""
    told = _told(facts, query)
    angle, posts = _PLATFORM_WRITERS.get(platform, _x_campaign)(told, platform)
    return {"platform": platform, "angle": cut(angle, 300), "posts": posts}


@dataclass(frozen=True)
class _Told:
    """What one campaign may say, read once from the facts and the question; every platform's
    posts are put together from these lines and cite the facts they come from."""

    name: str
    category: str
    key: str  # the question's theme (theme_of)
    lead: str
    hook: str
    show: str  # the first sentence of the description (or the product, up close)
    more: str  # the second (or the first again)
    proof: str  # what the evidence backs in a shopper's words, "" when nothing backs it
    costs: str  # "It costs $34.99." or ""
    tags: str
    asks: str  # the question a post asks its community
    c_name: dict
    c_desc: dict
    c_price: dict
    c_category: dict
    c_proof: list  # the research rows behind `proof` (none when it is "")
    priced: list  # [c_price] when the price is known, else []


def _told(facts: Facts, query: str) -> _Told:
    name = " ".join(str(facts.product.get("name") or "").split()) or "this product"
    category = " ".join(str(facts.product.get("category") or "").split())
    described = [s.strip() for s, _ in claims.sentences(" ".join(str(facts.product.get("description") or "").split()))
                 if s.strip()]
    key, lead, hook = theme_of(query)
    price = price_text(facts)
    proof, c_proof = _proof(facts)
    show = described[0] if described else f"The {name}, up close."
    c_price = _product_cite(facts, "price")
    return _Told(name=name, category=category, key=key, lead=lead, hook=hook, show=show,
                 more=described[1] if len(described) > 1 else show, proof=proof,
                 costs=f"It costs {price}." if price else "", tags=_tags(category, name, key),
                 asks=_community_question(key, lead), c_name=_product_cite(facts, "name"),
                 c_desc=_product_cite(facts, "description"), c_price=c_price,
                 c_category=_product_cite(facts, "category"), c_proof=c_proof,
                 priced=[c_price] if price else [])


def _tags(category: str, name: str, key: str) -> str:
    """The hashtags: the category, the last word of the name's first part, and the theme (a
    known one: a question's own words make no tag). Too short a tag says nothing."""
    return " ".join(dict.fromkeys(t for t in (_tag(category), _tag(name.split(",")[0].split()[-1]),
                                                "#" + key if key not in ("topic", "product") else "") if len(t) > 2))


def _community_question(key: str, lead: str) -> str:
    """What a post asks its viewers or community, by the question's theme."""
    return {"gift": "What is the most useful gift you have been given for the home?",
            "routine": "What small thing made your daily routine easier?",
            "space": "How do you keep a small space tidy?",
            "budget": "What small upgrade was worth it for you?",
            "howto": "What tips do you have for setting one of these up?"}.get(
        key, f"Any tips for {lead[:1].lower() + lead[1:]}?" if key == "topic" else "What do you use for this?")


def _post(fmt: str, lines: list[str], cites: list[dict | None], *, gap: str = "\n") -> dict:
    """A post idea: its lines that have something to say (a line left as a bare label, such as
    "Caption: ", is dropped), and each fact it cites once."""
    text = gap.join(line for line in lines if line and not line.endswith(": "))
    kept = []
    for cite in cites:
        if cite is not None and cite not in kept:
            kept.append(cite)
    return {"format": fmt, "text": cut(text, 1500), "cites": kept}


# --- Each platform's campaign: (angle, post ideas) in its own formats ----------------------------

def _short_video_campaign(t: _Told, platform: str) -> tuple[str, list[dict]]:
    """TikTok and YouTube (Shorts): vertical videos that hook in the first seconds."""
    short = "YouTube Short" if platform == "youtube" else "TikTok video"
    angle = f"{t.lead}: short vertical videos of the {t.name} that hook in the first seconds, then show it in use."
    return angle, [
        _post("short video: hook", [f"Hook: {t.hook}", f"Show: {t.show}", f"On-screen text: {t.name}",
                                    f"Caption: {t.costs} {t.tags}".strip()], [t.c_name, t.c_desc, *t.priced]),
        _post("short video: demo", [f"Hook: {t.proof}" if t.proof else f"Hook: {t.hook}", f"Show: {t.more}",
                                    f"Caption: {t.lead}: the {t.name}. {t.tags}"], [t.c_name, t.c_desc, *t.c_proof]),
        _post("short video: question", [f"Hook: Would you use this? {t.name}.", f"Show: {t.show}",
                                        f"Ask viewers: {t.asks}",
                                        f"Caption: {short} for {t.category or 'everyday'} ideas."],
              [t.c_name, t.c_desc, t.c_category]),
    ]


def _instagram_campaign(t: _Told, platform: str) -> tuple[str, list[dict]]:
    """Instagram: reels, a carousel that explains slide by slide, and a story poll."""
    angle = f"{t.lead}: reels that show the {t.name} in use and carousels that explain it slide by slide."
    return angle, [
        _post("reel", [f"Hook: {t.hook}", f"Show: {t.show}", f"Caption: {t.lead}: the {t.name}. {t.costs} {t.tags}"],
              [t.c_name, t.c_desc, *t.priced]),
        _post("carousel", [f"Cover slide: {t.lead}: the {t.name}", f"Slide: {t.show}", f"Slide: {t.more}",
                           f"Slide: {t.proof}" if t.proof else "", f"Last slide: {t.costs or 'Find it in our shop.'}",
                           f"Caption: Save this for later. {t.tags}"], [t.c_name, t.c_desc, *t.c_proof, *t.priced]),
        _post("story", [f"Poll: {'Who would love this as a gift' if t.key == 'gift' else 'Would you use this'}?",
                        f"Show: {t.name}", f"Sticker: {t.proof or t.costs or 'Find it in our shop.'}"],
              [t.c_name, *(t.c_proof if t.proof else t.priced)]),
    ]


def _pinterest_campaign(t: _Told, platform: str) -> tuple[str, list[dict]]:
    """Pinterest: pins people save while planning, on a board of the category."""
    board = f"{t.category} ideas" if t.category else "Ideas"
    angle = f"{t.lead}: pins that people save while planning, linking to the product page, on a {board} board."
    return angle, [
        _post("standard pin", [f"Pin title: {t.lead}: {t.name}", f"Description: {t.show} {t.costs}".strip(),
                               f"Board: {board}"], [t.c_name, t.c_desc, t.c_category, *t.priced]),
        _post("idea pin", [f"Page: {t.hook}", f"Page: {t.more}", f"Page: {t.proof}" if t.proof else "",
                           f"Board: {board}"], [t.c_name, t.c_desc, *t.c_proof, t.c_category]),
    ]


def _reddit_campaign(t: _Told, platform: str) -> tuple[str, list[dict]]:
    """Reddit: discussion posts that ask first, say the founder sells it, and never hard-sell."""
    angle = (f"{t.lead}: discussion posts that ask the community first. Follow each community's rules on sellers, "
             f"say that you sell it, post no links unless the rules allow them and never hard-sell.")
    return angle, [
        _post("discussion post", [f"Title: {t.asks}", f"Body: I sell the {t.name}, so I am biased, and I would "
                                                      f"rather hear what works for you. {t.show}",
                                  "Ask: What would you change about it?"], [t.c_name, t.c_desc]),
        _post("discussion post", [f"Title: Has anyone here tried the {t.name}?",
                                  f"Body: {t.proof}" if t.proof else f"Body: {t.more}",
                                  f"Disclosure: I sell the {t.name}; no links here."],
              [t.c_name, *(t.c_proof or [t.c_desc])]),
    ]


def _x_campaign(t: _Told, platform: str) -> tuple[str, list[dict]]:
    """X: a short thread that tells what it is for, and a single post."""
    angle = f"{t.lead}: short threads that tell what the {t.name} is for, and single posts that show it."
    return angle, [
        _post("thread", [t.hook, t.show, t.proof or t.more, f"{t.name}. {t.costs}".strip()],
              [t.c_name, t.c_desc, *t.c_proof, *t.priced], gap="\n\n"),
        _post("single post", [f"{t.lead}: {t.name}. {t.more}"], [t.c_name, t.c_desc]),
    ]


_PLATFORM_WRITERS = {"tiktok": _short_video_campaign, "youtube": _short_video_campaign,
                     "instagram": _instagram_campaign, "pinterest": _pinterest_campaign,
                     "reddit": _reddit_campaign, "x": _x_campaign}


# --- The finish: what the seam does with any answer ------------------------------------------

def finish(copy: dict, task: Task) -> tuple[dict, list[dict]]:
    """One campaign per platform asked for, without unbacked sentences, each cite resolved
    against the facts; the offline writer's campaign in place of one left with no post idea.
    The angle and the posts are shown to shoppers, so a sentence is backed by the facts without
    the research (claims.public_backing): one quoting a research figure is dropped like an
    invented one, whichever backend wrote it. The cites, the founder's, still name the research."""
    platforms, query = request_of(task)
    backed = claims.index(claims.public_backing(task.facts))
    written = {}
    for found in copy["campaigns"]:
        written.setdefault(found["platform"], found)
    dropped: list[dict] = []
    campaigns = []
    for platform in platforms:
        found = written.get(platform)
        kept = _cleaned(found, query, task.facts, backed, dropped) if found else None
        # The offline writer's campaign in its place: led by the question when the facts back
        # every word of it (a question may name a claim, "organic cotton"), else by the product.
        for fallback in (campaign(task.facts, platform, query), campaign(task.facts, platform, "")):
            kept = kept or _cleaned(fallback, query, task.facts, backed, [], whole=True)
        campaigns.append(kept or fallback)
    return {"campaigns": campaigns}, dropped


def _cleaned(found: dict, query: str, facts: Facts, backed, dropped: list[dict], *, whole: bool = False) -> dict | None:
    """The campaign without unbacked sentences and unresolved cites (None when no post idea is
    left; with `whole`, when anything had to be removed)."""
    where = f"campaigns[{found['platform']}]"
    removed: list[dict] = []
    angle = claims.without_unbacked(found["angle"], f"{where}.angle", backed, removed)
    posts = []
    for n, post in enumerate(found["posts"]):
        text = claims.without_unbacked(post["text"], f"{where}.posts[{n}].text", backed, removed)
        cites = [c for c in (resolve(cite, facts) for cite in post["cites"]) if c is not None]
        unique = [c for i, c in enumerate(cites) if c not in cites[:i]]
        if len(text.strip()) >= 10 and unique:
            posts.append({"format": post["format"], "text": text, "cites": unique})
    dropped.extend(removed)
    if not posts or (whole and (removed or len(posts) < len(found["posts"]))):
        return None
    if len(angle.strip()) < 10:
        for fallback in (campaign(facts, found["platform"], query), campaign(facts, found["platform"], "")):
            if claims.without_unbacked(fallback["angle"], "angle", backed, []) == fallback["angle"]:
                angle = fallback["angle"]
                break
    return {"platform": found["platform"], "angle": angle, "posts": posts}


def resolve(cite: dict, facts: Facts) -> dict | None:
    """The cite as the facts hold it (value, date and source are theirs), or None when it
    cites nothing a shopper may be told: an unknown or private field, a row that is not there."""
    if cite["kind"] == "product":
        field = cite.get("field")
        shown = claims.shareable(facts)["product"]
        if field not in CITABLE_FIELDS or shown.get(field) in (None, ""):
            return None
        return {"kind": "product", "field": field, "value": shown[field]}
    rows = [r for r in claims.shareable(facts)["evidence"] if kinds.reading(r) is not None
            and r.get("metric") == cite.get("metric")
            and (cite.get("date") is None or str(r.get("date"))[:10] == cite["date"])]
    if not rows:
        return None
    row = max(rows, key=lambda r: str(r.get("date")))
    return {"kind": "evidence", "metric": row["metric"], "date": str(row["date"])[:10],
            "source": str(row.get("source") or ""), "value": row["value"]}
