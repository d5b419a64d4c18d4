"""A page for a founder with nothing held or claimed (issue 51 point 3; decisions.md "Pages"):
the product surface serves guests. POST /api/pages and the assistant's page write a draft
from the business facts the owner has, claiming nothing they cannot back (no product, no
price, no promise not stated), saying plainly it is a draft and answering what it `needs`;
the policies the founder stated are used; the guest keeps the page after signing in."""
from __future__ import annotations

import re

import pytest

from models.page import Page
from services import pages
from tests.factories import catalog, new_account, refusal, session_of
from tests.mailbox import last_link, path_of

pytestmark = pytest.mark.usefixtures("worker")

HEX32 = re.compile(r"[0-9a-f]{32}")
# Anything that would state a product, a price or a promise the founder never made.
UNBACKED = re.compile(r"\$|€|£|\d|\bProduct p\d+\b|\bin stock\b|\bfree\b", re.I)


def _page(client, intent) -> dict:
    response = client.post("/api/pages", json={"intent": intent})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _text(client, url) -> str:
    html = client.get(url).get_data(as_text=True)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", "", html, flags=re.S)))


@pytest.mark.parametrize(("intent", "kind", "needs"), [
    ("make me a page about shipping times", "shipping", ["business_name", "support_email", "shipping_days",
                                                         "ships_to"]),
    ("a returns policy page", "returns", ["business_name", "support_email", "return_days"]),
    ("privacy policy", "privacy", ["business_name", "support_email"]),
    ("FAQ for my store", "faq", ["product", "business_name", "support_email", "shipping_days", "return_days"]),
    ("a landing page", "landing", ["product", "business_name", "support_email"]),
])
def test_a_guest_with_nothing_held_gets_a_draft_that_claims_nothing(founder, intent, kind, needs):
    catalog(1)  # a catalog exists; this guest holds none of it
    guest = founder()
    body = _page(guest, intent)
    assert body["status"] == "ok" and body["kind"] == kind and HEX32.fullmatch(body["guest_id"])
    assert body["draft"] is True and body["needs"] == needs and body["title"].endswith("(draft)")
    page = Page.get_by_id(body["page_id"])
    assert page.product_id == "" and page.session_id == session_of(guest).id and page.account_id is None
    text = _text(guest, body["url"])
    assert pages.DRAFT_NOTE.split(":")[0] == "This page is a draft" and "This page is a draft:" in text
    assert "To fill in:" in text
    assert not UNBACKED.search(text), text
    row = guest.get("/api/pages").get_json()["pages"][0]
    assert (row["page_id"], row["draft"], row["needs"]) == (body["page_id"], True, needs)


def test_a_draft_about_shipping_or_returns_says_the_policies_the_founder_stated(founder):
    guest = founder()
    saved = guest.post("/api/settings/business", json={
        "business_name": "Acacia & Co", "shipping_days_min": 3, "shipping_days_max": 5,
        "ships_to": "the United States and Canada", "return_days": 30, "free_returns": True,
        "guarantee": "2-year guarantee"})
    assert saved.status_code == 200, saved.get_data(as_text=True)
    shipping = _page(guest, "make me a page about shipping times")
    assert shipping["draft"] is True and shipping["needs"] == ["support_email"]
    text = _text(guest, shipping["url"])
    assert "Orders arrive in 3 to 5 business days." in text
    assert "We ship to the United States and Canada." in text
    returns = _page(guest, "returns policy")
    assert returns["needs"] == ["support_email"]
    text = _text(guest, returns["url"])
    assert "Free returns within 30 days of delivery." in text and "2-year guarantee." in text
    # Only what was stated: no price, no product.
    assert "$" not in text and "Product p" not in text


def test_the_assistant_writes_the_draft_a_guest_asks_for(founder):
    guest = founder()
    response = guest.post("/api/intent", json={"message": "make me a page about shipping times"})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok" and body["kind"] == "page" and body["title"] == "Shipping (draft)"
    assert "draft" in body["answer"] and "how long shipping takes (Settings)" in body["answer"]
    page = Page.get_by_id(body["page_id"])
    assert page.kind == "shipping" and page.document["draft"] is True
    assert guest.get(body["url"]).status_code == 200


def test_a_guest_keeps_its_draft_after_signing_in(founder, run_jobs):
    new_account(founder, run_jobs, "drafts@x.com")
    guest = founder()
    body = _page(guest, "make me a page about shipping times")
    assert guest.post("/api/auth/request-link", json={"email": "drafts@x.com",
                                                      "guestId": body["guest_id"]}).get_json() == {"ok": True}
    run_jobs()
    assert guest.get(path_of(last_link("drafts@x.com", path="/api/auth/callback"))).status_code == 303
    account_id = session_of(guest).account_id
    assert account_id is not None and Page.get_by_id(body["page_id"]).account_id == account_id
    listed = guest.get("/api/pages").get_json()
    assert [(row["page_id"], row["draft"]) for row in listed["pages"]] == [(body["page_id"], True)]
    assert guest.get(body["url"]).status_code == 200


def test_a_page_written_from_a_product_is_no_draft(founder):
    from tests.factories import find

    catalog(1)
    client = founder()
    assert find(client).status_code == 200
    body = _page(client, "make me a page about shipping times")
    assert (body["draft"], body["needs"]) == (False, [])
    refusal(founder().post("/api/pages", json={"intent": "Make it nicer"}), 200, "unknown_page")



def test_a_draft_asks_search_engines_not_to_index_it_and_a_product_page_does_not(founder):
    from tests.factories import find

    catalog(1)
    guest = founder()
    drafted = _page(guest, "make me a page about shipping times")
    assert '<meta name="robots" content="noindex">' in guest.get(drafted["url"]).get_data(as_text=True)
    client = founder()
    assert find(client).status_code == 200
    written = _page(client, "make me a page about shipping times")
    assert written["draft"] is False and "noindex" not in client.get(written["url"]).get_data(as_text=True)
