"""A store's public pages as a shopper reads them, shared by the tests of what a store shows
shoppers (tests/test_store_speaks_for_business.py, tests/test_store_proof.py): a catalog line
with the readings a seller researches, the words of that research no public page may show,
publishing, and a page's visible text."""
from __future__ import annotations

import re
from datetime import timedelta

from tests.factories import TODAY, demo_item

# Words of the seller's research that no public page may show a shopper.
RESEARCH = re.compile(r"why this product|best-seller|searched for|monthly searches|we chose it|demand|research|"
                      r"ranked #|your own product|22,400|1,234", re.IGNORECASE)


def researched_item(pid="p00"):
    """The demo line with the readings a seller researches: a best-seller rank and monthly searches."""
    line = demo_item(pid)
    day = (TODAY - timedelta(days=5)).isoformat()
    line["evidence"] += [{"date": day, "source": "amazon", "metric": "bsr_rank", "value": 1234, "note": ""},
                         {"date": day, "source": "search_volume", "metric": "monthly_searches", "value": 22400,
                          "note": ""}]
    return line


def publish(client) -> str:
    """Publishes the built store; answers its public address's path (ending in /)."""
    state = client.post("/api/store/publish").get_json()
    assert state["status"] == "published", state
    return state["public_url"]


def visible(html: str) -> str:
    """The page's text a shopper reads (scripts and tags left out)."""
    html = re.sub(r"<script\b.*?</script>", " ", html, flags=re.DOTALL)
    return re.sub(r"<[^>]+>", " ", html)
