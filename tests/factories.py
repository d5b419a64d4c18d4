"""Builders shared by the test modules: catalog lines, a founder who claimed a product, a built
store, a customer at the payment page, an account, images, supplier lines. The stand-ins for
the outside world (an SMTP handler, Stripe's recorded answers) are in tests/stand_ins.py.

They live here, not in a test module, so that no test module imports another: importing a test
module also imports its fixtures, and which fixtures a test sees should not depend on the
imports of its module. The fixtures themselves are in tests/conftest.py.
"""
from __future__ import annotations

import base64
import gzip
import io
import json
import re
import struct
import zlib
from collections import defaultdict
from contextlib import contextmanager
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from PIL import Image

from api.errors import SIGN_IN_TO_RESEARCH
from config import ROOT
from integrations.payments import sandbox_bank
from models.db import db
from models.domain import DomainOrder
from models.payment import CustomerOrder, Payment
from models.store import Store
from services import domains, evidence_gate
from services.catalog import load_products, parse_catalog
from services.sessions import find_session
from tests import mailbox
from tests.conftest import SETTINGS

# --- Discovery: the day the tests live on, catalog lines, find, claim, pass, select ---------

NOW = datetime(2026, 11, 22, 12, 0, 0)  # the clock of the `frozen_clock` fixture
TODAY = NOW.date()
DEMO_CATALOG = ROOT / "scripts" / "data" / "demo_catalog.jsonl"


def item(pid, *, rank=50.0, price=30.0, cost=10.0, days=(10, 40, 90), category="Home & Kitchen", name=None):
    """A catalog line (as a dict) with evidence dated `days` before TODAY."""
    return {"product_id": pid, "name": name or f"Product {pid}", "description": f"A fine {pid}.",
            "category": category, "price": price, "cost": cost, "currency": "USD",
            "images": [f"/static/demo/{pid}-1.svg", f"/static/demo/{pid}-2.svg"], "rank": rank,
            "evidence": [{"date": (TODAY - timedelta(days=d)).isoformat(), "source": "google_trends",
                          "metric": "interest_index", "value": 50, "note": "steady"} for d in days]}


def load(*items):
    """Loads catalog lines and computes their gate figures (as the loader will)."""
    parsed = parse_catalog([json.dumps(i) for i in items])
    load_products(parsed)
    evidence_gate.refresh([p["product_id"] for p in parsed])
    return [p["product_id"] for p in parsed]


def catalog(count, *, prefix="p"):
    """`count` servable products p00, p01, ... ranked in that order (p00 highest)."""
    return load(*[item(f"{prefix}{n:02d}", rank=1000 - n) for n in range(count)])


def session_of(client):
    return find_session(client.get_cookie("ff_session").value)


def refusal(response, status, reason):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["reason"] == reason, body
    # A first-run state (not_claimed) answers as that state; every other refusal as `refused`.
    word = reason if reason == "not_claimed" else "refused"
    assert body["status"] == word and isinstance(body["explanation"], str) and body["explanation"]
    return body


def find(client):
    return client.get("/api/find")


def claim(client, product_id=None):
    body = {"action": "claim"} | ({"product_id": product_id} if product_id else {})
    return client.post("/api/pass", json=body)


def pass_on(client, product_id=None):
    body = {"action": "pass"} | ({"product_id": product_id} if product_id else {})
    return client.post("/api/pass", json=body)


def select(client, product_id):
    return client.post("/api/select", json={"product_id": product_id})


