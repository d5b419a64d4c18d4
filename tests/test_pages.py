"""Generated pages through HTTP (issue 27; decisions.md "Pages"): written from the store's own
facts, kept as their owner's (another founder neither lists nor reaches them through the
list), served under /store/p/<id> escaped and under the storefront's script-free policy, and a
guest's pages upgraded to the account when a sign-in link is redeemed in the guest's own
browser (never by a link another browser asked for)."""
from __future__ import annotations

import re
import threading

import pytest

from integrations import ai
from models.job import Job
from models.page import Page
from services import pages
from services.store import render
from tests.ai_factories import unreachable_once
from tests.factories import catalog, find, item, load, new_account, refusal, session_of
from tests.helpers import in_threads
from tests.mailbox import last_link, path_of

# Pages and the assistant's reading of a sentence are written in jobs the routes wait on.
pytestmark = pytest.mark.usefixtures("worker")

HEX32 = re.compile(r"[0-9a-f]{32}")


def holding(founder):
    """A founder holding a product of the catalog (the caller loads it)."""
    client = founder()
    assert find(client).status_code == 200
    return client


def make(client, intent="Make a landing page for my product") -> dict:
    response = client.post("/api/pages", json={"intent": intent})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "ok" and HEX32.fullmatch(body["page_id"]) and body["url"] == f"/store/p/{body['page_id']}"
    return body


def listed(client) -> list[str]:
    body = client.get("/api/pages").get_json()
    assert body["status"] == "ok"
    return [row["page_id"] for row in body["pages"]]


def test_a_landing_page_is_written_from_the_products_facts_and_served_without_script(founder):
    load(item("p00", name="Acacia Knife Strip", price=34.99))
    client = holding(founder)
    body = make(client)
    assert body["kind"] == "landing" and body["title"] == "Acacia Knife Strip" and HEX32.fullmatch(body["guest_id"])
    page = founder().get(body["url"])  # public: whoever has the address, no cookie of its own
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "<h1>Acacia Knife Strip</h1>" in html and "Yours for $34.99." in html and "A fine p00." in html
    assert page.headers["Content-Security-Policy"] == render.PREVIEW_CSP
    assert "script-src" not in page.headers["Content-Security-Policy"] and "unsafe" not in render.PREVIEW_CSP
    assert page.headers["X-Frame-Options"] == "DENY" and "Set-Cookie" not in page.headers
    assert "<script" not in html


@pytest.mark.parametrize(("intent", "kind", "title"), [
    ("Make a returns policy page", "returns", "Returns and refunds"),
    ("I need a page about refunds", "returns", "Returns and refunds"),
    ("write our shipping page", "shipping", "Shipping"),
    ("a privacy policy please", "privacy", "Privacy policy"),
    ("FAQ for the store", "faq", "Frequently asked questions"),
    ("Questions people ask about returns", "faq", "Frequently asked questions"),
])
def test_each_kind_of_page_is_chosen_by_the_founders_words(founder, intent, kind, title):
    catalog(1)
    client = holding(founder)
    body = make(client, intent)
    assert (body["kind"], body["title"]) == (kind, title)
    html = client.get(body["url"]).get_data(as_text=True)
    assert f"<h1>{title}</h1>" in html
    # Nothing the facts do not say: no return window, delivery time or certification is promised.
    assert not re.search(r"\b\d+\s*(days?|weeks?|hours?)\b", html)


