"""Founder A's journey for the isolation sweep (tests/test_isolation_sweep.py): signed in, a
claimed product with its offer, a store built and published, edits, settings, a domain, a desk
ticket, a customer order paid through the sandbox, tasks, a research workspace, a campaign
book, a top-up, a supplier line, an outcome, a Fix run and a journey carrier. Wherever A (or
A's customer) writes text, the text carries a marker no other founder can have a reason to
see; the identifiers A's answers hand back are collected for founder B to send.

It reuses the area builders (tests/factories.py and friends) rather than writing the areas'
journeys again."""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from models.job import Job
from services import domains
from services.desk import inbound
from tests.factories import (
    KNIFE_STRIP,
    choose,
    claim,
    connect_line,
    customer_mail,
    data_url,
    deliver,
    demo_item,
    demo_product,
    find,
    line_of,
    load,
    order,
    path_of,
    png_bytes,
    saved,
    session_of,
    started,
)
from tests.growth_factories import campaign, saved_book, topup
from tests.mailbox import sign_in_here

A_EMAIL = "founder-a-7q2z@example.com"
B_EMAIL = "founder-b-3k8w@example.com"
DOMAIN = "a-7q2z-strip.shop"

# Text A (or A's customer) wrote. PRIVATE markers must never reach anyone but A; STOREFRONT
# markers are what A publishes (its business name shows on its public store pages). A's own
# address is no marker: B is handed it (every `email` parameter B sends is A's), and may see
# it again where B itself saved it (a Fix run B asked to mail there).
PRIVATE = {
    "customer_email": "cust-7q2z@example.net",
    "ticket_subject": "Subject 7q2z where is it",
    "ticket_text": "Ticket 7q2z body: the strip arrived bent.",
    "desk_note": "Note 7q2z: refund her quietly",
    "rule_keyword": "rule7q2z",
    "canned_subject": "Canned 7q2z subject",
    "canned_body": "Canned 7q2z body",
    "payout_holder": "Holder 7q2z",
    "todo": "Todo 7q2z: call the supplier",
    "workspace_note": "Workspace 7q2z secret",
    "saved_query": "query 7q2z bamboo",
    "campaign": "Campaign 7q2z spring",
    "ad_headline": "Headline 7q2z strong",
    "outcome_note": "Outcome 7q2z note",
    "journey_data": "journey7q2z",
    "product_name": "Own name 7q2z strip",
}
STOREFRONT = {
    "business_name": "Business 7q2z Co",
    "domain": DOMAIN,
}


@dataclass
class Journey:
    """What B is handed: A's identifiers by the parameter names that carry them."""

    product_id: str
    ids: dict = field(default_factory=dict)


def catalog_for_two() -> None:
    """A's product (the knife strip, which has supplier lines) and a few for B to find."""
    load(demo_product(KNIFE_STRIP), *[{**demo_item(f"b{n:02d}"), "rank": 500 - n} for n in range(4)])