def discover(client, **body):
    response = client.post("/api/discover", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


@contextmanager
def statements():
    """Collects the SQL of every statement the database runs inside the block."""
    seen = []

    def hook(event):
        seen.append(event.sql)

    db.obj.query_hooks.append(hook)
    try:
        yield seen
    finally:
        db.obj.query_hooks.remove(hook)


def looks_up_session(sql: str) -> bool:
    """Whether a statement is the session lookup by cookie (services/sessions.find_session),
    not a statement that reads the session within its own."""
    return sql.lstrip().upper().startswith('SELECT "T1"."ID", "T1"."TOKEN_HASH"')


# --- Accounts -------------------------------------------------------------------------------

SUCCESS = "/?view=home#/app/home"
FAILURE = "/#login?e=invalid_link"


def cookie_of(client):
    cookie = client.get_cookie("ff_session")
    return cookie.value if cookie else None


def save_address(client, email, **extra):
    return client.post("/api/account", json={"email": email, **extra})


def sign_in(client, run_jobs, email):
    """Asks for a link, reads it from the outbox and opens it in the same browser."""
    client.post("/api/login/request", json={"email": email})
    run_jobs()
    return client.get(mailbox.path_of(mailbox.last_link(email)))


def new_account(founder, run_jobs, email):
    """A founder who saved an address and verified it by opening the mailed link."""
    client = founder()
    assert save_address(client, email).status_code == 200
    run_jobs()
    assert client.get(mailbox.path_of(mailbox.last_link(email))).headers["Location"] == SUCCESS
    return client


# --- Stores ---------------------------------------------------------------------------------

def demo_item(pid="p00", *, description="A solid acacia bar that holds knives flat against the wall.", **changes):
    line = item(pid, rank=1000, **changes)
    line["images"] = ["/static/demo/kitchen-magnetic-knife-strip-1.svg"]
    line["description"] = description
    return line


def claimed_founder(founder, line=None):
    load(line or demo_item())
    client = founder()
    find(client)
    assert claim(client).get_json()["status"] == "claimed"
    return client


def built(client, run_jobs) -> dict:
    started = client.post("/api/store")
    assert started.status_code == 200, started.get_data(as_text=True)
    run_jobs()
    state = client.get("/api/store").get_json()
    assert state["status"] == "built", state
    return state


def store_founder(founder, run_jobs, line=None):
    """A founder whose claimed product's store is built."""
    client = claimed_founder(founder, line)
    built(client, run_jobs)
    return client


TRENDING = {"surface": "home", "requested": "Show shoppers that it is trending"}


def product(pid="p00", extra_days=()):
    line = item(pid, rank=1000, days=(10, 40, 90) + tuple(extra_days))
    line["images"] = ["/static/demo/kitchen-magnetic-knife-strip-1.svg"]
    return line


# --- A founder's own product: images made with Pillow, saves -------------------------------

MEDIA = re.compile(r"^/media/[0-9a-f]{32}\.(png|jpg|webp)$")


def png_bytes(size=(48, 32), color=(200, 40, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def jpeg_with_gps() -> bytes:
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 degrees to show upright
    exif[0x010F] = "SpyCam"  # the maker
    exif[0x8825] = {1: "N", 2: (51.0, 30.0, 12.0), 3: "W", 4: (0.0, 7.0, 40.0)}  # GPS
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 200)).save(out, "JPEG", exif=exif.tobytes(), quality=95)
    return out.getvalue()


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares width x height pixels (a decompression bomb)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def data_url(raw: bytes, kind: str = "image/png") -> str:
    return f"data:{kind};base64," + base64.b64encode(raw).decode()


def save_product(client, **body):
    return client.post("/api/product", json=body)


def saved(client, **body) -> dict:
    response = save_product(client, **body)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert answer["status"] == "saved"
    return answer


def product_of(client) -> dict:
    response = client.get("/api/product")
    assert response.status_code == 200
    return response.get_json()


def unchanged_after(client, response, status, reason):
    """The refusal, and proof that nothing was saved by it."""
    before = product_of(client)["product"]
    body = refusal(response(), status, reason)
    assert product_of(client)["product"] == before
    return body


# --- Commerce: a customer at the sandbox's hosted page --------------------------------------

# What a customer types into the hosted page's shipping address (a customer order collects one).
ADDRESS = {"name": "Ada Lovelace", "line1": "12 Analytical Row", "line2": "Flat 3", "city": "London",
           "region": "", "postal_code": "N1 7AA", "country": "GB"}


def slug() -> str:
    return Store.get(Store.product == "p00").slug


def checkout(customer, *, quantity=1, email="buyer@example.com", product_id="p00"):
    return customer.post("/api/store/checkout", json={"product_id": product_id, "quantity": quantity, "email": email})


def started(customer, **kwargs) -> dict:
    answer = checkout(customer, **kwargs)
    body = answer.get_json()
    assert answer.status_code == 200 and body["status"] == "checkout_started", body
    return body


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def choose(customer, checkout_url: str, action: str, address=ADDRESS):
    """The customer presses a button on the sandbox's hosted page (the address filled in,
    as a customer order's page asks; a page that asks for none ignores it)."""
    page = customer.get(path_of(checkout_url))
    assert page.status_code == 200 and "text/html" in page.content_type
    return customer.post(path_of(checkout_url), data={"action": action, **address})


def follow(customer, response):
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return customer.get(path_of(response.headers["Location"]))


def revenue_of(client) -> list[dict]:
    body = client.get("/api/revenue").get_json()
    assert body["status"] == "ok"
    return body["stores"]


def confirm(client, order_id):
    return client.get(f"/api/store/confirm?order_id={order_id}").get_json()


def payment_of(order_id) -> Payment:
    return Payment.get_by_id(CustomerOrder.get_by_id(order_id).payment)


def signed(body: bytes, *, key=None, at=None) -> dict:
    key = key or sandbox_bank.signing_secret(SETTINGS.secret_key)
    return {"Sandbox-Signature": sandbox_bank.signature_header(key=key, payload=body, timestamp=at),
            "Content-Type": "application/json"}


def order(client, domain) -> DomainOrder:
    return domains.start_domain_order(session=session_of(client), domain=domain)


# --- Suppliers: the bundled feed and the demo catalog's products ----------------------------

BUNDLED = ROOT / "scripts" / "data" / "supplier_feed.jsonl.gz"


def bundled_lines() -> list[dict]:
    with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


FEED = bundled_lines()
DEMO_PRODUCTS = {line["product_id"]: line for line in map(json.loads, DEMO_CATALOG.read_text().splitlines())}
OFFERS = defaultdict(list)  # product id -> the feed lines that offer it
for _line in FEED:
    OFFERS[_line["product_id"]].append(_line)
KNIFE_STRIP = "kitchen-magnetic-knife-strip"


def demo_product(product_id: str = KNIFE_STRIP) -> dict:
    """A demo catalog product as it is, with evidence fresh enough to be served today."""
    return {**DEMO_PRODUCTS[product_id], "evidence": item(product_id)["evidence"], "rank": 1000}


def line_of(product_id: str = KNIFE_STRIP, n: int = 0) -> dict:
    """The n-th feed line offering a product (in feed order)."""
    return OFFERS[product_id][n]


def connect(client, supplier, sku=None, action="connect"):
    body = {"action": action, "supplier": supplier}
    if sku is not None:
        body["sku"] = sku
    return client.post("/api/supplier-connection", json=body)


def connect_line(client, line: dict):
    response = connect(client, line["supplier"], line["sku"])
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert (body["status"], body["supplier"], body["sku"]) == ("connected", line["supplier"], line["sku"]), body
    return body


# --- Registries -----------------------------------------------------------------------------

# The one refusal without a reason code, documented in the decisions: spec 5.13 gives the
# research routes' 401 (a session without an account) "none (explanation only)". Exactly
# these routes answer it, with exactly this body; every other refusal carries a reason.
EXPLANATION_ONLY_401 = {"GET /api/discovery-research", "POST /api/discovery-research",
                        "GET /api/research-workspace", "POST /api/research-workspace"}
EXPLANATION_ONLY_BODY = {"status": "refused", "explanation": SIGN_IN_TO_RESEARCH}


def signed_in_founder_with_store(founder, run_jobs, address="editor@example.com"):
    """A founder signed in by their link, with a claimed product and its store built."""
    load(product())
    client = founder()
    client.post("/api/account", json={"email": address})
    run_jobs()
    link = urlsplit(mailbox.last_link(address))
    client.get(f"{link.path}?{link.query}")
    find(client)
    claim(client)
    built(client, run_jobs)
    return client


def edit(client, message, **body):
    """A plain-language edit of the store."""
    return client.post("/api/ai/edit", json={"message": message, **body})


def published_store(founder, run_jobs):
    """A founder whose store (of product p00) is built and published."""
    client = claimed_founder(founder)
    built(client, run_jobs)
    state = client.post("/api/store/publish").get_json()
    assert state["status"] == "published", state
    return client


# --- The support desk: a founder customers can write to, and a customer's mail ---------------

DESK_DOMAIN = "knife-strip.shop"


def desk_founder(founder, run_jobs, *, pid="p00", domain=DESK_DOMAIN, local="support"):
    """A founder who claimed product `pid`, built its store and can be written to at
    local@domain (the support address saved, the domain connected to the store)."""
    client = store_founder(founder, run_jobs, demo_item(pid))
    assert client.post("/api/settings/business", json={"support_email_local": local}).status_code == 200
    assert domains.connect_paid_domain(domain_order_id=order(client, domain).id) is True
    return client


def customer_mail(*, to=f"support@{DESK_DOMAIN}", sender="Ana Lima <ana@example.net>", subject="Where is my order?",
                  text="Hello, I ordered a knife strip last week. When will it ship?", message_id=None,
                  in_reply_to=None, references=None, headers=None) -> bytes:
    """A customer's mail as a mail server would deliver it (RFC 5322 bytes)."""
    import email.policy
    import email.utils
    from email.message import EmailMessage

    mail = EmailMessage(policy=email.policy.SMTP)
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = email.utils.formatdate()
    mail["Message-ID"] = message_id or email.utils.make_msgid(domain="example.net")
    if in_reply_to:
        mail["In-Reply-To"] = in_reply_to
    if references:
        mail["References"] = references
    for name, value in (headers or {}).items():
        mail[name] = value
    mail.set_content(text)
    return mail.as_bytes()


def deliver(raw: bytes) -> str:
    """Delivers a message into the desk's Maildir (INBOUND_MAILDIR), as a mail server would."""
    from integrations.mail.inbound import deliver_to_maildir

    return deliver_to_maildir(SETTINGS.inbound_maildir, raw)