def test_every_refusal_of_post_pages(founder, monkeypatch):
    catalog(1)
    nobody = founder()
    # Nothing held is no refusal: a draft to fill (issue 51; tests/test_pages_draft.py).
    assert nobody.post("/api/pages", json={"intent": "Make a returns page"}).get_json()["draft"] is True
    client = holding(founder)
    refusal(client.post("/api/pages", json={}), 400, "no_page_intent")
    refusal(client.post("/api/pages", json={"intent": "   "}), 400, "no_page_intent")
    refusal(client.post("/api/pages", json={"intent": None}), 400, "no_page_intent")
    refusal(client.post("/api/pages", json={"intent": 5}), 400, "no_page_intent")
    refusal(client.post("/api/pages", json={"intent": "returns page " + "x" * 600}), 400, "message_too_long")
    refusal(client.post("/api/pages", json={"intent": "Make it nicer"}), 200, "unknown_page")
    refusal(client.post("/api/pages", data="intent=faq", content_type="application/x-www-form-urlencoded"), 400,
            "invalid_json")

    def unreachable(task, **kwargs):
        raise ai.AIError(ai.errors.UNAVAILABLE, "down")

    monkeypatch.setattr(ai, "complete", unreachable)
    refusal(client.post("/api/pages", json={"intent": "FAQ"}), 200, "cli_unavailable")
    assert Page.select().count() == 1  # nothing kept by any refusal (the one page is nobody's draft)


def test_a_page_is_written_in_a_job_that_tries_an_unreachable_backend_again(founder, monkeypatch):
    catalog(1)
    client = holding(founder)
    calls = unreachable_once(monkeypatch)
    body = make(client, "Make a shipping policy page")
    assert calls == ["page_copy", "page_copy"]
    [job] = Job.select().where(Job.kind == "page_copy")
    assert job.status == Job.DONE and job.attempt == 2 and job.result == {"page_id": body["page_id"]}
    assert Page.select().count() == 1


def test_a_second_delivery_of_the_job_keeps_the_page_the_first_wrote(founder):
    catalog(1)
    client = holding(founder)
    body = make(client, "an FAQ")
    [job] = Job.select().where(Job.kind == "page_copy")
    assert pages.run(job.payload) == {"page_id": body["page_id"]}
    assert Page.select().count() == 1


def test_pages_are_isolated_per_owner(founder):
    catalog(3)
    alice, bob = holding(founder), holding(founder)
    first, second = make(alice), make(alice, "returns policy")
    theirs = make(bob, "FAQ")
    assert sorted(listed(alice)) == sorted([first["page_id"], second["page_id"]])
    assert listed(bob) == [theirs["page_id"]]
    assert listed(founder()) == []
    # Alice's guest id is hers alone; Bob's pages carry another.
    assert first["guest_id"] == second["guest_id"] != theirs["guest_id"]
    assert alice.get("/api/pages").get_json()["guest_id"] == first["guest_id"]
    assert founder().get("/api/pages").get_json()["guest_id"] is None


@pytest.mark.race
def test_first_pages_written_at_once_share_one_guest_id(founder, monkeypatch):
    """Two first pages of one guest, written side by side: each job finds no earlier page,
    and both ids are drawn before either page is kept; the guest still has one id."""
    catalog(2)
    client = holding(founder)
    both_drawn = threading.Barrier(2)
    drawn = pages._guest_id_of

    def side_by_side(session):
        guest_id = drawn(session)
        try:
            both_drawn.wait(timeout=10)
        except threading.BrokenBarrierError:  # the other job came late: the race was not run
            pass
        return guest_id

    monkeypatch.setattr(pages, "_guest_id_of", side_by_side)
    made = in_threads(2, lambda i: make(client, ("landing page for my product", "returns policy")[i]))
    assert not both_drawn.broken
    assert made[0]["guest_id"] == made[1]["guest_id"] and HEX32.fullmatch(made[0]["guest_id"])
    assert {page.guest_id for page in Page.select()} == {made[0]["guest_id"]}
    assert client.get("/api/pages").get_json()["guest_id"] == made[0]["guest_id"]
    # Another guest is given another.
    monkeypatch.undo()
    assert make(holding(founder))["guest_id"] != made[0]["guest_id"]


def test_an_unknown_or_malformed_page_id_is_a_json_404(client):
    refusal(client.get("/store/p/" + "0" * 32), 404, "not_found")
    refusal(client.get("/store/p/not-an-id"), 404, "not_found")


