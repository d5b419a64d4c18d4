"""One request grammar for both editors (issue 50 point 1, issue 49 point 6): 62 requests a
founder types, each run through the store editor and the ad editor without a model, with
what each surface must show afterwards.

A row is (request, the verbs it reads as, the store's outcome, the ad's outcome). An outcome
is "refused", "same" (understood, nothing to change), "*" (something changed) or checks
joined by " & ": `field<` shorter, `field>` longer, `field~words` holds them, `field!words`
does not, `field=words` reads exactly, `field^words` starts with them, `lead=section`,
`price=amount`, `faq+1` / `faq-1`. An ad's field is checked on both platforms unless named
("google.headline<"). A shorter or longer text keeps whole words: every word it keeps is a
word it had, and a headline still ends with the product's head noun.
"""
from __future__ import annotations

import re

import pytest

from integrations import ai
from integrations.ai import offline
from services.errors import Refused
from services.growth import ad_copy
from services.plain_requests import parse
from services.store import offline_edit
from tests.ai_factories import facts_of, knife_strip, store_task

TABLE = [
    # shorten
    ("make the headline shorter", "shorten", "headline<", "headline<"),
    ("shorten the headline", "shorten", "headline<", "headline<"),
    ("The headline is too long.", "shorten", "headline<", "headline<"),
    ("Could you make the headline a bit shorter, please?", "shorten", "headline<", "headline<"),
    ("make it shorter", "shorten", "subheadline<", "primary_text<"),
    ("shorten the text", "shorten", "subheadline<", "primary_text<"),
    ("trim the description", "shorten", "about<", "google.description< & meta.description=Now $34.99"),
    ("the about text is too long", "shorten", "about<", "primary_text<"),
    ("On Google, shorten the headline", "shorten", "headline<",
     "google.headline< & meta.headline=Acacia Wood Magnetic Knife Strip"),
    ("make the Facebook headline shorter", "shorten", "headline<",
     "meta.headline< & google.headline=Wood Magnetic Knife Strip"),
    # lengthen
    ("make the headline longer", "lengthen", "same", "meta.headline> & google.headline=Wood Magnetic Knife Strip"),
    ("make the about text longer", "lengthen", "about>", "meta.primary_text>"),
    ("say more in the about text", "lengthen", "about>", "meta.primary_text>"),
    ("expand the text", "lengthen", "subheadline~Screws and wall anchors are included.",
     "meta.primary_text> & google.primary_text=A 16-inch solid acacia bar with embedded neodymium magnets. Yours for "
     "$34.99."),
    # mention
    ("mention free returns within 30 days", "mention", "subheadline~Free returns within 30 days.",
     "primary_text~Free returns within 30 days."),
    ("mention the price", "mention", "subheadline~$34.99", "primary_text~$34.99"),
    ("highlight that it ships in 3-5 days", "mention", "subheadline~It ships in 3-5 days.",
     "primary_text~It ships in 3-5 days."),
    ("add free shipping", "mention", "subheadline~Free shipping.", "primary_text~Free shipping."),
    ("mention free returns in the headline", "mention", "headline~– Free returns", "refused"),
    ("mention the guarantee", "mention", "refused", "refused"),
    ("mention that it holds up to eight knives", "mention", "subheadline~It holds up to eight knives.",
     "primary_text~It holds up to eight knives."),
    ("let customers know screws are included", "mention", "subheadline~Screws are included.",
     "primary_text~Screws are included."),
    # lead with
    ("lead with the price", "lead", "lead=price", "primary_text^Yours for $34.99."),
    ("put the price first", "lead", "lead=price", "primary_text^Yours for $34.99."),
    ("start with the questions", "lead", "lead=faq", "refused"),
    ("move the reviews to the top", "lead", "lead=reviews", "refused"),
    ("lead with the benefits", "lead", "lead=benefits", "refused"),
    ("lead with the headline", "lead", "lead=hero", "refused"),
    # tone
    ("change the tone to friendly", "tone", "about~you're", "same"),
    ("write it in a friendly tone", "tone", "about~you're", "same"),
    ("make it sound more premium", "tone", "about!Just write", "same"),
    ("use a plain tone", "tone", "same", "same"),
    ("change the tone to premium in the about text", "tone", "about!Just write", "same"),
    # replace
    ("replace 'acacia' with 'teak'", "replace", "subheadline~teak & about~teak & headline~Teak",
     "primary_text~teak & meta.headline~Teak"),
    ("say blades instead of knives", "replace", "subheadline~eight blades", "same"),
    ("swap 'Knife Strip' for 'Knife Rail'", "replace", "headline~Knife Rail", "headline~Knife Rail"),
    ("replace fast and easy with quick", "replace", "same", "same"),
    # remove
    # Every sentence about magnets would leave the search engines' description too short: refused by name.
    ("don't mention magnets", "remove", "refused", "primary_text!magnets"),
    ("don't mention magnets in the subheadline", "remove", "subheadline=", "same"),
    ("no longer mention neodymium in the about text", "remove", "about!neodymium", "primary_text!neodymium"),
    ("remove '16 in' from the headline", "remove", "headline=Acacia Wood Magnetic Knife Strip", "same"),
    ("remove the question about shipping", "remove", "faq-1", "refused"),
    ("delete the question about returns", "remove", "faq-1", "refused"),
    ("remove the question about unicorns", "remove", "refused", "refused"),
    # set
    ("change the headline to Knives off the counter", "set", "headline=Knives off the counter",
     "headline=Knives off the counter"),
    ("headline: Knives, sorted", "set", "headline=Knives, sorted", "headline=Knives, sorted"),
    ("make the headline say Sharp and tidy", "set", "headline=Sharp and tidy", "headline=Sharp and tidy"),
    ("use a Buy Now button", "set", "call_to_action=Buy Now", "call_to_action=Buy Now"),
    ("change the button to Order Now", "set", "call_to_action=Order Now", "call_to_action=Order Now"),
    ("Please make the button say Learn More", "set", "call_to_action=Learn More", "call_to_action=Learn More"),
    ("change the tagline to Hang your knives", "set", "subheadline=Hang your knives", "description=Hang your knives"),
    ("set the guarantee to We replace anything that arrives damaged.", "set",
     "guarantee=We replace anything that arrives damaged.", "refused"),
    # price, questions
    ("set the price to 24.99", "price", "price=24.99", "refused"),
    ("charge $29", "price", "price=29", "refused"),
    ("add a question: Is it dishwasher safe? No, wipe it clean.", "add_question", "refused", "refused"),
    ("remove the question about shipping and add a question: Does it fit ceramic knives? Only steel ones.",
     "remove add_question", "faq~Does it fit ceramic knives?", "refused"),
    # several at once
    ("make the headline shorter and mention free returns within 30 days", "shorten mention",
     "headline< & subheadline~Free returns within 30 days.", "headline< & primary_text~Free returns within 30 days."),
    ("shorten the text on facebook then lead with the price", "shorten lead", "subheadline< & lead=price",
     "meta.primary_text^Yours for $34.99. & google.primary_text^Yours for $34.99."),
    ("make the headline shorter; use a Buy Now button", "shorten set", "headline< & call_to_action=Buy Now",
     "headline< & call_to_action=Buy Now"),
    ("Make the headline shorter. Mention the price.", "shorten mention", "headline< & subheadline~$34.99",
     "headline< & primary_text~$34.99"),
    # outside the grammar: refused whole, nothing changed
    ("what's the weather", "", "refused", "refused"),
    ("make it pop", "", "refused", "refused"),
    ("translate it to French", "", "refused", "refused"),
    ("make the headline shorter and make it pop", "shorten", "refused", "refused"),
]


