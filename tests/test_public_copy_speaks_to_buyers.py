"""Ads and generated pages are shown to shoppers, so they address the buyer (issue 47, point 2:
"Public pages never show seller research"). A product's evidence (monthly searches, a
best-seller rank) is the founder's research: no ad and no generated page tells a figure, a
rank or a research source of it, whichever backend wrote the copy. What the evidence backs
is said in a shopper's words, the store's own line (services/store/proof.py): shoppers are
looking for the product, and only while a demand series that is not falling backs it.
Organic post ideas are written for shoppers too: their text says the same line, and the
research behind it stays in their cites, where the founder reads it."""
from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest

from integrations.ai import offline
from services import ai_facts
from services.growth import ad_copy
from services.store import facts as store_facts
from tests.ai_factories import completion
from tests.factories import TODAY, built, claim, claimed_founder, find, load
from tests.organic_factories import researched
from tests.store_pages import RESEARCH, publish, researched_item, visible

# What shoppers must never read of the research, beyond tests/store_pages.RESEARCH's words:
# its figures (a rank's "#"), its words and its sources.
FIGURES = re.compile(r"22,?400|1,?234|#|searched|search data|amazon|google trends|tiktok", re.IGNORECASE)
# A post for TikTok may name TikTok, and its hashtags are no rank.
POST_FIGURES = re.compile(r"22,?400|1,?234|#\d|searched|search data|amazon|google trends", re.IGNORECASE)
NAME = "Product p00"  # researched_item()'s name
STEADY = f"Shoppers are looking for {NAME}."
RISING = f"More and more shoppers are looking for {NAME}."
LANDING = "Make a landing page for my product"


def day(days_ago: int) -> str:
    return (TODAY - timedelta(days=days_ago)).isoformat()


def rising_item():
    """researched_item() whose monthly searches rose to 22,400 from a month before."""
    line = researched_item()
    line["evidence"].append({"date": day(35), "source": "search_volume", "metric": "monthly_searches",
                             "value": 15000, "note": ""})
    return line


def falling_item():
    """researched_item() whose every demand series fell: the research backs no shopper line."""
    line = researched_item()
    line["evidence"] = [
        {"date": day(40), "source": "google_trends", "metric": "interest_index", "value": 90, "note": ""},
        {"date": day(10), "source": "google_trends", "metric": "interest_index", "value": 50, "note": ""},
        {"date": day(35), "source": "amazon", "metric": "bsr_rank", "value": 300, "note": ""},
        {"date": day(35), "source": "search_volume", "metric": "monthly_searches", "value": 40000, "note": ""},
        *[row for row in line["evidence"] if row["metric"] in ("bsr_rank", "monthly_searches")]]
    return line


def told_to_shoppers(text: str, figures=FIGURES) -> None:
    """The text shows no word, figure or source of the seller's research."""
    assert not RESEARCH.search(text), RESEARCH.search(text)
    assert not figures.search(text), figures.search(text)


def ad_text(client) -> dict[str, str]:
    """Each platform's ad, its fields joined as one text, read as the Growth screen reads it."""
    texts = {}
    for platform in ("meta", "google"):
        response = client.get(f"/api/ad?platform={platform}")
        assert response.status_code == 200, response.get_data(as_text=True)
        ad = response.get_json()
        texts[platform] = " ".join(ad[field] for field in ("headline", "primary_text", "description",
                                                            "call_to_action"))
    return texts


def page_text(client, founder) -> str:
    """The landing page the founder asks for, as a shopper reads it at its public address."""
    response = client.post("/api/pages", json={"intent": LANDING})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok", body
    page = founder().get(body["url"])
    assert page.status_code == 200
    return " ".join(html.unescape(visible(page.get_data(as_text=True))).split())


def holding(founder, line):
    load(line)
    client = founder()
    assert find(client).status_code == 200
    return client


# --- Ads ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "said"), [(researched_item, STEADY), (rising_item, RISING)])
def test_an_ad_says_what_the_evidence_backs_in_a_shoppers_words_and_none_of_the_research(
        founder, run_jobs, line, said):
    client = claimed_founder(founder, line())
    built(client, run_jobs)
    run_jobs()  # the ad the build sent
    ads = ad_text(client)
    for text in ads.values():
        told_to_shoppers(text)
    # Google's second description line says it; Meta's primary text says it when it fits
    # beside the description's opening and the price (the longer line does not, here).
    assert said in ads["google"]
    assert (said in ads["meta"]) == (said == STEADY)


def test_an_ad_of_falling_demand_says_nothing_of_it(founder, run_jobs):
    client = claimed_founder(founder, falling_item())
    built(client, run_jobs)
    run_jobs()
    for text in ad_text(client).values():
        told_to_shoppers(text)
        assert "shoppers are looking" not in text.lower()


