"""The founder's statements of their own policy (issue 50 point 2): the return window, free
returns, the shipping time, the guarantee and where they ship are saved in business settings
(GET and POST /api/settings/business, flat beside the other settings), read from a founder's
words, said in a shopper's words, back the store copy that states the same policy (never a
claim about the product's sales), are written by a build into the store's copy and shown on
its shipping page labelled as the business's policy, and never enter its evidence."""
from __future__ import annotations

import html
import json
import re

import pytest

from integrations.ai import claims, offline
from integrations.ai.task import Facts
from models.business import BusinessSettings
from services import founder_statements
from services.errors import Refused
from services.founder_statements import Statements
from services.ownership import owner_of
from tests.factories import built, claimed_founder, refusal, session_of

POLICY = {"return_days": 45, "free_returns": True, "shipping_days_min": 4, "shipping_days_max": 9,
          "guarantee": "2-year guarantee", "ships_to": "the United States and Canada"}
SAID = {"returns": "Free returns within 45 days of delivery.", "shipping": "Orders arrive in 4 to 9 business days.",
        "guarantee": "2-year guarantee.", "ships_to": "We ship to the United States and Canada."}


def settings_of(client) -> dict:
    response = client.get("/api/settings/business")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["settings"]


def save(client, **values):
    return client.post("/api/settings/business", json=values)


# --- Saved in business settings ---------------------------------------------------------------

def test_nothing_is_stated_until_the_founder_states_it(client):
    settings = settings_of(client)
    assert {name: settings[name] for name in founder_statements.FIELDS} == {
        "return_days": None, "free_returns": False, "shipping_days_min": None, "shipping_days_max": None,
        "guarantee": None, "ships_to": None}
    assert founder_statements.of(owner_of(session_of(client)).key) == Statements()


def test_the_statements_are_saved_flat_beside_the_other_settings_and_keep_them(client):
    save(client, business_name="Acacia & Co", ai_email_mode="draft")
    body = save(client, **{**POLICY, "guarantee": "  2-year   guarantee "}).get_json()
    assert body["status"] == "ok"
    assert {name: body["settings"][name] for name in founder_statements.FIELDS} == POLICY  # its words, tidied
    assert (body["settings"]["business_name"], body["settings"]["ai_email_mode"]) == ("Acacia & Co", "draft")
    assert settings_of(client) == body["settings"]
    assert founder_statements.of(owner_of(session_of(client)).key) == Statements(**POLICY)
    assert BusinessSettings.select().count() == 1
    # A later save of other settings leaves the statements as they were; null clears one.
    again = save(client, business_name="Acacia", ships_to=None, guarantee="").get_json()["settings"]
    assert (again["return_days"], again["ships_to"], again["guarantee"]) == (45, None, None)


def test_a_single_shipping_figure_sets_both_ends(client):
    assert save(client, shipping_days_min=5).get_json()["settings"]["shipping_days_max"] == 5
    settings = save(client, shipping_days_max=8).get_json()["settings"]
    assert (settings["shipping_days_min"], settings["shipping_days_max"]) == (5, 8)
    # Two figures are a span, the shorter first, whichever end each was given as.
    settings = save(client, shipping_days_min=9, shipping_days_max=4).get_json()["settings"]
    assert (settings["shipping_days_min"], settings["shipping_days_max"]) == (4, 9)
    settings = save(client, shipping_days_max=2).get_json()["settings"]  # below the saved shortest
    assert (settings["shipping_days_min"], settings["shipping_days_max"]) == (2, 4)
    cleared = save(client, shipping_days_min=None, shipping_days_max=None).get_json()["settings"]
    assert (cleared["shipping_days_min"], cleared["shipping_days_max"]) == (None, None)


@pytest.mark.parametrize("values, field, words", [
    ({"return_days": 0}, "return_days", "How many days customers have to return"),
    ({"return_days": 366}, "return_days", "How many days customers have to return"),
    ({"return_days": 1.5}, "return_days", None),
    ({"return_days": "a month"}, "return_days", None),
    ({"shipping_days_min": 91}, "shipping_days_min", "How many business days shipping takes"),
    ({"free_returns": "maybe"}, "free_returns", None),
    ({"guarantee": "x" * 201}, "guarantee", None),
    ({"ships_to": "the US\u202e"}, "ships_to", "Where you ship"),
    ({"ships_to": "the US\nand Canada"}, "ships_to", "Where you ship"),
])
def test_a_bad_statement_is_400_invalid_setting_naming_it_and_saves_nothing(client, values, field, words):
    save(client, return_days=14, business_name="Before")
    body = refusal(save(client, business_name="After", **values), 400, "invalid_setting")
    assert body.get("field", field) == field and field in json.dumps(body)
    if words:
        assert words in body["explanation"]
    settings = settings_of(client)
    assert (settings["return_days"], settings["business_name"]) == (14, "Before")


