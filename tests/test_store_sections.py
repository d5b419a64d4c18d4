"""A founder's terms for the store (services/store/sections.py): words match on their stems
and on the other names a section has, sections are named in words on screen, and a store's
copy out of bounds is told as the part of the store it is, never as a JSON path."""
from __future__ import annotations

import pytest

from integrations import ai
from integrations.ai.schemas import Problem
from services.errors import Refused
from services.store import offline_edit, sections
from tests.ai_factories import own_copy, store_task
from tests.conftest import ROOT


def offline(message: str) -> dict:
    return offline_edit.edit(ai.Task(kind="store_edit", facts=store_task().facts, instructions=message,
                                     current={"copy": own_copy(), "lead": "benefits", "field": None}))


@pytest.mark.parametrize("words", ["return", "returns", "returned", "returning", "Returns", "returning it"])
def test_every_form_of_return_finds_the_question_about_returning_it(words):
    assert "Can I return it?" in [item["question"] for item in own_copy()["faq"]]
    left = [item["question"] for item in offline(f"Remove the question about {words}")["copy"]["faq"]]
    assert "Can I return it?" not in left and len(left) == len(own_copy()["faq"]) - 1


@pytest.mark.parametrize("words, gone", [
    ("delivery", "How is my order shipped?"),  # another name of the shipping section
    ("shipping", "How is my order shipped?"),
    ("the price", "How much does it cost?"),  # the price section's other name: cost
    ("costs", "How much does it cost?"),
])
def test_a_question_is_found_by_the_words_its_section_goes_by(words, gone):
    left = [item["question"] for item in offline(f"Remove the question about {words}")["copy"]["faq"]]
    assert gone not in left


def test_a_question_about_nothing_the_store_asks_is_refused_with_the_questions_it_has():
    with pytest.raises(Refused) as caught:
        offline("Remove the question about unicorns")
    assert caught.value.reason == "editor_unavailable"
    assert "unicorns" in caught.value.explanation and "“Can I return it?”" in caught.value.explanation


@pytest.mark.parametrize("word, stem", [
    ("return", "return"), ("returns", "return"), ("returned", "return"), ("returning", "return"),
    ("ship", "ship"), ("shipped", "ship"), ("shipping", "ship"), ("price", "pric"), ("prices", "pric"),
    ("pricing", "pric"), ("boxes", "box"), ("glass", "glass"), ("questions", "question")])
def test_a_word_and_its_inflections_share_one_stem(word, stem):
    assert sections.stem(word) == stem


def test_a_section_is_named_by_any_form_of_its_names():
    assert [sections.named(w) for w in ("prices", "questions", "reviews", "deliveries", "headline")] == [
        "price", "faq", "reviews", None, "hero"]


def test_every_section_a_home_page_can_lead_with_has_a_founders_name():
    said = [sections.said(name) for name in sections.LEADS]
    assert said[:3] == ["the headline and photo", "the benefits", "the proof of demand"]
    assert "the questions" in said and all(s != n for s, n in zip(said, sections.LEADS, strict=True) if n != "shipping")


@pytest.mark.parametrize("path, words, said", [
    ("$.faq", "must have at most 6 items (has 7)", "The questions can hold at most 6 (this would make 7)"),
    ("$.copy.faq", "must have at least 3 items (has 2)", "The questions need at least 3 questions (this would leave 2)"),
    ("$.headline", "must be at most 90 characters (has 154)",
     "The headline can be at most 90 characters (this would be 154)"),
    ("$.faq[6].answer", "must be at least 5 characters (has 2)",
     "The answer of question 7 needs at least 5 characters (this would be 2)"),
    ("$.benefits[1]", "missing key 'title'", "Benefit 2 has no title"),
])
def test_a_bound_is_said_as_the_part_of_the_store_it_is(path, words, said):
    assert sections.in_words(Problem(path, words)) == said
    assert "$" not in sections.said_in_words([Problem(path, words)])


def test_an_edit_past_a_bound_is_refused_in_words():
    with pytest.raises(Refused) as caught:
        offline("Add a question: Does it fold flat? Yes, it folds flat for storage.")
    assert caught.value.reason == "too_long"
    assert caught.value.explanation == "The questions can hold at most 6 (this would make 7)."


def test_the_store_answers_the_leading_sections_in_words_and_the_edit_screen_keeps_no_list(shop):
    """One list: GET /api/store says what the home page can lead with, in the words of
    sections.py, and the edit screen shows what it says (its browser journey picks one)."""
    leads = shop.get("/api/store").get_json()["leads"]
    assert leads == [{"section": name, "said": sections.said(name)} for name in sections.LEADS]
    screen = (ROOT / "api" / "static" / "app" / "screens" / "edit.js").read_text()
    # (Short names such as "shipping" or "the price" occur in the screen's other words: the
    # longer ones tell whether a copy of the list is back.)
    assert "leads" in screen and not any(lead["said"] in screen for lead in leads if lead["said"].count(" ") >= 2)


@pytest.mark.parametrize("request_words", ["Make the headline shorter", "shorten the title", "make the heading a bit shorter."])
def test_make_the_headline_shorter_is_understood_as_the_growth_editor_understands_it(request_words):
    from integrations.copy_text import shorter

    before = own_copy()["headline"]
    after = offline(request_words)["copy"]["headline"]
    assert after == shorter(before, is_name=True) and len(after) < len(before)
    assert before.endswith(after) or before.split(",")[0].endswith(after)  # fewer words, the same name


def test_make_a_text_shorter_drops_its_last_sentence_whole():
    before = own_copy()["shipping"]
    after = offline("make the shipping text shorter")["copy"]["shipping"]
    assert len(after) < len(before) and before.startswith(after.rstrip(".")) and after.endswith(".")