def test_hostile_text_from_a_product_name_cannot_run_script(founder):
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    line = item("p00", name=hostile + " Strip")
    line["description"] = '"><svg onload=alert(3)> A strip.'
    load(line)
    client = holding(founder)
    for intent in ("landing page", "FAQ", "returns policy"):
        page = client.get(make(client, intent)["url"])
        html = page.get_data(as_text=True)
        # The only scripts are structured data (never run), in which no <, > or & survives.
        data = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
        assert all("<" not in text and ">" not in text for text in data), data
        outside = re.sub(r'<script type="application/ld\+json">.*?</script>', "", html, flags=re.S)
        assert "<script" not in outside and "<img" not in outside and "<svg" not in outside, html
        assert 'onerror="' not in html
        assert page.headers["Content-Security-Policy"] == render.PREVIEW_CSP
    html = client.get(make(client)["url"]).get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;svg onload=alert(3)&gt;" in html


def test_a_guest_id_passed_by_another_browser_plants_no_pages_and_the_guests_own_link_upgrades_them(
        founder, run_jobs):
    catalog(2)
    new_account(founder, run_jobs, "pages@x.com")
    guest = holding(founder)
    made = [make(guest), make(guest, "returns policy")]
    guest_id = made[0]["guest_id"]
    # Someone else asks for a link to the account from another browser, passing the guest id
    # through, and the account's owner opens it in a third: anyone can ask for a link to any
    # address, so the guest's pages are not planted into the account.
    phone = founder()
    assert phone.post("/api/auth/request-link", json={"email": "pages@x.com", "guestId": guest_id}).get_json() == \
        {"ok": True}
    run_jobs()
    laptop = founder()
    assert laptop.get(path_of(last_link("pages@x.com", path="/api/auth/callback"))).status_code == 303
    assert session_of(laptop).account_id is not None
    assert listed(laptop) == []
    assert {p.account_id for p in Page.select()} == {None}
    assert set(listed(guest)) == {m["page_id"] for m in made}
    # The guest asks for a link with its guest id and opens it in its own browser: its pages follow.
    assert guest.post("/api/auth/request-link", json={"email": "pages@x.com", "guestId": guest_id}).get_json() == \
        {"ok": True}
    run_jobs()
    assert guest.get(path_of(last_link("pages@x.com", path="/api/auth/callback"))).status_code == 303
    account_id = session_of(guest).account_id
    assert {p.account_id for p in Page.select()} == {account_id}
    assert set(listed(laptop)) == {m["page_id"] for m in made}
    assert laptop.get("/api/pages").get_json()["guest_id"] is None


def test_a_link_without_the_guest_id_upgrades_no_one_elses_pages(founder, run_jobs):
    catalog(2)
    new_account(founder, run_jobs, "other@x.com")
    guest = holding(founder)
    made = make(guest)
    stranger = founder()
    for guest_id in (None, "f" * 32, "not hex", made["guest_id"].upper()):
        response = stranger.post("/api/auth/request-link", json={"email": "other@x.com", "guestId": guest_id})
        assert response.get_json() == {"ok": True}
    refusal(stranger.post("/api/auth/request-link", json={"email": "other@x.com", "guestId": 7}), 400,
            "invalid_request")
    run_jobs()
    stranger.get(path_of(last_link("other@x.com", path="/api/auth/callback")))
    assert listed(stranger) == [] and listed(guest) == [made["page_id"]]


def test_a_sessions_own_pages_follow_it_to_its_account(founder, run_jobs):
    catalog(2)
    new_account(founder, run_jobs, "own@x.com")
    guest = holding(founder)
    made = make(guest, "shipping page")
    guest.post("/api/auth/request-link", json={"email": "own@x.com"})
    run_jobs()
    guest.get(path_of(last_link("own@x.com", path="/api/auth/callback")))
    assert listed(guest) == [made["page_id"]]
    # Signed in, a new page is the account's and carries no guest id.
    signed_in = make(guest, "privacy policy")
    assert "guest_id" not in signed_in and Page.get_by_id(signed_in["page_id"]).account_id is not None