def founder_a(founder, run_jobs, fix_site) -> tuple[object, Journey]:
    client = founder()
    sign_in_here(client, run_jobs, A_EMAIL)
    find(client)
    claimed = claim(client).get_json()
    assert claimed["status"] == "claimed" and claimed["product_id"] == KNIFE_STRIP, claimed
    journey = Journey(product_id=KNIFE_STRIP)
    ids = journey.ids
    run_jobs()
    assert client.get("/api/offer").get_json()["product_id"] == KNIFE_STRIP

    build = _ok(client.post("/api/store"))
    ids["job_id"] = build.get("job_id") or Job.select().order_by(Job.created_at.desc()).first().id
    run_jobs()
    assert _ok(client.post("/api/store/publish"))["status"] == "published"
    run_jobs()
    state = _ok(client.get("/api/store"))
    ids["slug"] = urlsplit(state["public_url"]).path.split("/")[2]
    ids["number"] = str(state["version"])

    _ok(client.post("/api/settings/business", json={
        "business_name": STOREFRONT["business_name"], "support_email_local": "support",
        "default_canned_subject": PRIVATE["canned_subject"], "default_canned_body": PRIVATE["canned_body"]}))
    _ok(client.post("/api/settings/payout", json={"method": "bank", "holder": PRIVATE["payout_holder"],
                                                  "account": "DE89 3704 0044 0532 0130 00"}))
    ids["domain"] = DOMAIN
    assert domains.connect_paid_domain(domain_order_id=order(client, DOMAIN).id) is True
    _ok(client.post("/api/ad/edit", json={"platform": "meta", "field": "headline", "value": PRIVATE["ad_headline"]}))

    _desk(client, ids)
    _customer_order(founder, run_jobs, ids)

    ids["todo_id"] = _ok(client.post("/api/todos", json={"op": "add", "text": PRIVATE["todo"]}))["todo"]["id"]
    workspace = "/api/research-workspace"
    ids["note_id"] = _ok(client.post(workspace, json={"op": "add_note", "text": PRIVATE["workspace_note"]}))["note"]["id"]
    ids["query_id"] = _ok(client.post(workspace, json={"op": "save_query", "query": PRIVATE["saved_query"]}))[
        "saved_query"]["id"]
    _ok(client.post(workspace, json={"op": "shortlist", "product_id": KNIFE_STRIP}))
    book = saved_book(client, campaigns=[campaign(name=PRIVATE["campaign"])])
    ids["campaign_id"] = book["book"]["campaigns"][0]["id"]
    ids["topup_id"] = topup(client)["topup_id"]
    line = connect_line(client, line_of(KNIFE_STRIP))
    ids["supplier"], ids["sku"] = line["supplier"], line["sku"]
    _ok(client.post("/api/outcome", json={"spend": 10, "revenue": 25, "note": PRIVATE["outcome_note"]}))
    share = _ok(client.post("/api/share"))
    ids["code"] = urlsplit(share["url"]).path.rstrip("/").rsplit("/", 1)[-1]
    carrier = _ok(client.post("/api/journey", json={"route": "#/app/home", "data": {"m": PRIVATE["journey_data"]}}))
    ids["carrier_id"] = carrier["id"]
    # A's own name and photo for the product, saved after publishing: not on the public pages.
    own = saved(client, name=PRIVATE["product_name"], images=[data_url(png_bytes())])
    ids["image"] = own["product"]["images"][0].rsplit("/", 1)[1]

    fix = _ok(client.post("/api/fix", json={"url": fix_site.origin + "/"}))
    ids["token"] = fix["token"]
    run_jobs()
    assert session_of(client).account_id is not None
    return client, journey


def _desk(client, ids) -> None:
    """A customer writes to A's support address; A opens the ticket and notes on it; a rule."""
    deliver(customer_mail(to=f"support@{DOMAIN}", sender=f"Cy Buyer <{PRIVATE['customer_email']}>",
                          subject=PRIVATE["ticket_subject"], text=PRIVATE["ticket_text"]))
    inbound.poll()  # the clock's mail poll files it
    desk = _ok(client.get("/api/helpdesk"))
    [ticket] = desk["tickets"]
    ids["ticket_id"] = ticket["id"]
    _ok(client.post("/api/helpdesk", json={"action": "note", "ticket_id": ticket["id"], "text": PRIVATE["desk_note"]}))
    rule = _ok(client.post("/api/settings/rules", json={"op": "add", "keyword": PRIVATE["rule_keyword"],
                                                        "set": {"priority": "high"}}))
    ids["rule_id"] = rule["rule"]["id"]


def _customer_order(founder, run_jobs, ids) -> None:
    """A customer buys from A's published store through the sandbox's hosted page."""
    customer = founder()
    opened = started(customer, email=PRIVATE["customer_email"], product_id=KNIFE_STRIP)
    ids["order_id"] = opened["order_id"]
    ids["checkout_id"] = urlsplit(opened["checkout_url"]).path.rstrip("/").rsplit("/", 1)[-1]
    choose(customer, opened["checkout_url"], "pay")
    run_jobs()
    query = parse_qs(urlsplit(path_of(opened["checkout_url"])).query)
    ids.update({name: values[0] for name, values in query.items() if name not in ids})


def _ok(response) -> dict:
    assert response.status_code == 200, (response.request.path, response.get_data(as_text=True)[:500])
    return response.get_json()
