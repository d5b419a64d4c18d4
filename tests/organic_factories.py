"""Builders for the organic research tests: founders signed in with a claimed demo product
whose evidence is fresh, and the research and approval requests."""
from __future__ import annotations

from datetime import timedelta

from tests.factories import DEMO_PRODUCTS, KNIFE_STRIP, TODAY, claim, find, load, refusal
from tests.mailbox import sign_in_here

COLANDER = "kitchen-collapsible-silicone-colander"


def fresh(product_id: str, rank: float) -> dict:
    """A demo catalog product with its own evidence rows, re-dated to the last weeks (in their order)."""
    line = {**DEMO_PRODUCTS[product_id], "rank": rank}
    rows = line["evidence"]
    line["evidence"] = [{**row, "date": (TODAY - timedelta(days=7 * (len(rows) - n))).isoformat()}
                        for n, row in enumerate(rows)]
    return line


def load_demo() -> None:
    """The knife strip (found first) and the colander (found next)."""
    load(fresh(KNIFE_STRIP, 1000), fresh(COLANDER, 900))


def founder_with(browser_of, run_jobs, email: str, *, claims: bool = True):
    """A founder signed in to `email`, with the best product left found (and claimed)."""
    client = browser_of(email)
    find(client)
    if claims:
        assert claim(client).get_json()["status"] == "claimed"
    return client


def research(client, query="gift ideas for the holidays", **body):
    return client.post("/api/organic/research", json={"query": query, **body})


def researched(client, query="gift ideas for the holidays", **body) -> dict:
    response = research(client, query, **body)
    answer = response.get_json()
    assert response.status_code == 200 and answer["status"] == "ok", answer
    return answer


def approve(client, campaign: dict, scope="campaign", post_id=None, **changes):
    body = {"campaign_id": campaign["id"], "platform": campaign["platform"], "scope": scope}
    if post_id is not None:
        body["post_id"] = post_id
    return client.post("/api/organic/approve", json={**body, **changes})


def approved(client, campaign: dict, scope="campaign", post_id=None) -> dict:
    response = approve(client, campaign, scope, post_id)
    answer = response.get_json()
    assert response.status_code == 200 and answer["status"] == "approved", answer
    return answer


def log_of(client) -> list[dict]:
    answer = client.get("/api/organic/log").get_json()
    assert answer["status"] == "ok", answer
    return answer["approvals"]


def refused(response, status, reason) -> dict:
    return refusal(response, status, reason)


__all__ = ["COLANDER", "KNIFE_STRIP", "approve", "approved", "founder_with", "fresh", "load_demo", "log_of",
           "refused", "research", "researched", "sign_in_here"]