def test_save_checks_and_creates_the_owners_row_as_business_settings_do(client):
    settings_of(client)  # the visit that gives the founder a session
    key = owner_of(session_of(client)).key
    with pytest.raises(Refused) as refused:
        founder_statements.save(key, {"return_days": 400})
    assert refused.value.reason == "invalid_setting" and refused.value.fields == {"field": "return_days"}
    assert BusinessSettings.select().count() == 0
    assert founder_statements.save(key, {"return_days": 30, "free_returns": True}) == Statements(
        return_days=30, free_returns=True)
    assert settings_of(client)["default_canned_subject"] == "Re: your message"  # the row has its defaults


# --- In a shopper's words, and read from a founder's --------------------------------------------

@pytest.mark.parametrize("statements, said", [
    (Statements(), {}),
    (Statements(**POLICY), SAID),
    (Statements(return_days=30, free_returns=True, shipping_days_min=3, shipping_days_max=7,
                guarantee="30-day money-back guarantee", ships_to="the United States and Canada"),
     {"returns": "Free returns within 30 days of delivery.", "shipping": "Orders arrive in 3 to 7 business days.",
      "guarantee": "30-day money-back guarantee.", "ships_to": "We ship to the United States and Canada."}),
    (Statements(return_days=14), {"returns": "Returns are accepted within 14 days of delivery."}),
    (Statements(free_returns=True), {"returns": "Returns are free."}),
    (Statements(shipping_days_min=1, shipping_days_max=1), {"shipping": "Orders arrive in 1 business day."}),
    (Statements(guarantee="satisfaction guaranteed!"), {"guarantee": "Satisfaction guaranteed!"}),
])
def test_sentences_say_only_what_is_stated(statements, said):
    assert founder_statements.sentences(statements) == said


@pytest.mark.parametrize("words, stated", [
    ("free returns within 30 days", {"free_returns": True, "return_days": 30}),
    ("Free returns within 30 days of delivery.", {"free_returns": True, "return_days": 30}),
    ("30-day returns", {"return_days": 30}),
    ("30 day return policy", {"return_days": 30}),
    ("We offer a 14-day return window.", {"return_days": 14}),
    ("You have 60 days to return it.", {"return_days": 60}),
    ("Returns accepted within thirty days", {"return_days": 30}),
    ("free returns", {"free_returns": True}),
    ("Returns are free.", {"free_returns": True}),
    ("ships in 3-5 days", {"shipping_days_min": 3, "shipping_days_max": 5}),
    ("delivery in 3 to 5 business days", {"shipping_days_min": 3, "shipping_days_max": 5}),
    ("Orders arrive within 2 business days.", {"shipping_days_min": 2, "shipping_days_max": 2}),
    ("3–7 day shipping", {"shipping_days_min": 3, "shipping_days_max": 7}),
    ("ships to the US and Canada", {"ships_to": "the US and Canada"}),
    ("We ship to the United Kingdom.", {"ships_to": "the United Kingdom"}),
    ("We deliver to all 50 states in 3-5 days", {"ships_to": "all 50 states", "shipping_days_min": 3,
                                                 "shipping_days_max": 5}),
    ("Free worldwide shipping", {"ships_to": "customers worldwide"}),
    ("a 1-year guarantee", {"guarantee": "1-year guarantee"}),
    ("30-day money-back guarantee", {"guarantee": "30-day money-back guarantee"}),
    ("Backed by our lifetime guarantee.", {"guarantee": "lifetime guarantee"}),
    ("It comes with a 2-year warranty", {"guarantee": "2-year warranty"}),
    ("Satisfaction guaranteed", {"guarantee": "Satisfaction guaranteed"}),
    ("Free returns within 30 days, and a 1-year guarantee.",
     {"free_returns": True, "return_days": 30, "guarantee": "1-year guarantee"}),
    ("The bestseller of the season: 10,000 sold.", {}),
    ("Holds eight knives flat against the wall.", {}),
    ("", {}),
])
def test_stated_in_reads_the_founders_words(words, stated):
    assert founder_statements.stated_in(words) == stated


# --- Backed as the founder's policy, never as proof of the product -------------------------------

def _facts(*statements: str) -> Facts:
    return Facts(product={"product_id": "p00", "name": "Knife Strip", "description": "Holds knives flat.",
                          "price": 34.99, "currency": "USD"}, evidence=[], offer=None, statements=statements)


@pytest.mark.parametrize("sentence, without, stated", [
    ("Free returns within 45 days of delivery.", "number", None),
    ("Enjoy 45-day returns.", "number", None),
    ("Your order arrives in 4 to 9 business days.", "number", None),
    ("Every order has a 2-year guarantee.", "number", None),
    ("Over 10,000 sold.", "number", "number"),
    ("Our bestseller: 10,000 happy customers in 45 days.", "number", "number"),
    ("Rated #1 by 9 out of 10 chefs.", "number", "number"),
    ("Certified organic, made in Portugal.", "certification", "certification"),
])
def test_the_statements_back_their_own_policy_and_no_claim_about_the_product(sentence, without, stated):
    policy = tuple(SAID.values())
    assert claims.why_unbacked(sentence, claims.index(_facts())) == without
    assert claims.why_unbacked(sentence, claims.index(_facts(*policy))) == stated
    # Even a guarantee in the founder's words that names a certification backs none.
    assert claims.why_unbacked("Certified organic.", claims.index(_facts("Certified organic guarantee."))) \
        == "certification"


