"""The ad follows the store (issue 49, point 6): the ad is written from the store's headline
wherever it fits whole, and when a published store's headline changes the ad is written again
from it (the founder's own field changes still win); publishing again with the same headline
writes nothing."""
from __future__ import annotations

import pytest

from models.ad import Ad
from models.job import Job
from services.growth import ads
from tests.ad_factories import ad_founder, ad_of
from tests.factories import edit
from tests.store_pages import publish

pytestmark = pytest.mark.usefixtures("jobs_drained")


def published_with_headline(client, run_jobs, headline: str) -> None:
    answer = edit(client, f"change the headline to {headline}")
    assert answer.get_json()["status"] == "edited", answer.get_json()
    run_jobs()
    publish(client)
    run_jobs()


def test_a_published_stores_new_headline_becomes_the_ads(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="follow@example.com")
    publish(client)
    run_jobs()
    first = ad_of(client, "meta")
    assert first["version"] == 1 and first["headline"] == "Acacia Wood Magnetic Knife Strip"

    published_with_headline(client, run_jobs, "Knives off the counter")

    assert ad_of(client, "meta")["headline"] == "Knives off the counter"
    assert ad_of(client, "google")["headline"] == "Knives off the counter"
    assert ad_of(client, "meta")["version"] == 2

    # Published again with the same headline: the ad is not written again.
    publish(client)
    run_jobs()
    assert Ad.get().version == 2
    assert Job.select().where(Job.kind == ads.AD_BUILD).count() == 2


def test_a_headline_too_long_for_a_platform_leaves_that_platform_the_products_name(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="follow@example.com")
    publish(client)
    run_jobs()
    published_with_headline(client, run_jobs, "Keep every knife off the counter and on the wall")

    assert ad_of(client, "meta")["headline"] == "Acacia Wood Magnetic Knife Strip"  # 48 characters: over 40
    assert ad_of(client, "google")["headline"] == "Wood Magnetic Knife Strip"


def test_the_founders_own_headline_in_the_ad_wins_over_the_stores(founder, run_jobs):
    client = ad_founder(founder, run_jobs, email="follow@example.com")
    publish(client)
    run_jobs()
    mine = client.post("/api/ad/edit", json={"platform": "meta", "field": "headline", "value": "My own words"})
    assert mine.status_code == 200, mine.get_json()

    published_with_headline(client, run_jobs, "Knives off the counter")

    assert ad_of(client, "meta")["headline"] == "My own words"
    assert ad_of(client, "google")["headline"] == "Knives off the counter"
