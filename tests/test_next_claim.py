"""What unlocks the next claim (issue 47.6): GET /api/claims says it in words, so the feed that
is empty at the claim allowance says what comes next: a share until the allowance is at its
most, then that nothing does."""
import pytest

from tests.factories import catalog, claim, find

pytestmark = pytest.mark.usefixtures("frozen_clock")


def claims(client):
    return client.get("/api/claims").get_json()


def test_after_the_last_free_claim_a_share_unlocks_the_next(client):
    catalog(3)
    find(client)
    claim(client)
    assert client.get("/api/feed").get_json() == []
    body = claims(client)
    assert (body["finds_remaining"], body["max_allowance"]) == (0, 5)
    assert body["next_claim"] == ("Share your link to unlock your next claim: each share unlocks one more, "
                                  "up to 5 claims in all.")
    client.post("/api/share")
    assert claims(client)["next_claim"] == "You can claim 1 more product now."


def test_at_the_most_claims_it_says_no_share_unlocks_another(client):
    catalog(7)
    for _ in range(4):
        client.post("/api/share")
    for _ in range(5):
        find(client)
        assert claim(client).get_json()["status"] == "claimed"
    body = claims(client)
    assert (body["allowance"], body["finds_remaining"]) == (5, 0)
    assert body["next_claim"] == ("You have claimed 5 products, the most one founder can claim, so sharing "
                                  "unlocks no more. What you claimed stays yours.")