def test_the_offline_copywriter_writes_the_policy_from_the_statements():
    plain = offline.store_copy(_facts())
    copy = offline.store_copy(_facts(*SAID.values()))
    assert copy["returns"].startswith(SAID["returns"]) and SAID["returns"] not in plain["returns"]
    assert copy["shipping"].startswith(f"{SAID['shipping']} {SAID['ships_to']}")
    assert copy["guarantee"].startswith(SAID["guarantee"])
    # The rest of the shop's promises stay, and the copy passes the claim filter whole.
    assert "unused items in their original condition" in copy["returns"]
    assert claims.filter_copy(copy, _facts(*SAID.values()), plain, offline_schema())[1] == []
    assert not re.search(r"\b\d+ (business )?days?\b", " ".join(plain[k] for k in ("shipping", "returns", "guarantee")))


def offline_schema() -> dict:
    from integrations.ai.schemas import STORE_COPY
    return STORE_COPY


# --- The store: its copy, its shipping page, never its evidence ----------------------------------

def _draft(client) -> dict:
    answer = client.get("/api/editor/draft")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()["document"]


def _section(page: str, kind: str) -> str:
    found = re.search(rf'<section class="section section-{kind}".*?</section>', page, re.S)
    return found.group(0) if found else ""


def test_a_build_writes_the_stated_policy_into_the_store_and_labels_it_the_businesss(founder, run_jobs):
    client = claimed_founder(founder)
    save(client, business_name="Acacia & Co", **POLICY)
    state = built(client, run_jobs)
    assert state["unbacked"] == []  # the policy sentences are backed: the founder stated them
    document = _draft(client)
    copy = document["copy"]
    assert copy["returns"].startswith(SAID["returns"])
    assert copy["shipping"].startswith(f"{SAID['shipping']} {SAID['ships_to']}")
    assert copy["guarantee"].startswith(SAID["guarantee"])
    assert document["business"]["policy"] == SAID
    # Never an evidence row: the document's evidence holds the catalog's research only.
    evidence = json.dumps(document["evidence"])
    assert document["evidence"] and not any(sentence in evidence for sentence in SAID.values())
    assert all(row["source"] == "google_trends" for row in document["evidence"])

    shipping = client.get(state["preview_url"] + "shipping").get_data(as_text=True)
    policy = re.search(r'<aside class="policy" aria-label="Our policy">.*?</aside>', shipping, re.S).group(0)
    assert "Our policy" in policy and "Stated by Acacia &amp; Co." in policy
    assert all(html.escape(sentence) in policy for sentence in SAID.values())
    home = client.get(state["preview_url"]).get_data(as_text=True)
    shown = _section(home, "evidence")
    assert "evidence-row" in shown and "Our policy" not in shown
    assert not any(sentence in shown for sentence in SAID.values())


def test_a_store_built_before_anything_is_stated_promises_no_window_and_shows_no_policy(founder, run_jobs):
    client = claimed_founder(founder)
    state = built(client, run_jobs)
    document = _draft(client)
    assert "policy" not in document["business"]
    assert not re.search(r"\bwithin \d+ days\b|\bbusiness days\b", json.dumps(document["copy"]))
    assert 'class="policy"' not in client.get(state["preview_url"] + "shipping").get_data(as_text=True)


def test_saving_statements_changes_what_the_next_build_writes(founder, run_jobs):
    client = claimed_founder(founder)
    save(client, return_days=45)
    built(client, run_jobs)
    assert _draft(client)["copy"]["returns"].startswith("Returns are accepted within 45 days of delivery.")
    save(client, return_days=21, free_returns=True, shipping_days_min=6)
    built(client, run_jobs)  # a rebuild
    document = _draft(client)
    assert document["copy"]["returns"].startswith("Free returns within 21 days of delivery.")
    assert "45 days" not in json.dumps(document)
    assert document["business"]["policy"] == {"returns": "Free returns within 21 days of delivery.",
                                              "shipping": "Orders arrive in 6 business days."}


def test_the_published_stores_shipping_page_states_the_policy(founder, run_jobs):
    client = claimed_founder(founder)
    save(client, **POLICY)
    built(client, run_jobs)
    published = client.post("/api/store/publish").get_json()
    assert published["status"] == "published", published  # the publish check backs the policy too
    page = founder().get(published["public_url"] + "shipping").get_data(as_text=True)
    assert "Our policy" in page and html.escape(SAID["returns"]) in page and html.escape(SAID["ships_to"]) in page
    assert "Stated by " in page