def test_a_hosted_models_ad_loses_the_sentences_that_quote_the_research(founder, run_jobs, settings_with, chat):
    client = claimed_founder(founder, researched_item())
    loaded = store_facts.load("p00")
    facts = ai_facts.facts_for(product=loaded.product, evidence=loaded.evidence, offer=loaded.offer)
    written = ad_copy.ad_copy(facts)
    written["meta"]["primary_text"] = ("Keep your knives off the counter. Products like this are searched for "
                                       "22,400 times a month.")
    written["google"]["description"] = "Keep your knives off the counter. Ranked #1,234 on Amazon."
    chat.reply(completion(json.dumps(offline.store_copy(facts))))
    chat.reply(completion(json.dumps(written)))
    settings_with(ai_backend="openai", ai_base_url=chat.url, ai_model="test-model", ai_timeout_seconds=5)

    built(client, run_jobs)
    run_jobs()

    assert len(chat.received) == 2  # the store's copy, then the ad's
    ads = ad_text(client)
    assert "Keep your knives off the counter." in ads["meta"] and "Keep your knives off the counter." in ads["google"]
    for text in ads.values():
        assert not re.search(r"22,?400|1,?234|#", text), text


# --- The store page -----------------------------------------------------------------------------

def test_a_hosted_models_store_page_loses_the_sentences_that_quote_the_research(
        founder, run_jobs, settings_with, chat):
    client = claimed_founder(founder, researched_item())
    loaded = store_facts.load("p00")
    facts = ai_facts.facts_for(product=loaded.product, evidence=loaded.evidence, offer=loaded.offer)
    written = offline.store_copy(facts)
    written["subheadline"] = "Keeps knives tidy. Searched for 22,400 times a month."
    written["about"] = written["about"] + " Ranked #1,234 in its best-seller category."
    chat.reply(completion(json.dumps(written)))
    chat.reply(completion(json.dumps(ad_copy.ad_copy(facts))))  # the ad written once the store is built
    settings_with(ai_backend="openai", ai_base_url=chat.url, ai_model="test-model", ai_timeout_seconds=5)

    built(client, run_jobs)
    run_jobs()

    asked = chat.received[0]["body"]["messages"][1]["content"]
    assert "Speak to the buyer" in asked  # the model is told, and the filter holds it to it
    text = " ".join(html.unescape(visible(founder().get(publish(client)).get_data(as_text=True))).split())
    assert "Keeps knives tidy." in text
    assert not re.search(r"22,?400|1,?234", text), text


# --- Generated pages ----------------------------------------------------------------------------

@pytest.mark.usefixtures("worker")
@pytest.mark.parametrize(("line", "said"), [(researched_item, STEADY), (rising_item, RISING)])
def test_a_generated_page_says_what_the_evidence_backs_in_a_shoppers_words_and_none_of_the_research(
        founder, line, said):
    text = page_text(holding(founder, line()), founder)
    told_to_shoppers(text)
    assert f"Popular right now {said}" in text


@pytest.mark.usefixtures("worker")
def test_a_generated_page_of_falling_demand_has_no_such_section(founder):
    text = page_text(holding(founder, falling_item()), founder)
    told_to_shoppers(text)
    assert "Popular right now" not in text and "shoppers are looking" not in text.lower()


@pytest.mark.usefixtures("worker")
def test_a_hosted_models_page_loses_the_sentences_that_quote_the_research(founder, settings_with, chat):
    client = holding(founder, researched_item())
    chat.reply(completion(json.dumps({
        "title": NAME,
        "intro": "Ranked #1,234 in its best-seller category.",
        "sections": [{"heading": "Why people want it",
                      "body": "Products like this are searched for 22,400 times a month. It keeps knives tidy."}]})))
    settings_with(ai_backend="openai", ai_base_url=chat.url, ai_model="test-model", ai_timeout_seconds=5)

    text = page_text(client, founder)

    assert len(chat.received) == 1
    assert "It keeps knives tidy." in text
    assert not re.search(r"22,?400|1,?234|#", text), text


# --- Organic post ideas -------------------------------------------------------------------------

@pytest.mark.usefixtures("jobs_drained")
def test_organic_posts_speak_to_shoppers_and_cite_the_research_for_the_founder(signed_in, run_jobs):
    load(rising_item())
    client = signed_in("alice@example.com")
    find(client)
    assert claim(client).get_json()["status"] == "claimed"

    answer = researched(client, "gift ideas", platforms=["tiktok", "instagram", "pinterest", "reddit", "x"])

    posts = [post for campaign in answer["campaigns"] for post in campaign["posts"]]
    for campaign in answer["campaigns"]:
        told_to_shoppers(campaign["angle"], POST_FIGURES)
    for post in posts:
        told_to_shoppers(post["text"], POST_FIGURES)
    assert any(RISING in post["text"] for post in posts)
    # The research behind the line is the founder's to read, in the post's cites.
    cited = {(c["metric"], c["value"]) for post in posts if RISING in post["text"] for c in post["cites"]
             if c["kind"] == "evidence"}
    assert ("monthly_searches", 22400) in cited
