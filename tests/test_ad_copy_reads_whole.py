"""Ad copy that reads whole (issue 49, point 6): every field of the offline writer's ad, for
every demo product on both platforms, fits its platform's limit without cutting a product's
name to its first words or a sentence mid-clause ("Acacia Wood Magnetic Knife", "…that holds…");
and the growth editor's "make the headline shorter" and "lead with the price", the Growth
screen's own examples, are understood and keep the copy whole."""
from __future__ import annotations

import re

import pytest

from integrations.copy_text import short_name, whole_sentence
from services.growth.ad_copy import ad_copy
from services.growth.ad_limits import LIMITS, PLATFORMS
from tests.ad_factories import ad_founder, ad_of
from tests.ai_factories import demo_products, facts_of

SENTENCE_END = (".", "!", "?")


@pytest.mark.parametrize("product", demo_products(), ids=lambda p: p["product_id"])
def test_every_field_fits_and_reads_whole(product):
    copy = ad_copy(facts_of(product))
    core = product["name"].split(",")[0].strip()
    for platform in PLATFORMS:
        fields = copy[platform]
        for field, most in LIMITS[platform].items():
            assert 1 <= len(fields[field]) <= most and "…" not in fields[field], (platform, field, fields[field])
        # The headline names the product: its name, or the name before what it comes with or is
        # for, or that name's last words (its head noun), never its first words cut off.
        headline, named = fields["headline"], re.split(r"\s(?:with|for|and|in|by)\s", core)[0]
        assert headline in (core, named) or named.endswith(" " + headline), (platform, headline)
        assert fields["primary_text"].endswith(SENTENCE_END), (platform, fields["primary_text"])
    assert copy["google"]["description"].endswith(SENTENCE_END) or copy["google"]["description"].startswith("Now ")


def test_the_knife_strips_ad_keeps_its_name_and_whole_sentences():
    knife = next(p for p in demo_products() if p["name"].startswith("Acacia Wood Magnetic Knife Strip"))
    copy = ad_copy(facts_of(knife))
    assert copy["meta"]["headline"] == "Acacia Wood Magnetic Knife Strip"
    assert copy["google"]["headline"] == "Wood Magnetic Knife Strip"  # 30 characters: the head noun stays
    assert copy["google"]["primary_text"] == ("A 16-inch solid acacia bar with embedded neodymium magnets. "
                                              "Yours for $34.99.")


@pytest.mark.parametrize("name, limit, expected", [
    ("Rechargeable Handheld Milk Frother", 30, "Handheld Milk Frother"),
    ("Sourdough Starter Jar Kit with Band and Thermometer", 40, "Sourdough Starter Jar Kit"),
    ("Suction-Cup Lick Mat for Dogs and Cats", 30, "Suction-Cup Lick Mat"),
    ("Acacia Wood Magnetic Knife Strip, 16 in", 38, "Acacia Wood Magnetic Knife Strip"),
    ("Acacia Wood Magnetic Knife Strip, 16 in", 60, "Acacia Wood Magnetic Knife Strip, 16 in"),
])
def test_a_short_name_still_names_the_product(name, limit, expected):
    assert short_name(name, limit) == expected


@pytest.mark.parametrize("text, limit, expected", [
    ("A 16-inch solid acacia bar with embedded neodymium magnets that holds up to eight knives.", 60,
     "A 16-inch solid acacia bar with embedded neodymium magnets."),
    ("Aimed at weekly meal preppers who want to bake, store and reheat in the same dish.", 60, None),
    ("Ten containers (two 840 ml, three 640 ml) with leak-proof lids that click shut.", 45,
     "Ten containers (two 840 ml, three 640 ml)."),
])
def test_a_sentence_ends_early_only_at_a_clause(text, limit, expected):
    assert whole_sentence(text, limit) == expected


def grown(client, run_jobs, message: str) -> None:
    answer = client.post("/api/growth/edit", json={"message": message})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    run_jobs()


def test_the_growth_editor_shortens_a_headline_to_a_name_and_leads_with_the_price(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="grow@example.com")
    grown(client, run_jobs, "make the headline shorter")
    assert ad_of(client, "meta")["headline"] == "Wood Magnetic Knife Strip"
    assert ad_of(client, "google")["headline"] == "Magnetic Knife Strip"

    grown(client, run_jobs, "lead with the price")
    for platform in PLATFORMS:
        text = ad_of(client, platform)["primary_text"]
        assert text.startswith("Yours for $34.99. ") and text.count("$34.99") == 1, (platform, text)
        assert len(text) <= LIMITS[platform]["primary_text"] and text.endswith(SENTENCE_END)