def test_the_table_holds_sixty_requests_or_more():
    assert len(TABLE) >= 60 and len({row[0] for row in TABLE}) == len(TABLE)


@pytest.mark.parametrize("request_, verbs", [(row[0], row[1]) for row in TABLE])
def test_each_request_reads_as_its_verbs(request_, verbs):
    assert " ".join(r.verb for r in parse(request_).requests) == verbs


@pytest.fixture(scope="module")
def facts():
    return facts_of(knife_strip())


@pytest.fixture(scope="module")
def store_copy(facts):
    return offline.write(store_task(facts))


@pytest.mark.parametrize("request_, expected", [(row[0], row[2]) for row in TABLE])
def test_the_store_editor(request_, expected, facts, store_copy):
    task = ai.Task(kind="store_edit", facts=facts, instructions=request_,
                   current={"copy": store_copy, "lead": None, "field": None})
    try:
        answer = offline_edit.edit(task)
    except Refused as refused:
        assert expected == "refused", (refused.reason, refused.explanation)
        return
    assert expected != "refused", answer
    before = {**store_copy, "lead": None, "price": None}
    after = {**answer["copy"], "lead": answer["lead"], "price": answer["price"]}
    _holds(expected, {"": (before, after)})


@pytest.mark.parametrize("request_, expected", [(row[0], row[3]) for row in TABLE])
def test_the_ad_editor(request_, expected, facts):
    current = ad_copy.ad_copy(facts)
    task = ai.Task(kind="ad_edit", facts=facts, instructions=request_, current={"copy": current, "platform": None})
    try:
        answer = ad_copy.write_ad_edit(task)
    except Refused as refused:
        assert expected == "refused", (refused.reason, refused.explanation)
        return
    assert expected != "refused", answer
    _holds(expected, {platform: (current[platform], answer[platform]) for platform in ("meta", "google")})


def _holds(expected: str, surfaces: dict) -> None:
    """Checks an outcome against each surface's (before, after); "" names the store."""
    if expected == "same":
        assert all(before == after for before, after in surfaces.values()), surfaces
        return
    if expected == "*":
        assert any(before != after for before, after in surfaces.values()), surfaces
        return
    for check in expected.split(" & "):
        match = re.match(r"^(?:(?P<platform>meta|google)\.)?(?P<field>[a-z_]+)(?P<op>[<>~!=^+-])(?P<value>.*)$", check)
        assert match, check
        for platform, (before, after) in surfaces.items():
            if match["platform"] and platform != match["platform"]:
                continue
            _check(match["op"], match["value"], before.get(match["field"]), after.get(match["field"]),
                   f"{platform}.{match['field']}")


def _words(text: str) -> set[str]:
    return {w.strip(".,;:") for w in re.findall(r"[\w$.'-]+", text.lower())}


def _check(op: str, value: str, before, after, where: str) -> None:
    if op == "<":
        assert isinstance(after, str) and 0 < len(after) < len(before), (where, before, after)
        assert _words(after) <= _words(before), (where, "a word was cut", after)
    elif op == ">":
        assert isinstance(after, str) and len(after) > len(before) and after.startswith(before.rstrip(". ")[:20]), \
            (where, before, after)
    elif op == "~":
        text = after if isinstance(after, str) else " ".join(str(v) for item in after for v in item.values())
        assert value in text, (where, after)
    elif op == "!":
        assert value.lower() not in str(after).lower(), (where, after)
    elif op == "=":
        assert str(after) == value or (isinstance(after, float) and after == float(value)), (where, after)
    elif op == "^":
        assert str(after).startswith(value), (where, after)
    elif op in "+-":
        assert len(after) - len(before) == (1 if op == "+" else -1) * int(value), (where, len(before), len(after))
